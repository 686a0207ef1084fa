"""Labelled frames of a tables board, path-traced by Blender.

The project's generator (``willughby.vision.synth``) paints its scenes
itself, fast but flat.  This tool takes the very same scenes
(``synth.plan_scene``: position, board, men, dice, camera and light drawn
from the same seeds) and has Blender build them in 3D and path-trace them
with Cycles through the Filmic view, as a camera-like renderer would: light
that bounces between men, soft shadows, highlights on the men's rims, the
side walls of piles lit as the light falls.  A network trained only on the
painted frames reads the dev set's path-traced ones worse than the painted
ones (docs/point-reader.md); frames from both renderers teach it what a pile
looks like, not what one renderer draws.

    python tools/blender_frames.py OUTDIR --count 400 --seed 20000 [--jobs 2] [synth's scene options]

Writes ``OUTDIR/f00000.jpg`` + ``.json`` (the dev set's label format) for
each frame; the raw renders (and the scenes handed to Blender) wait in
``OUTDIR/raw``, and a frame whose JPEG is
already there is not rendered again, so a stopped run resumes.  About 13 s a
frame at 1280x720 on two cores, at 16 samples a pixel; the cheap recipe (``--size 640x360 --samples 4
--denoise 6 --board-only``, docs/vision-painter.md) about 2 s.  Needs Blender (Debian: ``apt-get install
blender``; 3.4 was used); only for making training data, never at run time.
With ``--inlaid`` some frames show inlaid sets, and with ``--covered-share``
some have a hand, a sleeve or a cup over the men (``blender_looks.py``): those
are labelled occluded, for measuring the check for a cover; the point reader,
which never reads a refused frame, never learns from them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path

import cv2
import numpy as np

from willughby.vision import synth

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))                # the tools beside it: blender_looks, render_like_dev
from blender_looks import COVER_KINDS, cover, inlay, widen_light  # noqa: E402
LOOKS = ("None", "Medium Low Contrast", "Medium Contrast", "Medium High Contrast")
# the light's colour, and the sky's (its ambient), per lighting style
LIGHT_RGB = {"daylight_window": (1.0, 0.98, 0.95), "warm_lamp": (1.0, 0.80, 0.58), "overhead": (1.0, 0.97, 0.92)}
# the painter's light of each fall-off (``synth.STYLES["lighting"]``), as one of the three kinds above
FALLOFF_KIND = {"gradient": "daylight_window", "spot": "warm_lamp", "spot_wide": "overhead"}
SKY_RGB = {"daylight_window": (0.80, 0.87, 1.0), "warm_lamp": (1.0, 0.85, 0.7), "overhead": (0.95, 0.95, 0.95)}


def board_border(corners: list, size: tuple[int, int], margin: float = 0.18) -> list[float]:
    """The part of the frame a training frame needs (the playing surface's *corners* widened by *margin* of
    its size each way, for the frame, the bar and the men off), as shares of the frame from its top left:
    rendering only that (Blender's border) leaves the rest black."""
    xy = np.asarray(corners, float)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    pad = (hi - lo) * margin
    w, h = size
    x0, y0 = np.clip((lo - pad) / (w, h), 0.0, 1.0)
    x1, y1 = np.clip((hi + pad) / (w, h), 0.0, 1.0)
    return [round(float(x0), 4), round(float(y0), 4), round(float(x1), 4), round(float(y1), 4)]


def scene_of(plan: synth.ScenePlan, rng: np.random.Generator, name: str, samples: int = 16,
             varied_light: bool = False) -> dict:
    """The Blender scene (world millimetres) of one planned scene; *rng*
    draws what only this renderer needs (light power, look, exposure...),
    and with *varied_light* the wider light and finish of ``widen_light``
    (drawn last, so scenes without it stay as they were)."""
    board, geo, cam = plan.board, plan.board.geo, plan.cam
    W, D = board.W, board.D

    def local(x, y):
        """Geometry (origin C3) to the board's own frame (centre, b across)."""
        u, v = board.g2l(x, y)
        return float(u) - W / 2, -(float(v) - D / 2)

    half, length = geo.config.point_width / 2, geo.config.point_length
    tris, colour_of = [], []
    swap = int(rng.random() < 0.5)
    for col in range(12):
        x = geo.point_centre_x(13 + col)
        for top in (True, False):
            if top:
                tri = [(x - half, 0.0), (x + half, 0.0), (x, length)]
            else:
                tri = [(x - half, D), (x + half, D), (x, D - length)]
            tris.append([local(a, b) for a, b in tri])
            colour_of.append((col + (0 if top else 1) + swap) % 2)
    b0, b1 = geo.bar_x
    bar_u = (W - b1, W - b0) if board.mirror else (b0, b1)

    men = []
    for m in plan.men:
        u, v = board.g2l(m.x, m.y)
        support = board.zs + (board.bh if m.on_bar else 0.0)
        xyz = board.l2w(u, v, support + m.level * plan.thick)
        tip = [0.0, 0.0]
        side = ("light", "dark")[m.colour]
        in_pile = (not m.on_bar and plan.doc["stacked"][side][m.point - 1] >= 2
                   and math.dist((m.x, m.y), geo.slot_centre(m.point, 0)) < 6)
        if m.level >= 1 and not m.on_bar and not in_pile:
            tip = [float(t) for t in rng.normal(0, 1.5, 2)]   # a man laid across two others sits a little askew
        men.append({"xyz": [float(c) for c in xyz], "colour": int(m.colour), "tip": tip,
                    "turn": float(rng.uniform(0, 360))})
    light_c, dark_c, grooved = plan.men_e
    grooves = (grooved, grooved) if plan.finish is None else plan.finish.grooved

    dice = []
    for (x, y, turn), value in zip(plan.dice_xy, plan.dice_values):
        u, v = board.g2l(x, y)
        dice.append({"xyz": [float(c) for c in board.l2w(u, v, board.zs)], "size": plan.die_size,
                     "yaw": float(board.yaw + math.degrees(turn)), "value": int(value)})

    kind = plan.lighting
    rgb = LIGHT_RGB.get(kind)
    if rgb is None:                       # a held-out style: the kind of light its fall-off says, its own cast
        style = synth.STYLES["lighting"][kind]
        kind = FALLOFF_KIND[style["falloff"]]
        rgb = tuple(round(c / max(style["cast"]), 4) for c in style["cast"])
    direction = [float(c) for c in plan.light.L]
    if kind == "warm_lamp":
        light = {"type": "POINT", "energy": float(rng.uniform(34, 56)), "size": [float(rng.uniform(0.03, 0.12))] * 2,
                 "distance": float(rng.uniform(0.9, 1.4)), "ambient": float(rng.uniform(0.03, 0.07))}
    elif kind == "overhead":
        direction = [0.15 * direction[0], 0.15 * direction[1], 1.0]
        light = {"type": "AREA", "energy": float(rng.uniform(55, 85)), "size": [float(rng.uniform(0.5, 1.0))] * 2,
                 "distance": float(rng.uniform(1.2, 1.8)), "ambient": float(rng.uniform(0.05, 0.1))}
    else:
        light = {"type": "AREA", "energy": float(rng.uniform(120, 195)),
                 "size": [float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.6))],
                 "distance": float(rng.uniform(1.8, 2.6)), "ambient": float(rng.uniform(0.06, 0.14))}
    light.update({"dir": direction, "target": [float(c) for c in plan.target], "rgb": rgb,
                  "ambient_rgb": SKY_RGB[kind]})
    tb = synth.STYLES["table"][plan.table]
    table = {"kind": "grain" if tb["kind"] == "wood" else "cloth", "light": tb["light"],
             "dark": tb.get("dark", [c * 0.85 for c in tb["light"]])}
    wood = dict(plan.wood_e)
    scene = {
        "name": name,
        "size": list(plan.size),
        "samples": int(samples),
        "seed": int(rng.integers(0, 2 ** 31 - 1)),
        "look": str(rng.choice(LOOKS, p=[0.27, 0.33, 0.3, 0.1])),
        "exposure": round(float(rng.uniform(-0.7, 0.0)), 2),
        "camera": {"C": [float(c) for c in cam.C], "R": cam.R.tolist(), "f": float(cam.f),
                   "cx": float(cam.cx), "cy": float(cam.cy)},
        "light": light,
        "table": table,
        "board": {"W": W, "D": D, "fw": board.fw, "rh": board.rh, "bh": board.bh, "zs": board.zs,
                  "yaw": board.yaw, "bar_u": list(bar_u),
                  "wood": {"light": list(wood["light"]), "dark": list(wood["dark"]),
                           "kind": "grain" if wood["kind"] == "grain" else "leather"},
                  "field": {"colour": None if plan.field_e["colour"] is None else list(plan.field_e["colour"]),
                            "kind": plan.field_e["kind"]},
                  "point_rgb": [list(c) for c in plan.points_e], "point_tris": tris, "point_colour": colour_of},
        "men": {"list": men, "rgb": [list(light_c), list(dark_c)], "grooved": [bool(g) for g in grooves],
                "groove": float(rng.uniform(0.55, 0.75)), "rim": float(rng.uniform(0.8, 2.0)),
                "radius": geo.config.man_diameter / 2, "thick": plan.thick,
                "rough": float(rng.uniform(0.25, 0.55)), "spec": float(rng.uniform(0.3, 0.55))},
        "dice": {"list": dice, "rgb": list(synth._DICE_BODY[plan.dice_body])},
    }
    if varied_light:
        widen_light(scene, rng)
    return scene


