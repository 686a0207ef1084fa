"""Dice lying on the playing surface, found so that the reader never counts
them as men.

A die is a cube of about 16 mm.  Seen on the rectified board it is a small
light square (its top face, white or ivory with dark pips), often joined by
the side faces the camera sees, which lie between the top face and the spot
the die stands on; men are discs 36 mm across, often touching in rows.  The
finder works on the *whiteness* of the rectified board (the least of the
three colour channels: high only where a pixel is both light and grey), the
pips filled in by a small closing:

1. **regions** -- the whiteness is cut at several margins above its local
   mean (a die stands out from its neighbourhood: on a pale board not by
   much); every outer contour of about a die's size, off the bar and clear
   of the frame as the camera sees it, is a candidate, and is cut once more
   half way between its own whiteness and its surroundings' (where its edge
   really is);
2. **measures** -- what tells a die's face from a piece of a man, of a point
   or of the frame: the sides of its smallest enclosing rectangle (a die is
   square; its length grows only by the side faces the camera shows there),
   how well it fills that rectangle, whether its outline runs in two
   perpendicular directions, how much lighter it is than a ring just outside
   it, how far its colour is from the bare board's colour at that place
   (the two point colours, the field and the bar, learned from this
   picture), and how much of its outline runs along the edges of the points
   (pieces of points are bounded by them);
3. **score** -- a logistic score of these measures (``BIAS`` and
   ``MEASURES``, fitted to labelled synthetic frames); a candidate above
   ``MIN_SCORE`` is a die unless it is the bare board showing in the gap
   between four men of two neighbouring points (such gaps lie at known
   places, and the men round them are plain, alike patches);
4. **places** -- one die shows as its top, its sides or both: candidates
   on a die already found are that die.  Its pips are read when its top
   face is seen plainly (``value``, else ``None``).

With the camera (:func:`~willughby.vision.camera.camera_from_corners`) the
finder knows where the top of a die standing at any place is seen (``DIE_MM``
above the surface, so displaced away from the camera's foot): it allows for
the side faces there and reports where the die stands; :func:`dice_mask`
covers where it stands, its top as seen, and all between.

Precision on men matters most: a die missed may show as a phantom man, but a
man taken for a die would be lost, so ``MIN_SCORE`` is set where no piece
of a man is taken for a die on the labelled sets.  What is missed most is a
die lying on or against a point of its own colour (white on white), a die
against the frame, and a die whose sides are lit as brightly as its top and
merge with its shadow.  A die on the bar is never looked for.

The method's numbers (lengths in mm, whiteness 0..255, the score's fitted
weights) are :class:`~willughby.vision.config.DiceConfig`, ``config.dice``,
which the ``[vision.dice]`` table of a TOML file may override; names in
capitals in these docstrings are its fields (``MIN_SCORE`` is ``config.dice.min_score``).

>>> import numpy as np
>>> from willughby.vision.config import VisionConfig
>>> board = np.full((450, 530, 3), (60, 110, 150), np.uint8)     # a plain brown surface
>>> _ = cv2.rectangle(board, (292, 192), (307, 207), (235, 235, 235), -1)  # a 16 mm white square
>>> [(round(d.x), round(d.y)) for d in find_dice(VisionConfig(), board)]
[(300, 200)]
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from .bare_board import REGIONS, bare_board_regions, point_outline
from .camera import Camera
from .config import DiceConfig, VisionConfig
from .errors import FrameError
from .geometry import BoardGeometry

__all__ = ["Die", "find_dice", "dice_mask"]

@dataclass(frozen=True)
class Die:
    """One die found on the rectified board.

    *x*, *y* is where it stands (surface mm, the reader's rectified frame,
    origin at corner C3); without the camera, where its top face is seen.
    *size* is the side of its top face as seen (mm), *value* its pips if
    read (else ``None``), *score* 0..1 how sure the finder is.  *top_x*,
    *top_y* is where its top face is seen on the rectified board (displaced
    away from the camera's foot); ``dice_mask`` covers everything between.
    """

    x: float
    y: float
    size: float
    value: int | None
    score: float
    top_x: float | None = None
    top_y: float | None = None

    @property
    def top(self) -> tuple[float, float]:
        """Where the top face is seen (the standing place if not known)."""
        return (self.x if self.top_x is None else self.top_x,
                self.y if self.top_y is None else self.top_y)


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
    mask: tuple | None = None  # (x0, y0, mask) of its region while it is measured

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


def _odd(n: float) -> int:
    k = max(1, int(round(n)))
    return k if k % 2 else k + 1


@dataclass(frozen=True)
class _Layout:
    """The bare board drawn on the rectified board (config.scale px per mm)."""

    regions: np.ndarray       # the region code of each pixel (``bare_board``)
    samples: tuple            # per region code, (rows, cols) of a sparse sample away from its borders
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


def _board_colours(rect_bgr: np.ndarray, samples, least: int = 10) -> list[tuple[float, float, float] | None]:
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


def _shape(contour: np.ndarray, s: float, dc: DiceConfig) -> tuple[float, ...] | None:
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


def _whiteness(config: VisionConfig, rect_bgr: np.ndarray) -> np.ndarray:
    b, g, r = cv2.split(rect_bgr)
    white = cv2.min(cv2.min(b, g), r)
    k = _odd(config.dice.close_mm * config.scale)
    return cv2.morphologyEx(white, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))


def _candidates(config: VisionConfig, rect_bgr: np.ndarray, camera: Camera | None = None,
                prune: bool = True, colours: _LazyColours | None = None) -> list[_Candidate]:
    """Every region of a die's size and rough shape, at every cut, off the bar
    and clear of the frame, measured and scored.  With *prune*, a region
    already seen at another cut, or whose shape alone cannot reach
    ``MIN_SCORE``, is not measured further."""
    s = config.scale
    dc = config.dice
    geometry = BoardGeometry(config)
    bar_left, bar_right = geometry.bar_x
    white = _whiteness(config, rect_bgr)
    h, w = white.shape
    layout = _layout(config)
    if layout.regions.shape != (h, w):
        raise FrameError(f"the rectified board is {w}x{h} px, but config (scale {config.scale}) makes it "
                         f"{layout.regions.shape[1]}x{layout.regions.shape[0]}")
    colours = colours or _LazyColours(rect_bgr, layout, dc.least_board_samples)
    # no die lies on the bar: leave it out of the cuts (fewer contours to trace)
    bar_clear = dc.bar_clear_mm
    white[:, max(0, int((bar_left + bar_clear) * s)):max(0, int((bar_right - bar_clear) * s))] = 0
    cuts = [cv2.threshold(white, level - 1, 255, cv2.THRESH_BINARY)[1] for level in dc.levels]
    if dc.local_margins:
        k = _odd(dc.local_window_mm * s)
        local = cv2.blur(white, (k, k))
        cuts += [cv2.compare(white, cv2.add(local, margin), cv2.CMP_GE) for margin in dc.local_margins]
    min_px, max_long_px = dc.min_side_mm * dc.box_slack * s, dc.max_long_mm * s
    min_len = dc.min_outline_mm * s
    near_frame = dc.frame_clear_mm + config.frame_height * 2  # the frame's top is never seen further in
    weights = dict(dc.measures)
    # the most the measures of contrast and of colour can add to a score
    ceiling = {group: sum(max(0.0, weights.get(name, 0.0)) * top for name, top in _CEILING[group].items())
               for group in ("contrast", "colour")}
    need = (math.log(dc.min_score / (1 - dc.min_score)) if 0 < dc.min_score < 1
            else -math.inf if dc.min_score <= 0 else math.inf)
    settled: list[tuple[float, float]] = []
    if camera is not None:
        k_top = camera.magnification(dc.die_mm)
        foot_x, foot_y = camera.foot
    seen: set[tuple[int, int, int, int]] = set()
    out: list[_Candidate] = []
    for cut_index, cut in enumerate(cuts):
        contours, _ = cv2.findContours(cut, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for c in contours:
            if len(c) < min_len:
                continue
            x, y, bw, bh = cv2.boundingRect(c)
            if bw < min_px or bh < min_px or bw > max_long_px or bh > max_long_px:
                continue
            if prune:
                # the same region cut at another level: measured already
                key = ((2 * x + bw) // 4, (2 * y + bh) // 4, bw // 3, bh // 3)
                if key in seen:
                    continue
                seen.add(key)
            bbox = (x / s, y / s, (x + bw) / s, (y + bh) / s)
            mid_x = (bbox[0] + bbox[2]) / 2
            if bar_left - bar_clear < mid_x < bar_right + bar_clear:
                continue
            if (min(bbox[0], bbox[1], geometry.width - bbox[2], geometry.depth - bbox[3]) < near_frame
                    and _frame_clearance(geometry, bbox, camera) < dc.frame_clear_mm):
                continue
            shape = _shape(c, s, dc)
            if shape is None:
                continue
            cand = _Candidate(*shape[:6], angle=shape[6], coherence=1.0, contrast=0.0, board_distance=0.0,
                              bbox=bbox, cut=cut_index)
            if bar_left - bar_clear < cand.cx < bar_right + bar_clear:
                continue
            if camera is not None:
                cand.displacement = (1 - 1 / k_top) * math.hypot(cand.cx - foot_x, cand.cy - foot_y)
            if prune and any(abs(cand.cx - px) < dc.same_place_mm and abs(cand.cy - py) < dc.same_place_mm
                             for px, py in settled):
                continue   # a die found here already, beyond doubt
            if prune and _logit(cand, dc, "shape") + ceiling["contrast"] + ceiling["colour"] < need:
                continue
            cand.coherence = _coherence4(c, s)
            if prune and _logit(cand, dc, "shape") + ceiling["contrast"] + ceiling["colour"] < need:
                continue
            inner, outer = _measure_contrast(cand, c, white, s, dc.ring_mm)
            tries = [(cand, c)]
            if dc.refine:
                # cut again half way between the region and its surroundings
                found = _refine(cand, white, (inner + outer) / 2, s, dc)
                if found is not None:
                    found[0].displacement = cand.displacement
                    _measure_contrast(found[0], found[1], white, s, dc.ring_mm)
                    tries.append(found)
            for one, contour in tries:
                if prune and _logit(one, dc, "shape", "contrast") + ceiling["colour"] < need:
                    continue
                _measure_colour(one, contour, rect_bgr, layout, colours.get(), s, dc)
                out.append(one)
                if one.score >= dc.settled_score:
                    settled.append((one.cx, one.cy))
    return out


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


def _refine(cand: _Candidate, white: np.ndarray, level: float,
            s: float, dc: DiceConfig) -> tuple[_Candidate, np.ndarray] | None:
    """The region round a candidate's centre cut at *level* (half way between
    the candidate and its surroundings: where its edge really is), or None
    if that is no die's size or shape."""
    h, w = white.shape
    half = int(math.ceil(dc.max_long_mm * s / 2)) + 2
    cx, cy = int(round(cand.cx * s)), int(round(cand.cy * s))
    x0, y0, x1, y1 = max(0, cx - half), max(0, cy - half), min(w, cx + half), min(h, cy + half)
    cut = cv2.threshold(white[y0:y1, x0:x1], max(0.0, level - 1), 255, cv2.THRESH_BINARY)[1]
    contours, _ = cv2.findContours(cut, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x0, y0))
    for c in contours:
        if len(c) >= dc.min_outline_mm * s and cv2.pointPolygonTest(c, (float(cx), float(cy)), False) >= 0:
            x, y, bw, bh = cv2.boundingRect(c)
            if x <= x0 or y <= y0 or x + bw >= x1 or y + bh >= y1:
                return None   # runs out of the window: merged with something large
            shape = _shape(c, s, dc)
            if shape is None:
                return None
            refined = _Candidate(*shape[:6], angle=shape[6], coherence=_coherence4(c, s), contrast=0.0,
                                 board_distance=0.0, bbox=(x / s, y / s, (x + bw) / s, (y + bh) / s), cut=-1)
            return refined, c
    return None


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


