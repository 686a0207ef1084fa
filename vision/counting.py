"""Counting men on a point by fitting arrangements to the picture.

Men on a point lie in a row from the edge; when the row is full (``row_max``
men) further men lie on top in the gaps, a second layer, then a third...
(as in the dev set, ``docs/vision-labels.md``).  Where the unstacking games start, men
stand in a pile at the edge.  For each point, each colour and each count, the
counter draws where those men would cover the rectified board -- each man a
cylinder, seen from the camera recovered from the corners, so a man high on
a pile or a top layer appears displaced and enlarged as he really does -- and
adds up how much better the covered pixels fit that colour of man than the
bare board.  The count with the best total wins; the margin over the next
best is the confidence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import overload

import cv2
import numpy as np

from .camera import Camera
from .classes import MOST_MEN
from .geometry import BoardGeometry

__all__ = ["Arrangement", "arrangement", "PointFit", "fit_point"]

_CIRCLE = np.stack([np.cos(np.linspace(0, 2 * math.pi, 20, endpoint=False)),
                    np.sin(np.linspace(0, 2 * math.pi, 20, endpoint=False))], axis=1)


@dataclass(frozen=True)
class Arrangement:
    """Men on one point: (slot along the point, layer height in men) each, in
    the order they are laid down, and how many of them stand in a pile."""

    men: tuple[tuple[float, int], ...]
    stacked: int = 0


def arrangement(n: int, row_max: int, pile: int = 0) -> Arrangement:
    """The usual arrangement of *n* men: a pile of *pile* at the edge (if any),
    then a row, then further layers in the gaps of the layer below."""
    men: list[tuple[float, int]] = []
    if pile >= 2:
        for level in range(min(pile, n)):
            men.append((0.0, level))
        start = 1
        rest = n - min(pile, n)
        stacked = min(pile, n)
    else:
        start = 0
        rest = n
        stacked = 0
    layer = 0
    while rest > 0:
        first = start + layer * 0.5
        slots = row_max - layer
        if slots <= 0:
            slots = 1
        for k in range(slots):
            if rest == 0:
                break
            men.append((first + k, layer))
            rest -= 1
        layer += 1
    return Arrangement(tuple(men), stacked)


@dataclass
class PointFit:
    """The best reading of one point."""

    colour: str
    count: int
    stacked: int
    score: float
    margin: float


def _silhouette(camera: Camera, cx: float, cy: float, radius: float, z0: float, t: float,
                origin: tuple[float, float], scale: float) -> np.ndarray:
    pts = []
    for z in (z0, z0 + t):
        x, y = camera.on_surface(cx, cy, z)
        r = radius * camera.magnification(z)
        pts.append(np.column_stack([x + r * _CIRCLE[:, 0], y + r * _CIRCLE[:, 1]]))
    allp = np.vstack(pts)
    allp = (allp - np.array(origin)) * scale
    hull = cv2.convexHull(allp.astype(np.float32))
    outline: np.ndarray = np.round(hull).astype(np.int32)
    return outline


def _edge_support(grad: tuple[np.ndarray, np.ndarray], cx: float, cy: float, radius: float,
                  scale: float, origin: tuple[float, float], tau: float) -> float:
    """How much of a circle's outline has a strong edge across it (0..1)."""
    gx, gy = grad
    h, w = gx.shape
    px = ((cx - origin[0]) + radius * _CIRCLE[:, 0]) * scale
    py = ((cy - origin[1]) + radius * _CIRCLE[:, 1]) * scale
    ix = np.clip(np.round(px).astype(int), 0, w - 1)
    iy = np.clip(np.round(py).astype(int), 0, h - 1)
    radial = np.minimum(np.abs(gx[iy, ix] * _CIRCLE[:, 0] + gy[iy, ix] * _CIRCLE[:, 1]) / tau, 1.0)
    return float(radial.mean())


_Grad = tuple[np.ndarray, np.ndarray]
_Found = tuple[float, str, int, int]        # (score, colour, men, of them in a pile)


@overload
def fit_point(point: int, geometry: BoardGeometry, camera: Camera, llr: dict[str, np.ndarray],
              roi: tuple[int, int, int, int], row_max: int, thickness: float,
              max_men: int = MOST_MEN, piles: tuple[int, ...] = (0,), grad: _Grad | None = None,
              edge_weight: float = 1200.0, edge_base: float = 0.45,
              pile_penalty: float = 150.0, offset: float = 0.0) -> PointFit: ...


@overload
def fit_point(point: int, geometry: BoardGeometry, camera: Camera, llr: dict[str, np.ndarray],
              roi: tuple[int, int, int, int], row_max: tuple[int, ...], thickness: float,
              max_men: int = MOST_MEN, piles: tuple[int, ...] = (0,), grad: _Grad | None = None,
              edge_weight: float = 1200.0, edge_base: float = 0.45,
              pile_penalty: float = 150.0, offset: float = 0.0) -> dict[int, PointFit]: ...


