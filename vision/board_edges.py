"""Moving each side of a proposed quadrilateral onto the playing surface's own edge.

The board finder (``board_finder``) builds its quadrilaterals from the long
straight lines it sees at a small scale, and on many photos the surface's
own edge is not among them: the frame's outer edge, or the rail's, is
stronger, and the best quadrilateral sits there, some 5% of the diagonal
out.  ``refine.refine_corners`` moves corners along the board only.  This
stage moves each side *across* itself (docs/house-conventions.md,
convention 10: a function of the picture and its numbers in ``EdgeSettings``):

1. **A strip along each side**, from ``outward`` outside it to ``inward``
   inside (shares of the quadrilateral's diagonal), is sampled from the
   picture in Lab, lightly smoothed, at ``step`` px (a working scale on
   which the diagonal is about ``work_diagonal`` px); its ends
   (``end_skip``) are left out, the corners' clutter.
2. **Two profiles across the strip**, each in ``chunks`` pieces along the
   side: how strongly the colour steps across the side at each offset (the
   norm of the Lab difference a few px either way: a step from a rail to
   points of either colour counts alike), and how much the colour changes
   *along* the side there (the points' bases alternate; a rail, a frame or
   a border does not).
3. **The side's line**: every line through the strip (its offsets at the
   two ends, leaning at most ``lean``) is scored by its step, robustly over
   the chunks (the mean of the better ``keep`` share: men, dice and shadows
   hide a part), times how much more the colour changes along the side
   just inside it than just outside (``band``); the surface begins where
   the rail ends and the points begin.  A side keeps its line where no
   line scores ``min_gain`` times its own.
4. The four lines are intersected; a result that is no convex
   quadrilateral, or moves a corner further than ``inward`` of the
   diagonal, is not taken.

>>> import numpy as np
>>> quad = np.array([[600.0, 420], [40, 420], [40, 40], [600, 40]])
>>> moved = snap_sides(np.full((480, 640, 3), 128, np.uint8), quad)
>>> bool(np.allclose(moved, quad))
True
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["EdgeSettings", "EDGE_SETTINGS", "snap_sides", "side_lines"]


@dataclass(frozen=True)
class EdgeSettings:
    """The edge snapper's numbers (shares of the quadrilateral's diagonal unless said)."""

    work_diagonal: float = 900.0   # px: the picture is looked at on a scale where the diagonal is about this
    outward: float = 0.03          # how far outside a side its line is looked for
    inward: float = 0.10           # ... and how far inside
    end_skip: float = 0.07         # share of a side's length left out at each end
    chunks: int = 16               # pieces along a side, each judged on its own
    keep: float = 0.7              # the better share of the pieces a line is scored by
    lean: float = 0.015            # a side's line leans at most this much from the given one, end to end
    step_px: float = 2.0           # work px: the colour step across a side is taken this far either way
    band: float = 0.02             # the bands either side of a line whose change along it is compared
    min_gain: float = 1.0          # a new line must score at least this times the side's own


EDGE_SETTINGS = EdgeSettings()


def _strip(lab: np.ndarray, a: np.ndarray, b: np.ndarray, inward_normal: np.ndarray,
           offsets: np.ndarray, along: np.ndarray) -> np.ndarray:
    """The picture sampled on a grid: rows at *offsets* (px along the inward normal), columns at
    *along* (shares of the way from *a* to *b*); offsets x along x 3."""
    base = a[None, :] + along[:, None] * (b - a)[None, :]                     # along x 2
    pts = base[None, :, :] + offsets[:, None, None] * inward_normal[None, None, :]
    mx = pts[..., 0].astype(np.float32)
    my = pts[..., 1].astype(np.float32)
    return cv2.remap(lab, mx, my, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _line_scores(strip: np.ndarray, step: int, band: int, chunks: int, keep: float,
                 lean: int) -> tuple[np.ndarray, np.ndarray]:
    """Every line's score: offsets x leans (the offset at the strip's start; the offset at its end is
    that plus the lean, -lean..lean); and the leans."""
    n_off, n_along = strip.shape[:2]
    # the step across: |S[d + step] - S[d - step]| per column, in chunks
    across = np.zeros((n_off, n_along), np.float32)
    across[step:n_off - step] = np.linalg.norm(strip[2 * step:] - strip[:-2 * step], axis=2)
    # the change along: |S[d, c + 1] - S[d, c]| per column
    along = np.zeros((n_off, n_along), np.float32)
    along[:, 1:] = np.abs(np.diff(strip, axis=1)).sum(axis=2)
    edges = np.linspace(0, n_along, chunks + 1).astype(int)
    E = np.stack([across[:, edges[k]:edges[k + 1]].mean(axis=1) for k in range(chunks)], axis=1)  # off x K
    A = np.stack([along[:, edges[k]:edges[k + 1]].mean(axis=1) for k in range(chunks)], axis=1)
    # the bands' means either side of each offset: cumulative sums over the offsets
    csum = np.vstack([np.zeros((1, chunks), np.float32), np.cumsum(A, axis=0)])
    d = np.arange(n_off)
    lo_in, hi_in = np.clip(d + 1, 0, n_off), np.clip(d + 1 + band, 0, n_off)
    lo_out, hi_out = np.clip(d - band, 0, n_off), np.clip(d, 0, n_off)
    inside = (csum[hi_in] - csum[lo_in]) / np.maximum(hi_in - lo_in, 1)[:, None]
    outside = (csum[hi_out] - csum[lo_out]) / np.maximum(hi_out - lo_out, 1)[:, None]
    leans = np.arange(-lean, lean + 1)
    t = (edges[:-1] + edges[1:]) / 2 / max(n_along, 1)                        # each chunk's place, 0..1
    rows = np.rint(d[:, None, None] + leans[None, :, None] * t[None, None, :]).astype(int)  # off x lean x K
    valid = (rows >= band + step) & (rows < n_off - band - step)
    rows = np.clip(rows, 0, n_off - 1)
    k = np.broadcast_to(np.arange(chunks)[None, None, :], rows.shape)
    e = E[rows, k]
    vin, vout = inside[rows, k], outside[rows, k]
    vin_all = vin.mean(axis=2)
    vout_all = vout.mean(axis=2)
    contrast = np.clip((vin_all - vout_all) / (vin_all + vout_all + 1e-6), 0.0, 1.0)
    e_sorted = np.sort(e, axis=2)[..., ::-1]
    n_keep = max(1, int(round(keep * chunks)))
    strength = e_sorted[..., :n_keep].mean(axis=2)
    score = strength * contrast
    score[~valid.all(axis=2)] = 0.0
    return score, leans


def side_lines(image: np.ndarray, quad: np.ndarray,
               settings: EdgeSettings = EDGE_SETTINGS) -> list[tuple[np.ndarray, np.ndarray, float, float]]:
    """For each side of *quad* (4 x 2, in order round, picture px), the line found for it as two points
    on it, and its score and the side's own score."""
    s = settings
    quad = np.asarray(quad, np.float64)
    diag = float(max(np.linalg.norm(quad[0] - quad[2]), np.linalg.norm(quad[1] - quad[3])))
    scale = min(1.0, s.work_diagonal / max(diag, 1.0))
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    lab: np.ndarray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2Lab).astype(np.float32), (0, 0), 0.8)
    q = quad * scale
    d = diag * scale
    centre = q.mean(axis=0)
    step = max(1, int(round(s.step_px)))
    band = max(2, int(round(s.band * d)))
    lean = max(1, int(round(s.lean * d)))
    offsets = np.arange(-round(s.outward * d), round(s.inward * d) + 1, dtype=np.float64)
    zero = int(round(s.outward * d))
    out = []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        length = float(np.linalg.norm(b - a))
        direction = (b - a) / max(length, 1e-9)
        normal = np.array([-direction[1], direction[0]])
        if normal @ (centre - a) < 0:
            normal = -normal
        along = np.linspace(s.end_skip, 1 - s.end_skip, max(16, int(length * (1 - 2 * s.end_skip))))
        strip = _strip(lab, a, b, normal, offsets, along)
        score, leans = _line_scores(strip, step, band, s.chunks, s.keep, lean)
        own = float(score[zero, len(leans) // 2])
        best = np.unravel_index(int(np.argmax(score)), score.shape)
        d0 = offsets[best[0]]
        d1 = d0 + leans[best[1]]
        # the line through the strip's two ends at those offsets, back in the picture's px
        p0 = a + s.end_skip * (b - a) + d0 * normal
        p1 = a + (1 - s.end_skip) * (b - a) + d1 * normal
        out.append((p0 / scale, p1 / scale, float(score[best]), own))
    return out


def _intersect(p0: np.ndarray, p1: np.ndarray, r0: np.ndarray, r1: np.ndarray) -> np.ndarray | None:
    d1, d2 = p1 - p0, r1 - r0
    det = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(det) < 1e-9:
        return None
    t = ((r0[0] - p0[0]) * d2[1] - (r0[1] - p0[1]) * d2[0]) / det
    point: np.ndarray = p0 + t * d1
    return point


def snap_sides(image: np.ndarray, quad: np.ndarray, settings: EdgeSettings = EDGE_SETTINGS) -> np.ndarray:
    """*quad* (4 x 2, in order round, picture px) with each side moved across itself onto the playing
    surface's edge where one is plainly there; as given where nothing is."""
    quad = np.asarray(quad, np.float64)
    try:
        found = side_lines(image, quad, settings)
    except (cv2.error, ValueError, IndexError):   # pragma: no cover -- an odd picture keeps its sides
        return quad
    lines = []
    for i, (p0, p1, score, own) in enumerate(found):
        a, b = quad[i], quad[(i + 1) % 4]
        if score > 0 and score >= settings.min_gain * own:
            lines.append((p0, p1))
        else:
            lines.append((a, b))
    corners = []
    for i in range(4):
        c = _intersect(*lines[(i - 1) % 4], *lines[i])
        if c is None:
            return quad
        corners.append(c)
    new = np.array(corners)
    diag = float(np.linalg.norm(quad[0] - quad[2]))
    d = np.roll(new, -1, axis=0) - new
    cross = d[:, 0] * np.roll(d, -1, axis=0)[:, 1] - d[:, 1] * np.roll(d, -1, axis=0)[:, 0]
    if not (np.all(cross > 0) or np.all(cross < 0)):
        return quad
    if np.linalg.norm(new - quad, axis=1).max() > 1.5 * settings.inward * diag:
        return quad
    return new
