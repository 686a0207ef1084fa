"""OpenCV's per-element arithmetic with a number for its second operand.

``cv2.add``, ``subtract``, ``multiply`` and ``min`` take a scalar where the
second array would go, and it is cheaper than an array of it. Give one
number to an array of one channel, or four (one a channel, the unused ones
0) to a colour one: OpenCV's releases read other mixes differently (5.0 and
5.1 spread a single number over every channel for ``add``, ``subtract`` and
``multiply`` but not for ``min``, and 5.1 reads three numbers given to
``min`` as an array). OpenCV's type stubs do not say so alike from
release to release: 5.0's list arrays alone there, 5.1's list the scalar
for ``add``, ``multiply`` and ``min`` but not for ``subtract``. These call
the same functions, typed once here, so the code that uses them is
type-clean under either release's stubs with no ``type: ignore``.

>>> import numpy as np
>>> subtract(np.array([[10, 20]], np.uint8), 15.0)
array([[0, 5]], dtype=uint8)
"""

from __future__ import annotations

from typing import Callable, cast

import cv2
import numpy as np

__all__ = ["Scalar", "add", "subtract", "multiply", "minimum"]

#: one number for an array of one channel; four (one a channel) for a colour one
Scalar = float | tuple[float, ...]

_Op = Callable[..., np.ndarray]


def add(src: np.ndarray, scalar: Scalar, dst: np.ndarray | None = None) -> np.ndarray:
    """``cv2.add(src, scalar, dst=dst)``: *src* plus *scalar*, saturated to *src*'s type."""
    return cast(_Op, cv2.add)(src, scalar, dst=dst)


def subtract(src: np.ndarray, scalar: Scalar, dst: np.ndarray | None = None) -> np.ndarray:
    """``cv2.subtract(src, scalar, dst=dst)``: *src* less *scalar*, saturated to *src*'s type."""
    return cast(_Op, cv2.subtract)(src, scalar, dst=dst)


def multiply(src: np.ndarray, scalar: Scalar, dst: np.ndarray | None = None) -> np.ndarray:
    """``cv2.multiply(src, scalar, dst=dst)``: *src* times *scalar*, saturated to *src*'s type."""
    return cast(_Op, cv2.multiply)(src, scalar, dst=dst)


def minimum(src: np.ndarray, scalar: Scalar, dst: np.ndarray | None = None) -> np.ndarray:
    """``cv2.min(src, scalar, dst=dst)``: each element of *src*, or *scalar* where that is less."""
    return cast(_Op, cv2.min)(src, scalar, dst=dst)
