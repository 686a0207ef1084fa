"""Finding the playing surface's true edges from rough corners.

A player marks the board's four corners with a finger on a phone, a few
pixels off; the reader rectifies the board from the corners as given, so
every pixel of error moves the points under the men.  This stage (DESIGN.md,
convention 10: a function of ``(config, image)``, its numbers in
``RefineConfig``) takes the rough corners C1..C4 and finds each side's edge
in the picture:

1. **strip** -- for each side of the playing surface, a strip of the
   picture a band of ``band_px`` either side of the given edge, warped
   straight (``strip_scale`` px per mm; a homography keeps lines straight,
   so an edge straight in the picture is straight in the strip);
2. **energy** -- the colour gradient across the edge (Lab, every channel),
   each column of the strip scaled by its own strongest edge so that no
   single man, die or shadow outvotes the rest of the side; the columns at
   the corners (the frame's corner blocks, the markers) and at the bar
   (where the surface's edge is missing) are left out;
3. **search** -- every line through the band (its offsets at the side's two
   ends, one strip pixel apart) scored by the share of columns that have
   their edge on it; the best line, then a least-squares fit to the
   columns' sub-pixel edge peaks near it (outliers dropped);
4. **parallax** -- where the camera stands beyond a side, the rail's top
   hides the surface's edge and the edge seen is the rail's inner top edge,
   ``frame_height`` mm up: the line is moved back by the parallax the
   corners' camera predicts; where that correction is larger than
   ``max_parallax_px`` the rail's height matters too much and the given
   edge is kept;
5. **corners** -- the four lines intersected.

A side without a clear edge (a hand across it, a rail the colour of the
field) keeps the edge as given, with a note; no corner moves by more than
the band.

>>> import numpy as np
>>> result = refine_corners(VisionConfig(), np.full((480, 640, 3), 128, np.uint8),
...                         [[600, 420], [40, 420], [40, 40], [600, 40]])
>>> result.refined, result.corners.tolist() == [[600, 420], [40, 420], [40, 40], [600, 40]]
(False, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

from .camera import camera_from_corners
from .config import VisionConfig
from .geometry import BoardGeometry, corners_array, homography

__all__ = ["Refinement", "SideEdge", "refine_corners", "SIDES"]

# the four sides of the playing surface: (name, from corner, to corner), as
# indices into C1..C4; the rectified surface has C3 at the origin, C4 along x
SIDES = (("C3-C4", 2, 3), ("C4-C1", 3, 0), ("C1-C2", 0, 1), ("C2-C3", 1, 2))


@dataclass(frozen=True)
class SideEdge:
    """What was found along one side: the line (image pixels, a point and a
    unit direction), how many columns backed it, and whether it was used."""

    name: str
    found: bool
    support: float = 0.0          # share of the side's columns with their edge on the line
    parallax_px: float = 0.0      # how far the rail's top edge seen lies from the surface's edge (px)
    rail_height_mm: float = 0.0   # the rails' height assumed
    point: tuple[float, float] = (0.0, 0.0)
    direction: tuple[float, float] = (1.0, 0.0)
    why: str = ""


@dataclass
class Refinement:
    """The corners after refinement, what each side showed, and notes for
    the reading (a side kept as given says why)."""

    corners: np.ndarray                       # 4x2, C1..C4, pixels
    given: np.ndarray                         # 4x2, as given
    sides: list[SideEdge] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    millis: float = 0.0

    @property
    def refined(self) -> bool:
        """Whether any corner was moved."""
        return bool(np.any(self.corners != self.given))

    @property
    def moved_px(self) -> np.ndarray:
        """How far each corner moved (pixels)."""
        return np.linalg.norm(self.corners - self.given, axis=1)


def _side_frame(geometry: BoardGeometry, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Side *k*: its start on the rectified surface (mm), unit direction
    along it, unit normal into the surface, and its length."""
    c = geometry.surface_corners()
    _, a, b = SIDES[k]
    start, end = c[a], c[b]
    length = float(np.linalg.norm(end - start))
    d = (end - start) / length
    centre = c.mean(axis=0)
    n = np.array([-d[1], d[0]])
    if np.dot(centre - start, n) < 0:
        n = -n
    return start, d, n, length