def _frame_clearance(geometry: BoardGeometry, bbox: tuple[float, float, float, float],
                     camera: Camera | None) -> float:
    """How far (mm) a region of bounding box *bbox* (x0, y0, x1, y1) keeps
    from the frame as the camera sees it (on a side towards the camera, the
    frame's top hides a band of the surface)."""
    W, D = geometry.width, geometry.depth
    x0, y0, x1, y1 = bbox
    mx, my = min(max((x0 + x1) / 2, 0.0), W), min(max((y0 + y1) / 2, 0.0), D)
    sides = ((mx, 0.0, y0, 1), (mx, D, D - y1, 1), (0.0, my, x0, 0), (W, my, W - x1, 0))
    clear = math.inf
    for px, py, gap, axis in sides:
        intrusion = 0.0
        if camera is not None:
            qx, qy = camera.on_surface(px, py, geometry.config.frame_height)
            inward = (qy - py) if axis else (qx - px)
            if (axis and py > 0) or (not axis and px > 0):
                inward = -inward
            intrusion = max(inward, 0.0)
        clear = min(clear, gap - intrusion)
    return clear


def _standing_place(cand: _Candidate, camera: Camera | None, die_mm: float) -> tuple[float, float, float, float]:
    """Where the die of a candidate stands and where its top is seen (mm).

    The region found is the top face, or the top face with the sides the
    camera sees (when those are lit as brightly): its centre lies between
    the top's centre and the middle of top and foot."""
    if camera is None:
        return cand.cx, cand.cy, cand.cx, cand.cy
    k = camera.magnification(die_mm)
    fx, fy = camera.foot
    # a top seen at t stands at f = foot + (t - foot) / k; the displacement there is t - f
    dx = (cand.cx - fx) * (1 - 1 / k)
    dy = (cand.cy - fy) * (1 - 1 / k)
    d = math.hypot(dx, dy)
    share = 1.0 if d < 1e-6 else 1.0 - 0.5 * min(max((cand.long - cand.short) / d, 0.0), 1.0)
    # centre = foot + share * displacement
    x, y = cand.cx - share * dx, cand.cy - share * dy
    return x, y, x + dx, y + dy


