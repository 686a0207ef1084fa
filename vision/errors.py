"""The camera part's own errors.

Each is a subclass of :class:`VisionError`, itself a :class:`ValueError`
(docs/house-conventions.md, convention 6), so a caller may catch ``ValueError``, every error of
the camera part at once, or the precise class.  Messages name the bad value
(the path, the text, the marker ids found).  The main command turns any of
them into exit status 2 and one line on standard error.

>>> issubclass(BoardNotFound, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "VisionError",
    "SourceError",
    "FrameError",
    "InvalidCornersError",
    "BoardNotFound",
    "CalibrationError",
    "CalibrationMissing",
    "CalibrationSizeError",
    "CornerOrderUnknown",
    "MarkerSheetError",
]


class VisionError(ValueError):
    """Base class of every error the camera part raises."""


class SourceError(VisionError):
    """A frame source that cannot be opened: a missing folder or file, a
    camera that does not answer, a missing module (``picamera2``), an unknown
    source string."""


class FrameError(VisionError):
    """Something handed in as a frame that is not an image (wrong type,
    shape or depth)."""


class InvalidCornersError(VisionError):
    """Corners C1..C4 that cannot be read (``"x1,y1 x2,y2 ..."`` malformed) or
    cannot describe a board (not four, not convex, outside the image)."""


class BoardNotFound(VisionError):
    """The board could not be located in an image: fewer than three of the
    printed markers were found, or the markers found disagree."""


class CalibrationError(VisionError):
    """A calibration file that cannot be read or written, or is malformed
    (names the path and the field)."""


class CalibrationMissing(CalibrationError):
    """There is no calibration file where one was looked for."""


class CalibrationSizeError(CalibrationError):
    """A calibration made on frames of another size than the image at hand
    (its saved corners say nothing of where the board lies in it):
    ``calibrated`` and ``image`` are the two sizes, ``(w, h)``."""

    def __init__(self, message: str, calibrated: tuple[int, int], image: tuple[int, int]) -> None:
        super().__init__(message)
        self.calibrated = calibrated
        self.image = image


class CornerOrderUnknown(VisionError):
    """Corners whose order nothing tells (no board known in the photo says which corner is C1, nor the
    players): not saved, lest the board be read mirrored or turned round."""


class MarkerSheetError(VisionError):
    """A marker sheet that cannot be made (a size that does not fit the page,
    an output path of an unknown kind or that cannot be written)."""