def _to_image(H_inv: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ H_inv.T
    return p[:, :2] / p[:, 2:3]


def _intersect(p1, d1, p2, d2) -> np.ndarray | None:
    a = np.array([[d1[0], -d2[0]], [d1[1], -d2[1]]], np.float64)
    if abs(np.linalg.det(a)) < 1e-9:
        return None
    s = np.linalg.solve(a, np.asarray(p2, np.float64) - np.asarray(p1, np.float64))
    return np.asarray(p1, np.float64) + s[0] * np.asarray(d1, np.float64)


def _foot_inward(geometry: BoardGeometry, k: int, camera) -> float:
    """How far (mm) the camera's foot lies inward of side *k* (negative: beyond it)."""
    start, _, n, _ = _side_frame(geometry, k)
    return float(np.dot(np.array(camera.foot) - start, n))


@dataclass
class _Strip:
    """One side's strip: its column-normalised edge energy and the strongest line in it."""

    k: int
    start: np.ndarray
    d: np.ndarray
    n: np.ndarray
    length: float
    band: np.ndarray                 # mm either side of the given edge allowed, at each end
    B: float                         # the strip spans -B..B mm across the given edge
    norm: np.ndarray                 # (rows, used columns) edge energy, each column / its strongest
    tm: np.ndarray                   # mm along the side of the used columns
    line: np.ndarray                 # rows of the strongest line at the used columns
    support: float
    ppm: float


def _strip(config: VisionConfig, image: np.ndarray, geometry: BoardGeometry, H_inv: np.ndarray,
           k: int, shift: float) -> _Strip | str:
    """Steps 1-3 for side *k*: the strip (the band plus *reach_mm*, where
    the rail's edge may lie), its edge energy, and its strongest line."""
    rc = config.refine
    start, d, n, length = _side_frame(geometry, k)
    ends = np.array([start, start + n, start + length * d, start + length * d + n])
    im = _to_image(H_inv, ends)
    ppm = np.array([np.linalg.norm(im[1] - im[0]), np.linalg.norm(im[3] - im[2])])
    if np.any(ppm < 1e-3):
        return "the side is too small in the picture"
    band = rc.band_px / ppm
    s = rc.strip_scale
    B = float(band.max()) + abs(shift) + 1.0
    rows = int(np.ceil(2 * B * s)) + 1
    cols = int(np.ceil(length * s)) + 1
    A = np.array([[d[0] / s, n[0] / s, start[0] - B * n[0]],
                  [d[1] / s, n[1] / s, start[1] - B * n[1]],
                  [0, 0, 1]], np.float64)
    strip = cv2.warpPerspective(image, H_inv @ A, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(strip, cv2.COLOR_BGR2Lab).astype(np.float32)
    lab = cv2.GaussianBlur(lab, (0, 0), sigmaX=rc.smooth_along_mm * s, sigmaY=rc.smooth_across_mm * s)
    energy = np.abs(cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3) / 8.0 * s).sum(axis=2)   # Lab units per mm
    t = np.arange(cols) / s
    use = (t >= rc.corner_skip_mm) & (t <= length - rc.corner_skip_mm)
    if abs(d[1]) < 0.5:                       # a long side: the bar crosses it
        left, right = geometry.bar_x
        use &= (t < left - rc.bar_skip_mm) | (t > right + rc.bar_skip_mm)
    use_idx = np.flatnonzero(use)[::max(1, int(rc.column_step))]
    if use_idx.size < 10:
        return "too little of the side to look at"
    E = energy[:, use_idx]
    norm = E / np.maximum(E.max(axis=0), rc.min_contrast)[None, :]
    tt = t[use_idx] / length
    # every line from end to end whose surface edge lies in the band, a pixel apart
    c0 = (B + shift) * s
    r0 = np.arange(int(np.ceil(c0 - band[0] * s)), int(np.floor(c0 + band[0] * s)) + 1)
    r1 = np.arange(int(np.ceil(c0 - band[1] * s)), int(np.floor(c0 + band[1] * s)) + 1)
    ci = np.arange(len(use_idx))
    rr = np.clip(np.rint(r0[:, None, None] * (1 - tt)[None, None, :]
                         + r1[None, :, None] * tt[None, None, :]).astype(np.int64), 0, rows - 1)
    scores = norm[rr, ci[None, None, :]].mean(axis=2)
    best = float(scores.max())
    # the rail's top edge is the outermost strong edge (the wall's foot, shadows, the points' bases
    # and the men lie inward of it): of the lines nearly as strong as the best, the outermost
    strong = np.argwhere(scores >= config.refine.outer_share * best)
    i0, i1 = min(strong, key=lambda ij: (r0[ij[0]] + r1[ij[1]], -scores[ij[0], ij[1]]))
    line = r0[i0] * (1 - tt) + r1[i1] * tt
    return _Strip(k, start, d, n, length, band, B, norm, t[use_idx], line, best, float(ppm.max()))


def _fit_line(config: VisionConfig, st: _Strip, rows_guess: np.ndarray) -> tuple[np.ndarray, float] | None:
    """A least-squares line through each column's sub-pixel edge peak near
    *rows_guess* (outliers dropped); its rows at the two ends and the share
    of columns on it."""
    rc = config.refine
    s = rc.strip_scale
    norm = st.norm
    rows = norm.shape[0]
    ci = np.arange(norm.shape[1])
    reach = max(1, int(round(rc.peak_reach_mm * s)))
    offs = np.arange(-reach, reach + 1)
    ri = np.clip(np.rint(rows_guess).astype(np.int64)[None, :] + offs[:, None], 1, rows - 2)
    vals = norm[ri, ci[None, :]]
    arg = np.argmax(vals, axis=0)
    pr = ri[arg, ci]
    peak = vals[arg, ci]
    ym, y0, yp = norm[pr - 1, ci], norm[pr, ci], norm[pr + 1, ci]
    den = ym - 2 * y0 + yp
    safe = np.where(den < -1e-6, den, -1.0)
    pos = pr + np.clip(np.where(den < -1e-6, 0.5 * (ym - yp) / safe, 0.0), -0.5, 0.5)
    good = peak >= rc.peak_share
    least = max(10, int(0.5 * rc.min_support * len(ci)))
    fit = None
    for _ in range(3):
        if good.sum() < least:
            return None
        fit = np.polyfit(st.tm[good], pos[good], 1, w=peak[good])
        keep = good & (np.abs(np.polyval(fit, st.tm) - pos) <= rc.inlier_mm * s)
        if keep.sum() == good.sum():
            break
        good = keep
    if fit is None or good.sum() < least:
        return None
    return np.array([np.polyval(fit, 0.0), np.polyval(fit, st.length)]), float(good.mean())


def _find_edges(config: VisionConfig, image: np.ndarray, geometry: BoardGeometry, H_inv: np.ndarray,
                camera) -> list[SideEdge]:
    """Steps 1-4 for the four sides."""
    rc = config.refine
    s = rc.strip_scale
    h = rc.rail_height_mm
    Cz = camera.height if camera is not None else 0.0
    out = []
    for k in range(4):
        name = SIDES[k][0]
        # the rail's top edge appears h / (Cz - h) x D mm outside the surface's edge (inside where D < 0)
        shift = -h / (Cz - h) * _foot_inward(geometry, k, camera) if Cz > 2 * h else 0.0
        st = _strip(config, image, geometry, H_inv, k, shift)
        if isinstance(st, str):
            out.append(SideEdge(name, False, why=st))
            continue
        if st.support < rc.min_support:
            out.append(SideEdge(name, False, support=st.support,
                                why=f"no clear edge (the best line is backed by {100 * st.support:.0f}% of the side)"))
            continue
        fitted = _fit_line(config, st, st.line)
        if fitted is None:
            out.append(SideEdge(name, False, support=st.support, why="the edge's pieces do not line up"))
            continue
        ends, support = fitted
        ua, ub = ends / s - st.B - shift
        if abs(ua) > st.band[0] + 1e-6 or abs(ub) > st.band[1] + 1e-6:
            out.append(SideEdge(name, False, support=support, why="the edge lies outside the band"))
            continue
        p = _to_image(H_inv, np.array([st.start + ua * st.n, st.start + st.length * st.d + ub * st.n]))
        dirn = (p[1] - p[0]) / np.linalg.norm(p[1] - p[0])
        out.append(SideEdge(name, True, support=support, parallax_px=float(abs(shift) * st.ppm),
                            rail_height_mm=h,
                            point=(float(p[0][0]), float(p[0][1])), direction=(float(dirn[0]), float(dirn[1]))))
    return out


def refine_corners(config: VisionConfig, image: np.ndarray, corners: Sequence[Sequence[float]]) -> Refinement:
    """The corners C1..C4 of the playing surface in *image*, refined from
    the rough *corners* by finding each side's edge (the module's steps).
    A side with no clear edge keeps its given line, with a note; a corner
    is never moved by more than ``config.refine.band_px``."""
    t0 = time.perf_counter()
    given = corners_array(corners)
    rc = config.refine
    geometry = BoardGeometry(config)
    H_inv = np.linalg.inv(homography(given, geometry, scale=1.0))
    try:
        camera = camera_from_corners(given, (image.shape[1], image.shape[0]), geometry)
    except (np.linalg.LinAlgError, ValueError):
        camera = None
    sides = _find_edges(config, image, geometry, H_inv, camera)
    notes = [f"side {e.name} kept as given: {e.why}" for e in sides if not e.found]
    lines = []
    for k, e in enumerate(sides):
        if e.found:
            lines.append((np.array(e.point), np.array(e.direction)))
        else:
            _, a, b = SIDES[k]
            dv = given[b] - given[a]
            lines.append((given[a].copy(), dv / np.linalg.norm(dv)))
    out = given.copy()
    if any(e.found for e in sides):
        # corner Ci lies where its two sides meet: side k runs from SIDES[k][1] to SIDES[k][2]
        for ci in range(4):
            ks = [k for k, (_, a, b) in enumerate(SIDES) if ci in (a, b)]
            if not any(sides[k].found for k in ks):
                continue
            p = _intersect(*lines[ks[0]], *lines[ks[1]])
            if p is None or not np.all(np.isfinite(p)):
                continue
            out[ci] = p
        moved = np.linalg.norm(out - given, axis=1)
        if np.any(moved > rc.band_px):
            notes.append(f"corners kept as given: the edges found would move a corner {moved.max():.1f} px, "
                         f"more than the band of {rc.band_px:g} px")
            out = given.copy()
        else:
            try:
                corners_array(out)
            except ValueError:
                notes.append("corners kept as given: the edges found do not make a board")
                out = given.copy()
    if not any(e.found for e in sides):
        notes = ["corners kept as given: no side's edge was found clearly"] + notes
    return Refinement(out, given, sides, notes, (time.perf_counter() - t0) * 1000)

