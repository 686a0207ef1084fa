"""Benchmark of corner refinement (issue 16): rough corners, found edges.

    python benchmarks/corners.py [--count 100] [--seed 31] [--dev FOLDER] [--amplitudes 0,3,6,10]

A player marks the board's corners with a finger, 5-10 px off.  For each
set of frames -- generated with the training styles, generated with the
held-out-fit styles (``SceneSpec(style_set="held-out-fit")``), and the dev
set -- every corner is moved at random by up to each amplitude (px,
uniform over the disc; the same moves with and without refinement), and the
benchmark prints:

* the corner error (px) as given and after ``refine.refine_corners``:
  median and 95th percentile, along the board and across it apart (the
  refinement moves corners along the board only), and the share of frames
  it moved corners in;
* the reader's per-location accuracy (26 locations x 2 colours) and the
  boards read exactly, from the corners as given and refined;
* the milliseconds refinement takes (median, p95), single-threaded.

Figures only, no pass or fail (figures only, never pass or fail).  The dev set is
measured, never tuned on.  Generated frames are drawn without a hand over
the board (``occluded=False``): the reader refuses those whatever the corners.
"""

from __future__ import annotations

import argparse
import os
import json
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from willughby.vision.config import VisionConfig
from willughby.vision.evaluate import _counts
from willughby.vision.reader import read_board
from willughby.vision.refine import refine_corners
from willughby.vision.synth import SceneSpec, render

HERE = Path(__file__).resolve().parent
DEFAULT_DEV = Path(os.environ.get("WILLUGHBY_VISION_DEV", "."))


def _frames(kind: str, count: int, seed: int, dev: Path):
    if kind == "dev":
        for label_path in sorted(dev.glob("*.json")):
            image_path = label_path.with_suffix(".jpg")
            if not image_path.exists():
                continue
            label = json.loads(label_path.read_text())
            if label.get("occluded"):
                continue
            yield cv2.imread(str(image_path)), label
        return
    style_set = None if kind == "training" else "held-out-fit"
    for i in range(count):
        yield render(np.random.default_rng(seed + i), SceneSpec(occluded=False, style_set=style_set))


def _axes(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit directions along the board's length and across it, at each corner C1..C4."""
    along, across = [], []
    for (a, b), (c, d) in zip(((1, 0), (1, 0), (2, 3), (2, 3)), ((3, 0), (2, 1), (2, 1), (3, 0))):
        along.append((corners[b] - corners[a]) / np.linalg.norm(corners[b] - corners[a]))
        across.append((corners[d] - corners[c]) / np.linalg.norm(corners[d] - corners[c]))
    return np.array(along), np.array(across)


def _score(reading, label) -> tuple[int, int]:
    if not reading.settled:
        return 0, 52
    want, got = _counts(label), _counts(reading.to_board())
    return sum(a == b for a, b in zip(want, got)), len(want)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100, help="generated frames of each style set (default 100)")
    ap.add_argument("--seed", type=int, default=31, help="first seed of the generated frames (default 31)")
    ap.add_argument("--dev", default=str(DEFAULT_DEV), help="the labelled dev frames (default $WILLUGHBY_VISION_DEV; docs/vision-labels.md)")
    ap.add_argument("--amplitudes", default="0,3,6,10", help="px each corner is moved by at most (default 0,3,6,10)")
    ap.add_argument("--sets", default="training,held-out-fit,dev", help="which frames (default all three)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    amps = [float(a) for a in args.amplitudes.split(",")]
    base = VisionConfig()
    plain = replace(base, refine=replace(base.refine, enabled=False))
    dev = Path(args.dev)
    for kind in args.sets.split(","):
        if kind == "dev" and not dev.is_dir():
            print(f"(no dev set at {dev}: skipped)")
            continue
        rng = np.random.default_rng(args.seed * 7919 + len(kind))
        stats = {a: {"given": [], "refined": [], "along": [], "across": [], "found": 0, "ms": [],
                     "acc": [0, 0, 0, 0], "exact": [0, 0], "frames": 0} for a in amps}
        for image, label in _frames(kind, args.count, args.seed, dev):
            true = np.array(label["corners"], np.float64)
            for a in amps:
                ang = rng.uniform(0, 2 * np.pi, 4)
                r = a * np.sqrt(rng.uniform(0, 1, 4))
                given = true + np.c_[r * np.cos(ang), r * np.sin(ang)]
                st = stats[a]
                res = refine_corners(base, image, given)
                st["given"] += list(np.linalg.norm(given - true, axis=1))
                st["refined"] += list(np.linalg.norm(res.corners - true, axis=1))
                along, across = _axes(true)
                st["along"] += list(np.abs(((res.corners - true) * along).sum(axis=1)))
                st["across"] += list(np.abs(((res.corners - true) * across).sum(axis=1)))
                st["found"] += res.refined
                st["ms"].append(res.millis)
                for j, corners in enumerate((given, res.corners)):
                    right, total = _score(read_board(image, corners.tolist(), plain), label)
                    st["acc"][2 * j] += right
                    st["acc"][2 * j + 1] += total
                    st["exact"][j] += right == total
                st["frames"] += 1
        name = {"training": f"generated, training styles, {args.count} frames from seed {args.seed}",
                "held-out-fit": f"generated, held-out-fit styles, {args.count} frames from seed {args.seed}",
                "dev": f"dev set ({dev})"}[kind]
        print(f"\n== {name}")
        print("  max px | corner error given: median p95 | refined: median p95 (along, across: median) | moved | "
              "per-location acc given -> refined | exact boards given -> refined | refine ms median p95")
        for a in amps:
            st = stats[a]
            if not st["frames"]:
                continue
            g, f = np.array(st["given"]), np.array(st["refined"])
            acc = st["acc"]
            n = st["frames"]
            print(f"  {a:6g} | {np.median(g):6.2f} {np.percentile(g, 95):6.2f} | {np.median(f):6.2f} "
                  f"{np.percentile(f, 95):6.2f} ({np.median(st['along']):.2f}, {np.median(st['across']):.2f}) | "
                  f"{100 * st['found'] / n:5.1f}% | "
                  f"{100 * acc[0] / acc[1]:6.2f}% -> {100 * acc[2] / acc[3]:6.2f}% | "
                  f"{100 * st['exact'][0] / n:5.1f}% -> {100 * st['exact'][1] / n:5.1f}% ({n}) | "
                  f"{np.median(st['ms']):5.1f} {np.percentile(st['ms'], 95):5.1f}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
