"""The board's own layout (vision/board_layout.py): how well it is found and
what it does for the reader.

    python benchmarks/board_layout.py --count 40 --seed 900 --varied
    python benchmarks/board_layout.py --count 40 --seed 7
    python benchmarks/board_layout.py --count 40 --seed 31 --style-set held-out-test --varied
    python benchmarks/board_layout.py --count 30 --seed 900 --varied --jitter 15
    python benchmarks/board_layout.py --count 40 --seed 900 --varied --squeeze 0.8
    python benchmarks/board_layout.py --photos FOLDER --jitter 15 --repeats 6

Painted boards (the painter's; ``--varied``: boards of other proportions,
whose labels give their true geometry): how far each point's centre was
found from where it is (mm, each found with the corners given mapped back
into the label's corners' frame), and each frame read three ways, the
occlusion check's refusals aside (they are that check's): with the layout
found (the reader as shipped), with the configured proportions
(``[vision.layout] find = false``), and with the true layout.  Corners may
be moved ``--jitter`` px (each corner 6 px or more, every way); the picture
may be squeezed across (``--squeeze F``, its width times F, as photos
stored square are: its pixels no longer square, the corners' perspective
no longer fixes the surface's depth, and the men's columns must).  The
layout found is the reader's (``reader.board_config``: the points found,
the depth by the camera or the men's columns), and the surface's depth
found is compared with the true one.

Labelled photographs (``--photos``, the labels of docs/vision-labels.md):
the layout found with the labels' corners, how far the configured
proportions put the points from it, and with ``--jitter`` how far the layout
found with corners moved lies from it; each read with the layout found and
with the configured proportions, corners as labelled and moved.
"""

from __future__ import annotations

import argparse
import glob
import json
import statistics
import sys
from collections import Counter
import time
from pathlib import Path

import cv2
import numpy as np

from willughby.vision.board_layout import find_layout, layout_config, layout_of
from willughby.vision.config import VisionConfig
from willughby.vision.evaluate import _counts
from willughby.vision.geometry import BoardGeometry
from willughby.vision.reader import board_config, forget_layouts, read_board

BASE = VisionConfig()
FIXED = BASE.with_values({"layout": {"find": False}})


def _in_label_frame(centres, corners, label_corners) -> np.ndarray:
    g = BoardGeometry(BASE)
    frame = g.surface_corners().astype(np.float32)
    to_image = cv2.getPerspectiveTransform(frame, np.float32(corners))
    to_label = cv2.getPerspectiveTransform(np.float32(label_corners), frame)
    edge = np.array([[[c, 0.0 if p >= 13 else g.depth]] for p, c in zip(range(1, 25), centres)], np.float32)
    return cv2.perspectiveTransform(cv2.perspectiveTransform(edge, to_image), to_label)[:, 0, 0]


def _moved(corners, rng: np.random.Generator, jitter: float) -> np.ndarray:
    c = np.asarray(corners, np.float64)
    if jitter <= 0:
        return c
    angle = rng.uniform(0, 2 * np.pi, 4)
    r = rng.uniform(min(6.0, jitter), jitter, 4)
    return c + np.c_[r * np.cos(angle), r * np.sin(angle)]


class _Tally:
    def __init__(self) -> None:
        self.right = self.total = self.exact = self.frames = 0

    def add(self, label, reading) -> None:
        want, got = _counts(label), _counts(reading.to_board())
        right = sum(a == b for a, b in zip(want, got))
        self.right += right
        self.total += len(want)
        self.exact += right == len(want)
        self.frames += 1

    def line(self) -> str:
        return f"{100 * self.right / max(self.total, 1):.2f}% per location, {self.exact}/{self.frames} boards exact"


