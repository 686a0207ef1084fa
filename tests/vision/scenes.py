"""Synthetic camera views of a board with the printed markers on its frame,
for the marker and calibration tests.

The board is drawn flat (the *board plane*, 1600 x 1300 px): a wooden frame
200 px wide round a green playing surface, marker i (cut from the rendered
sheet, white border and all) on the frame outside corner C(i+1).  A *view*
is that plane seen by a tilted camera (a perspective transform), optionally
after the board was nudged on the table (a rotation and shift in its plane).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from willughby.vision.markers import detect_markers, render_marker_sheet

PLANE = (1600, 1300)  # width, height of the board plane
# the surface corners C1..C4 in the board plane: C3 top-left, C4 top-right, C2 bottom-left, C1 bottom-right
SURFACE = np.array([[1400.0, 1100.0], [200.0, 1100.0], [200.0, 200.0], [1400.0, 200.0]])
MARKER_SIDE = 120
WOOD = (60, 105, 150)
CLOTH = (50, 110, 40)
# a camera above the near edge, tilted: the plane's corners TL, TR, BR, BL land here in a 1280x960 image
CAMERA_DST = np.array([[230.0, 110.0], [1060.0, 130.0], [1230.0, 900.0], [50.0, 870.0]])
IMAGE = (1280, 960)


@lru_cache(maxsize=1)
def marker_patches() -> dict[int, np.ndarray]:
    """Each marker as printed: cut from the rendered sheet with its white
    border, scaled to MARKER_SIDE px (black square) in the board plane."""
    sheet = render_marker_sheet(40)
    found = detect_markers(sheet)
    out = {}
    for i, quad in found.items():
        x0, y0 = quad.min(axis=0).round().astype(int)
        x1, y1 = quad.max(axis=0).round().astype(int)
        pad = (x1 - x0) // 6
        crop = sheet[y0 - pad:y1 + pad + 1, x0 - pad:x1 + pad + 1]
        size = round(MARKER_SIDE * crop.shape[1] / (x1 - x0 + 1))
        out[i] = cv2.cvtColor(cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA), cv2.COLOR_GRAY2BGR)
    return out


def board_plane(missing: tuple[int, ...] = (), turned: tuple[int, ...] = ()) -> np.ndarray:
    """The flat board with its markers; *missing* markers are left off,
    *turned* ones were peeled off and stuck back a quarter turn round."""
    w, h = PLANE
    img = np.full((h, w, 3), WOOD, np.uint8)
    x0, y0 = SURFACE[2].astype(int)
    x1, y1 = SURFACE[0].astype(int)
    img[y0:y1, x0:x1] = CLOTH
    for k in range(12):  # some points, for texture
        px = x0 + 50 + k * 96
        pale, dark = (200, 220, 230), (30, 30, 120)
        cv2.fillPoly(img, [np.array([[px - 40, y0], [px + 40, y0], [px, y0 + 380]])], pale if k % 2 else dark)
        cv2.fillPoly(img, [np.array([[px - 40, y1], [px + 40, y1], [px, y1 - 380]])], dark if k % 2 else pale)
    for i, patch in marker_patches().items():
        if i in missing:
            continue
        cx, cy = SURFACE[i]
        sx = 1 if cx > PLANE[0] / 2 else -1
        sy = 1 if cy > PLANE[1] / 2 else -1
        centre = np.array([cx + sx * 100, cy + sy * 100])
        if i in turned:
            patch = np.ascontiguousarray(np.rot90(patch))
        s = patch.shape[0]
        ox, oy = (centre - s / 2).round().astype(int)
        img[oy:oy + s, ox:ox + s] = patch
    return img


def nudge(angle_deg: float = 0.0, shift: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """A 3x3 rigid motion of the board in its plane (about its centre)."""
    c = np.array(PLANE, dtype=np.float64) / 2
    a = np.deg2rad(angle_deg)
    r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    t = c + np.array(shift) - r @ c
    return np.array([[r[0, 0], r[0, 1], t[0]], [r[1, 0], r[1, 1], t[1]], [0, 0, 1.0]])


def camera(dst: np.ndarray = CAMERA_DST) -> np.ndarray:
    w, h = PLANE
    src = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], dtype=np.float32)
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32))


def apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ m.T
    return p[:, :2] / p[:, 2:3]


@dataclass
class View:
    image: np.ndarray
    corners: np.ndarray  # the true surface corners C1..C4 in the image


def view(plane: np.ndarray | None = None, board_motion: np.ndarray | None = None,
         cam: np.ndarray | None = None) -> View:
    """The board plane as the camera sees it (after an optional nudge)."""
    plane = board_plane() if plane is None else plane
    m = (camera() if cam is None else cam) @ (np.eye(3) if board_motion is None else board_motion)
    image = cv2.warpPerspective(plane, m, IMAGE, flags=cv2.INTER_LINEAR, borderValue=(90, 90, 90))
    return View(image=image, corners=apply(m, SURFACE))
