"""The board finder (vision/board_finder.py) on labelled photos: corners proposed against the label's.

    python benchmarks/board_finder.py --photos DIR [DIR ...] [--no-known] [--threads 1]
    python benchmarks/board_finder.py --photos --drawn 40       # only 40 freshly drawn boards

For every labelled picture of each folder (docs/vision-labels.md; read with
``labelled_turns.labelled_pictures``, as ``real_photos.py`` does) the finder
proposes corners twice: without a known board (the order C1..C4 not known:
the error is that of the best of the eight orders round the quadrilateral),
then with the label's board as ``known`` (as at calibration, where the start
is known: the error in the order proposed, and whether that order is the
label's). Per photo it prints whether a board was found and how (markers or
picture), the mean and largest corner error in pixels and in % of the
label's diagonal, the order's verdict, and the milliseconds each proposal
took (one thread). Then per folder and over all:

    found n/N, median corner error % of diagonal, within 2% of diagonal n/N,
    order right n/(orders told), median ms

``--drawn N`` adds N boards freshly drawn by the painter (``vision/synth``)
in styles the project's own work never looks at (``--style-set``, default
``held-out-test``, as ``benchmarks/turns.py`` draws its games), each with
its proportions varied and every other one with the looks of real boards
and photographs, from a fixed seed (``--seed``): the same boards every run.

Figures only, no pass or fail (docs/house-conventions.md, convention 14).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from labelled_turns import labelled_pictures  # noqa: E402

from willughby.vision.board_finder import propose_corners  # noqa: E402
from willughby.vision.corner_order import ORDERS  # noqa: E402

DEFAULT_FOLDERS = [Path("/work/shared/vision-dev"), Path("/work/shared/vision-real-dev")]
WITHIN = 2.0  # % of the diagonal


def corner_errors(found: Sequence[Sequence[float]], truth: Sequence[Sequence[float]],
                  any_order: bool) -> tuple[np.ndarray, tuple[int, ...]]:
    """Each corner's distance (px) from the label's, in the order given or in
    the best of the eight orders round the quadrilateral; and that order."""
    f, t = np.asarray(found, np.float64), np.asarray(truth, np.float64)
    orders = ORDERS if any_order else ORDERS[:1]
    best = min(orders, key=lambda o: float(np.linalg.norm(f[list(o)] - t, axis=1).mean()))
    return np.linalg.norm(f[list(best)] - t, axis=1), best


def diagonal(corners: Sequence[Sequence[float]]) -> float:
    """The label's board's diagonal: the mean of its two (px)."""
    c = np.asarray(corners, np.float64)
    return float((np.linalg.norm(c[0] - c[2]) + np.linalg.norm(c[1] - c[3])) / 2)


def drawn_boards(n: int, seed: int, style_set: str) -> Iterator[tuple[str, np.ndarray | None, dict[str, Any]]]:
    """*n* labelled boards drawn by the painter in *style_set*: (name, picture, label), the same for a seed."""
    from willughby.vision.synth import SceneSpec, render

    for k in range(n):
        rng = np.random.default_rng([seed, k])
        size = ((1280, 720), (1280, 960), (960, 720))[k % 3]
        spec = SceneSpec(style_set=style_set, image_size=size, varied_board=True, real_look=k % 2 == 1,
                         occluded=False)
        image, label = render(rng, spec)
        yield f"drawn_{k:03d}", image, label


def labelled_folder(folder: Path) -> Iterator[tuple[str, np.ndarray | None, dict[str, Any]]]:
    """A folder's labelled pictures: (name, picture or None where unreadable, label)."""
    for label_path, image_path in labelled_pictures(folder):
        yield image_path.name, cv2.imread(str(image_path)), json.loads(label_path.read_text())


