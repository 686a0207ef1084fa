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

With ``--renders N``, the same across frames of one drawn board (the painter's ``held-out-test`` styles, a
table each, ``turn_scenes.game_scene``): the start frame learnt as calibration learns it (``learn_look`` with
the start's men known), then frames of later positions of a game on that table read, each with the light
drifted (the exposure by up to 12%, each colour channel by up to 6%), the camera moved 1-3 px (the
calibration's corners kept) and the JPEG made again (quality 80-92): locations read right and boards exact,
cold (corners only) and with what was learnt, and frames refused each way.

    python benchmarks/learning_within.py --photos DIR [--renders 12] [--json]
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


def drifted(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """*image* as the same camera might give it minutes later: the exposure and white balance drifted, the
    camera moved 1-3 px, a JPEG made again."""
    import cv2

    gain = rng.uniform(0.88, 1.12) * rng.uniform(0.94, 1.06, 3)
    out = np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    shift = rng.uniform(1.0, 3.0) * np.array([np.cos(a := rng.uniform(0, 2 * np.pi)), np.sin(a)])
    out = cv2.warpAffine(out, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), (out.shape[1], out.shape[0]),
                         borderMode=cv2.BORDER_REPLICATE)
    ok, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 93))])
    assert ok
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


def measure_renders(tables: int, frames: int, seed: int) -> dict[str, Any]:
    """Per reading (cold, learnt): locations right, boards exact, frames refused, over *tables* drawn tables
    of *frames* drifted frames each (see the module)."""
    from turn_scenes import game_scene, play_games

    from willughby.vision.evaluate import compare
    from willughby.vision.reader import learn_look, read_board

    games = play_games(seed, tables * 120, 0.0)
    out: dict[str, dict[str, int]] = {k: {"locations": 0, "right": 0, "exact": 0, "refused": 0, "frames": 0}
                                      for k in ("cold", "learnt")}
    for t, game in enumerate(games[:tables]):
        print(f"table {t + 1} of {tables}", file=sys.stderr, flush=True)
        scene, _ = game_scene(seed * 7919 + t, "held-out-test")
        start = game[0].before.to_board()
        image, label = scene.render(start, np.random.default_rng([seed, t, 0]), n_dice=0)
        look = learn_look(image, label["corners"], known=start)
        rng = np.random.default_rng([seed, t, 1])
        picks = np.linspace(len(game) // 4, len(game) - 1, frames).astype(int)
        for n, k in enumerate(picks):
            board = game[int(k)].after
            frame, truth = scene.render(board, np.random.default_rng([seed, t, 2, n]), n_dice=0)
            frame = drifted(frame, rng)
            for key, seen in (("cold", None), ("learnt", look)):
                reading = read_board(frame, label["corners"], look=seen)
                o = out[key]
                o["frames"] += 1
                if not reading.settled:
                    o["refused"] += 1             # (its locations not counted: refused is its own figure)
                    continue
                report = compare(truth, reading.to_board())
                o["right"] += report.right
                o["locations"] += report.total
                o["exact"] += int(report.exact)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", type=Path, default=Path(os.environ.get("WILLUGHBY_REAL_PHOTOS", ".")))
    ap.add_argument("--weights", default="0.5,1,2,4", help="the prototypes' weights to try (default 0.5,1,2,4)")
    ap.add_argument("--strengths", default="",
                    help="also the head with these priors' strengths, to compare (the shipped one's is 0.05)")
    ap.add_argument("--renders", type=int, default=0, metavar="N",
                    help="also N drawn tables: the start learnt, later frames of the game drifted and read")
    ap.add_argument("--frames", type=int, default=6, help="frames read a drawn table (default 6)")
    ap.add_argument("--seed", type=int, default=45)
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
    if args.renders > 0:
        figures["renders"] = measure_renders(args.renders, args.frames, args.seed)
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
    if "renders" in figures:
        print(f"\n{args.renders} drawn tables (held-out-test styles), the start learnt, {args.frames} later frames "
              f"each read with the light drifted, the camera moved 1-3 px and the JPEG made again:")
        for key, o in figures["renders"].items():
            print(f"  {key:<7} refused {o['refused']}/{o['frames']}; of those read, locations right "
                  f"{o['right']}/{o['locations']} ({100 * o['right'] / max(o['locations'], 1):.2f}%), boards exact "
                  f"{o['exact']}/{o['frames'] - o['refused']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
