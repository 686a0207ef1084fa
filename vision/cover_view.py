"""The board seen from above for the check for something covering it: the
playing surface and a margin round it, rectified top-down, in Lab, with
which of its pixels the picture shows (:func:`view_of`), and its strong
edges (:func:`strong_edges`). The frame's cues (``frame_cues.py``), what
covers the points (``cover_cues.py``) and the decision
(``occlusion.py``) all read this one view.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .config import VisionConfig
from .errors import FrameError
from .geometry import BoardGeometry, Corners, corners_array

__all__ = ["ONES3", "as_bgr8", "least_change", "matched_gain", "View", "view_of", "strong_edges"]

ONES3 = np.ones((1, 3), np.float32)          # sums a 3-channel image's channels (cv2.transform)

def matched_gain(now: np.ndarray, then: np.ndarray, ok: np.ndarray | None = None) -> np.ndarray:
    """The gain per channel (B, G, R) that takes *then* to *now*'s exposure
    and white balance: the median over the places both show (*ok*) of
    *now* / *then*, where neither is dark or clipped (both 8-bit BGR of
    the same shape).  A hand, or men moved, change less than half of what
    is compared, and do not move the median far; the camera's exposure and
    white balance scale every place alike.  Ones where too little is seen.

    >>> then = np.full((20, 20, 3), 100, np.uint8)
    >>> [round(float(g), 2) for g in matched_gain((then * np.array([1.2, 1.0, 0.9])).astype(np.uint8), then)]
    [1.2, 1.0, 0.9]
    """
    a = now.reshape(-1, 3).astype(np.float32)
    b = then.reshape(-1, 3).astype(np.float32)
    good = (b.min(1) >= 12) & (b.max(1) <= 243) & (a.min(1) >= 4) & (a.max(1) <= 251)
    if ok is not None:
        good &= ok.reshape(-1)
    if good.sum() < 64:
        return np.ones(3, np.float32)
    gain: np.ndarray = np.clip(np.median(a[good] / b[good], axis=0), 0.4, 2.5).astype(np.float32)
    return gain


def least_change(now: np.ndarray, then: np.ndarray, shift: int, weight: np.ndarray | None = None,
                 blur: tuple[int, int] = (3, 3)) -> np.ndarray:
    """How far *now* is from *then* (two maps of the same shape, channels
    last, Lab with lightness already weighted as the caller weighs it), per
    place: the squared distance of the two, each averaged over *blur* (where
    *weight*, if given), and the least of it over *then* moved by up to
    *shift* places either way, both axes: a camera nudged a pixel moves the
    board's edges, and a place changed only for that looks like a place of
    the picture before beside it."""
    if weight is None:
        a, b = cv2.blur(now, blur), cv2.blur(then, blur)
    else:
        w = weight.astype(np.float32)[..., None]
        wsum = np.maximum(cv2.blur(w[..., 0], blur), 1e-3)[..., None]
        a = cv2.blur(now * w, blur).reshape(now.shape) / wsum
        b = cv2.blur(then * w, blur).reshape(then.shape) / wsum
    if shift > 0:
        b = cv2.copyMakeBorder(b, shift, shift, shift, shift, cv2.BORDER_REPLICATE)
    rows, cols = now.shape[:2]
    best: np.ndarray | None = None
    for dy in range(-shift, shift + 1):
        for dx in range(-shift, shift + 1):
            d = a - b[shift + dy:shift + dy + rows, shift + dx:shift + dx + cols]
            d2 = cv2.transform(cv2.multiply(d, d), ONES3).reshape(rows, cols)
            best = d2 if best is None else np.minimum(best, d2)
    assert best is not None
    return best


def as_bgr8(image: object) -> np.ndarray:
    """The frame as an 8-bit BGR image (a grey one is widened)."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or not (
            image.ndim == 2 or (image.ndim == 3 and image.shape[2] in (1, 3))) or min(image.shape[:2]) < 8:
        what = f"{image.dtype} array of shape {image.shape}" if isinstance(image, np.ndarray) else type(image).__name__
        raise FrameError(f"a frame must be an 8-bit BGR or grey image, not a {what}")
    if image.ndim == 2 or image.shape[2] == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return image


@dataclass
class View:
    """The playing surface and ``view_margin_mm`` round it, rectified top-down
    at ``view_step_mm`` per pixel (pixel (0, 0) is the margin's corner beyond
    C3): Lab, and whether each pixel is in the picture."""

    lab: np.ndarray
    known: np.ndarray
    step: float
    margin: float
    geometry: BoardGeometry
    bgr: np.ndarray | None = None
    edge: np.ndarray | None = None       # strong edges (and out of the picture), once asked for

    def surface(self, a: np.ndarray) -> np.ndarray:
        """The playing surface's part of a map of the view."""
        r0 = self.px(0)
        rows = int(round(self.geometry.depth / self.step))
        cols = int(round(self.geometry.width / self.step))
        return a[r0:r0 + rows, r0:r0 + cols]

    def px(self, mm: float) -> int:
        """The pixel row or column of a surface coordinate (mm)."""
        return int(round((mm + self.margin) / self.step))


