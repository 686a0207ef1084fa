"""The labels of a dataset of dice photographs, read in one place for the
training tools and the benchmark.

A dataset in the YOLO layout (as the dice dataset the dice reader learnt
from is kept): ``SPLIT/images/NAME.jpg`` and ``SPLIT/labels/NAME.txt``, a
line a die, ``CLASS x y w h``, the box's centre and size in shares of the
picture's width and height, ``CLASS`` 0..5 the face 1..6 on top.

>>> import tempfile
>>> path = Path(tempfile.mkdtemp()) / "a.txt"
>>> _ = path.write_text("2 0.5 0.25 0.1 0.05\\nnot a label\\n")
>>> dice_labels(path, 640, 480)
[(320.0, 120.0, 64.0, 24.0, 3)]
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["dice_labels", "label_path_of"]


def label_path_of(image: Path) -> Path:
    """The label file beside *image* (``images/NAME.jpg`` -> ``labels/NAME.txt``)."""
    return image.parent.parent / "labels" / (image.stem + ".txt")


def dice_labels(path: Path, width: int, height: int) -> list[tuple[float, float, float, float, int]]:
    """Each die of the label file *path* of a picture *width* x *height*: (centre x, centre y, width,
    height in pixels, the face 1..6); a missing file is a picture with no die, and a line that is not a
    label is passed over."""
    out = []
    for line in path.read_text().splitlines() if path.exists() else []:
        parts = line.split()
        if len(parts) != 5:
            continue
        try:
            c, x, y, bw, bh = (float(p) for p in parts)
        except ValueError:
            continue
        out.append((x * width, y * height, bw * width, bh * height, int(c) + 1))
    return out
