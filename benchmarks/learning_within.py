"""Learning a real board from part of one photo of it: does the rest of the photo read better?

Each labelled photo of a real board (``--photos DIR``, default ``$WILLUGHBY_REAL_PHOTOS``) is its own board,
so learning that carries over to a board is measured within a photo: the reader learns the points of one
half of the board (points 1-12, or 13-24) with their labelled men, as calibration learns a photo whose men
are known, and then reads the other half. Both halves are taken in turn; a point counts right where the
class read (empty, or n men of a colour) is the label's. Printed per photo and in all, in one run:

- ``cold``: the network alone (what a photo with corners only gets);
- ``head``: the board's head as the referee fits it (``vision/board_head.py``: a correction of the network's
  last layer, fitted on the learnt points' features);
- ``prototypes``: each class the learnt half shows, its mean feature vector (this board's look of that
  stack), added to the network's log-probabilities as a Gaussian likelihood (the learnt points' own spread
  about their class means); classes the learnt half does not show keep the network's weight.

The photos are third-party and are measured, never learnt into anything shipped. CPU; a few seconds a photo.

    python benchmarks/learning_within.py --photos DIR [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from labelled_turns import labelled_pictures  # noqa: E402

HALVES = (np.arange(24) < 12, np.arange(24) >= 12)


def read_photo(label: dict[str, Any], image_path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The network's count probabilities and features of a photo's 24 points (read with the labelled
    corners, no calibration), and the labelled classes; None where it cannot be read by the network."""
    import cv2

    from willughby.vision.board_head import board_classes_of
    from willughby.vision.reader import read_board

    image = cv2.imread(str(image_path))
    if image is None:
        return None
    reading = read_board(image, label["corners"], method="net")
    if reading.point_features is None or reading.count_probs is None:
        return None
    probs = reading.net_count_probs if reading.net_count_probs is not None else reading.count_probs
    return (np.asarray(probs, np.float64), np.asarray(reading.point_features, np.float64),
            board_classes_of(list(label["light"]), list(label["dark"])))


def prototypes(probs: np.ndarray, features: np.ndarray, classes: np.ndarray, learn: np.ndarray,
               weight: float = 1.0) -> np.ndarray:
    """The network's log-probabilities plus, for each class the *learn* points show, *weight* times the
    Gaussian log-likelihood of each point's features about that class's mean (a variance shared by all, the
    learnt points' own about their means, floored), relative to the best such class; renormalised."""
    logp = np.log(np.maximum(probs, 1e-12))
    seen = np.unique(classes[learn])
    means = np.stack([features[learn & (classes == c)].mean(axis=0) for c in seen])
    resid = np.concatenate([features[learn & (classes == c)] - m for c, m in zip(seen, means)])
    var = max(float((resid ** 2).mean()), 1e-3 * float(features.var()) + 1e-9)
    d2 = ((features[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)          # (24, seen)
    ll = -d2 / (2 * var * features.shape[1])
    bonus = np.zeros_like(logp)
    bonus[:, seen] = weight * (ll - ll.max(axis=1, keepdims=True))
    # a class not shown keeps the network's weight: it gets the best shown class's bonus (0), no penalty
    out = logp + bonus
    out -= out.max(axis=1, keepdims=True)
    return out


def head_logp(probs: np.ndarray, features: np.ndarray, classes: np.ndarray, learn: np.ndarray,
              strength: float | None = None) -> np.ndarray:
    """The board's head fitted on the *learn* points, applied to all (``BoardHead``; its prior's *strength*,
    else the shipped one)."""
    from willughby.vision.board_head import BoardHead, HeadConfig

    head = BoardHead.empty(None if strength is None else HeadConfig(strength=strength))
    head.learn(features.astype(np.float32), probs.astype(np.float32), classes, start=True, points=learn)
    return np.log(np.maximum(head.apply(probs.astype(np.float32), features.astype(np.float32)), 1e-12))


def measure(photos: list[tuple[str, tuple[np.ndarray, np.ndarray, np.ndarray]]],
            weights: tuple[float, ...], strengths: tuple[float, ...] = ()) -> dict[str, Any]:
    """Per photo and in all: points of the held half read right, cold, by the head, by prototypes."""
    rows = []
    totals: dict[str, int] = {}
    for name, (probs, feats, classes) in photos:
        row: dict[str, Any] = {"photo": name}
        for learn in HALVES:
            held = ~learn
            scores = {"cold": np.log(np.maximum(probs, 1e-12)), "head": head_logp(probs, feats, classes, learn)}
            for st in strengths:
                scores[f"head {st:g}"] = head_logp(probs, feats, classes, learn, st)
            for w in weights:
                scores[f"prototypes {w:g}"] = prototypes(probs, feats, classes, learn, w)
            for key, s in scores.items():
                right = int((s.argmax(axis=1)[held] == classes[held]).sum())
                row[key] = row.get(key, 0) + right
                totals[key] = totals.get(key, 0) + right
        row["points"] = 24
        rows.append(row)
    totals["points"] = 24 * len(rows)
    return {"photos": rows, "totals": totals}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", type=Path, default=Path(os.environ.get("WILLUGHBY_REAL_PHOTOS", ".")))
    ap.add_argument("--weights", default="0.5,1,2,4", help="the prototypes' weights to try (default 0.5,1,2,4)")
    ap.add_argument("--strengths", default="",
                    help="also the head with these priors' strengths, to compare (the shipped one's is 0.05)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    pairs = labelled_pictures(args.photos)
    if not pairs:
        ap.error(f"no labelled photos in {args.photos}")
    try:
        weights = tuple(float(w) for w in args.weights.split(",") if w.strip())
        strengths = tuple(float(w) for w in args.strengths.split(",") if w.strip())
    except ValueError:
        ap.error("--weights and --strengths take numbers separated by commas")
    photos = []
    for k, (label_path, image) in enumerate(pairs):
        label = json.loads(label_path.read_text(encoding="utf-8"))
        if not label.get("usable", True) or label.get("occluded"):
            continue
        print(f"photo {k + 1} of {len(pairs)}: {image.name}", file=sys.stderr, flush=True)
        got = read_photo(label, image)
        if got is not None:
            photos.append((image.name, got))
    figures = measure(photos, weights, strengths)
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    keys = [k for k in figures["totals"] if k != "points"]
    print(f"{len(photos)} photos of real boards; each half of the board learnt, the other half read "
          f"(points of the held half read right, both halves in turn, of 24 a photo)")
    print("| photo | " + " | ".join(keys) + " |")
    print("| --- |" + " --- |" * len(keys))
    for row in figures["photos"]:
        print(f"| {row['photo']} | " + " | ".join(str(row[k]) for k in keys) + " |")
    t = figures["totals"]
    print("| **total** | " + " | ".join(f"{t[k]}/{t['points']} ({100 * t[k] / t['points']:.1f}%)" for k in keys)
          + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