def widen(scene: dict, label: dict, seed: int, index: int, inlaid: float, covered: float) -> None:
    """Frame *index*'s inlays (in an *inlaid* share of the frames) and its cover (in a *covered* share),
    each drawn from a stream of its own (``blender_looks``); a covered frame is labelled occluded."""
    if inlaid > 0:
        looks = np.random.default_rng([seed, 11, index])
        if looks.random() < inlaid:
            inlay(scene, looks)
            label.setdefault("style", {})["inlaid"] = True
    if covered > 0 and scene["men"]["list"]:
        over = np.random.default_rng([seed, 13, index])
        if over.random() < covered:
            kind = COVER_KINDS[int(over.integers(len(COVER_KINDS)))]
            scene["cover"] = cover(scene, over, kind)
            label["occluded"] = True
            label.setdefault("style", {})["cover"] = kind


def post_params(rng: np.random.Generator) -> dict:
    """Camera effects over the rendered frame, in the dev set's ranges."""
    return {"vignette": round(float(rng.uniform(0.1, 0.45)), 3), "blur": round(float(rng.uniform(0.03, 0.9)), 2),
            "noise": round(float(rng.uniform(1.2, 3.4)), 2), "jpeg_q": int(rng.integers(84, 95))}


def lens_of(size: tuple[int, int], k1: float) -> tuple[np.ndarray, np.ndarray]:
    """A camera matrix for a frame of *size* (the focal length half the frame's diagonal, the centre in the
    middle) and OpenCV's distortion coefficients with radial *k1* (negative: barrel, as wide lenses give)."""
    w, h = size
    f = 0.5 * math.hypot(w, h)
    return np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]]), np.array([k1, 0.0, 0.0, 0.0, 0.0])


