"""Pack the dice dataset's pictures into one small file, to train the dice reader on a machine
that does not have the dataset (a GPU machine a few tens of megabytes can be sent to).

Each picture is made grey and smaller, so that its median die is at most ``--die-px`` across (the
face reader reads a die at about 28 pixels; larger dice only cost bytes), and stored as a JPEG
with its labelled dice and the places the finder (``--finder``) takes wrongly for dice in it,
looked for at the picture's own size (the face reader learns those as "no die")::

    PYTHONPATH=W python tools/pack_dice_pictures.py DICE --out /tmp/dice-pack.npz --workers 2

(``DICE``: the dataset's folder, ``train/`` and ``valid/``; ``W``: a folder holding one link
``willughby`` to this repository.) ``tools/train_dice_reader.py`` takes the file in place of the
folder. The pack holds the dataset's images: like the dataset, it is never part of the project.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dice_examples import mine_finder_places, read_split, shrunk, write_pack  # noqa: E402

DEFAULT_FINDER = Path(__file__).resolve().parent.parent / "vision" / "data" / "dice_finder.onnx"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the dice dataset's folder (train/ and valid/)")
    parser.add_argument("--out", type=Path, required=True, help="the file to write (.npz)")
    parser.add_argument("--finder", type=Path, default=DEFAULT_FINDER,
                        help="the finder whose mistakes are packed as places with no die")
    parser.add_argument("--die-px", type=float, default=32.0, help="the largest median die kept, in pixels")
    parser.add_argument("--quality", type=int, default=85, help="the JPEG quality, 1..100")
    parser.add_argument("--valid", type=int, default=300,
                        help="how many held-out pictures to pack, spread over the part (for the report)")
    parser.add_argument("--workers", type=int, default=1, help="pictures looked at by the finder at once")
    parser.add_argument("--limit", type=int, default=None, help="at most this many training pictures")
    args = parser.parse_args(argv)
    if not (args.dataset / "train" / "images").is_dir():
        parser.error(f"{args.dataset}: no train/images folder; is this the dice dataset's folder?")
    if not args.finder.is_file():
        parser.error(f"{args.finder}: no such finder")
    if args.valid < 0:
        parser.error("--valid must be 0 or more")
    if not 1 <= args.quality <= 100:
        parser.error("--quality must be 1..100")
    t0 = time.time()
    train = read_split(args.dataset, "train", args.limit)
    valid = read_split(args.dataset, "valid") if args.valid else []
    valid = valid[::max(1, len(valid) // args.valid)][:args.valid] if valid else []   # spread over the part
    print(f"{len(train)} training pictures, {len(valid)} held out ({time.time() - t0:.0f} s)", flush=True)
    wrong, _ = mine_finder_places(train, args.finder, args.workers, progress=lambda n: print(
        f"  {n} of {len(train)} pictures looked at ({time.time() - t0:.0f} s)", flush=True))
    print(f"{wrong} places the finder took for a die wrongly ({time.time() - t0:.0f} s)", flush=True)
    parts = {"train": [shrunk(p, args.die_px) for p in train], "valid": [shrunk(p, args.die_px) for p in valid]}
    size = write_pack(parts, args.out, args.quality)
    print(f"written {args.out}: {size / 1e6:.1f} MB ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