def _between_men(config: VisionConfig, cand: _Candidate, rect_bgr: np.ndarray, layout: _Layout,
                 colours: _LazyColours) -> bool:
    """Whether the candidate is the bare board showing in the gap between the
    men of two neighbouring points: a light square bounded by four arcs.  Men
    lie in rows from the edge, so such gaps lie half way between two points'
    centre lines, a whole number of men's widths from the edge.  It is one if
    it lies at such a place and either on both sides the two places where men
    would lie look alike and plain (a row of men or the bare point) and on at
    least one side they are not the bare board's colour (men), or three of
    the four places hold something plain that is not the board (three men)."""
    geometry = BoardGeometry(config)
    s = config.scale
    dc = config.dice
    r = config.man_diameter / 2
    pw = config.point_width
    x, y = cand.cx, cand.cy
    left, right = geometry.bar_x
    if x < left:
        bx = round(x / pw) * pw
        if not 0 < bx < left:
            return False
    else:
        bx = geometry.width - round((geometry.width - x) / pw) * pw
        if not right < bx < geometry.width:
            return False
    edge = 0.0 if y < geometry.depth / 2 else geometry.depth
    along = abs(y - edge)
    gap_along = round(along / (2 * r)) * 2 * r
    if gap_along < 2 * r - 1e-6 or gap_along > config.point_length + r:
        return False
    if abs(x - bx) > dc.gap_near_mm or abs(along - gap_along) > dc.gap_near_mm:
        return False
    by = abs(edge - gap_along)
    h, w = rect_bgr.shape[:2]
    half = max(1, int(round(dc.gap_patch_mm * s / 2)))
    sides = []
    men = 0
    for dx in (-pw / 2, pw / 2):
        looks = []
        for dy in (-r, r):
            px, py = int(round((bx + dx) * s)), int(round((by + dy) * s))
            if not (half <= px < w - half and half <= py < h - half):
                return False
            mean, std = cv2.meanStdDev(rect_bgr[py - half:py + half + 1, px - half:px + half + 1])
            lab = _lab(*mean.ravel())
            ref = colours.get()[int(layout.regions[py, px])]
            foreign = ref is None or _lab_distance(lab, ref, dc.lab_lightness_weight) > dc.gap_foreign
            looks.append((lab, float(std.max()), foreign))
        (lab_a, std_a, foreign_a), (lab_b, std_b, foreign_b) = looks
        plain_pair = (std_a < dc.gap_plain and std_b < dc.gap_plain
                      and _lab_distance(lab_a, lab_b, dc.lab_lightness_weight) < dc.gap_alike)
        sides.append((plain_pair, foreign_a and foreign_b))
        men += sum(std < dc.gap_plain and foreign for _, std, foreign in looks)
    # two rows of men (or one and the bare point beside it), or three men round a gap
    return (all(plain for plain, _ in sides) and any(foreign for _, foreign in sides)) or men >= 3


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


