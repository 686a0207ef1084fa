"""Measure the board reader over a folder of labelled images.

    python -m willughby.vision.evaluate DIR [--limit N] [--show-failures]

Each ``NAME.jpg`` (or ``.png``) has a label ``NAME.json`` in the format of
``docs/vision-labels.md`` (a board document with ``corners`` and
``occluded``).  Prints per-location accuracy (26 locations -- 24 points,
the bar and off -- times 2 colours), the share of boards read exactly, the
share of occluded frames refused (and of clear frames wrongly refused), and
the median and 95th-percentile milliseconds per frame, single-threaded.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2

from .config import VisionConfig
from .reader import METHODS, read_board
from .classes import MEN_PER_SIDE

__all__ = ["evaluate", "Report", "Comparison", "compare", "main", "print_report"]

LOCATIONS = [f"{p}" for p in range(1, 25)] + ["bar", "off"]   # each colour's 26, in the order compared


@dataclass
class Report:
    images: int = 0
    clear: int = 0
    occluded: int = 0
    location_total: int = 0
    location_right: int = 0
    exact: int = 0
    exact_with_stacked: int = 0
    occluded_refused: int = 0
    clear_refused: int = 0
    millis: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    # (the reader's confidence, read right) for every point of the clear frames read
    trust: list[tuple[float, bool]] = field(default_factory=list)

    TRUST_BINS = ((0.99, 1.01, "0.99 or more"), (0.95, 0.99, "0.95 - 0.99"), (0.8, 0.95, "0.80 - 0.95"),
                  (0.5, 0.8, "0.50 - 0.80"), (0.0, 0.5, "below 0.50"))

    def trust_lines(self) -> list[str]:
        """How often a point read with each confidence was right."""
        out = ["points by the confidence read: how many, how many right"]
        for lo, hi, name in self.TRUST_BINS:
            got = [ok for c, ok in self.trust if lo <= c < hi]
            share = f"{100 * sum(got) / len(got):.2f}% right" if got else "-"
            out.append(f"  {name}: {len(got)} points, {share}")
        return out

    def lines(self) -> list[str]:
        def pct(a: int, b: int) -> str:
            return f"{100 * a / b:.2f}% ({a}/{b})" if b else "n/a (none)"
        ms = sorted(self.millis)
        p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))] if ms else float("nan")
        return [
            f"images: {self.images} ({self.clear} clear, {self.occluded} occluded)",
            f"per-location accuracy (26 locations x 2 colours, clear frames read): {pct(self.location_right, self.location_total)}",
            f"boards read exactly (counts): {pct(self.exact, self.clear - self.clear_refused)} of those read; "
            f"{pct(self.exact, self.clear)} of all clear frames",
            f"boards read exactly (counts and piles): {pct(self.exact_with_stacked, self.clear)} of all clear frames",
            f"occluded frames refused: {pct(self.occluded_refused, self.occluded)}",
            f"clear frames wrongly refused: {pct(self.clear_refused, self.clear)}",
            f"ms per frame (single thread): median {statistics.median(ms) if ms else float('nan'):.1f}, p95 {p95:.1f}",
        ]


def _counts(doc: dict[str, Any]) -> list[int]:
    light = list(doc["light"])
    dark = list(doc["dark"])
    bar = doc.get("bar", {"light": 0, "dark": 0})
    off_l = MEN_PER_SIDE - sum(light) - bar["light"]
    off_d = MEN_PER_SIDE - sum(dark) - bar["dark"]
    return light + [bar["light"], off_l] + dark + [bar["dark"], off_d]


@dataclass(frozen=True)
class Comparison:
    """A board read against its label: the 52 locations (24 points, the bar
    and off, of each colour) the evaluation counts, and the 24 points whose
    men of both colours were read right."""

    right: int                   # locations read right, of ``total``
    total: int                   # 52
    points_right: int            # of the 24 points, both colours' counts right
    diffs: tuple[str, ...]       # ``"light:13 5->4"``: colour, location, label -> read

    @property
    def exact(self) -> bool:
        """Every location read right (counts; the piles are not compared)."""
        return self.right == self.total


def compare(label: dict[str, Any], board: dict[str, Any]) -> Comparison:
    """Compare *board* (a board document as read) with *label* (what the
    picture shows), location by location: the figures ``willughby vision
    evaluate`` reports.  Off is counted from the men of 15 a side not on the
    points or the bar, in both.

    >>> empty = {"light": [0] * 24, "dark": [0] * 24, "bar": {"light": 0, "dark": 0}}
    >>> one = dict(empty, light=[1] + [0] * 23)
    >>> c = compare(one, empty)
    >>> c.right, c.total, c.points_right, c.exact, c.diffs
    (50, 52, 23, False, ('light:1 1->0', 'light:off 14->15'))
    """
    want, got = _counts(label), _counts(board)
    diffs = tuple(f"{'light' if k < 26 else 'dark'}:{LOCATIONS[k % 26]} {want[k]}->{got[k]}"
                  for k in range(52) if want[k] != got[k])
    points = sum(want[p] == got[p] and want[26 + p] == got[26 + p] for p in range(24))
    return Comparison(sum(a == b for a, b in zip(want, got)), len(want), points, diffs)


def evaluate(folder: str | Path, config: VisionConfig | None = None, limit: int | None = None,
             progress: bool = True, method: str = "auto") -> Report:
    """Read every labelled image of *folder* and compare with its label (on
    as many of OpenCV's threads as the caller's process allows: the command,
    ``willughby vision evaluate``, reads on one, as the Pi's referee does)."""
    folder = Path(folder)
    labels = sorted(folder.glob("*.json"))
    if limit:
        labels = labels[:limit]
    report = Report()
    for n, label_path in enumerate(labels):
        image_path = next((label_path.with_suffix(ext) for ext in (".jpg", ".png", ".jpeg")
                           if label_path.with_suffix(ext).exists()), None)
        if image_path is None:
            continue
        label = json.loads(label_path.read_text())
        image = cv2.imread(str(image_path))
        if image is None:
            report.failures.append(f"{image_path.name}: unreadable image")
            continue
        reading = read_board(image, label["corners"], config, method=method)
        report.images += 1
        report.millis.append(reading.millis)
        if label.get("occluded"):
            report.occluded += 1
            report.occluded_refused += not reading.settled
            if reading.settled:
                report.failures.append(f"{image_path.name}: occluded but read")
            continue
        report.clear += 1
        if not reading.settled:
            report.clear_refused += 1
            report.failures.append(f"{image_path.name}: clear but refused ({'; '.join(reading.notes)})")
            continue
        want = _counts(label)
        got = _counts(reading.to_board())
        for p in range(24):
            if str(p + 1) in reading.location_confidence:
                ok = want[p] == got[p] and want[26 + p] == got[26 + p]
                report.trust.append((float(reading.location_confidence[str(p + 1)]), ok))
        found = compare(label, reading.to_board())
        report.location_total += found.total
        report.location_right += found.right
        if found.exact:
            report.exact += 1
            stacked_ok = reading.stacked == label.get("stacked", reading.stacked)
            report.exact_with_stacked += stacked_ok
        else:
            report.failures.append(f"{image_path.name}: " + ", ".join(found.diffs))
        if progress and (n + 1) % 50 == 0:
            print(f"  ... {n + 1}/{len(labels)} images", file=sys.stderr)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="willughby vision evaluate", description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--show-failures", action="store_true")
    ap.add_argument("--method", choices=METHODS, default="auto",
                    help="the point reader (net; net-alone: without preferring the games' start layouts), "
                         "fitting arrangements (fit), or the first installed (auto)")
    args = ap.parse_args(argv)
    if not Path(args.folder).is_dir():
        print(f"willughby vision evaluate: {args.folder} is not a folder", file=sys.stderr)
        return 2
    print_report(evaluate(args.folder, limit=args.limit, method=args.method), args.show_failures)
    return 0


def print_report(report: Report, show_failures: bool = False) -> None:
    """Print the figures (and, if asked, every image read wrong)."""
    for line in report.lines() + report.trust_lines():
        print(line)
    if show_failures:
        for failure in report.failures:
            print("  " + failure)


if __name__ == "__main__":
    sys.exit(main())
