"""What tells a die's face from a piece of a man, of a point or of the frame.

A candidate (:class:`_Candidate`) is a region of the whiteness of the
rectified board of about a die's size, found by the dice finder
(``vision/dice_candidates.py``); here it is measured -- the sides of its
smallest enclosing rectangle, how well it fills it, whether its outline runs
in two perpendicular directions, how much lighter it is than a ring just
outside it, how far its colour is from the bare board's there, how much of
its outline runs along the board's drawn edges -- and scored: a logistic
score of the measures (``DiceConfig.bias`` and ``DiceConfig.measures``,
fitted to labelled synthetic frames; ``vision/dice.py`` tells the method).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from .config import DiceConfig
from .dice_board import _along_layout, _lab, _lab_distance, _Layout


@dataclass
class _Candidate:
    """A region of the thresholded whiteness and its measures."""

    cx: float                 # centre of its enclosing rectangle (mm)
    cy: float
    short: float              # sides of the enclosing rectangle (mm)
    long: float
    rectness: float           # hull area / rectangle area
    solidity: float           # region area / hull area
    coherence: float          # four-fold symmetry of its outline's directions (1: a square)
    contrast: float           # mean whiteness inside minus in the ring outside
    board_distance: float     # colour distance (Lab) from the bare board there
    bbox: tuple[float, float, float, float]  # x0, y0, x1, y1 (mm)
    displacement: float = 0.0  # how far (mm) a die's top is seen from where it stands, here
    score: float = 0.0
    cut: int = 0              # which cut it was found in (index into levels + local_margins)
    along_layout: float = 0.0  # share of its outline along an edge of the bare board
    angle: float = 0.0        # of its enclosing rectangle (degrees, as cv2.minAreaRect gives it)
    mask: tuple[int, int, np.ndarray] | None = None  # (x0, y0, mask) of its region while it is measured

    def measures(self, die_mm: float) -> dict[str, float]:
        # the measures' scales and knees (19, 12, 3 mm, contrast 30, colour
        # 15) define what the score's weights (DiceConfig.measures) were
        # fitted to: change them only with a new fit
        s, l = self.short, self.long
        contrast = self.contrast
        return {
            "size": (s - die_mm) ** 2 / 10.0,
            "too_big": max(0.0, s - 19.0),
            "too_small": max(0.0, 12.0 - s),
            "elongation": (l - s) / 5.0,
            "unexplained_elongation": max(0.0, l - s - self.displacement - 3.0) / 5.0,
            "rectness": self.rectness,
            "solidity": self.solidity,
            "coherence": self.coherence,
            "contrast": contrast / 50.0,
            "contrast_30": min(contrast, 30.0) / 30.0,
            "board_distance": math.log1p(self.board_distance),
            "board_distance_15": min(self.board_distance, 15.0) / 15.0,
            "along_layout": self.along_layout,
        }


# the measures of contrast and of colour, and the most each can be
_CEILING = {"contrast": {"contrast": 255.0 / 50.0, "contrast_30": 1.0},
            "colour": {"board_distance": math.log1p(120.0), "board_distance_15": 1.0, "along_layout": 1.0}}
_GROUP = {name: group for group, names in _CEILING.items() for name in names}


def _logit(cand: _Candidate, dc: DiceConfig, *groups: str) -> float:
    """The candidate's score before the sigmoid; with *groups* ("shape",
    "contrast", "colour"), only the measures of those groups."""
    z = dc.bias
    m = cand.measures(dc.die_mm)
    for name, weight in dc.measures:
        if groups and _GROUP.get(name, "shape") not in groups:
            continue
        z += weight * m[name]
    return z


def _coherence4(contour: np.ndarray, eps: float) -> float:
    """How much of the outline runs in two perpendicular directions (1 for a
    square at any angle, near 0 for a circle): the length-weighted mean of
    exp(4i phi) over the sides of the outline's polygon."""
    p = cv2.approxPolyDP(contour, eps, True).reshape(-1, 2).tolist()
    n = len(p)
    if n < 3:
        return 0.0
    re = im = total = 0.0
    for i in range(n):
        ex, ey = p[(i + 1) % n][0] - p[i][0], p[(i + 1) % n][1] - p[i][1]
        length = math.hypot(ex, ey)
        if length == 0:
            continue
        c, s = ex / length, ey / length
        c2, s2 = c * c - s * s, 2 * c * s            # exp(2i phi)
        re += length * (c2 * c2 - s2 * s2)           # exp(4i phi)
        im += length * 2 * c2 * s2
        total += length
    return math.hypot(re, im) / total if total else 0.0