def painted(args) -> None:
    from willughby.vision.synth import SceneSpec, render

    tallies = {k: _Tally() for k in ("found", "configured", "true")}
    errors, ms, found, depth_errors, sources = [], [], 0, [], Counter()
    for i in range(args.count):
        rng = np.random.default_rng([args.seed, i])
        image, label = render(rng, SceneSpec(varied_board=args.varied, occluded=False, style_set=args.style_set))
        if args.squeeze != 1.0:
            h, w = image.shape[:2]
            image = cv2.resize(image, (int(round(w * args.squeeze)), h), interpolation=cv2.INTER_AREA)
            label = {**label, "corners": [[x * args.squeeze, y] for x, y in label["corners"]]}
        corners = _moved(label["corners"], np.random.default_rng([args.seed, i, 7]), args.jitter)
        truth = layout_of(BASE.with_values(label.get("geometry", {})))
        t0 = time.perf_counter()
        forget_layouts()
        _, layout, _ = board_config(image, corners.tolist(), BASE)
        ms.append((time.perf_counter() - t0) * 1000)
        if layout.found:
            found += 1
            errors.append(np.abs(_in_label_frame(layout.centres, corners, label["corners"]) - truth.centres))
            depth_errors.append(layout.depth / layout.width / (truth.depth / truth.width) - 1)
            sources[layout.depth_from] += 1
        for name, config in (("found", layout.config(BASE)), ("configured", FIXED),
                             ("true", layout_config(BASE, truth))):
            tallies[name].add(label, read_board(image, corners.tolist(), config.with_values(
                {"layout": {"find": False}})))
        print(f"  {i + 1}/{args.count}", end="\r", file=sys.stderr)
    e = np.concatenate(errors) if errors else np.array([np.nan])
    print(f"painted boards, seed {args.seed}, {args.count} frames{', varied proportions' if args.varied else ''}"
          f"{', ' + args.style_set if args.style_set else ''}, corners moved up to {args.jitter:g} px")
    print(f"layout found on {found}/{args.count}; points' centres off by median {np.median(e):.2f} mm, "
          f"p95 {np.percentile(e, 95):.2f}, max {e.max():.1f}; finding it: median {statistics.median(ms):.0f} ms")
    if depth_errors:
        d = np.abs(depth_errors) * 100
        print(f"the surface's depth against its width off by median {np.median(d):.1f}%, p90 "
              f"{np.percentile(d, 90):.1f}%, max {d.max():.1f}%; from "
              + ", ".join(f"{k} {v}" for k, v in sorted(sources.items())))
    for name, tally in tallies.items():
        print(f"  read with the {name} layout: {tally.line()}")


def photos(args) -> None:
    labels = sorted(glob.glob(str(Path(args.photos) / "*.json")))
    rows, moved_err, ms = [], [], []
    tallies = {k: _Tally() for k in ("found", "configured", "found, corners moved", "configured, corners moved")}
    g = BoardGeometry(BASE)
    configured = np.array([g.point_centre_x(p) for p in range(1, 25)])
    for n, path in enumerate(labels):
        label = json.loads(Path(path).read_text())
        image = cv2.imread(str(Path(path).with_suffix(".jpg")))
        if image is None or label.get("occluded"):
            continue
        t0 = time.perf_counter()
        layout = find_layout(BASE, image, label["corners"])
        ms.append((time.perf_counter() - t0) * 1000)
        off = np.abs(configured - np.array(layout.centres))
        rows.append(off)
        print(f"{Path(path).stem}: {'found' if layout.found else 'NOT found'}, pitch {layout.pitch:.1f} mm, "
              f"gap between the halves {layout.bar[0]:.0f}-{layout.bar[1]:.0f} mm; the configured proportions "
              f"put the points {np.median(off):.1f} mm off (median), {off.max():.1f} at most; "
              f"{ms[-1]:.0f} ms {' '.join(layout.notes)}")
        tallies["found"].add(label, read_board(image, label["corners"], BASE))
        tallies["configured"].add(label, read_board(image, label["corners"], FIXED))
        for r in range(args.repeats if args.jitter > 0 else 0):
            corners = _moved(label["corners"], np.random.default_rng([n, r]), args.jitter)
            again = find_layout(BASE, image, corners)
            moved_err.append(np.abs(_in_label_frame(again.centres, corners, label["corners"]) - layout.centres)
                             if again.found else np.full(24, np.nan))
            tallies["found, corners moved"].add(label, read_board(image, corners.tolist(), BASE))
            tallies["configured, corners moved"].add(label, read_board(image, corners.tolist(), FIXED))
    off = np.concatenate(rows)
    print(f"the configured proportions against the layout found: median {np.median(off):.1f} mm, "
          f"p90 {np.percentile(off, 90):.1f}, max {off.max():.1f}; finding it: median {statistics.median(ms):.0f} ms")
    if moved_err:
        e = np.concatenate(moved_err)
        print(f"corners moved up to {args.jitter:g} px ({args.repeats} times each): found "
              f"{sum(not np.isnan(m).any() for m in moved_err)}/{len(moved_err)}; centres off from the layout found "
              f"with the labels' corners by median {np.nanmedian(e):.2f} mm, p95 {np.nanpercentile(e, 95):.2f}")
    print("read (refusals aside: every frame read):")
    for name, tally in tallies.items():
        if tally.frames:
            print(f"  {name}: {tally.line()}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", help="a folder of labelled photographs instead of painted boards")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=900)
    ap.add_argument("--varied", action="store_true", help="painted boards of varied proportions")
    ap.add_argument("--style-set", default=None)
    ap.add_argument("--jitter", type=float, default=0.0, help="move each corner up to this many px")
    ap.add_argument("--squeeze", type=float, default=1.0, help="painted pictures' width times this (default 1)")
    ap.add_argument("--no-men-depth", action="store_true",
                    help="the depth by the camera or the configured proportions only (the baseline)")
    ap.add_argument("--repeats", type=int, default=3, help="corners moved this many times a photo")
    args = ap.parse_args(argv)
    if args.no_men_depth:
        global BASE
        BASE = BASE.with_values({"layout": {"men_depth": False}})
    cv2.setNumThreads(1)
    photos(args) if args.photos else painted(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
