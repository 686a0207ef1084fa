"""What the point reader last read of each point, and the picture it read
it from: so a point whose picture has not changed is not read again.

With a fixed camera, most points of a frame look as they did in the frame
before: a play touches two to four of them.  Nearly all of the point
reader's time goes on reading each strip alone (``pointnet``: the first
part of the frame network); only the last, cheap part looks at the frame
as a whole.  So the reader keeps, for each point, that first part's
features and the picture of the strip they came from (the rectified
surface in 8-bit Lab, smoothed as ``changes`` smooths it, cut into the
24 strips as the point reader cuts them), and the next frame reads again
only the points whose picture changed since.

A point counts as unchanged by the same measure as the turn reader's
(``changes``): in the middle of its strip, at most ``SAME_SHARE`` of the
pixels changed colour by ``CHANGE_DELTA_E`` or more, and at most
``SAME_FAINT_SHARE`` by ``FAINT_DELTA_E`` or more.  The picture kept is the
one the features were read from, not the latest, so a slow drift (the
light of a window) adds up until the point is read again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import cv2
import numpy as np

from .change_measure import CHANGE_BLUR_MM, CHANGE_DELTA_E, FAINT_DELTA_E, strip_distance2
from .geometry import BoardGeometry, Corners
from .strips import cut_pixels

__all__ = ["PointMemory", "KEEP_MODEL_POINTS", "SAME_SHARE", "SAME_FAINT_SHARE", "smoothed", "strip_pictures", "unchanged_points"]

#: a point's picture is unchanged where at most this share of its strip's middle changed clearly
#: (the turn reader's ``TurnConfig.unchanged_share``, as strict)
SAME_SHARE = 0.004
#: ... and at most this share faintly (the turn reader's limit for a still row of men)
SAME_FAINT_SHARE = 0.05
#: with at least this many points looking as they did when the board's colours were learnt
#: (``reader.learn_board``), those colours are kept, not learnt again from each frame, so a point's unchanged
#: strip reads as it read; with fewer (the light changed, the camera moved), they are learnt again from the
#: frame and every point is read
KEEP_MODEL_POINTS = 6


@dataclass(frozen=True)
class PointMemory:
    """What the point reader read of each point, from which picture."""

    #: (24, strip length, strip width, 3) uint8: each point's strip of the smoothed Lab picture
    pictures: np.ndarray
    #: (24, features): each strip's own features (``pointnet.read_frame``)
    points: np.ndarray
    #: (24,): what the network read each point as when it read those features (its likeliest class: 0 empty,
    #: n light men, 15 + n dark men); they are used again only where that is what the referee knows
    classes: np.ndarray
    #: the corners and picture size the frame was read with: another camera's view is not this one
    corners: tuple[tuple[float, float], ...]
    frame_shape: tuple[int, ...]
    #: the board's colours the strips were read with (``reader.BoardModel``): kept while the board's
    #: picture stays mostly as it was (``KEEP_MODEL_POINTS``), so an unchanged strip reads as it read
    model: Any = None
    #: ... and the strips' pictures when it was learnt: it is kept while enough points look as they did then
    model_pictures: np.ndarray | None = None

    def keeps_model(self, pictures: np.ndarray) -> bool:
        """Whether the board's colours learnt before still serve a frame of these strip *pictures*: at
        least ``KEEP_MODEL_POINTS`` points look as they did when they were learnt (a light grown dimmer or
        warmer changes every point, however slowly)."""
        if self.model is None:
            return False
        then = self.pictures if self.model_pictures is None else self.model_pictures
        return bool(unchanged_points(then, pictures).sum() >= KEEP_MODEL_POINTS)

    def fits(self, corners: Corners, frame_shape: Sequence[int]) -> bool:
        """Whether a frame of *frame_shape* read with *corners* is seen as this memory's was."""
        if tuple(frame_shape) != self.frame_shape or len(corners) != len(self.corners):
            return False
        return bool(np.abs(np.asarray(corners, np.float64) - np.asarray(self.corners)).max() < 0.5)

    def updated(self, pictures: np.ndarray, points: np.ndarray, classes: np.ndarray,
                read: np.ndarray) -> "PointMemory":
        """This memory with the points *read* (a bool per point) now known from *pictures*, *points* and
        *classes*."""
        return PointMemory(np.where(read[:, None, None, None], pictures, self.pictures),
                           np.where(read[:, None], points, self.points), np.where(read, classes, self.classes),
                           self.corners, self.frame_shape, self.model, self.model_pictures)


def smoothed(config: Any, lab8: np.ndarray) -> np.ndarray:
    """The rectified surface in 8-bit Lab, smoothed for comparing frames
    (``CHANGE_BLUR_MM``), as ``changes.rectified`` smooths it."""
    sigma = CHANGE_BLUR_MM * config.scale
    return cv2.GaussianBlur(lab8, (0, 0), sigma) if sigma > 0 else lab8


def strip_pictures(config: Any, smooth_lab8: np.ndarray) -> np.ndarray:
    """The 24 strips of the smoothed picture, cut as the point reader cuts
    them (``strips.cut_pixels``; between pixels, where this board's layout
    puts a strip's edge there, drawn from the four nearest)."""
    return cut_pixels(BoardGeometry(config), smooth_lab8, config.margin, cv2.INTER_LINEAR)


def unchanged_points(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """For each point, whether its strip's picture is the same in *before*
    and *after* (each as :func:`strip_pictures`): see the module."""
    distance2 = strip_distance2(before, after).reshape(before.shape[0], -1)
    clear = (distance2 > CHANGE_DELTA_E ** 2).mean(axis=1)
    faint = (distance2 > FAINT_DELTA_E ** 2).mean(axis=1)
    same: np.ndarray = (clear <= SAME_SHARE) & (faint <= SAME_FAINT_SHARE)
    return same
