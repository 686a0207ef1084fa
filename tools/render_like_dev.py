"""Render the dev set's scenes again with the project's own generator.

For each labelled frame of a folder (the dev set), this writes a generated
frame of the same position, from the same camera (tilt, turn, focal length,
fill), with the same styles of wood, men, points, field, table and light
and the same men's thickness, as the label's ``style`` names them.  Reading
both folders with the same reader separates what is hard about the scenes
(the positions, the views) from what differs in how the two renderers draw
them: on the dev set's Doublets scenes the point reader of 2026-11-21 read
71 of the 98 men at the edge right, and 92 of 98 on these frames.

It is a diagnostic.  Never train on its output: it is made from the dev
set's labels, and the dev set is kept for measuring.

    python tools/render_like_dev.py DEV_FOLDER /tmp/like-dev [--edge-gap 2] [--varied-men]
    willughby vision evaluate /tmp/like-dev
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from willughby.vision import synth


_BOARD_KEYS = ("format", "light", "dark", "bar", "off", "stacked")


def spec_like(label: dict, **options) -> synth.SceneSpec:
    """A scene of the label's position, camera and styles (styles the
    generator does not know are left to chance); *options*: more
    ``SceneSpec`` fields (``synth.scene_options``).  A label with no
    ``style`` (a photograph's) gives its position and picture size, seen
    nearly from above with the board filling the frame, the rest left to
    chance: a painted frame to set beside the photograph."""
    if "style" not in label:
        w, h = label.get("image_size") or (640, 640)
        spec = synth.SceneSpec(position={k: label[k] for k in _BOARD_KEYS if k in label}, image_size=(int(w), int(h)),
                               tilt_deg=8.0, fill=0.97, n_dice=0, occluded=False, **options)
        return _turned_like(spec, np.asarray(label["corners"], float))

    s = label["style"]

    def known(key: str, table: dict) -> str | None:
        value = s.get(key)
        return value if value in table else None

    return synth.SceneSpec(
        position=label, tilt_deg=float(s["tilt_deg"]), board_yaw_deg=float(s["board_yaw"]) % 360,
        cam_az_deg=float(s["cam_az_deg"]), cam_roll_deg=float(s["cam_roll_deg"]), mirror=bool(s["mirror"]),
        focal_mm=float(s["focal_mm"]), fill=float(s["fill"]), row_max=int(s["row_max"]),
        men_thick_mm=float(s["men_thick"]) * 36.0, n_dice=0, occluded=False,
        wood=known("wood", synth.WOODS), men=known("men", synth.MEN_COLOURS),
        points=known("points", synth.POINT_COLOURS), field=known("field", synth.FIELDS),
        table=known("table", synth.TABLES), lighting=known("lighting", synth.LIGHTINGS),
        image_size=tuple(s["image_size"]), **options)


def _turned_like(spec: synth.SceneSpec, corners: np.ndarray) -> synth.SceneSpec:
    """*spec* with the board turned and mirrored as the photograph's corners
    C1..C4 lie: of the four quarter turns, each mirrored or not, the one
    whose corners' edges point most nearly the same ways."""
    def edges(c: np.ndarray) -> np.ndarray:
        v = np.array([c[3] - c[2], c[1] - c[2]])          # C3 -> C4 (along the board), C3 -> C2 (across)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    want = edges(corners)
    best = None
    for yaw in (0.0, 90.0, 180.0, 270.0):
        for mirror in (False, True):
            s = replace(spec, board_yaw_deg=yaw, mirror=mirror)
            got = edges(synth.plan_scene(np.random.default_rng(0), s).corners())
            score = float((got * want).sum())
            if best is None or score > best[0]:
                best = (score, s)
    return best[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dev", type=Path, help="folder of labelled frames (img_0001.jpg + img_0001.json ...)")
    ap.add_argument("out", type=Path, help="folder to write the generated frames to")
    synth.add_scene_options(ap)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    labels = sorted(args.dev.glob("*.json"))
    if not labels:
        ap.error(f"no labels (*.json) in {args.dev}")
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    written = skipped = 0
    for k, path in enumerate(labels, start=1):
        try:
            label = json.loads(path.read_text())
            if label.get("occluded"):
                skipped += 1
                continue
            spec = spec_like(label, **synth.scene_options(args))
        except (ValueError, KeyError, TypeError, synth.SynthError) as exc:
            print(f"{path.name}: skipped ({exc})", file=sys.stderr)
            skipped += 1
            continue
        jpeg, out_label = synth.render_jpeg(np.random.default_rng([args.seed, k]), spec)
        (args.out / f"{path.stem}.jpg").write_bytes(jpeg)
        (args.out / f"{path.stem}.json").write_text(json.dumps(out_label))
        written += 1
        print(f"{k}/{len(labels)} {path.stem}", flush=True)
    print(f"wrote {written} frames to {args.out} ({skipped} skipped: occluded or unreadable) "
          f"in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