def distort_points(xy: np.ndarray, size: tuple[int, int], k1: float) -> np.ndarray:
    """Where pixels *xy* of a pinhole frame fall through the lens of ``lens_of``."""
    K, dist = lens_of(size, k1)
    pts = np.asarray(xy, np.float64).reshape(-1, 2)
    norm = (pts - K[:2, 2]) / K[0, 0]
    r2 = (norm ** 2).sum(axis=1, keepdims=True)
    return norm * (1 + dist[0] * r2) * K[0, 0] + K[:2, 2]


def distort(image: np.ndarray, k1: float) -> np.ndarray:
    """*image* (a pinhole render) as a lens of radial distortion *k1* shows it: each pixel of the result
    takes the render's colour where the lens brought it from."""
    h, w = image.shape[:2]
    K, dist = lens_of((w, h), k1)
    grid = np.stack(np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)), -1)
    src = cv2.undistortPoints(grid.reshape(-1, 1, 2), K, dist, P=K).reshape(h, w, 2).astype(np.float32)
    return cv2.remap(image, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def distort_label(label: dict, k1: float) -> None:
    """The label's pixel places (the corners, the dice's centres) moved as ``distort`` moves the picture."""
    size = tuple(label["image_size"])
    label["corners"] = [[round(float(x), 2), round(float(y), 2)]
                        for x, y in distort_points(np.asarray(label["corners"]), size, k1)]
    for die in label.get("dice", []):
        x, y = distort_points(np.asarray([die["center"]]), size, k1)[0]
        die["center"] = [round(float(x), 2), round(float(y), 2)]
    label.setdefault("style", {})["lens_k1"] = round(k1, 4)


def finish(raw: np.ndarray, rng: np.random.Generator, post: dict) -> bytes:
    """Vignetting, lens blur, sensor noise and a JPEG round trip."""
    h, w = raw.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    rn2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    v = 1 - post["vignette"] * np.clip(rn2, 0, 1.2) ** 1.1
    img = np.clip(raw.astype(np.float32) * v[..., None], 0, 255).astype(np.uint8)
    img = synth._camera_effects(img, rng, post)
    ok, jpeg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, post["jpeg_q"]])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return jpeg.tobytes()


