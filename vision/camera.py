"""The camera's place above the board, recovered from the four corners.

The homography from the board plane (mm) to the image is ``K [r1 r2 t]`` up
to scale.  With square pixels and the principal point at the image centre,
the two conditions on a rotation (r1 and r2 orthogonal, of equal length)
each give the focal length; where the view is nearly straight down they say
little, and a typical focal length is assumed (``default_focal``).  From
the pose follows where the camera stands over the board, and so where the
top of a man at any height appears on the rectified board: the ray from the
camera through a point at height h meets the surface ``Cz / (Cz - h)`` times
as far from the camera's foot as the point itself.

>>> cam = Camera(foot=(265.0, 225.0), height=1000.0, focal=1400.0, tilt_deg=0.0)
>>> cam.on_surface(465.0, 225.0, 100.0)
(487.22222222222223, 225.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .geometry import BoardGeometry, corners_array

__all__ = ["Camera", "camera_from_corners"]


@dataclass(frozen=True)
class Camera:
    """Where the camera is: its foot on the board plane (rectified mm), its
    height above it (mm), its focal length (px) and tilt from straight down."""

    foot: tuple[float, float]
    height: float
    focal: float
    tilt_deg: float

    def on_surface(self, x: float, y: float, h: float) -> tuple[float, float]:
        """Where a point at height *h* above (x, y) appears on the rectified surface."""
        k = self.height / (self.height - h)
        fx, fy = self.foot
        return fx + (x - fx) * k, fy + (y - fy) * k

    def magnification(self, h: float) -> float:
        """How much larger a horizontal shape at height *h* appears than on the surface."""
        return self.height / (self.height - h)


def camera_from_corners(corners: npt.ArrayLike, image_size: tuple[int, int], geometry: BoardGeometry | None = None,
                        default_focal: float | None = None) -> Camera:
    """Recover the camera from the corners C1..C4 of the playing surface in an
    image of *image_size* (width, height)."""
    import cv2

    geometry = geometry or BoardGeometry()
    src = geometry.surface_corners().astype(np.float32)
    dst = corners_array(corners).astype(np.float32)
    H = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    w, h = image_size
    cx, cy = w / 2.0, h / 2.0
    a = H.copy()
    a[0, :] -= cx * H[2, :]
    a[1, :] -= cy * H[2, :]
    a1, a2 = a[:, 0], a[:, 1]
    estimates = []
    den = a1[2] * a2[2]
    if abs(den) > 1e-12:
        f2 = -(a1[0] * a2[0] + a1[1] * a2[1]) / den
        if f2 > 0:
            estimates.append(f2)
    den = a1[2] ** 2 - a2[2] ** 2
    if abs(den) > 1e-12:
        f2 = ((a2[0] ** 2 + a2[1] ** 2) - (a1[0] ** 2 + a1[1] ** 2)) / den
        if f2 > 0:
            estimates.append(f2)
    fallback = default_focal or 1.15 * w
    lo, hi = 0.5 * w, 5.0 * w
    good = [math.sqrt(e) for e in estimates if lo <= math.sqrt(e) <= hi]
    focal = float(np.median(good)) if good else fallback
    Kinv = np.array([[1 / focal, 0, 0], [0, 1 / focal, 0], [0, 0, 1.0]])
    b = Kinv @ a
    lam = (np.linalg.norm(b[:, 0]) + np.linalg.norm(b[:, 1])) / 2
    r1, r2, t = b[:, 0] / lam, b[:, 1] / lam, b[:, 2] / lam
    if t[2] < 0:
        r1, r2, t = -r1, -r2, -t
    r3 = np.cross(r1, r2)
    R = np.column_stack([r1, r2, r3])
    u, _, vt = np.linalg.svd(R)
    R = u @ vt
    centre = -R.T @ t
    height = abs(float(centre[2]))
    axis = R.T @ np.array([0.0, 0.0, 1.0])
    tilt = math.degrees(math.acos(min(1.0, abs(float(axis[2])))))
    return Camera((float(centre[0]), float(centre[1])), height, focal, tilt)
