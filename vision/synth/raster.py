"""Painting primitives: anti-aliased polygons, a texture warped onto an
image quadrilateral, soft shadows painted at reduced resolution, the
directional light's shading of a face, and the far-to-near paint order of
the scene's solids (from separating planes between their footprints)."""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from typing import Callable, Literal, Sequence

import cv2
import numpy as np

from .scene3d import _Camera
from .textures import _Colour

# ------------------------------------------------------------------ drawing
_SHIFT = 4
_ONE = 1 << _SHIFT


def _fix(pts: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(pts, np.float64) * _ONE).astype(np.int32).reshape(-1, 1, 2)


def _fill(img: np.ndarray, pts: np.ndarray, colour: _Colour, aa: bool = True) -> None:
    cv2.fillPoly(img, [_fix(pts)], tuple(float(c) for c in colour),
                 cv2.LINE_AA if aa else cv2.LINE_8, _SHIFT)


def _bbox(pts: np.ndarray, size: tuple[int, int], pad: int = 2) -> tuple[int, int, int, int] | None:
    x0 = max(int(math.floor(pts[:, 0].min())) - pad, 0)
    y0 = max(int(math.floor(pts[:, 1].min())) - pad, 0)
    x1 = min(int(math.ceil(pts[:, 0].max())) + pad, size[0])
    y1 = min(int(math.ceil(pts[:, 1].max())) + pad, size[1])
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _warp_quad(img: np.ndarray, tex: np.ndarray, tex_quad: np.ndarray, img_quad: np.ndarray,
               shade: float, aa: bool = True) -> None:
    """Paint the texture rectangle *tex_quad* into the image quadrilateral."""
    size = (img.shape[1], img.shape[0])
    bb = _bbox(img_quad, size)
    if bb is None:
        return
    x0, y0, x1, y1 = bb
    w, h = x1 - x0, y1 - y0
    dst = (img_quad - [x0, y0]).astype(np.float32)
    M = cv2.getPerspectiveTransform(tex_quad.astype(np.float32), dst)
    patch = cv2.warpPerspective(tex, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if shade != 1.0:
        patch = cv2.convertScaleAbs(patch, alpha=shade)
    mask = np.zeros((h, w), np.uint8)
    _fill(mask, dst, (255,), aa)
    roi = img[y0:y1, x0:x1]
    if not aa:
        np.copyto(roi, patch, where=mask[..., None] > 0)
        return
    m = mask.astype(np.uint16)[..., None]
    roi[:] = ((patch.astype(np.uint16) * m + roi.astype(np.uint16) * (255 - m) + 127) // 255).astype(np.uint8)


def _multiply(img: np.ndarray, factor: np.ndarray, x0: int, y0: int,
              where: np.ndarray | None = None) -> None:
    """img[y0:, x0:] *= factor (a float map), optionally only where the mask is set."""
    h, w = factor.shape
    roi = img[y0:y0 + h, x0:x0 + w]
    out = cv2.multiply(roi, cv2.merge([factor, factor, factor]), dtype=cv2.CV_8U)
    if where is None:
        roi[:] = out
    else:
        np.copyto(roi, out, where=where[..., None] > 0)


class _ShadowLayer:
    """Soft shadows painted at reduced resolution over an image region."""

    def __init__(self, size: tuple[int, int], region: tuple[int, int, int, int], scale: float) -> None:
        self.x0, self.y0, x1, y1 = region
        self.w, self.h = x1 - self.x0, y1 - self.y0
        self.scale = scale
        self.mask = np.zeros((max(1, int(self.h * scale) + 1), max(1, int(self.w * scale) + 1)), np.uint8)

    def add(self, pts: np.ndarray, value: int = 255) -> None:
        p = (np.asarray(pts) - [self.x0, self.y0]) * self.scale
        _fill(self.mask, p, (value,), True)

    def factor(self, sigma_px: float, strength: float) -> np.ndarray:
        s = max(sigma_px * self.scale, 0.3)
        m = cv2.GaussianBlur(self.mask, (0, 0), s).astype(np.float32) * (strength / 255.0)
        shade: np.ndarray = 1.0 - cv2.resize(m, (self.w, self.h), interpolation=cv2.INTER_LINEAR)
        return shade


def _circle(n: int = 32, start: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    a = start + np.arange(n) * (2 * np.pi / n)
    return np.cos(a), np.sin(a)


def _shadow_hull(points3d: np.ndarray, light: np.ndarray, z_recv: float, cam: _Camera) -> np.ndarray:
    """Image outline of the shadow that 3D points throw on the plane z = z_recv."""
    P = np.asarray(points3d, np.float64).reshape(-1, 3)
    t = (P[:, 2] - z_recv) / light[2]
    S = P - t[:, None] * light
    S[:, 2] = z_recv
    img = cam.project(S).astype(np.float32)
    return cv2.convexHull(img).reshape(-1, 2)


# --------------------------------------------------------------- solids
#: a solid's board-local footprint: a circle ("c", u, v, r) or a rectangle ("r", u0, u1, v0, v1)
_Footprint = tuple[Literal["c"], float, float, float] | tuple[Literal["r"], float, float, float, float]


@dataclass
class _Solid:
    kind: str                   # "box", "man", "die"
    zmin: float
    zmax: float
    fp: _Footprint
    bbox: tuple[float, float, float, float]
    depth: float
    draw: Callable[[np.ndarray], None]


def _separate(a: _Footprint, b: _Footprint) -> tuple[np.ndarray, float]:
    """A vertical plane n.p = c between two footprints, *a* on its negative side."""
    if a[0] == "c" and b[0] == "c":
        n = np.array([b[1] - a[1], b[2] - a[2]])
        ln = float(np.hypot(*n))
        if ln < 1e-9:
            return np.array([1.0, 0.0]), float(a[1])
        n /= ln
        mid = (np.array(a[1:3]) + np.array(b[1:3])) / 2
        return n, float(n @ mid)

    def extent(fp: _Footprint) -> tuple[float, float, float, float]:
        if fp[0] == "c":
            return fp[1] - fp[3], fp[1] + fp[3], fp[2] - fp[3], fp[2] + fp[3]
        return fp[1], fp[2], fp[3], fp[4]

    au0, au1, av0, av1 = extent(a)
    bu0, bu1, bv0, bv1 = extent(b)
    gaps = [
        (bu0 - au1, np.array([1.0, 0.0]), (au1 + bu0) / 2),
        (au0 - bu1, np.array([-1.0, 0.0]), -(au0 + bu1) / 2),
        (bv0 - av1, np.array([0.0, 1.0]), (av1 + bv0) / 2),
        (av0 - bv1, np.array([0.0, -1.0]), -(av0 + bv1) / 2),
    ]
    g = max(gaps, key=lambda t: t[0])
    return g[1], float(g[2])


def _paint_order(solids: list[_Solid], cam_uv: tuple[float, float]) -> list[int]:
    """Far to near: a topological order of 'drawn before' from separating planes."""
    n = len(solids)
    before: list[set[int]] = [set() for _ in range(n)]
    after: list[set[int]] = [set() for _ in range(n)]
    cu = np.array(cam_uv)
    for i in range(n):
        a = solids[i]
        for j in range(i + 1, n):
            b = solids[j]
            if (a.bbox[2] < b.bbox[0] or b.bbox[2] < a.bbox[0]
                    or a.bbox[3] < b.bbox[1] or b.bbox[3] < a.bbox[1]):
                continue
            if a.zmax <= b.zmin + 1e-6:
                first, second = i, j
            elif b.zmax <= a.zmin + 1e-6:
                first, second = j, i
            else:
                nrm, c = _separate(a.fp, b.fp)
                if float(nrm @ cu) - c > 0:     # the camera is on b's side: b is nearer
                    first, second = i, j
                else:
                    first, second = j, i
            before[second].add(first)
            after[first].add(second)
    order: list[int] = []
    remaining = set(range(n))
    indeg = [len(before[i]) for i in range(n)]
    heap = [(-solids[i].depth, i) for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    while remaining:
        if not heap:  # a cycle (rare): break it at the farthest solid
            k = max(remaining, key=lambda i: solids[i].depth)
            indeg[k] = 0
            heap.append((-solids[k].depth, k))
        _, k = heapq.heappop(heap)
        if k not in remaining:
            continue
        remaining.discard(k)
        order.append(k)
        for m in after[k]:
            if m in remaining:
                indeg[m] -= 1
                if indeg[m] == 0:
                    heapq.heappush(heap, (-solids[m].depth, m))
    return order


# ------------------------------------------------------------------ render
@dataclass
class _Light:
    L: np.ndarray          # unit vector towards the light (world)
    ambient: float

    def shade(self, normal: np.ndarray) -> float:
        """Brightness of a face with this normal, the top face being 1."""
        top = self.ambient + (1 - self.ambient) * self.L[2]
        return float((self.ambient + (1 - self.ambient) * max(0.0, float(normal @ self.L))) / top)

    def shade_many(self, normals: np.ndarray) -> np.ndarray:
        top = self.ambient + (1 - self.ambient) * self.L[2]
        shades: np.ndarray = (self.ambient + (1 - self.ambient) * np.clip(normals @ self.L, 0, None)) / top
        return shades
