"""The bare board as the dice finder compares a candidate with it.

The dice finder (``vision/dice.py``) tells a die from a piece of a point or
of the frame partly by the board it lies on: the bare board drawn on the
rectified board (which region each pixel is: a point of either colour, the
field, the bar), its drawn edges (a point's long sides, the bar's sides, the
surface's edge) and their directions, and the colour of each region in this
picture (the median of a sparse sample away from its borders; men and dice
cover less than half of it).  Colours are compared in CIE Lab, lightness
counting less than hue (light falls off across a board).

>>> _lab(255, 255, 255)[0] > 99.9
True
>>> _lab_distance((50.0, 0.0, 0.0), (60.0, 3.0, 4.0), lightness_weight=0.0)
5.0
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from .bare_board import REGIONS, bare_board_regions, point_outline
from .config import DiceConfig, VisionConfig
from .geometry import BoardGeometry


def _odd(n: float) -> int:
    k = max(1, int(round(n)))
    return k if k % 2 else k + 1


@dataclass(frozen=True)
class _Layout:
    """The bare board drawn on the rectified board (config.scale px per mm)."""

    regions: np.ndarray       # the region code of each pixel (``bare_board``)
    samples: tuple[tuple[np.ndarray, np.ndarray], ...]  # per region code, (rows, cols) of a sparse sample
                                                        # away from its borders
    edge_distance: np.ndarray  # mm to the nearest drawn edge (a point's side, the bar, the surface's edge)
    edge_direction: np.ndarray  # that edge's direction (radians, 0..pi)


@functools.lru_cache(maxsize=8)
def _layout(config: VisionConfig) -> _Layout:
    """The bare board's regions and edges on the rectified board."""
    geometry = BoardGeometry(config)
    s = config.scale
    regions = bare_board_regions(config, 0.0)
    h, w = regions.shape
    segments: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for p in range(1, 25):
        base_l, base_r, tip, _ = ((float(x), float(y)) for x, y in point_outline(geometry, p))
        segments += [(base_l, tip), (tip, base_r)]            # the point's two long sides
    left, right = geometry.bar_x
    W, D = geometry.width, geometry.depth
    segments += [((left, 0.0), (left, D)), ((right, 0.0), (right, D)),
                 ((0.0, 0.0), (W, 0.0)), ((0.0, D), (W, D)), ((0.0, 0.0), (0.0, D)), ((W, 0.0), (W, D))]
    ids = np.zeros((h, w), np.uint16)
    angle = np.zeros(len(segments) + 1, np.float32)
    for i, ((ax, ay), (bx, by)) in enumerate(segments, start=1):
        cv2.line(ids, (int(round(ax * s)), int(round(ay * s))), (int(round(bx * s)), int(round(by * s))), i, 1)
        angle[i] = math.atan2(by - ay, bx - ax) % math.pi
    off_edge = (ids == 0).astype(np.uint8)
    distance, labels = cv2.distanceTransformWithLabels(off_edge, cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_PIXEL)
    ys, xs = np.nonzero(off_edge == 0)
    nearest = ids[ys, xs][np.maximum(labels, 1) - 1]
    dc = config.dice
    step = max(1, int(round(dc.board_sample_mm * s)))
    kernel = np.ones((_odd(dc.board_sample_inset_mm * s),) * 2, np.uint8)
    samples = []
    for k in range(REGIONS):
        inner = cv2.erode((regions == k).astype(np.uint8), kernel)[::step, ::step]
        rows, cols = np.nonzero(inner)
        samples.append((rows * step, cols * step))
    return _Layout(regions, tuple(samples), (distance / s).astype(np.float32), angle[nearest])


def _along_layout(contour: np.ndarray, layout: _Layout, s: float, dc: DiceConfig) -> float:
    """The share of a region's outline that runs along an edge of the bare
    board (within ``LAYOUT_TOLERANCE_MM``, in the edge's direction): pieces of
    points are bounded by them, dice only by chance."""
    p = contour.reshape(-1, 2)
    k = max(2, int(round(dc.tangent_span_mm * s)))
    if len(p) < 2 * k + 1:
        return 0.0
    xs, ys = p[:, 0], p[:, 1]
    near = layout.edge_distance[ys, xs] <= dc.layout_tolerance_mm
    count = int(near.sum())
    if count == 0:
        return 0.0
    ahead = np.concatenate([p[k:], p[:k]])
    behind = np.concatenate([p[-k:], p[:-k]])
    d = (ahead - behind)[near]
    tangent = np.arctan2(d[:, 1], d[:, 0]) % np.pi
    diff = np.abs(tangent - layout.edge_direction[ys[near], xs[near]])
    along = np.minimum(diff, np.pi - diff) < math.radians(dc.along_angle_deg)
    return float(along.sum()) / len(p)


class _LazyColours:
    """The bare board's colours of one picture, worked out when first asked for."""

    def __init__(self, rect_bgr: np.ndarray, layout: _Layout, least: int = 10) -> None:
        self._rect, self._layout, self._least = rect_bgr, layout, least
        self._colours: list[tuple[float, float, float] | None] | None = None

    def get(self) -> list[tuple[float, float, float] | None]:
        if self._colours is None:
            self._colours = _board_colours(self._rect, self._layout.samples, self._least)
        return self._colours


def _board_colours(rect_bgr: np.ndarray, samples: tuple[tuple[np.ndarray, np.ndarray], ...],
                   least: int = 10) -> list[tuple[float, float, float] | None]:
    """The median colour (Lab, float) of each region of the bare board (men
    and dice cover less than half of any region's sample)."""
    h, w = rect_bgr.shape[:2]
    out: list[tuple[float, float, float] | None] = []
    for ys, xs in samples:
        keep = (ys < h) & (xs < w)
        n = int(keep.sum())
        if n < least:
            out.append(None)
            continue
        pixels = rect_bgr[ys[keep], xs[keep]]
        median = [int(np.searchsorted(np.cumsum(np.bincount(pixels[:, c], minlength=256)), (n + 1) / 2))
                  for c in range(3)]
        out.append(_lab(*median))
    return out


def _lab(b: float, g: float, r: float) -> tuple[float, float, float]:
    """CIE Lab (D65, sRGB gamma; as cv2.COLOR_BGR2Lab) of one 8-bit BGR colour.
    (cv2.cvtColor is slow on a single pixel.)"""
    def linear(c: float) -> float:
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    R, G, B = linear(float(r)), linear(float(g)), linear(float(b))
    X = (0.412453 * R + 0.357580 * G + 0.180423 * B) / 0.950456
    Y = 0.212671 * R + 0.715160 * G + 0.072169 * B
    Z = (0.019334 * R + 0.119193 * G + 0.950227 * B) / 1.088754
    L = 116 * f(Y) - 16 if Y > 0.008856 else 903.3 * Y
    return L, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))


def _lab_distance(a: tuple[float, float, float], b: tuple[float, float, float],
                 lightness_weight: float = 0.3) -> float:
    """Distance of two Lab colours, lightness counting less (light falls off
    across a board; hue and saturation do not change)."""
    return math.sqrt(lightness_weight * (float(a[0]) - float(b[0])) ** 2 + (float(a[1]) - float(b[1])) ** 2
                     + (float(a[2]) - float(b[2])) ** 2)