def run_blender(blender: str, scenes: list[dict], scene_file: Path, raw: Path, threads: int) -> subprocess.Popen:
    scene_file.write_text(json.dumps(scenes))
    env = dict(os.environ, WILLUGHBY_BLENDER_THREADS=str(threads))
    cmd = [blender, "-b", "--factory-startup", "-noaudio", "-P", str(HERE / "blender_scene.py"), "--",
           str(scene_file), str(raw)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=20000)
    ap.add_argument("--jobs", type=int, default=1, help="Blender processes at once (they share the cores)")
    ap.add_argument("--samples", type=int, default=16,
                    help="Cycles samples a pixel (the dev set used 32; 16 takes half the time)")
    ap.add_argument("--denoise", type=float, default=0.0, metavar="H",
                    help="denoise each render before the camera's effects (OpenCV's non-local means of this "
                         "strength, e.g. 6: Debian's Blender has no denoiser of its own), so few samples suffice")
    ap.add_argument("--board-only", action="store_true",
                    help="render only the board's part of the frame (the table beyond it left black): for "
                         "training the point reader, which reads the points alone")
    ap.add_argument("--size", default="1280x720", metavar="WxH",
                    help="the frame's size (default 1280x720; 640x360 is about the reader's own resolution, "
                         "a millimetre of the board a pixel)")
    ap.add_argument("--varied-light", action="store_true",
                    help="widen the light and the men's finish: lamps from 2,700 to 7,500 K, a second light of "
                         "another colour, glossy to matt men with sharp to bevelled rims, dark men on dark points "
                         "and light on light")
    ap.add_argument("--lens-distortion", type=float, default=0.0, metavar="K",
                    help="bend each frame through a lens of radial distortion drawn from -K (barrel, a wide Pi "
                         "Camera Module 3 or a phone) to K/4 (pincushion), the label's corners and dice moved "
                         "with it (e.g. 0.12)")
    ap.add_argument("--inlaid", type=float, default=0.0, metavar="SHARE",
                    help="this share of the frames shows an inlaid set: men's faces with a disc, star or ring of "
                         "other woods, points of wood or bordered with marquetry, panels in the field")
    ap.add_argument("--covered-share", type=float, default=0.0, metavar="SHARE",
                    help="this share of the frames has a bare arm and hand, a sleeved one, a sleeve or a dice cup "
                         "over one of the men (labelled occluded: for measuring the check for a cover, never "
                         "learnt from by the point reader)")
    ap.add_argument("--blender", default=shutil.which("blender") or "blender")
    ap.add_argument("--position-kind", choices=synth.POSITION_KINDS)
    ap.add_argument("--palette-jitter", type=float, default=0.0)
    ap.add_argument("--style-set", choices=[*synth.STYLE_SETS, synth.RANDOMIZED],
                    help="draw the palettes from this set (default: the training styles); 'held-out-test' for "
                         "frames to measure a network on that it never learnt the look of")
    ap.add_argument("--like", type=Path, metavar="DEVDIR",
                    help="draw the scenes of this folder's labels instead (a diagnostic, as "
                         "tools/render_like_dev.py: never train on it)")
    synth.add_scene_options(ap)
    args = ap.parse_args(argv)
    if not shutil.which(args.blender) and not Path(args.blender).exists():
        ap.error(f"no Blender at {args.blender!r} (Debian: apt-get install blender)")
    if args.count < 1 or args.jobs < 1:
        ap.error("--count and --jobs must be at least 1")
    try:
        size = tuple(int(v) for v in args.size.lower().split("x"))
        if len(size) != 2 or min(size) < 64:
            raise ValueError
    except ValueError:
        ap.error(f"--size takes WIDTHxHEIGHT in pixels, at least 64 each, not {args.size!r}")
    if args.samples < 1:
        ap.error("--samples must be at least 1")
    for name, share in (("--inlaid", args.inlaid), ("--covered-share", args.covered_share)):
        if not 0 <= share <= 1:
            ap.error(f"{name} takes a share from 0 to 1, not {share}")
    if not 0 <= args.lens_distortion <= 0.5:
        ap.error(f"--lens-distortion takes a share from 0 to 0.5, not {args.lens_distortion}")
    try:
        spec = synth.SceneSpec(occluded=False, position_kind=args.position_kind, palette_jitter=args.palette_jitter,
                               style_set=args.style_set, image_size=size, **synth.scene_options(args))
    except synth.SynthError as exc:
        ap.error(str(exc))
    raw = args.out / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    todo, labels = [], {}
    specs = [spec] * args.count
    names = [f"f{i:05d}" for i in range(args.count)]
    if args.like:
        from render_like_dev import spec_like
        found = [json.loads(p.read_text()) for p in sorted(args.like.glob("*.json"))]
        pairs = [(p.stem, lab) for p, lab in zip(sorted(args.like.glob("*.json")), found) if not lab.get("occluded")]
        names = [stem for stem, _ in pairs]
        specs = [spec_like(lab, **synth.scene_options(args)) for _, lab in pairs]
    for i, (name, spec) in enumerate(zip(names, specs)):
        if (args.out / f"{name}.jpg").exists():
            continue
        rng = np.random.default_rng([args.seed, i])
        plan = synth.plan_scene(rng, spec)
        scene = scene_of(plan, rng, name, args.samples, args.varied_light)
        post = post_params(rng)                  # (drawn here, in the same order as ever: after the scene)
        label = plan.label(post, {"renderer": "blender-cycles"})
        widen(scene, label, args.seed, i, args.inlaid, args.covered_share)
        if args.board_only:
            scene["border"] = board_border(label["corners"], plan.size)
        todo.append(scene)
        labels[name] = (label, post, rng)
    print(f"{len(names) - len(todo)} frames already there, {len(todo)} to render", flush=True)
    threads = max(1, (os.cpu_count() or 1) // args.jobs)
    procs = []
    for j in range(args.jobs):
        part = todo[j::args.jobs]
        if part:
            procs.append(run_blender(args.blender, part, raw / f"scenes{j}.json", raw, threads))
    t0 = time.perf_counter()
    done = 0
    pending = dict(labels)
    while procs or pending:
        finished = []
        for p in list(procs):
            line = p.stdout.readline()
            if line == "" and p.poll() is not None:
                procs.remove(p)
                if p.returncode:
                    print(f"Blender stopped with exit code {p.returncode}", file=sys.stderr)
                continue
            if line.startswith("WILLUGHBY") or "Error" in line:
                print(line.rstrip(), flush=True)
            if line.startswith("WILLUGHBY rendered "):
                finished.append(line.split()[2])
        # only the frames Blender said it wrote (a look at every pending frame for each of Blender's many
        # lines cost more than the renders over thousands of frames); once Blender is done, every one left
        for name in (finished if procs else list(pending)):
            path = raw / f"{name}.png"
            if name not in pending or not path.exists():
                continue
            label, post, rng = pending.pop(name)
            image = cv2.imread(str(path))
            if image is None:
                print(f"{name}: unreadable render, skipped", file=sys.stderr)
                continue
            if args.denoise > 0:
                image = cv2.fastNlMeansDenoisingColored(image, None, args.denoise, args.denoise, 7, 21)
            if args.lens_distortion > 0:        # (drawn from its own stream: the frame's other draws stay)
                k1 = float(np.random.default_rng([args.seed, 7, int(name[1:]) if name[1:].isdigit()
                                                  else zlib.crc32(name.encode())])     # (--like: the dev set's names)
                           .uniform(-args.lens_distortion, args.lens_distortion / 4))
                image = distort(image, k1)
                distort_label(label, k1)
            (args.out / f"{name}.json").write_text(json.dumps(label))
            (args.out / f"{name}.jpg").write_bytes(finish(image, rng, post))
            done += 1
            rate = (time.perf_counter() - t0) / done
            print(f"{done}/{len(labels)} frames, {rate:.1f} s each, {rate * (len(labels) - done):.0f} s to go",
                  flush=True)
        if not procs and pending:
            print(f"{len(pending)} frames not rendered (see Blender's messages above)", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
