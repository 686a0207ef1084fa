"""The dice finder's candidates: every region of the rectified board's
whiteness that may be a die, found and measured.

The whiteness (the least of the three colour channels, the pips filled in
by a small closing) is cut at several margins above its local mean; every
outer contour of about a die's size, off the bar and clear of the frame as
the camera sees it, is a candidate, and is cut once more half way between
its own whiteness and its surroundings' (where its edge really is).  Each is
measured and scored (``vision/dice_measures.py``); which of them are dice,
and where they stand, ``vision/dice.py`` decides.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from . import scalar_ops
from .camera import Camera
from .config import DiceConfig, VisionConfig
from .dice_board import _LazyColours, _layout, _odd
from .dice_measures import (_CEILING, _Candidate, _coherence4, _logit, _measure_colour, _measure_contrast,
                            _shape)
from .errors import FrameError
from .geometry import BoardGeometry


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
        cuts += [cv2.compare(white, scalar_ops.add(local, margin), cv2.CMP_GE)
                 for margin in dc.local_margins]
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
            cx, cy, short, long_, rectness, solidity, angle = shape
            cand = _Candidate(cx, cy, short, long_, rectness, solidity, angle=angle, coherence=1.0, contrast=0.0,
                              board_distance=0.0, bbox=bbox, cut=cut_index)
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
            cx_mm, cy_mm, short, long_, rectness, solidity, angle = shape
            refined = _Candidate(cx_mm, cy_mm, short, long_, rectness, solidity, angle=angle,
                                 coherence=_coherence4(c, s), contrast=0.0, board_distance=0.0,
                                 bbox=(x / s, y / s, (x + bw) / s, (y + bh) / s), cut=-1)
            return refined, c
    return None


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
