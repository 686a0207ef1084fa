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

import math
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from .camera import Camera
from .config import VisionConfig
from .dice_board import _lab, _lab_distance, _Layout, _LazyColours, _layout
from .dice_candidates import _candidates
from .dice_measures import _Candidate
from .dice_pips import _read_pips
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
