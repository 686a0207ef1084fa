"""The measure of change between two pictures of the board from one camera:
how far apart two colours must be to count as changed, how the pictures
are smoothed first, and which part of each point's strip is compared.

The comparison of whole frames (``changes.py``) and the reader's memory of
each point (``point_memory.py``) measure change alike, by these.

>>> import numpy as np
>>> same = np.zeros((24, 10, 8, 3), np.uint8)
>>> float(strip_distance2(same, same).max()), core_columns(10)
(0.0, (2, 8))
"""

from __future__ import annotations

import numpy as np

__all__ = ["SAME_PLACE_PX", "CHANGE_DELTA_E", "CHANGE_BLUR_MM", "FAINT_DELTA_E", "CHANGE_CORE", "core_columns",
           "strip_distance2"]

SAME_PLACE_PX = 1.0           # frames rectified with corners this close (px) show the board from the same place
#: "changed colour" is a Lab distance above this, between the two frames each smoothed ...
CHANGE_DELTA_E = 18.0
#: ... (Gaussian, this sigma in mm of the board) ...
CHANGE_BLUR_MM = 1.0
#: a fainter difference, for the places of men of nearly the board's colour (``vision.footprints``)
FAINT_DELTA_E = 8.0
#: ... counted over this middle share of the strip's width (a strip is wider than its point, and a man
#: moved on the point beside must not make this one look changed)
CHANGE_CORE = 0.6



def core_columns(width: int, core: float = CHANGE_CORE) -> tuple[int, int]:
    """The columns (from, to) of the middle *core* of a strip *width* pixels wide."""
    lo = int(round(width * (1 - core) / 2))
    return lo, max(lo + 1, width - lo)


def strip_distance2(before: np.ndarray, after: np.ndarray, core: float = CHANGE_CORE) -> np.ndarray:
    """The squared Lab distance, pixel by pixel, between two frames' 24
    strips (each (24, length, width, 3) uint8, ``strips.cut_pixels`` of the
    smoothed Lab picture), in the middle *core* of each strip's width:
    (24, length, core width), float32."""
    import cv2

    lo, hi = core_columns(before.shape[2], core)
    d = cv2.absdiff(before, after)[:, :, lo:hi].astype(np.float32).reshape(-1, hi - lo, 3)
    return cv2.transform(cv2.multiply(d, d), np.ones((1, 3), np.float32)).reshape(before.shape[0], -1, hi - lo)
