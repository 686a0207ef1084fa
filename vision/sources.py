"""The frame check the reader's stages share (``as_bgr``).

The camera sources that used to live here (``FrameSource``, the cameras,
the folder and video fakes, ``open_source``) are devices, so they are in
``willughby.hardware.camera`` now (docs/house-conventions.md: devices live in
``hardware/``).  ``vision`` never imports ``hardware``: the companion opens
a source there and hands its frames to the reader.  What stays is the one
check every stage makes of a frame handed in, raising vision's own
:class:`~willughby.vision.errors.FrameError`.

>>> import numpy as np
>>> as_bgr(np.zeros((4, 6), np.uint8)).shape
(4, 6, 3)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import FrameError

__all__ = ["as_bgr"]


def as_bgr(frame: Any, what: str = "frame") -> np.ndarray:
    """Check a frame and return it as a uint8 BGR image (a grey image gets
    three channels, BGRA loses its alpha).  Anything else is a :class:`FrameError`."""
    import cv2

    if not isinstance(frame, np.ndarray):
        raise FrameError(f"{what} must be a numpy image, not {type(frame).__name__}")
    image: np.ndarray = frame
    if image.dtype != np.uint8:
        raise FrameError(f"{what} must be 8-bit (uint8), not {image.dtype}")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.ndim == 3 and image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.ndim == 3 and image.shape[2] == 1:
        image = cv2.cvtColor(image[:, :, 0], cv2.COLOR_GRAY2BGR)
    if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 1 or image.shape[1] < 1:
        raise FrameError(f"{what} must be height x width x 3 (BGR), not shape {image.shape}")
    return image
