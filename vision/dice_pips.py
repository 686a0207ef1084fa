"""The pips on a die's top face, read where they are seen plainly.

Only a candidate that is the top face alone (square) is read: dark spots of
a pip's size inside the face, each on the face's 3 x 3 grid, making one of
the six patterns; anything else (a spot off the grid, a dark blot) leaves
the value unread (``None``).  The numbers are ``DiceConfig.pip_*``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .config import VisionConfig
from .dice_measures import _Candidate


# the pips of each value, on a 3 x 3 grid (-1, 0, 1) across the face; a die
# may lie either way round, so 2, 3 and 6 come in two orientations
_PIP_PATTERNS = {
    1: [{(0, 0)}],
    2: [{(-1, -1), (1, 1)}, {(-1, 1), (1, -1)}],
    3: [{(-1, -1), (0, 0), (1, 1)}, {(-1, 1), (0, 0), (1, -1)}],
    4: [{(-1, -1), (-1, 1), (1, -1), (1, 1)}],
    5: [{(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)}],
    6: [{(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)},
        {(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)}],
}


def _read_pips(config: VisionConfig, rect_bgr: np.ndarray, cand: _Candidate) -> int | None:
    """The value on the top face of a die found as *cand*, or None unless
    the pips are seen plainly: dark spots of a pip's size, each on the face's
    3 x 3 grid, making one of the six patterns.  Only a candidate that is
    the top face alone (square) is read."""
    dc = config.dice
    if cand.long - cand.short > dc.pip_square_mm:
        return None
    s = config.scale
    side = cand.short * s
    half = int(math.ceil(side * 0.75)) + 2
    cx, cy = cand.cx * s, cand.cy * s
    x0, y0 = int(round(cx)) - half, int(round(cy)) - half
    h, w = rect_bgr.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + 2 * half + 1 > w or y0 + 2 * half + 1 > h:
        return None
    b, g, r = cv2.split(rect_bgr[y0:y0 + 2 * half + 1, x0:x0 + 2 * half + 1])
    white = cv2.min(cv2.min(b, g), r)
    # the face, a little inside its edges
    box = cv2.boxPoints(((cx - x0, cy - y0), (side * dc.pip_face_inset, side * dc.pip_face_inset), cand.angle))
    face = np.zeros(white.shape, np.uint8)
    cv2.fillConvexPoly(face, np.round(box).astype(np.int32), 255)
    if cv2.countNonZero(face) < 9:
        return None
    values = white[face > 0]
    q = int(len(values) * dc.pip_face_level)
    level = float(np.partition(values, q)[q])
    dark = ((white < level * dc.pip_dark) & (face > 0)).astype(np.uint8)
    n, _, stats, centres = cv2.connectedComponentsWithStats(dark, connectivity=8)
    least, most = (dc.pip_min_size * side) ** 2, (dc.pip_max_size * side) ** 2
    theta = math.radians(cand.angle)
    ct, st = math.cos(theta), math.sin(theta)
    cells = set()
    for i in range(1, n):
        if not least <= stats[i, cv2.CC_STAT_AREA] <= most:
            if stats[i, cv2.CC_STAT_AREA] > most:
                return None   # a dark blot, not a pip
            continue
        dx, dy = centres[i][0] - (cx - x0), centres[i][1] - (cy - y0)
        u, v = (dx * ct + dy * st) / side, (-dx * st + dy * ct) / side   # in the face's own frame
        gu, gv = round(u / 0.25), round(v / 0.25)
        if abs(gu) > 1 or abs(gv) > 1 or abs(u - 0.25 * gu) > dc.pip_grid or abs(v - 0.25 * gv) > dc.pip_grid:
            return None   # a spot off the grid: not plainly a pip
        cells.add((gu, gv))
    value = len(cells)
    return value if value in _PIP_PATTERNS and cells in _PIP_PATTERNS[value] else None
