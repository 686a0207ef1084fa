"""The check for a hand at the table: a calibrated board, read later, refused or not.

The camera over the table is calibrated on a still of the start position
(``reader.learn_look``: the board's look, and the picture of its frame and
surface that the check for a hand compares with, ``occlusion.check_frame``).
Minutes later the men have moved, the camera's exposure and white balance
have drifted, its frames are JPEG, and the camera itself may have been
nudged a pixel or three. None of that is a hand; a hand, an arm, a sleeve or
a cup over men is.

For each of ``--boards`` boards (the painter's ``Scene``, one board, men,
camera and light for the whole game, drawn from the style sets of
``--style-sets``, by default the training styles and ``held-out-test``, which
the point reader never learnt from), a game is played by the engine
(``turn_scenes.play_games``), the start is drawn without dice and learnt as
the calibration, and ``--frames`` later positions of the game (evenly
spread over it) are drawn with the turn's dice, each:

- *clear*: the camera moved (the picture shifted ``--shift`` pixels, a
  random direction, and turned up to 0.1 degree), its exposure scaled by a
  factor in ``--gain``, each channel's white balance by a factor within
  ``--white`` of 1, and JPEG-encoded at a quality in ``--jpeg``;
- *covered*: the same frame, the same drift, with an arm, a sleeved hand,
  a sleeve or a cup (in turn) drawn over one of its men first
  (``covers.cover_photo``).

Each is read four ways (``read_board``): *cold* (no calibration: the
corners only), *calibrated* with the check as it was before issue 45
(``BASELINE``, the settings that turn the new comparison off: raw Lab
against the calibration photo) and *calibrated* with the shipped
settings, and *at the table* with the shipped settings (the calibration
and, as the watcher reads, the surface of the clear frame read before,
``Reading.surface_seen``). It prints how many clear frames were refused
(each should be read) and how many covered ones were (each should be
refused), per way and per style set, and why the clear frames refused
were.

    python benchmarks/cover_at_table.py                      # 12 boards, 6 frames each
    python benchmarks/cover_at_table.py --boards 4 --frames 3 --seed 3
    python benchmarks/cover_at_table.py --shift 0,0 --gain 1,1 --white 0 --jpeg 95,95   # no drift

CPU only, one thread; progress (board k of n) goes to standard error. About
two seconds a frame on a shared 2-core machine (12 boards x 6 frames: 3
minutes or so).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from covers import KINDS, cover_photo  # noqa: E402
from turn_scenes import game_scene, play_games  # noqa: E402

from willughby.vision.config import VisionConfig  # noqa: E402
from willughby.vision.reader import learn_look, read_board  # noqa: E402

#: the check as it was before issue 45: the picture compared with the calibration photo as it is (no gain
#: matched, no shift allowed)
BASELINE = {"occlusion": {"reference_gain": False, "reference_shift_mm": 0.0}}
WAYS = ("cold", "calibrated, before", "calibrated", "at the table")


def drift(image: np.ndarray, rng: np.random.Generator, shift: tuple[float, float], gain: tuple[float, float],
          white: float, jpeg: tuple[int, int]) -> np.ndarray:
    """*image* as the camera gives it later: moved, its exposure and white balance drifted, JPEG."""
    h, w = image.shape[:2]
    d = float(rng.uniform(*shift))
    a = float(rng.uniform(0, 2 * np.pi))
    M = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-0.1, 0.1)), 1.0)
    M[:, 2] += (d * np.cos(a), d * np.sin(a))
    out = cv2.warpAffine(image, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    scale = float(rng.uniform(*gain)) * rng.uniform(1 - white, 1 + white, 3)
    out = np.clip(out.astype(np.float32) * scale.astype(np.float32), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(jpeg[0], jpeg[1] + 1))])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    assert ok and decoded is not None
    return decoded


def measure(args: argparse.Namespace, quiet: bool = False) -> dict[str, Any]:
    """Every board calibrated, then its clear and covered frames read each way (module docstring)."""
    cv2.setNumThreads(1)
    shipped = VisionConfig.default()
    before = shipped.with_values(BASELINE)
    sets = args.style_sets.split(",")
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for b in range(args.boards):
        style_set = sets[b % len(sets)]
        if not quiet:
            print(f"board {b + 1} of {args.boards} ({style_set}), {time.perf_counter() - t0:.0f} s", file=sys.stderr,
                  flush=True)
        game = play_games(args.seed * 1000 + b, 60, 0.0)[0]
        scene, _ = game_scene(args.seed * 7919 + b, style_set)
        start = game[0].before.to_board()
        still, label = scene.render(start, np.random.default_rng([args.seed, b, 0]), n_dice=0)
        corners = label["corners"]
        look = learn_look(still, corners, shipped, known=start)
        rng = np.random.default_rng([args.seed, b, 1])
        cover_rng = random.Random(args.seed * 1000 + b)
        recent = None
        picks = np.linspace(len(game) / (args.frames + 1), len(game) - 1, args.frames).astype(int)
        for k, n in enumerate(picks):
            case = game[int(n)]
            frame, flabel = scene.render(case.after, np.random.default_rng([args.seed, b, 2, k]),
                                         dice_values=case.dice)
            kind = KINDS[(b + k) % len(KINDS)]
            try:
                hidden, where, _ = cover_photo(frame, flabel, shipped, kind, cover_rng)
            except ValueError:                      # no man on a point to cover
                hidden, where = None, ""
            state = rng.bit_generator.state
            clear = drift(frame, rng, args.shift, args.gain, args.white, args.jpeg)
            rng.bit_generator.state = state         # the covered twin drifts alike
            covered = drift(hidden, rng, args.shift, args.gain, args.white, args.jpeg) if hidden is not None else None
            for name, picture in (("clear", clear), ("covered", covered)):
                if picture is None:
                    continue
                readings = (read_board(picture, corners, shipped), read_board(picture, corners, before, look=look),
                            read_board(picture, corners, shipped, look=look),
                            read_board(picture, corners, shipped, look=look, recent=recent))
                rows.append({"board": b, "style_set": style_set, "frame": k, "kind": name,
                             "cover": where if name == "covered" else "",
                             **{w: bool(r.occluded) for w, r in zip(WAYS, readings)},
                             "why": {w: r.occluded_why for w, r in zip(WAYS, readings) if r.occluded}})
                if name == "clear" and not readings[3].occluded:
                    recent = readings[3].surface_seen
    return {"boards": args.boards, "frames": args.frames, "seed": args.seed, "style_sets": sets,
            "shift": args.shift, "gain": args.gain, "white": args.white, "jpeg": args.jpeg, "rows": rows,
            "seconds": time.perf_counter() - t0}


def report(result: dict[str, Any]) -> list[str]:
    rows = result["rows"]
    lines = [f"{result['boards']} boards ({', '.join(result['style_sets'])}), {result['frames']} frames each after "
             f"calibrating on the start (seed {result['seed']}); camera moved {result['shift'][0]}-{result['shift'][1]} "
             f"px, exposure x{result['gain'][0]}-{result['gain'][1]}, white balance +-{result['white']}, JPEG "
             f"{result['jpeg'][0]}-{result['jpeg'][1]}; {result['seconds']:.0f} s", "",
             "| frames | " + " | ".join(WAYS) + " |", "| --- |" + " --- |" * len(WAYS)]
    for style_set in result["style_sets"] + [None]:
        for kind in ("clear", "covered"):
            sel = [r for r in rows if r["kind"] == kind and (style_set is None or r["style_set"] == style_set)]
            if not sel:
                continue
            name = f"{'**' if style_set is None else ''}{kind} refused{'**' if style_set is None else ''}" + (
                f", {style_set}" if style_set else "")
            lines.append(f"| {name} | " + " | ".join(f"{sum(r[w] for r in sel)}/{len(sel)}" for w in WAYS) + " |")
    for w in WAYS:
        why = Counter(r["why"][w].split(" (")[0] for r in rows if r["kind"] == "clear" and w in r["why"])
        if why:
            lines.append(f"clear refused, {w}: " + "; ".join(f"{k} x{n}" for k, n in why.most_common()))
    missed = [f"board {r['board']} frame {r['frame']} ({r['cover']})" for r in rows
              if r["kind"] == "covered" and not r["calibrated"]]
    if missed:
        lines.append("covered but read, calibrated: " + "; ".join(missed))
    return lines


def _pair(kind: type) -> Any:
    def parse(text: str) -> tuple[Any, Any]:
        a, b = text.split(",")
        return kind(a), kind(b)
    return parse


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=12)
    ap.add_argument("--frames", type=int, default=6, help="later frames of each board (each clear and covered)")
    ap.add_argument("--seed", type=int, default=45)
    ap.add_argument("--style-sets", default="training,held-out-test", help="comma-separated, the boards take turns")
    ap.add_argument("--shift", type=_pair(float), default=(1.0, 3.0), help="the camera moved LO,HI px (default 1,3)")
    ap.add_argument("--gain", type=_pair(float), default=(0.8, 1.2), help="exposure scaled by LO,HI (default 0.8,1.2)")
    ap.add_argument("--white", type=float, default=0.08, help="each channel scaled within 1 +- this (default 0.08)")
    ap.add_argument("--jpeg", type=_pair(int), default=(60, 90), help="JPEG quality LO,HI (default 60,90)")
    ap.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    args = ap.parse_args(argv)
    if args.boards < 1 or args.frames < 1:
        ap.error("--boards and --frames must be at least 1")
    result = measure(args)
    print(json.dumps(result, indent=1) if args.json else "\n".join(report(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