def _lab_distance(a, b, lightness_weight: float = 0.3) -> float:
    """Distance of two Lab colours, lightness counting less (light falls off
    across a board; hue and saturation do not change)."""
    return math.sqrt(lightness_weight * (float(a[0]) - float(b[0])) ** 2 + (float(a[1]) - float(b[1])) ** 2
                     + (float(a[2]) - float(b[2])) ** 2)


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


def _segment_distance(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """Distance from (px, py) to the segment from (ax, ay) to (bx, by)."""
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def find_dice(config: VisionConfig, rect_bgr: np.ndarray, camera: Camera | None = None) -> list[Die]:
    """The dice lying on the rectified playing surface *rect_bgr* (as made by
    ``reader.rectify``: ``config.scale`` px per mm, origin at corner C3),
    best first.  *camera* (from ``camera_from_corners``) lets the finder
    allow for the side faces it sees and report where each die stands.
    Raises :class:`~willughby.vision.errors.FrameError` (a ``ValueError``)
    for something that is not an 8-bit BGR image of the size *config* gives
    the rectified board.

    >>> board = np.full((450, 530, 3), (40, 40, 160), np.uint8)
    >>> find_dice(VisionConfig(), board)
    []
    """
    if not isinstance(rect_bgr, np.ndarray) or rect_bgr.ndim != 3 or rect_bgr.shape[2] != 3:
        raise FrameError(f"find_dice needs a BGR image, not {getattr(rect_bgr, 'shape', type(rect_bgr))!r}")
    if rect_bgr.dtype != np.uint8:
        raise FrameError(f"find_dice needs an 8-bit image, not {rect_bgr.dtype}")
    dc = config.dice
    layout = _layout(config)
    colours = _LazyColours(rect_bgr, layout, dc.least_board_samples)
    kept = [c for c in _candidates(config, rect_bgr, camera, colours=colours) if c.score >= dc.min_score]
    kept = [c for c in kept if not _between_men(config, c, rect_bgr, layout, colours)]
    kept.sort(key=lambda c: -c.score)
    places: list[tuple[_Candidate, tuple[float, float, float, float], list[_Candidate]]] = []
    for cand in kept:
        # one die shows as its top, its sides, or both: a candidate on a die
        # already found (between where it stands and where its top is seen) is that die
        for best, (x, y, tx, ty), others in places:
            if _segment_distance(cand.cx, cand.cy, x, y, tx, ty) < dc.same_place_mm:
                others.append(cand)
                break
        else:
            places.append((cand, _standing_place(cand, camera, dc.die_mm), [cand]))
    dice: list[Die] = []
    for best, (x, y, tx, ty), found in places:
        size = min(best.short, dc.die_mm * dc.max_face)   # the top face's side as seen (or with a side face)
        value = next((v for v in (_read_pips(config, rect_bgr, c) for c in found) if v is not None), None)
        dice.append(Die(x, y, size, value, best.score, tx, ty))
    return dice


def dice_mask(config: VisionConfig, dice: Sequence[Die], shape: tuple[int, ...]) -> np.ndarray:
    """A uint8 mask (255 on dice) of the rectified board of *shape* (rows,
    cols[, channels]) covering each die -- where it stands, its top face as
    seen and the sides between -- with ``MASK_MARGIN_MM`` round it.

    >>> m = dice_mask(VisionConfig(), [Die(100.0, 50.0, 16.0, None, 1.0)], (450, 530))
    >>> m.dtype, int(m[50, 100]), int(m[50, 140])
    (dtype('uint8'), 255, 0)
    """
    h, w = int(shape[0]), int(shape[1])
    mask = np.zeros((h, w), np.uint8)
    s = config.scale
    dc = config.dice
    for die in dice:
        side = max(die.size, dc.die_mm * dc.mask_least_side)
        radius = int(math.ceil((side / math.sqrt(2) + dc.mask_margin_mm) * s))
        foot = (int(round(die.x * s)), int(round(die.y * s)))
        tx, ty = die.top
        top = (int(round(tx * s)), int(round(ty * s)))
        cv2.circle(mask, foot, radius, 255, -1)
        cv2.circle(mask, top, radius, 255, -1)
        if foot != top:
            cv2.line(mask, foot, top, 255, 2 * radius + 1)
    return mask
