"""Settling: read the board only when it has come to rest, once per change.

A camera sees hands, half-moved men and shadows far more often than a
position.  :class:`Settler` is fed every frame; it measures motion cheaply on
a small grey thumbnail of the rectified board (``config.settle_thumb_width``
pixels wide, 64 x 54 by default) as the mean absolute difference from the
previous frame's thumbnail -- taken over the busiest square of
``config.motion_tile`` thumbnail pixels, so that one hand or one man moved is
not diluted by the still rest of the board (see :func:`motion`) -- and calls
the (costly) reader only when the board has been still for
``config.settle_frames`` consecutive frames.

:meth:`Settler.feed` returns a reading only when it is a *new settled*
position:

- the board has been still for ``config.settle_frames`` consecutive frames:
  each differs by less than ``config.motion_threshold`` from the one before
  it and from the first of them (so a slow creep is not taken for rest), and
- the reader says the frame is not occluded (``reading.occluded`` is false)
  and is settled (``reading.settled`` is true), and
- something has moved since the last reading it reported (a frame of motion,
  or the still board now looks different from the one reported).

Every other frame gives ``None`` -- in particular a frame with a hand over the
board is **refused with None**, never handed on as a position.  After a
refusal the settler waits for another ``settle_frames`` still frames before it
asks the reader again, so a hand resting on the board costs one read per
``settle_frames`` frames, not one per frame.

>>> import numpy as np
>>> from types import SimpleNamespace
>>> from willughby.vision.config import VisionConfig
>>> reader = lambda image, corners, config: SimpleNamespace(settled=True, confidence=0.9, occluded=False)
>>> s = Settler(VisionConfig(settle_frames=3), reader=reader)
>>> frame = np.full((120, 160, 3), 90, np.uint8)
>>> corners = [[150, 110], [10, 110], [10, 10], [150, 10]]
>>> [s.feed(frame, corners) is not None for _ in range(5)]
[False, False, True, False, False]
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Generic, Protocol, TypeVar, cast, overload

import cv2
import numpy as np

from .config import VisionConfig
from .geometry import BoardGeometry
from .markers import check_corners
from .sources import as_bgr

if TYPE_CHECKING:
    from .reader import Reading

__all__ = ["Settler", "ReadingLike", "board_thumbnail", "motion"]


class ReadingLike(Protocol):
    """What the settler needs of a reading (``vision/reader.py``'s ``Reading``)."""

    settled: bool
    confidence: float
    occluded: bool


R = TypeVar("R", bound=ReadingLike)
Reader = Callable[[np.ndarray, np.ndarray, VisionConfig], R]


def thumb_size(config: VisionConfig) -> tuple[int, int]:
    """(width, height) of the motion thumbnail: ``settle_thumb_width`` wide,
    the surface's proportions (64 x 54 by default)."""
    w = int(config.settle_thumb_width)
    h = max(1, int(round(w * config.surface_depth / config.surface_width)))
    return w, h


def board_thumbnail(config: VisionConfig, image: np.ndarray, corners: Any) -> np.ndarray:
    """The rectified playing surface as a small grey float32 thumbnail.

    The board is warped to four times the thumbnail's size, then averaged
    down (so camera noise and single pixels do not count as motion), all on
    small images: cheap on a Pi.
    """
    frame = as_bgr(image, "frame")
    arr = check_corners(corners).astype(np.float32)
    w, h = thumb_size(config)
    big = (4 * w, 4 * h)
    dst = (BoardGeometry(config).surface_corners() * (big[0] / config.surface_width)).astype(np.float32)
    m = cv2.getPerspectiveTransform(arr, dst)
    warped = cv2.warpPerspective(frame, m, big, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    grey = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY)
    return cv2.resize(grey, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)


def motion(a: np.ndarray, b: np.ndarray, tile: int | None = None) -> float:
    """How much changed between two thumbnails: the mean absolute grey
    difference (0..255) over the busiest *tile* x *tile* square (every
    position of the square is tried), or over the whole thumbnail where
    *tile* is None or as large as the thumbnail.

    A hand or a man moved over a small part of the board is diluted to
    almost nothing in the whole board's mean; over a square about the size
    of a man or two it stands out, while camera noise (which is everywhere)
    does not grow.

    >>> a = np.zeros((54, 64), np.float32); b = a.copy(); b[10:18, 20:28] = 80
    >>> round(motion(a, b), 2), motion(a, b, tile=8)
    (1.48, 80.0)
    """
    d = np.abs(a.astype(np.float32) - b.astype(np.float32))
    h, w = d.shape[:2]
    if tile is None or tile >= max(h, w):
        return float(np.mean(d))
    t = max(1, min(int(tile), h, w))
    s = cv2.integral(d, sdepth=cv2.CV_64F)
    sums = s[t:, t:] - s[:-t, t:] - s[t:, :-t] + s[:-t, :-t]
    return float(sums.max() / (t * t))


class Settler(Generic[R]):
    """Turns a stream of frames into one reading per settled change.

    *reader* is ``read_board(image, corners, config) -> Reading``; by default
    ``willughby.vision.reader.read_board``, imported when first needed.
    """

    @overload
    def __init__(self: Settler[Reading], config: VisionConfig | None = None, reader: None = None) -> None: ...

    @overload
    def __init__(self, config: VisionConfig | None, reader: Reader[R]) -> None: ...

    @overload
    def __init__(self, config: VisionConfig | None = None, *, reader: Reader[R]) -> None: ...

    def __init__(self, config: VisionConfig | None = None, reader: Reader[R] | None = None) -> None:
        self.config = config or VisionConfig()
        self._reader = reader
        self.reset()

    def reset(self) -> None:
        """Forget everything: the next still board is reported even if unchanged."""
        self._previous: np.ndarray | None = None
        self._run: deque[np.ndarray] = deque(maxlen=max(1, self.config.settle_frames))
        self._still = 0
        self._moved = True            # something changed since the last report
        self._reported: np.ndarray | None = None
        #: the motion of the last frame fed: the larger of its change from the
        #: previous frame and from the oldest frame of the still period (None at first)
        self.last_motion: float | None = None
        #: the last reading refused for occlusion or doubt (for a UI to show)
        self.last_refused: Any = None

    @property
    def still_frames(self) -> int:
        """How many consecutive still frames the board has shown."""
        return self._still

    def _read(self, frame: np.ndarray, corners: np.ndarray) -> R:
        if self._reader is None:
            from .reader import read_board  # written separately; imported only when used

            # made with no reader, a settler is a Settler[Reading] (the overloads of __init__): R is Reading
            self._reader = cast("Reader[R]", read_board)
        return self._reader(frame, corners, self.config)

    def _start_run(self, thumb: np.ndarray) -> None:
        self._run.clear()
        self._run.append(thumb)
        self._still = 1

    def feed(self, frame: np.ndarray, corners: Any) -> R | None:
        """Take one frame and the board's corners C1..C4 in it; return a
        reading when the board has newly settled, else ``None`` (see the
        module's docstring)."""
        cfg = self.config
        arr = check_corners(corners)
        frame = as_bgr(frame, "frame")
        thumb = board_thumbnail(cfg, frame, arr)
        previous, self._previous = self._previous, thumb
        if previous is None:
            self.last_motion = None
            self._start_run(thumb)
        else:
            step = motion(thumb, previous, cfg.motion_tile)
            # a change too slow for any one frame to show still builds up over the still period
            drift = motion(thumb, self._run[0], cfg.motion_tile) if self._run else 0.0
            self.last_motion = max(step, drift)
            if self.last_motion >= cfg.motion_threshold:
                self._moved = True
                self._start_run(thumb)
            else:
                self._run.append(thumb)
                self._still += 1
        if self._still < cfg.settle_frames:
            return None
        if not self._moved:
            if self._reported is None or motion(thumb, self._reported, cfg.motion_tile) < cfg.motion_threshold:
                return None
            self._moved = True       # the board drifted from the one reported, slower than any period shows
        reading = self._read(frame, arr)
        if getattr(reading, "occluded", True) or not getattr(reading, "settled", False):
            self.last_refused = reading
            self._run.clear()        # wait for another still period before asking again
            self._still = 0
            return None
        self._moved = False
        self._reported = thumb
        return reading
