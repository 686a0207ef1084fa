"""Where things are on the board: the rectified playing surface, the 24
points, the bar, and the slots men lie in.

Where the points and the bar lie is the board's own where its layout was
found in the picture (``board_layout``: ``config.layout.centres`` and
``bar``); otherwise it follows the configured proportions.

The rectified surface has its origin at corner C3 (touching point 13), x along
the long edge towards C4 (point 24), y across towards C2/C1, in millimetres
(``docs/board-document.md``: C1 touches point 1, C2 point 12, C3 point 13, C4 point
24).  Points 13-24 lie along the top edge (y = 0), 12-1 along the bottom.

>>> g = BoardGeometry()
>>> g.point_centre_x(1), g.point_centre_x(12), g.point_centre_x(13), g.point_centre_x(24)
(510.0, 20.0, 20.0, 510.0)
>>> g.slot_centre(1, 0)
(510.0, 432.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, TypeAlias

import numpy as np
import numpy.typing as npt

from .config import VisionConfig
from .errors import InvalidCornersError

__all__ = ["BoardGeometry", "Corners", "homography", "corners_array", "CornersError"]

#: corners C1..C4 as given: four (x, y) pairs, or a 4 x 2 array of them (:func:`corners_array` checks them)
Corners: TypeAlias = "Sequence[Sequence[float]] | np.ndarray"


class CornersError(InvalidCornersError):
    """Four corners that cannot describe a board (wrong count, two in one
    place, not convex...): one of the camera part's errors, so the command
    says so in one line."""


@dataclass(frozen=True)
class BoardGeometry:
    """The board's layout in millimetres on the rectified surface."""

    config: VisionConfig = VisionConfig()

    @property
    def width(self) -> float:
        return self.config.surface_width

    @property
    def depth(self) -> float:
        return self.config.surface_depth

    @property
    def bar_x(self) -> tuple[float, float]:
        """Left and right edge of the bar (the board's own where its layout
        was found, ``config.layout.bar``; else from the proportions)."""
        c = self.config
        if c.layout.bar:
            return float(c.layout.bar[0]), float(c.layout.bar[1])
        left = c.half_width + (c.surface_width - 2 * c.half_width - c.bar_width) / 2
        return left, left + c.bar_width

    def point_centre_x(self, point: int) -> float:
        """The x of the middle of physical point *point* (1..24): the board's
        own where its layout was found (``config.layout.centres``), else
        from the proportions (points from each end, a bar in the middle)."""
        if not 1 <= point <= 24:
            raise ValueError(f"point must be 1..24, not {point}")
        c = self.config
        if c.layout.centres:
            return float(c.layout.centres[point - 1])
        if point <= 12:
            column = 12 - point          # point 12 is column 0 (leftmost), point 1 column 11
        else:
            column = point - 13          # point 13 column 0, point 24 column 11
        if column < 6:
            return column * c.point_width + c.point_width / 2
        return self.width - (11 - column) * c.point_width - c.point_width / 2

    def is_top(self, point: int) -> bool:
        """Whether *point* lies along the top edge (13..24)."""
        return point >= 13

    def slot_centre(self, point: int, k: float) -> tuple[float, float]:
        """The centre of the k-th man of a row on *point* (k = 0 at the edge;
        a half-integer k is a gap, where a man of the next layer lies)."""
        r = self.config.man_diameter / 2
        along = r + k * self.config.man_diameter
        y = along if self.is_top(point) else self.depth - along
        return self.point_centre_x(point), y

    def bar_centre(self) -> tuple[float, float]:
        left, right = self.bar_x
        return (left + right) / 2, self.depth / 2

    def surface_corners(self) -> np.ndarray:
        """The rectified corners C1..C4, in millimetres."""
        return np.array([[self.width, self.depth], [0.0, self.depth], [0.0, 0.0], [self.width, 0.0]],
                        dtype=np.float64)


_ORDER = "C1 touching point 1, C2 point 12, C3 point 13, C4 point 24 (docs/board-document.md)"


def corners_array(corners: npt.ArrayLike) -> np.ndarray:
    """Check four (x, y) corners C1..C4 and return them as a 4x2 float array."""
    try:
        arr = np.asarray(corners, dtype=np.float64)
    except (TypeError, ValueError):
        raise CornersError(f"corners must be four x,y pairs, not {corners!r}") from None
    if arr.shape != (4, 2) or not np.all(np.isfinite(arr)):
        raise CornersError(f"corners must be four x,y pairs (C1..C4), not {corners!r}")
    for i in range(4):
        for j in range(i + 1, 4):
            if np.hypot(*(arr[i] - arr[j])) < 1.0:
                raise CornersError(f"corners C{i + 1} and C{j + 1} are the same point ({arr[i][0]:g},{arr[i][1]:g}): "
                                   f"give the four corners of the playing surface, {_ORDER}")
    # the quadrilateral must be convex and not degenerate
    signs = []
    for i in range(4):
        a, b, c = arr[i], arr[(i + 1) % 4], arr[(i + 2) % 4]
        cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
        signs.append(cross)
    if not (all(s > 0 for s in signs) or all(s < 0 for s in signs)):
        raise CornersError(f"corners C1..C4 must go round the board in order (a convex quadrilateral): {_ORDER}")
    area = 0.5 * abs(sum(arr[i][0] * arr[(i + 1) % 4][1] - arr[(i + 1) % 4][0] * arr[i][1] for i in range(4)))
    if area < 100:
        raise CornersError(f"corners enclose only {area:.0f} square pixels: that is no board")
    return arr


def homography(corners: npt.ArrayLike, geometry: BoardGeometry, scale: float | None = None) -> np.ndarray:
    """The 3x3 homography from image pixels to rectified pixels (mm x scale)."""
    import cv2

    src = corners_array(corners).astype(np.float32)
    s = geometry.config.scale if scale is None else scale
    dst = (geometry.surface_corners() * s).astype(np.float32)
    return cv2.getPerspectiveTransform(src, dst)