def measure(pictures: Iterable[tuple[str, np.ndarray | None, dict[str, Any]]],
            use_known: bool) -> list[dict[str, Any]]:
    rows = []
    for name, image, label in pictures:
        row: dict[str, Any] = {"name": name, "found": False}
        rows.append(row)
        if image is None or "corners" not in label:
            row["why"] = "unreadable"
            continue
        diag = diagonal(label["corners"])
        t0 = time.perf_counter()
        proposal = propose_corners(image)
        row["ms"] = (time.perf_counter() - t0) * 1000
        if proposal is None:
            continue
        errors, _ = corner_errors(proposal.corners, label["corners"], any_order=not proposal.order_known)
        row.update(found=True, by=proposal.found_by, mean_px=float(errors.mean()), max_px=float(errors.max()),
                   mean_pct=100 * float(errors.mean()) / diag, max_pct=100 * float(errors.max()) / diag)
        if use_known:
            known = {"light": label["light"], "dark": label["dark"]}
            t0 = time.perf_counter()
            told = propose_corners(image, known=known)
            row["known_ms"] = (time.perf_counter() - t0) * 1000
            if told is not None and told.order_known:
                errors_told, _ = corner_errors(told.corners, label["corners"], any_order=False)
                _, best = corner_errors(told.corners, label["corners"], any_order=True)
                row["order"] = "right" if best == ORDERS[0] else "WRONG"
                row["told_mean_pct"] = 100 * float(errors_told.mean()) / diag
            else:
                row["order"] = "not told"
    return rows


def print_rows(rows: list[dict[str, Any]]) -> None:
    for r in rows:
        if not r["found"]:
            print(f"  {r['name']:<16} not found{'':>44} {r.get('ms', 0):7.0f} ms  {r.get('why', '')}")
            continue
        order = r.get("order", "")
        known_ms = f"  (with known {r['known_ms']:.0f} ms)" if "known_ms" in r else ""
        print(f"  {r['name']:<16} {r['by']:<8} mean {r['mean_px']:6.1f} px {r['mean_pct']:5.2f}%  "
              f"max {r['max_px']:6.1f} px {r['max_pct']:5.2f}%  order {order:<8} {r['ms']:7.0f} ms{known_ms}")


def summary(what: str, rows: list[dict[str, Any]]) -> str:
    found = [r for r in rows if r["found"]]
    pct = [r["mean_pct"] for r in found]
    within = sum(r["max_pct"] <= WITHIN for r in found)
    told = [r for r in found if r.get("order") in ("right", "WRONG")]
    right = sum(r["order"] == "right" for r in told)
    ms = [r["ms"] for r in rows if "ms" in r]
    median = f"{statistics.median(pct):.2f}%" if pct else "-"
    return (f"{what}: found {len(found)}/{len(rows)}, median corner error {median} of diagonal, "
            f"within {WITHIN:g}% of diagonal (every corner) {within}/{len(rows)}, "
            f"order right {right}/{len(told)} told (of {len(found)} found), "
            f"median {statistics.median(ms) if ms else 0:.0f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--photos", nargs="*", type=Path, default=DEFAULT_FOLDERS,
                        help="folders of labelled pictures (none: only the drawn boards)")
    parser.add_argument("--drawn", type=int, default=0, metavar="N", help="also N boards drawn by the painter")
    parser.add_argument("--style-set", default="held-out-test", help="the styles the drawn boards are drawn in")
    parser.add_argument("--seed", type=int, default=2024, help="the drawn boards' seed")
    parser.add_argument("--no-known", action="store_true", help="skip the proposals with the known board")
    parser.add_argument("--threads", type=int, default=1, help="OpenCV's threads (default one, as on a Pi core)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(args.threads)
    sets: list[tuple[str, Iterable[tuple[str, np.ndarray | None, dict[str, Any]]]]] = []
    for folder in args.photos:
        if not folder.is_dir():
            print(f"{folder}: no such folder", file=sys.stderr)
            return 2
        sets.append((str(folder), labelled_folder(folder)))
    if args.drawn > 0:
        sets.append((f"drawn ({args.drawn} boards, {args.style_set}, seed {args.seed})",
                     drawn_boards(args.drawn, args.seed, args.style_set)))
    everything = []
    for what, pictures in sets:
        print(what)
        rows = measure(pictures, not args.no_known)
        print_rows(rows)
        print(summary(f"  {Path(what).name if not what.startswith('drawn') else 'drawn'}", rows))
        everything.extend(rows)
    if len(sets) > 1:
        print(summary("all", everything))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