def strong_edges(config: VisionConfig, view: View) -> np.ndarray:
    """The view's strong edges: a colour gradient of ``edge_strong`` of the
    points' ``edge_pct`` percentile or more (the points' sides, the men's
    rims, an arm's outline; not the wood's grain), and everything outside
    the picture."""
    if view.edge is None:
        oc = config.occlusion
        g = view.geometry
        grad: np.ndarray = np.zeros(view.known.shape, np.float32)
        for c in range(3):
            gx = cv2.Sobel(view.lab[..., c], cv2.CV_32F, 1, 0, ksize=3)
            gy = cv2.Sobel(view.lab[..., c], cv2.CV_32F, 0, 1, ksize=3)
            grad += gx * gx + gy * gy
        grad = np.sqrt(grad) * 0.125
        deep = min(config.point_length, g.depth / 2)
        points = np.zeros(view.known.shape, bool)
        points[view.px(0):view.px(deep), view.px(0):view.px(g.width)] = True
        points[view.px(g.depth - deep):view.px(g.depth), view.px(0):view.px(g.width)] = True
        points &= view.known
        strong = oc.edge_strong * float(np.percentile(grad[points], oc.edge_pct)) if points.any() else 0.0
        view.edge = (grad >= max(strong, 1e-3)) | ~view.known
    return view.edge


def view_of(config: VisionConfig, image: np.ndarray, corners: Corners) -> View:
    geometry = BoardGeometry(config)
    oc = config.occlusion
    step, margin = oc.view_step_mm, oc.view_margin_mm
    W, D = geometry.width, geometry.depth
    size = (int(round((W + 2 * margin) / step)), int(round((D + 2 * margin) / step)))
    src = corners_array(corners).astype(np.float32)
    dst = ((geometry.surface_corners() + margin) / step).astype(np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    H_image = H.copy()
    # a pixel of the view spans this many of the picture's (at the surface's middle): smooth the picture as
    # much first, or the wood's grain and the felt's weave alias into edges
    centre = np.array([[[(geometry.width / 2 + margin) / step, (geometry.depth / 2 + margin) / step]]], np.float32)
    back = cv2.perspectiveTransform(centre + np.array([[[0, 0]], [[1, 0]], [[0, 1]]], np.float32).reshape(1, 3, 2),
                                    np.linalg.inv(H))[0]
    u, v = back[1] - back[0], back[2] - back[0]
    span = float(np.sqrt(abs(u[0] * v[1] - u[1] * v[0])))
    h, w = image.shape[:2]
    # only the part of the picture the view shows
    ends = np.array([[[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]]], np.float32)
    seen = cv2.perspectiveTransform(ends, np.linalg.inv(H))[0]
    x0, y0 = np.clip(np.floor(seen.min(0)).astype(int) - 2, 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(seen.max(0)).astype(int) + 3, [x0 + 1, y0 + 1], [w, h])
    source = image[y0:y1, x0:x1]
    H = H @ np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1.0]])
    while span > 1.8 and min(source.shape[:2]) >= 16:
        sh, sw = source.shape[:2]
        source = cv2.pyrDown(source)
        H = H @ np.diag([sw / source.shape[1], sh / source.shape[0], 1.0])
        span /= 2
    bgr = cv2.warpPerspective(source, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=(0, 0, 0))
    if span > 1.2:
        bgr = cv2.GaussianBlur(bgr, (3, 3), 0.5)
    # in the picture: the picture's outline, less a pixel, drawn on the view
    edge = np.array([[[0.5, 0.5], [w - 1.5, 0.5], [w - 1.5, h - 1.5], [0.5, h - 1.5]]], np.float32)
    outline = cv2.perspectiveTransform(edge, H_image)[0]
    known: np.ndarray = np.zeros((size[1], size[0]), np.uint8)
    if np.all(np.isfinite(outline)) and np.all(np.abs(outline) < 1e6):
        cv2.fillConvexPoly(known, np.round(outline * 16).astype(np.int32), 1, shift=4)
    known = cv2.erode(known, np.ones((3, 3), np.uint8)) > 0
    # a photo padded with black to its shape (a rotated or stretched picture): the padding is not the scene
    dark = cv2.inRange(bgr, (0, 0, 0), (6, 6, 6)) > 0          # every channel at most 6 (OpenCV: far faster)
    if dark.any():
        n, labels = cv2.connectedComponents((dark | ~known).astype(np.uint8), connectivity=4)
        outside = np.zeros(n, bool)
        outside[np.unique(labels[~known])] = True
        outside[0] = False
        known &= ~outside[labels]
    lab = cv2.cvtColor(bgr.astype(np.float32) * (1 / 255.0), cv2.COLOR_BGR2Lab)
    return View(lab, known, step, margin, geometry, bgr)


