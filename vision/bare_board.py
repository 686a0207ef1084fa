"""The bare board drawn on the rectified board: which part of the board
each pixel shows where no man or die lies on it.  The one drawing of the
board's layout, and its one set of region codes; the reader learns the
board's colours region by region (``reader.learn_board``) and the dice
finder compares a candidate with the region under it (``dice``).

>>> from willughby.vision.config import VisionConfig
>>> regions = bare_board_regions(VisionConfig.default(), 0.0)
>>> int(regions[5, 20]), int(regions[225, 265]), point_region(1), point_region(2)
(4, 1, 4, 3)
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from .config import VisionConfig
from .geometry import BoardGeometry

__all__ = ["FIELD", "BAR", "AROUND", "POINT_EVEN", "POINT_ODD", "REGIONS", "point_region", "point_outline",
           "outline_pixels", "bare_board_regions"]

FIELD = 0           # the open playing surface
BAR = 1             # the bar
AROUND = 2          # the margin round the playing surface (drawn only where a margin is asked for)
POINT_EVEN = 3      # the points of one colour: 2, 4, ..., 24
POINT_ODD = 4       # ... and of the other: 1, 3, ..., 23
REGIONS = 5         # how many codes there are


def point_region(point: int) -> int:
    """The region code of point *point* (1..24): its colour's."""
    return POINT_EVEN + point % 2


def point_outline(geometry: BoardGeometry, point: int, frac: tuple[float, float] = (0.0, 1.0)) -> np.ndarray:
    """The outline (mm, four corners: two at the base end, two at the tip
    end) of the part of point *point*'s triangle from *frac[0]* to
    *frac[1]* of its length from the board's edge; the whole triangle by
    default (its two tip corners then one)."""
    c = geometry.config
    xc = geometry.point_centre_x(point)
    half = c.point_width / 2
    a0, a1 = frac[0] * c.point_length, frac[1] * c.point_length
    w0, w1 = half * (1 - frac[0]), half * (1 - frac[1])
    if geometry.is_top(point):
        poly = [(xc - w0, a0), (xc + w0, a0), (xc + w1, a1), (xc - w1, a1)]
    else:
        d = geometry.depth
        poly = [(xc - w0, d - a0), (xc + w0, d - a0), (xc + w1, d - a1), (xc - w1, d - a1)]
    return np.array(poly, np.float64)


def outline_pixels(outline: np.ndarray, scale: float, margin: float = 0.0) -> np.ndarray:
    """*outline* (mm on the surface) in the pixels of a picture rectified at
    *scale* px per mm with *margin* mm round the surface."""
    return np.round((outline + margin) * scale).astype(np.int32)


@lru_cache(maxsize=8)
def bare_board_regions(config: VisionConfig, margin: float = 0.0) -> np.ndarray:
    """The region code of each pixel of the surface rectified at
    ``config.scale`` px per mm with *margin* mm round it (``AROUND`` there):
    the field, the bar, and the points of the two colours drawn over them.
    The same for every frame of a board: drawn once (do not write to it)."""
    geometry = BoardGeometry(config)
    s = config.scale
    w = int(round((geometry.width + 2 * margin) * s))
    h = int(round((geometry.depth + 2 * margin) * s))
    m0 = int(round(margin * s))
    mx, my = int(round((geometry.width + margin) * s)), int(round((geometry.depth + margin) * s))
    regions = np.full((h, w), AROUND, np.uint8)
    regions[m0:my, m0:mx] = FIELD
    left, right = geometry.bar_x
    regions[m0:my, int((left + margin) * s):int((right + margin) * s)] = BAR
    for p in range(1, 25):
        cv2.fillConvexPoly(regions, outline_pixels(point_outline(geometry, p), s, margin), point_region(p))
    regions.setflags(write=False)
    return regions
