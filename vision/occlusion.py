"""Is something (a hand, a sleeve) lying across the board?

An arm reaches the board from outside it, so it crosses the board's frame.
Along each side of the playing surface, the frame just outside it is one
material (wood, leather) whose colour changes only slowly along the side; a
stretch of several centimetres that differs sharply from the rest of that
side is something lying across it.  Corners are left out: that is where the
markers go.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Camera
from .config import VisionConfig
from .geometry import BoardGeometry, corners_array

__all__ = ["FrameCheck", "check_frame"]


@dataclass(frozen=True)
class FrameCheck:
    """The result: whether the frame is crossed, where, and the worst contrast seen."""

    occluded: bool
    side: str | None
    run_mm: float
    contrast: float


def _band_image(config: VisionConfig, image: np.ndarray, corners,
                camera: Camera | None) -> tuple[np.ndarray, float]:
    """The board warped onto the plane of the frame's top (``frame_height``
    above the surface), with a margin all round: the frame then lies where
    it is, whatever the tilt, and its inner wall is not mistaken for it."""
    geometry = BoardGeometry(config)
    margin = config.frame_band_outer + 4
    src = corners_array(corners).astype(np.float32)
    Hs = cv2.getPerspectiveTransform(src, geometry.surface_corners().astype(np.float32)).astype(np.float64)
    S = np.eye(3)
    if camera is not None and camera.height > config.frame_height * 2:
        k = camera.height / (camera.height - config.frame_height)
        fx, fy = camera.foot
        S = np.array([[1 / k, 0, fx * (1 - 1 / k)], [0, 1 / k, fy * (1 - 1 / k)], [0, 0, 1]])
    T = np.array([[1, 0, margin], [0, 1, margin], [0, 0, 1]], dtype=np.float64)
    size = (int(geometry.width + 2 * margin), int(geometry.depth + 2 * margin))
    return cv2.warpPerspective(image, T @ S @ Hs, size, flags=cv2.INTER_AREA), margin


def check_frame(config: VisionConfig, image: np.ndarray, corners,
                men: list[np.ndarray] | None = None, camera: Camera | None = None) -> FrameCheck:
    """Look along the frame for something lying across it.  *men* are the
    outlines (surface mm, as the camera sees them) of men read on the board:
    a man on an edge point, seen from the side, may overhang the frame, and
    the frame under him is not looked at."""
    warped, m = _band_image(config, image, corners, camera)
    lab = cv2.cvtColor(warped.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    h, w = lab.shape[:2]
    hidden = np.zeros((h, w), np.uint8)
    for poly in men or []:
        cv2.fillPoly(hidden, [np.round(poly + m).astype(np.int32)], 1)
    if men:
        hidden = cv2.dilate(hidden, np.ones((9, 9), np.uint8))
    inner, outer = int(config.frame_band_inner), int(config.frame_band_outer)
    skip = int(config.frame_corner_skip)
    mi = int(m)
    pieces = {
        "top": (slice(mi - outer, mi - inner), slice(mi + skip, w - mi - skip), True),
        "bottom": (slice(h - mi + inner, h - mi + outer), slice(mi + skip, w - mi - skip), True),
        "left": (slice(mi + skip, h - mi - skip), slice(mi - outer, mi - inner), False),
        "right": (slice(mi + skip, h - mi - skip), slice(w - mi + inner, w - mi + outer), False),
    }
    worst = FrameCheck(False, None, 0.0, 0.0)
    for name, (rows, cols, across) in pieces.items():
        band = lab[rows, cols]
        mask = hidden[rows, cols]
        if across:
            band, mask = band.transpose(1, 0, 2), mask.T
        if band.size == 0:
            continue
        visible = mask.mean(axis=1) < 0.3            # positions along the side we may judge
        if visible.sum() < 20:
            continue
        profile = np.median(band, axis=1)            # one colour per mm along the side
        ref = np.median(profile[visible], axis=0)
        d = profile - ref
        dist = np.sqrt(0.5 * d[:, 0] ** 2 + d[:, 1] ** 2 + d[:, 2] ** 2)
        dist = cv2.blur(dist.reshape(-1, 1).astype(np.float32), (1, 9)).ravel()
        run = best = 0
        for flag, seen in zip(dist > config.frame_contrast, visible):
            if not seen:
                continue                              # under a man: neither extends nor breaks a run
            run = run + 1 if flag else 0
            best = max(best, run)
        contrast = float(np.percentile(dist[visible], 98))
        if best >= config.frame_run_mm and best > worst.run_mm:
            worst = FrameCheck(True, name, float(best), contrast)
        elif not worst.occluded and contrast > worst.contrast:
            worst = FrameCheck(False, None, float(best), contrast)
    return worst