def fit_point(point: int, geometry: BoardGeometry, camera: Camera, llr: dict[str, np.ndarray],
              roi: tuple[int, int, int, int], row_max: int | tuple[int, ...], thickness: float,
              max_men: int = MOST_MEN, piles: tuple[int, ...] = (0,), grad: _Grad | None = None,
              edge_weight: float = 1200.0, edge_base: float = 0.45,
              pile_penalty: float = 150.0, offset: float = 0.0) -> PointFit | dict[int, PointFit]:
    """Fit counts 0..max_men of each colour (and pile heights *piles*) to one
    point.  *llr* maps colour to a per-pixel log-likelihood-ratio image of the
    rectified board (a man of that colour against the alternatives); *grad*
    is the (gx, gy) gradient of lightness, for the outlines of men's tops;
    *roi* is (x0, y0, x1, y1) in rectified pixels, whose pixel (0, 0) is the
    surface point (-offset, -offset) mm.

    *row_max* may be a tuple of row lengths: the fits then share the men the
    arrangements have in common (the first row), and a dict row -> PointFit
    is returned."""
    rows = (row_max,) if isinstance(row_max, int) else tuple(row_max)
    scale = geometry.config.scale
    x0, y0, x1, y1 = roi
    origin = (x0 / scale - offset, y0 / scale - offset)
    r = geometry.config.man_diameter / 2
    sub = {c: img[y0:y1, x0:x1] for c, img in llr.items()}
    gsub = (grad[0][y0:y1, x0:x1], grad[1][y0:y1, x0:x1]) if grad is not None else None
    results = {row: [(0.0, "light", 0, 0)] for row in rows}
    scratch = np.zeros((y1 - y0, x1 - x0), np.uint8)
    man_cache: dict[tuple[float, int], tuple[np.ndarray, float]] = {}

    def man(slot: float, level: int) -> tuple[np.ndarray, float]:
        key = (slot, level)
        if key not in man_cache:
            cx, cy = geometry.slot_centre(point, slot)
            z0 = level * thickness
            hull = _silhouette(camera, cx, cy, r, z0, thickness, origin, scale)
            edge = 0.0
            if gsub is not None:
                tx, ty = camera.on_surface(cx, cy, z0 + thickness)
                edge = edge_weight * (_edge_support(gsub, tx, ty, r * camera.magnification(z0 + thickness),
                                                    scale, origin, 8.0) - edge_base)
            man_cache[key] = (hull, edge)
        return man_cache[key]

    for pile in piles:
        # the walk of the first row length is remembered man by man, so the
        # others start from where their arrangement departs from it
        states: list[tuple[np.ndarray, dict[str, float], dict[str, float], list[_Found]]] = []
        first_plan: tuple[tuple[float, int], ...] = ()
        for row in rows:
            plan = arrangement(max_men, row, pile).men
            shared = 0
            while shared < min(len(plan), len(first_plan)) and plan[shared] == first_plan[shared]:
                shared += 1
            shared = min(shared, len(states))
            if shared:
                covered_s, totals_s, best_s, found = states[shared - 1]
                covered = covered_s.copy()
                totals, best_here = dict(totals_s), dict(best_s)
                results[row].extend(found)
            else:
                covered = np.zeros_like(scratch)
                totals = {c: 0.0 for c in sub}
                best_here = {c: 0.0 for c in sub}
            remember = not first_plan
            found_so_far = list(states[shared - 1][3]) if shared else []
            for n in range(shared + 1, len(plan) + 1):
                slot, level = plan[n - 1]
                hull, edge = man(slot, level)
                if pile >= 2 and slot == 0.0 and level >= 1:
                    # on a pile only the top man's outline shows: his credit
                    # replaces that of the man beneath him
                    edge -= man(slot, level - 1)[1]
                scratch[:] = 0
                cv2.fillConvexPoly(scratch, hull, 1)
                new = scratch > covered
                covered |= scratch
                alive = False
                found = []
                for c, img in sub.items():
                    totals[c] += float(img[new].sum()) + edge
                    if pile >= 2 and n < 2:
                        alive = True
                        continue  # one man is no pile: the flat hypothesis counts him
                    stacked = min(pile, n) if pile >= 2 else 0
                    score = totals[c] - (pile_penalty if stacked else 0.0)
                    found.append((score, c, n, stacked))
                    best_here[c] = max(best_here[c], score)
                    if totals[c] > best_here[c] - 3000:
                        alive = True
                results[row].extend(found)
                if remember:
                    found_so_far = found_so_far + found
                    states.append((covered.copy(), dict(totals), dict(best_here), found_so_far))
                if not alive:
                    break
            if remember:
                first_plan = plan
    fits = {}
    for row in rows:
        ranked = sorted(results[row], key=lambda t: -t[0])
        best = ranked[0]
        second = next((t for t in ranked[1:] if (t[1], t[2], t[3]) != (best[1], best[2], best[3])
                       and not (t[2] == 0 and best[2] == 0)), (best[0] - 1e6,))
        fits[row] = PointFit(best[1], best[2], best[3], best[0], best[0] - second[0])
    return fits[rows[0]] if isinstance(row_max, int) else fits


def outlines(point: int, geometry: BoardGeometry, camera: Camera, count: int, row_max: int,
             thickness: float, pile: int = 0) -> list[np.ndarray]:
    """The outlines (surface mm) of *count* men laid on *point* as the camera sees them."""
    r = geometry.config.man_diameter / 2
    out = []
    for slot, level in arrangement(count, row_max, pile).men:
        cx, cy = geometry.slot_centre(point, slot)
        out.append(_silhouette(camera, cx, cy, r, level * thickness, thickness, (0.0, 0.0), 1.0)
                   .reshape(-1, 2).astype(np.float64))
    return out
