"""What changed on each point between two frames of the same camera.

Between the settled frame before a turn and the frame after it, the same
camera sees the same board in the same light, so a point whose picture did
not change still holds what it held: the referee knows that already, and
only the points that changed need reading (``TurnReader``).  And *where*
along a point its picture changed says what happened there without any
learning: a man laid flat beside a pile appears as a disc's worth of change
one man's width beyond the men already there (``vision.footprints``).

Both frames are rectified with the same corners and compared in Lab after a
light smoothing, so that the sensor's own noise does not count.

>>> import numpy as np
>>> frame = np.full((480, 640, 3), 90, np.uint8)
>>> corners = [[60, 420], [60, 60], [580, 60], [580, 420]]
>>> float(point_changes(frame, frame.copy(), corners).max())
0.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .change_measure import (CHANGE_BLUR_MM, CHANGE_CORE, CHANGE_DELTA_E, FAINT_DELTA_E, SAME_PLACE_PX, core_columns,
                             strip_distance2)
from .geometry import Corners

__all__ = ["Rectified", "rectified", "point_changes", "point_change_profiles", "bar_change", "strip_distance2",
           "SAME_PLACE_PX",
           "CHANGE_DELTA_E", "FAINT_DELTA_E", "CHANGE_BLUR_MM", "CHANGE_CORE"]

POINTS = 24


@dataclass(frozen=True)
class Rectified:
    """A frame's playing surface, rectified with *corners* and in 8-bit Lab:
    what :func:`point_changes` compares.  Make it once per frame
    (:func:`rectified`) and keep it for the next turn, so no frame is
    rectified twice."""

    lab: np.ndarray                    # uint8 Lab, the rectified surface and its margin
    corners: tuple[tuple[float, float], ...]
    frame_shape: tuple[int, ...]
    #: the configuration it was rectified with (the board's own layout, where the reader found one):
    #: the strips are cut with the same
    config: Any = None
    #: where dice lie in it (a bool mask of *lab*'s rows and columns, ``dice.dice_mask``), or None: a die
    #: thrown onto the board, or picked up from it, is no man come or gone, and is not counted as a change
    dice: np.ndarray | None = None


def rectified(frame: np.ndarray, corners: Corners, config: Any = None,
              reading: Any = None, blur_mm: float | None = None) -> Rectified:
    """*frame*'s playing surface, rectified for comparing (:class:`Rectified`)
    and smoothed (:data:`CHANGE_BLUR_MM`, or *blur_mm*); where *reading* is
    the reader's reading of this frame with these corners and configuration,
    the surface it rectified (and its Lab) is used, not warped (or
    converted) again, and the configuration it read with (its board's own
    layout) unless *config* is given; without a reading, *config* (or the
    default) with the board's layout as the reader would read this frame
    with it (``reader.board_config``: found once for these corners)."""
    import cv2

    from .config import VisionConfig
    from .reader import board_config, rectify

    if reading is not None and config is None:
        config = getattr(reading, "config", None)
    if config is None or reading is None:
        config = board_config(frame, corners, config or VisionConfig.default())[0]
    rect = getattr(reading, "rect", None)
    lab = getattr(reading, "rect_lab8", None) if rect is not None else None
    smooth = getattr(reading, "rect_smoothed", None) if lab is not None and blur_mm is None else None
    if rect is None:
        rect = rectify(config, frame, corners, config.margin)
    if lab is None:
        lab = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)
    sigma = (CHANGE_BLUR_MM if blur_mm is None else blur_mm) * config.scale
    if smooth is not None:                      # smoothed as here, when the frame was read
        lab = smooth
    elif sigma > 0:
        lab = cv2.GaussianBlur(lab, (0, 0), sigma)
    found = getattr(reading, "dice", None) if reading is not None else None
    where = None
    if found:
        from .dice import dice_mask

        m0 = int(round(config.margin * config.scale))
        where = np.zeros(lab.shape[:2], bool)
        inner = dice_mask(config, found, (lab.shape[0] - 2 * m0, lab.shape[1] - 2 * m0)) > 0
        where[m0:m0 + inner.shape[0], m0:m0 + inner.shape[1]] = inner
    return Rectified(lab,
                     tuple((float(x), float(y)) for x, y in corners), tuple(frame.shape), config, where)


def point_changes(before: np.ndarray | Rectified, after: np.ndarray | Rectified, corners: Corners,
                  config: Any = None, delta_e: float | None = None, core: float | None = None) -> np.ndarray:
    """For each point (index p-1), the share of the middle of its strip
    (*core* of its width) whose colour changed by more than *delta_e* (Lab)
    between two frames of the same camera: near 0 where nothing was moved
    there, a few hundredths where a man came or went."""
    shares: np.ndarray = point_change_profiles(before, after, corners, config, delta_e, core).mean(axis=1)
    return shares


def point_change_profiles(before: np.ndarray | Rectified, after: np.ndarray | Rectified,
                          corners: Corners, config: Any = None,
                          delta_e: float | tuple[float, ...] | list[float] | None = None,
                          core: float | None = None) -> Any:
    """For each point (row p-1), the share of the middle of its strip that
    changed colour (as :func:`point_changes`), row by row of the strip from
    the board's edge (beyond it, by ``strips.STRIP_BEYOND`` mm) toward the
    middle: (24, strip length in pixels of ``strips.MM_PER_PX`` mm).  Their
    means are :func:`point_changes`.  Without *config*, that of the
    rectified frames given (:class:`Rectified`), else the default with the
    board's layout as the reader finds it in the frame before (both frames
    are rectified with it).  With several colour differences
    (*delta_e* a sequence, such as ``(CHANGE_DELTA_E, FAINT_DELTA_E)``), a
    tuple of profiles, one for each, from one comparison of the frames."""
    import cv2

    from .config import VisionConfig
    from .geometry import BoardGeometry
    from .strips import STRIP_PX, _cut, cut_pixels, whole_pixel_strips

    several = isinstance(delta_e, (tuple, list))
    if isinstance(delta_e, (tuple, list)):
        thresholds = [float(t) for t in delta_e]
    else:
        thresholds = [CHANGE_DELTA_E if delta_e is None else float(delta_e)]
    core = CHANGE_CORE if core is None else core
    if not 0.1 <= core <= 1.0:
        raise ValueError(f"the middle share of a strip must be 0.1 to 1, not {core!r}")
    key = np.asarray(corners, np.float64)
    frames: list[Rectified | None] = []
    for frame in (before, after):
        if isinstance(frame, Rectified):
            if np.abs(np.asarray(frame.corners) - key).max() >= SAME_PLACE_PX:
                raise ValueError("a frame rectified with other corners cannot be compared with these")
            frames.append(frame)
        else:
            frames.append(None)
    shapes = [f.frame_shape if isinstance(f, Rectified) else tuple(f.shape) for f in (before, after)]
    if shapes[0] != shapes[1]:
        raise ValueError(f"the frames before and after differ in size: {shapes[0]} and {shapes[1]}")
    if config is None:          # the configuration a frame was rectified with (its board's layout) ...
        config = next((f.config for f in frames if f is not None and f.config is not None), None)
    rects: list[Rectified] = []
    for frame in (before, after):
        rects.append(frame if isinstance(frame, Rectified) else rectified(frame, corners, config))
        # ... else the layout found in the frame before, for both: a hand over the board in the frame
        # after must not move the layout that frame is rectified with
        config = config if config is not None else rects[-1].config
    labs = [r.lab for r in rects]
    if labs[0].shape != labs[1].shape:
        raise ValueError("the frames before and after were rectified with different layouts of the board")
    config = rects[0].config or VisionConfig.default()     # ... and the strips are cut with the same
    geometry = BoardGeometry(config)
    ones = np.ones((1, 3), np.float32)
    lo, hi = core_columns(STRIP_PX[0], core)
    out = []
    dice = [r.dice for r in rects if r.dice is not None]
    if dice and any(d.shape != labs[0].shape[:2] for d in dice):
        dice = []
    if whole_pixel_strips(geometry, config.margin):
        # each pixel of a strip is one pixel of the board: compare the strips' pixels alone (a third of
        # the board's), the same numbers as comparing the whole board and cutting the strips after
        cuts = [cut_pixels(geometry, lab, config.margin) for lab in labs]
        distance2 = strip_distance2(cuts[0], cuts[1], core)
        if dice:                        # where a die lies in either frame: not a change of the men
            either = np.logical_or.reduce(dice).view(np.uint8)
            distance2[cut_pixels(geometry, either, config.margin)[:, :, lo:hi] > 0] = 0.0
        for t in thresholds:
            out.append((distance2 > t * t).mean(axis=2, dtype=np.float32))
    else:
        # the colour distance between the two frames, pixel by pixel, against the threshold (in OpenCV:
        # a tenth of the time numpy takes over a whole frame)
        d = cv2.absdiff(labs[0], labs[1]).astype(np.float32)
        distance2 = cv2.transform(cv2.multiply(d, d), ones)
        for mask in dice:               # where a die lies in either frame: not a change of the men
            distance2[mask] = 0.0
        for t in thresholds:
            changed = (distance2 > t * t).astype(np.float32)
            strips = _cut(geometry, None, changed[:, :, None], config.margin)
            out.append(strips.maps[:, 0, :, lo:hi].mean(axis=2))
    return tuple(out) if several else out[0]


def bar_change(before: Rectified, after: Rectified, delta_e: float | None = None) -> float:
    """How clearly a man came to, or left, the bar between two frames of the same camera, both
    rectified alike (:func:`rectified`): along the bar, where its men lie (as the reader finds them:
    ``reader.bar_reach`` from either edge, ``bar_slack_mm`` beyond its sides), the share of the picture
    that changed colour by more than *delta_e* (Lab, :data:`CHANGE_DELTA_E`) over a man's length, at the
    length where most did.  A man gone from the bar, or come to it, changes about half to three quarters
    of his length there; the sensor's noise nothing; where a die lies in either frame is not counted.

    >>> import numpy as np
    >>> frame = np.full((480, 640, 3), 90, np.uint8)
    >>> corners = [[60, 420], [60, 60], [580, 60], [580, 420]]
    >>> bar_change(rectified(frame, corners), rectified(frame.copy(), corners))
    0.0
    """
    import cv2

    from .config import VisionConfig
    from .geometry import BoardGeometry

    if np.abs(np.asarray(before.corners) - np.asarray(after.corners)).max() >= SAME_PLACE_PX \
            or before.lab.shape != after.lab.shape:
        raise ValueError("frames rectified with other corners, or another layout, cannot be compared")
    config = before.config or VisionConfig.default()
    geometry = BoardGeometry(config)
    s, margin, rc = config.scale, config.margin, config.reader
    left, right = geometry.bar_x
    radius = config.man_diameter / 2
    reach = config.point_length * rc.bar_reach - radius      # a man found at the reach lies half beyond it
    x0, x1 = (int(round((v + margin) * s)) for v in (left - rc.bar_slack_mm, right + rc.bar_slack_mm))
    y0, y1 = (int(round((v + margin) * s)) for v in (reach, geometry.depth - reach))
    h, w = before.lab.shape[:2]
    x0, x1, y0, y1 = max(0, x0), min(w, x1), max(0, y0), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    d = cv2.absdiff(before.lab[y0:y1, x0:x1], after.lab[y0:y1, x0:x1]).astype(np.float32)
    distance2 = d[:, :, 0] ** 2 + d[:, :, 1] ** 2 + d[:, :, 2] ** 2
    for dice in (before.dice, after.dice):
        if dice is not None and dice.shape == before.lab.shape[:2]:
            distance2[dice[y0:y1, x0:x1]] = 0.0
    t = CHANGE_DELTA_E if delta_e is None else float(delta_e)
    rows = (distance2 > t * t).mean(axis=1)                     # along the bar, row by row
    n = max(1, min(len(rows), int(round(config.man_diameter * s))))
    window = np.convolve(rows, np.ones(n) / n, mode="valid")
    return float(window.max()) if len(window) else 0.0
