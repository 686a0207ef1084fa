"""Reading ordinary dice: found, right, false, unsure, and the time a frame.

    python benchmarks/dice.py [--dice-real DIR] [--photos DIR] [--painted N] [--seed S] [--limit N]

Three sets, each measured on the dice reader (``vision/dice_reader.py``, the
two learnt networks) and, in the same run, on the present finder of dice on
the rectified board (``vision/dice.py``, the baseline):

- **real dice** (``--dice-real DIR``, default ``$WILLUGHBY_DICE_REAL``): the
  held-out ``valid`` part of the dice dataset "Rune55" v3 (Roboflow
  Universe, workspace rune-zkmvl, CC BY 4.0), which the networks never
  learnt from: photographs of dice on tables, felt, paper and trays, no
  board, so no corners: the reader looks in several scales; the baseline is
  handed the picture as if it were the rectified board;
- **real boards** (``--photos DIR``, default ``$WILLUGHBY_REAL_PHOTOS``): the
  labelled photographs of real boards (``docs/vision-labels.md``), whose
  labels list the dice lying flat, read with the labelled corners;
- **painted boards**: ``--painted`` frames the painter draws
  (``willughby.vision.synth``) with men and one or two dice, at seeds the
  networks did not learn from.

A labelled die is *found* where a die is reported within half a die of its
centre; *right* where that report's face is the label's; a report that is no
labelled die is *false*; a report without a face (the reader not sure of
it) is *unsure*; a die found with a face that is not the label's is read
*wrong* (what a player meets as a wrong throw announced; an unsure die is
asked about). The time is a frame's read on one thread, the networks
loaded (with corners, on the painted boards' 1280 x 960 frames).

A report, not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

from willughby.vision.config import VisionConfig
from willughby.vision.dice import find_dice
from willughby.vision.dice_dataset import dice_labels, label_path_of
from willughby.vision.dice_reader import DiceReader, die_px_of
from willughby.vision.geometry import BoardGeometry, homography
from willughby.vision.reader import rectify

#: a report: (x, y in the picture's pixels, the face or None)
Report = tuple[float, float, int | None]
#: the bins of die sizes (pixels across) the figures are also given by
SIZE_BINS = (0, 20, 30, 40, 60, 120)


@dataclass
class Example:
    """A picture, its labelled dice ((x, y, side in pixels, face)), and its board's corners if it has one."""

    name: str
    image: np.ndarray
    dice: list[tuple[float, float, float, int]]
    corners: list[list[float]] | None = None


@dataclass
class Tally:
    labelled: int = 0
    found: int = 0
    right: int = 0
    reported: int = 0
    false: int = 0
    unsure: int = 0
    wrong: int = 0
    ms: list[float] = field(default_factory=list)
    #: by the labelled die's size in pixels (the bin's least size): labelled, found, right
    by_size: dict[int, list[int]] = field(default_factory=lambda: {b: [0, 0, 0] for b in SIZE_BINS})

    def size_line(self) -> str:
        parts = []
        for i, b in enumerate(SIZE_BINS):
            n, found, right = self.by_size[b]
            if n:
                top = f"{SIZE_BINS[i + 1]}" if i + 1 < len(SIZE_BINS) else ""
                parts.append(f"{b}-{top} px: {n} dice, found {100 * found / n:.0f}%, "
                             f"right {100 * right / max(1, found):.0f}%")
        return "    by size: " + "; ".join(parts)

    def line(self, name: str) -> str:
        found = 100 * self.found / max(1, self.labelled)
        right = 100 * self.right / max(1, self.found)
        false = 100 * self.false / max(1, self.reported)
        ms = f"{statistics.median(self.ms):.1f}" if self.ms else "-"
        return (f"  {name:<22} dice {self.labelled:5d}: found {self.found:5d} ({found:5.1f}%), right face "
                f"{self.right:5d} ({right:5.1f}% of found), reported {self.reported:5d}, false {self.false:4d} "
                f"({false:4.1f}%), unsure {self.unsure:4d}, wrong {self.wrong:4d}; ms a picture median {ms}")


def score(example: Example, reports: list[Report], tally: Tally) -> None:
    """Match the reports to the labelled dice (nearest first, within half a die) and count."""
    tally.labelled += len(example.dice)
    tally.reported += len(reports)
    bins = [tally.by_size[max(b for b in SIZE_BINS if b <= d[2])] for d in example.dice]
    for b in bins:
        b[0] += 1
    tally.unsure += sum(1 for r in reports if r[2] is None)
    used = [False] * len(reports)
    pairs = sorted((math.hypot(r[0] - d[0], r[1] - d[1]), i, j)
                   for i, d in enumerate(example.dice) for j, r in enumerate(reports))
    matched = [False] * len(example.dice)
    for dist, i, j in pairs:
        if matched[i] or used[j] or dist > 0.5 * max(example.dice[i][2], 8.0):
            continue
        matched[i] = used[j] = True
        tally.found += 1
        tally.right += int(reports[j][2] == example.dice[i][3])
        tally.wrong += int(reports[j][2] is not None and reports[j][2] != example.dice[i][3])
        bins[i][1] += 1
        bins[i][2] += int(reports[j][2] == example.dice[i][3])
    tally.false += used.count(False)


