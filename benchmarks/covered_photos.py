"""Labelled photos of real boards, covered by code, read as a player's photo is: refused or not.

The labelled photos (``--photos DIR``, default ``$WILLUGHBY_REAL_PHOTOS``)
show no hand.  For the refusal (``vision/occlusion.py``) to be measured on
real boards, each is covered here, in memory, by things drawn over it
(``covers.py``): a bare forearm and hand, a sleeved arm and hand, a sleeve
alone, and a dice cup (``--per-kind`` of each, ``--seed``), each over a man
the label says is there, hiding at least half of him (arms come in from the
picture's edge beyond the nearer long side; cups stand on the men, half of
them in the colour of the men they stand on).  Each covered photo is read
as ``willughby vision read`` reads it with the labelled corners:

- *without a calibration photo* (a phone photo of a dispute), and
- *with one*: the clear photo, as the camera over the table would have
  taken it at calibration (``learn_look`` on it), then the covered one.

A covered photo should be refused; the clear photos should not be.  It
prints, per kind and in total, how many of the covered photos were refused
each way, and how many clear photos were refused, per photo too with
``--per-photo``.  ``--save DIR`` writes the covered pictures there to be
looked at (never into the repository: they are made from third-party
photos).

    python benchmarks/covered_photos.py [--photos DIR] [--per-kind 2] [--seed 5] [--save DIR] [--json]

Progress goes to standard error (photo k of n).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import cv2  # noqa: E402
from covers import KINDS, cover_photo  # noqa: E402
from labelled_turns import labelled_pictures  # noqa: E402

from willughby.vision.config import VisionConfig  # noqa: E402
from willughby.vision.reader import learn_look, read_board  # noqa: E402

DEFAULT_PHOTOS = Path(os.environ.get("WILLUGHBY_REAL_PHOTOS", "."))
WAYS = ("without calibration", "with calibration")


def measure(folder: Path, per_kind: int, seed: int, save: Path | None, quiet: bool = False) -> dict[str, Any]:
    """Read every labelled photo clear and covered, both ways (module docstring)."""
    config = VisionConfig.default()
    pictures = labelled_pictures(folder)
    if not pictures:
        raise SystemExit(f"{folder}: no labelled photos (IMAGE with IMAGE.json beside it)")
    rng = random.Random(seed)
    clear: dict[str, dict[str, bool]] = {}
    covered: list[dict[str, Any]] = []
    for k, (label_path, image_path) in enumerate(pictures, start=1):
        if not quiet:
            print(f"photo {k} of {len(pictures)}: {image_path.name}", file=sys.stderr, flush=True)
        label = json.loads(label_path.read_text())
        image = cv2.imread(str(image_path))
        if image is None:
            raise SystemExit(f"{image_path}: not an image OpenCV can read")
        corners = label["corners"]
        look = learn_look(image, corners, config)
        clear[image_path.name] = {
            WAYS[0]: bool(read_board(image, corners, config).occluded),
            WAYS[1]: bool(read_board(image, corners, config, look=look).occluded)}
        for kind in KINDS:
            for i in range(per_kind):
                picture, where, _ = cover_photo(image, label, config, kind, rng)
                if save is not None:
                    save.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(save / f"{image_path.stem}-{kind.replace(' ', '-')}-{i}.jpg"), picture)
                covered.append({"photo": image_path.name, "kind": kind, "over": where,
                                WAYS[0]: bool(read_board(picture, corners, config).occluded),
                                WAYS[1]: bool(read_board(picture, corners, config, look=look).occluded)})
    return {"photos": str(folder), "per_kind": per_kind, "seed": seed, "clear": clear, "covered": covered}


def report(result: dict[str, Any], per_photo: bool) -> list[str]:
    clear, covered = result["clear"], result["covered"]
    lines = [f"{len(clear)} labelled photos in {result['photos']}, each covered {result['per_kind']} times by each "
             f"of {', '.join(KINDS)} (seed {result['seed']}); read with the labelled corners, refused or not",
             "", "| | " + " | ".join(WAYS) + " |", "| --- | --- | --- |"]
    for kind in KINDS:
        rows = [c for c in covered if c["kind"] == kind]
        lines.append(f"| {kind}: refused | " + " | ".join(f"{sum(c[w] for c in rows)}/{len(rows)}" for w in WAYS)
                     + " |")
    lines.append("| **covered: refused** | " + " | ".join(f"{sum(c[w] for c in covered)}/{len(covered)}"
                                                          for w in WAYS) + " |")
    lines.append("| **clear: refused** | " + " | ".join(f"{sum(c[w] for c in clear.values())}/{len(clear)}"
                                                        for w in WAYS) + " |")
    if per_photo:
        lines += ["", "| photo | clear refused (without / with) | covered refused without | with |",
                  "| --- | --- | --- | --- |"]
        for name, was in clear.items():
            rows = [c for c in covered if c["photo"] == name]
            lines.append(f"| {name} | {'yes' if was[WAYS[0]] else 'no'} / {'yes' if was[WAYS[1]] else 'no'} | "
                         + " | ".join(f"{sum(c[w] for c in rows)}/{len(rows)}" for w in WAYS) + " |")
    missed = Counter((c["photo"], c["kind"]) for c in covered if not c[WAYS[0]])
    if missed:
        lines += ["", "read though covered (without calibration): "
                  + ", ".join(f"{p} {k} x{n}" for (p, k), n in sorted(missed.items()))]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS,
                    help="folder of labelled photos (default $WILLUGHBY_REAL_PHOTOS, else .)")
    ap.add_argument("--per-kind", type=int, default=2, help="covered versions of each kind per photo (default 2)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--save", type=Path, default=None, help="write the covered pictures to this folder")
    ap.add_argument("--per-photo", action="store_true", help="a row per photo too")
    ap.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    args = ap.parse_args(argv)
    if args.per_kind < 1:
        ap.error("--per-kind must be at least 1")
    if not args.photos.is_dir():
        ap.error(f"{args.photos}: no such folder (give --photos or set WILLUGHBY_REAL_PHOTOS)")
    result = measure(args.photos, args.per_kind, args.seed, args.save)
    print(json.dumps(result, indent=1) if args.json else "\n".join(report(result, args.per_photo)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