# (cx, cy, short, long, rectness, solidity, angle) of a region's outline
_Shape = tuple[float, float, float, float, float, float, float]


def _shape(contour: np.ndarray, s: float, dc: DiceConfig) -> _Shape | None:
    """(cx, cy, short, long, rectness, solidity, angle) of a region's outline
    (mm, degrees), or None if it is no die's size."""
    area = cv2.contourArea(contour)
    if area < dc.min_area_mm2 * s * s:
        return None
    hull = cv2.convexHull(contour)
    hull_area = cv2.contourArea(hull)
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(hull)
    short, long_ = min(rw, rh) / s, max(rw, rh) / s
    if not dc.min_side_mm <= short <= dc.max_side_mm or long_ > dc.max_long_mm or hull_area <= 0:
        return None
    return cx / s, cy / s, short, long_, hull_area / max(rw * rh, 1e-6), area / hull_area, angle


def _measure_contrast(cand: _Candidate, contour: np.ndarray, white: np.ndarray,
                      s: float, ring_mm: tuple[float, ...]) -> tuple[float, float]:
    """The candidate's contrast with a ring just outside it; returns the mean
    whiteness inside and in the ring."""
    h, w = white.shape
    x, y, bw, bh = cv2.boundingRect(contour)
    pad = int(math.ceil(ring_mm[1] * s)) + 2
    x0, y0 = max(0, x - pad), max(0, y - pad)
    x1, y1 = min(w, x + bw + pad), min(h, y + bh + pad)
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(inside, [contour], 0, 255, -1, offset=(-x0, -y0))
    outer, inner = _ring_kernels(s, tuple(ring_mm))
    ring = cv2.subtract(cv2.dilate(inside, outer), cv2.dilate(inside, inner))
    roi = white[y0:y1, x0:x1]
    mean_in, mean_ring = cv2.mean(roi, mask=inside)[0], cv2.mean(roi, mask=ring)[0]
    cand.contrast = mean_in - mean_ring
    cand.mask = (x0, y0, inside)
    return mean_in, mean_ring


@functools.lru_cache(maxsize=4)
def _ring_kernels(s: float, ring_mm: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    outer = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(round(ring_mm[1] * s)) + 1,) * 2)
    inner = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(round(ring_mm[0] * s)) + 1,) * 2)
    return outer, inner


def _measure_colour(cand: _Candidate, contour: np.ndarray, rect_bgr: np.ndarray, layout: _Layout,
                    colours: list[tuple[float, float, float] | None], s: float, dc: DiceConfig) -> None:
    """The candidate's colour's distance from the bare board there, and how
    much of its outline runs along the board's drawn edges; then its score."""
    h, w = rect_bgr.shape[:2]
    assert cand.mask is not None, "measured after _measure_contrast, which sets the mask"
    x0, y0, inside = cand.mask
    b, g, r, _ = cv2.mean(rect_bgr[y0:y0 + inside.shape[0], x0:x0 + inside.shape[1]], mask=inside)
    lab = _lab(b, g, r)
    # the board's regions under the candidate: at its centre and half way to its corners
    cx, cy = cand.cx * s, cand.cy * s
    qx, qy = (cand.bbox[2] - cand.bbox[0]) * s / 4.0, (cand.bbox[3] - cand.bbox[1]) * s / 4.0
    under = {int(layout.regions[min(h - 1, max(0, int(cy + dy))), min(w - 1, max(0, int(cx + dx)))])
             for dx, dy in ((0, 0), (-qx, -qy), (qx, -qy), (-qx, qy), (qx, qy))}
    distances = [_lab_distance(lab, ref, dc.lab_lightness_weight)
                 for k, ref in enumerate(colours) if ref is not None and k in under]
    cand.board_distance = min(distances) if distances else dc.unknown_board_distance
    cand.along_layout = _along_layout(contour, layout, s, dc)
    cand.mask = None
    cand.score = 1.0 / (1.0 + math.exp(-max(min(_logit(cand, dc), 50.0), -50.0)))