def learnt(reader: DiceReader, with_corners: bool) -> Callable[[Example], list[Report]]:
    def read(ex: Example) -> list[Report]:
        dice = reader.read(ex.image, ex.corners if with_corners else None)
        return [(d.center[0], d.center[1], d.value) for d in dice]
    return read


def baseline(ex: Example) -> list[Report]:
    """The present finder: on the rectified board where the picture has corners, else on the picture itself."""
    config = VisionConfig()
    if ex.corners is None:
        # no board: the picture stretched to the rectified board's size, as if it were one
        geometry = BoardGeometry(config)
        w, h = round(geometry.width * config.scale), round(geometry.depth * config.scale)
        ih, iw = ex.image.shape[:2]
        found = find_dice(config, cv2.resize(ex.image, (w, h), interpolation=cv2.INTER_AREA))
        return [(d.top[0] * config.scale * iw / w, d.top[1] * config.scale * ih / h, d.value) for d in found]
    surface = rectify(config, ex.image, ex.corners)
    back = np.linalg.inv(homography(ex.corners, BoardGeometry(config)))
    out = []
    for d in find_dice(config, surface):
        x, y = d.top
        p = back @ np.array([x * config.scale, y * config.scale, 1.0])
        out.append((float(p[0] / p[2]), float(p[1] / p[2]), d.value))
    return out


def real_dice(folder: Path, limit: int | None) -> list[Example]:
    images = sorted((folder / "valid" / "images").glob("*.jpg"))[:limit]
    out = []
    for path in images:
        image = cv2.imread(str(path))
        if image is None:
            continue
        h, w = image.shape[:2]
        dice = [(x, y, max(bw, bh), face) for x, y, bw, bh, face in dice_labels(label_path_of(path), w, h)]
        out.append(Example(path.name, image, dice))
    return out


def real_boards(folder: Path) -> list[Example]:
    out = []
    for label_path in sorted(folder.glob("*.json")):
        image = cv2.imread(str(label_path.with_suffix(".jpg")))
        if image is None:
            continue
        label = json.loads(label_path.read_text())
        side = die_px_of(label["corners"])
        dice = [(d["center"][0], d["center"][1], side, int(d["value"])) for d in label.get("dice") or []]
        out.append(Example(label_path.stem, image, dice, label["corners"]))
    return out


def painted_boards(count: int, seed: int) -> list[Example]:
    from willughby.vision.synth.render import render
    from willughby.vision.synth.spec import SceneSpec

    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        image, label = render(rng, SceneSpec(n_dice=int(rng.integers(1, 3))))
        side = die_px_of(label["corners"], float((label.get("style") or {}).get("die_mm") or 16.0))
        dice = [(d["center"][0], d["center"][1], side, int(d["value"])) for d in label.get("dice") or []]
        out.append(Example(f"painted-{k}", image, dice, label["corners"]))
    return out


def measure(name: str, examples: list[Example], readers: dict[str, Callable[[Example], list[Report]]],
            by_size: bool = False) -> None:
    print(f"{name}: {len(examples)} pictures, {sum(len(e.dice) for e in examples)} dice", flush=True)
    for who, read in readers.items():
        tally = Tally()
        for ex in examples:
            t0 = time.perf_counter()
            reports = read(ex)
            tally.ms.append((time.perf_counter() - t0) * 1000)
            score(ex, reports, tally)
        print(tally.line(who), flush=True)
        if by_size:
            print(tally.size_line(), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dice-real", default=os.environ.get("WILLUGHBY_DICE_REAL", ""),
                    help="the dice dataset's folder (its valid part is measured)")
    ap.add_argument("--photos", default=os.environ.get("WILLUGHBY_REAL_PHOTOS", ""),
                    help="a folder of labelled photos of real boards")
    ap.add_argument("--painted", type=int, default=100, help="painted boards with dice")
    ap.add_argument("--seed", type=int, default=777)
    ap.add_argument("--limit", type=int, default=None, help="at most this many real dice pictures")
    ap.add_argument("--face", default=None, help="a face reader (ONNX) to measure instead of the shipped one")
    ap.add_argument("--finder", default=None, help="a finder (ONNX) to measure instead of the shipped one")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)              # this program owns its process: read as the Pi reads, on one thread
    reader = DiceReader(**{k: v for k, v in (("face_path", args.face), ("finder_path", args.finder)) if v})
    if args.dice_real and Path(args.dice_real, "valid").is_dir():
        measure("real dice (held out: the dataset's valid part)", real_dice(Path(args.dice_real), args.limit),
                {"dice reader": learnt(reader, False), "present finder": baseline}, by_size=True)
    else:
        print("real dice: no dataset given (--dice-real DIR or $WILLUGHBY_DICE_REAL): skipped")
    if args.photos and Path(args.photos).is_dir():
        measure("real boards (labelled corners)", real_boards(Path(args.photos)),
                {"dice reader": learnt(reader, True), "present finder": baseline})
    else:
        print("real boards: no photos given (--photos DIR or $WILLUGHBY_REAL_PHOTOS): skipped")
    if args.painted:
        measure(f"painted boards (seed {args.seed})", painted_boards(args.painted, args.seed),
                {"dice reader": learnt(reader, True), "present finder": baseline})
    return 0


if __name__ == "__main__":
    sys.exit(main())
