"""Proposing the playing surface's corners C1..C4 in a photo, for a person to confirm.

Marking four corners by hand is the one chore of setting up the camera; this
stage proposes them so that a person only confirms or nudges them
(docs/house-conventions.md, convention 17: a person's corners are a hint, and
so is this proposal).  It looks two ways, in this order:

1. **The printed markers** (``markers.detect_markers``).  With all four of
   markers 0..3 in view, each stands on the frame just outside its corner
   (``MARKER_CORNERS``), so the corner is proposed at the marker's vertex
   nearest the middle of the four, and the order C1..C4 is known from the
   markers' ids.
2. **The picture alone.**  The playing surface is a large quadrilateral whose
   two long sides each carry a row of twelve points.  Straight lines are
   found on a copy of the picture scaled down to ``Settings.search_side``
   (the line segment detector; segments on one line joined), quadrilaterals
   are built from two pairs of lines, and each is scored by how much of its
   outline lies on edges that run its way (``_outline_scores``).  The best
   few are rectified and scored by what makes a board a board
   (``_rows_score``): a row of alternating points just inside each long
   side, twelve or so to the side's length, and nothing of the kind just
   outside it (the rails, the frame, the table).  Nothing that scores below
   ``Settings.min_rows`` is proposed: no wild guesses.

   Which long side is which, and so which corner is C1, no single picture
   says: a board may be seen from any side.  Where the board the photo
   should show is *known* (a board document: the start, at calibration),
   ``corner_order.corner_order_among`` reads the photo in each of the four
   orders that keep the rows along the long sides the finder found them on
   (``ROW_ORDERS``: the other four would put them across the board, and are
   not read) and the order it reads the known board in is taken, where
   that is decisive.  Otherwise the corners come in the
   finder's own order (C1..C2 the long side nearer the picture's bottom, or
   its right where the board stands upright; C1 at that side's right, or
   bottom, end) and ``order_known`` is False.

   Before that, each side of the quadrilateral found is moved across
   itself onto the surface's own edge (``board_edges.snap_sides``: the
   search's lines are often the frame's or the rail's, some 5% of the
   diagonal out), kept where the rows of points show at least
   ``snap_keep`` of their evidence from there.  A long, narrow
   quadrilateral (``half_aspect``) may be one half of a folding box taken
   the wrong way round: the quadrilateral twice as deep across either long
   side, snapped, is taken where its rows show more evidence.

Either way the corners are then passed through ``refine.refine_corners``,
which moves them along the board to the ends of the board's own rows of
points, and its corners are kept where it moved them.

>>> import numpy as np
>>> propose_corners(np.full((480, 640, 3), 128, np.uint8)) is None
True
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from .config import VisionConfig
from .corner_order import MOST_DIFFERING, ORDER_MARGIN, ORDERS, ROW_ORDERS, corner_order_among
from .markers import MARKER_IDS, detect_markers
from .board_edges import snap_sides
from .board_layout import find_layout
from .refine import refine_corners
from .sources import as_bgr

__all__ = ["Proposal", "Settings", "SETTINGS", "propose_corners"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Proposal:
    """Corners proposed for a person to confirm.

    ``corners`` are C1..C4 in the picture's pixels (C1 by point 1, C2 by 12,
    C3 by 13, C4 by 24: ``docs/vision-labels.md``); ``found_by`` is
    ``"markers"`` or ``"picture"``; ``order_known`` says whether the order
    C1..C4 is known (from the markers' ids, or from the known board) rather
    than only the quadrilateral; ``note`` says how, in words; ``millis`` is
    the time the proposal took.
    """

    corners: list[list[float]]
    found_by: str
    order_known: bool
    note: str = ""
    millis: float = 0.0


@dataclass(frozen=True)
class Settings:
    """The finder's numbers (pixels are those of the scaled-down search copy)."""

    search_side: int = 640           # the picture's long side is scaled down to this for the search
    smallest_side: int = 48          # a picture smaller than this on either side is not searched
    flattest: float = 4.0            # grey levels: a picture whose spread is below this shows nothing
    min_segment: float = 0.04        # share of the long side: shorter line segments are left out
    join_angle_deg: float = 2.0      # segments within this angle ...
    join_px: float = 3.0             # ... and this distance of a line are joined to it
    most_lines: int = 36             # the longest lines kept for building quadrilaterals
    pair_angle_deg: float = 25.0     # two sides facing each other lean at most this much to each other
    corner_angle_deg: float = 40.0   # the two pairs of sides cross at no less than this
    min_area: float = 0.08           # share of the picture: a smaller quadrilateral is not a board
    outside: float = 0.04            # share of the long side a corner may lie beyond the picture's edge
    most_aspect: float = 3.0         # a quadrilateral's long sides at most this many times its short ones
    outline_samples: int = 40        # places looked at along each side of a quadrilateral
    edge_angle_deg: float = 15.0     # an edge runs a side's way within this angle
    shortlist: int = 80              # the quadrilaterals best by outline rectified and looked at
    canvas: tuple[int, int] = (160, 136)  # the rectified surface (length x depth), 0.3 px per mm
    edge_band: float = 0.04          # share of the depth: the bands inside and outside a long side compared
    edge_weight: float = 2.0         # the edges' score counts as its power this against the outline's
    verify: int = 5                  # the best few by outline and edges whose rows of points are looked for
    rows_longer: float = 0.8         # the sides along the rows are at least this share of the others, as seen
    evidence_cap: float = 4.0        # the rows' evidence (board_layout) counts up to this
    refine_reach: float = 0.05       # share of the board's diagonal a corner may move to the ends of its rows
    half_reach: float = 1.15         # the other half is looked for up to this many times the first's depth away
    half_aspect: float = 1.35        # a quadrilateral this many times longer than deep may be half a folding box
    snap_keep: float = 0.8           # sides snapped to the surface's edge are kept where the rows show this share
                                     # of the evidence they showed before, or more


SETTINGS = Settings()


# ------------------------------------------------------------------ geometry helpers
def _clockwise(quad: np.ndarray) -> np.ndarray:
    """The four corners clockwise on the picture (y down), the one nearest its top-left first."""
    centre = quad.mean(axis=0)
    angle = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angle)]
    first = int(np.argmin(quad.sum(axis=1)))
    return np.roll(quad, -first, axis=0)


def _clockwise_all(quads: np.ndarray) -> np.ndarray:
    """:func:`_clockwise` of each of N quadrilaterals (N x 4 x 2)."""
    if len(quads) == 0:
        return quads.reshape(0, 4, 2)
    centre = quads.mean(axis=1, keepdims=True)
    angle = np.arctan2(quads[..., 1] - centre[..., 1], quads[..., 0] - centre[..., 0])
    quads = np.take_along_axis(quads, np.argsort(angle, axis=1)[..., None], axis=1)
    first = np.argmin(quads.sum(axis=2), axis=1)
    index = (first[:, None] + np.arange(4)[None]) % 4
    return np.take_along_axis(quads, index[..., None], axis=1)


def _convex(quad: np.ndarray) -> bool:
    """Whether the four corners, in order round, make a convex quadrilateral."""
    d = np.roll(quad, -1, axis=0) - quad
    cross = d[:, 0] * np.roll(d, -1, axis=0)[:, 1] - d[:, 1] * np.roll(d, -1, axis=0)[:, 0]
    return bool(np.all(cross > 0) or np.all(cross < 0))


def _area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


# ------------------------------------------------------------------ 1. markers
def _from_markers(image: np.ndarray) -> np.ndarray | None:
    """C1..C4 at the printed markers' inner vertices, or None unless all four are seen."""
    try:
        found = detect_markers(image)
    except cv2.error as exc:  # pragma: no cover -- a uint8 BGR picture always goes through
        log.warning("looking for markers failed: %s", exc)
        return None
    if not all(i in found for i in MARKER_IDS):
        return None
    quads = [np.asarray(found[i], np.float64).reshape(4, 2) for i in MARKER_IDS]
    centre = np.vstack(quads).mean(axis=0)
    corners = np.array([q[int(np.argmin(np.linalg.norm(q - centre, axis=1)))] for q in quads])
    if not _convex(corners) or _area(corners) < 16.0:
        return None
    return corners


# ------------------------------------------------------------------ 2. lines
def _lines(grey: np.ndarray, s: Settings) -> np.ndarray:
    """The picture's long straight lines: rows of (nx, ny, rho, support px), n·p = rho,
    longest first; segments on one line joined."""
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    segments = lsd.detect(grey)[0]
    if segments is None:
        return np.zeros((0, 4))
    seg = segments.reshape(-1, 4).astype(np.float64)
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    keep = length >= s.min_segment * max(grey.shape)
    seg, length = seg[keep], length[keep]
    order = np.argsort(-length)
    seg, length = seg[order], length[order]
    direction = (seg[:, 2:] - seg[:, :2]) / np.maximum(length[:, None], 1e-9)
    normal = np.c_[-direction[:, 1], direction[:, 0]]
    middle = (seg[:, :2] + seg[:, 2:]) / 2
    cos_join = np.cos(np.deg2rad(s.join_angle_deg))
    lines: list[list[Any]] = []   # [normal, rho, support, end points]
    for k in range(len(seg)):
        for line in lines:
            n = line[0]
            if abs(float(n @ normal[k])) >= cos_join and \
                    abs(float(n @ seg[k, :2]) - line[1]) <= s.join_px and \
                    abs(float(n @ seg[k, 2:]) - line[1]) <= s.join_px:
                line[2] += length[k]
                line[3].append((seg[k, :2], seg[k, 2:], length[k]))
                break
        else:
            n = normal[k] if normal[k] @ middle[k] >= 0 else -normal[k]
            lines.append([n, float(n @ middle[k]), float(length[k]), [(seg[k, :2], seg[k, 2:], length[k])]])
    out = []
    for n, rho, support, parts in lines:
        if len(parts) > 1:  # the line through all its segments' ends, each weighted by its length
            pts = np.array([p for a, b, _ in parts for p in (a, b)])
            w = np.array([l for _, _, l in parts for _ in (0, 1)])
            c = (pts * w[:, None]).sum(axis=0) / w.sum()
            cov = ((pts - c) * w[:, None]).T @ (pts - c)
            vals, vecs = np.linalg.eigh(cov)
            n2 = vecs[:, 0]
            if n2 @ n < 0:
                n2 = -n2
            n, rho = n2, float(n2 @ c)
        out.append([n[0], n[1], rho, support])
    out.sort(key=lambda r: -r[3])
    return np.array(out[:s.most_lines]).reshape(-1, 4)


def _quads(lines: np.ndarray, shape: tuple[int, int], s: Settings) -> np.ndarray:
    """Every plausible quadrilateral made of two pairs of the lines: N x 4 x 2,
    each clockwise from its top-left corner."""
    h, w = shape
    n = len(lines)
    if n < 4:
        return np.zeros((0, 4, 2))
    normals, rho = lines[:, :2], lines[:, 2]
    short = min(h, w)
    # pairs of lines facing each other, far enough apart (measured at the picture's middle)
    i, j = np.triu_indices(n, 1)
    cos = np.abs((normals[i] * normals[j]).sum(axis=1))
    offset = normals @ np.array([w / 2, h / 2]) - rho
    same = np.sign((normals[i] * normals[j]).sum(axis=1))
    gap = np.abs(offset[i] - offset[j] * same)
    keep = (cos >= np.cos(np.deg2rad(s.pair_angle_deg))) & (gap >= 0.2 * short)
    pi, pj = i[keep], j[keep]
    if len(pi) < 2:
        return np.zeros((0, 4, 2))
    a, b = np.triu_indices(len(pi), 1)
    L = np.stack([pi[a], pi[b], pj[a], pj[b]], axis=1)  # lines i, k, j, l: sides round the quadrilateral
    first, second = L[:, 0], L[:, 1]
    cross = np.abs(normals[first, 0] * normals[second, 1] - normals[first, 1] * normals[second, 0])
    distinct = (L[:, 0] != L[:, 1]) & (L[:, 0] != L[:, 3]) & (L[:, 2] != L[:, 1]) & (L[:, 2] != L[:, 3])
    L = L[(cross >= np.sin(np.deg2rad(s.corner_angle_deg))) & distinct]
    if len(L) == 0:
        return np.zeros((0, 4, 2))
    # the corners where pair one's lines (columns 0, 2) cross pair two's (columns 1, 3)
    corners = []
    for p, q in ((0, 1), (1, 2), (2, 3), (3, 0)):
        n1, n2 = normals[L[:, p]], normals[L[:, q]]
        r1, r2 = rho[L[:, p]], rho[L[:, q]]
        det = n1[:, 0] * n2[:, 1] - n1[:, 1] * n2[:, 0]
        det = np.where(np.abs(det) < 1e-9, 1e-9, det)
        corners.append(np.stack([(r1 * n2[:, 1] - r2 * n1[:, 1]) / det,
                                 (n1[:, 0] * r2 - n2[:, 0] * r1) / det], axis=1))
    quads = np.stack(corners, axis=1)                    # N x 4 x 2, in order round
    margin = s.outside * max(h, w)
    ok = ((quads[..., 0] >= -margin) & (quads[..., 0] <= w - 1 + margin) &
          (quads[..., 1] >= -margin) & (quads[..., 1] <= h - 1 + margin)).all(axis=1)
    d = np.roll(quads, -1, axis=1) - quads
    turn = d[..., 0] * np.roll(d, -1, axis=1)[..., 1] - d[..., 1] * np.roll(d, -1, axis=1)[..., 0]
    ok &= (turn > 0).all(axis=1) | (turn < 0).all(axis=1)
    x, y = quads[..., 0], quads[..., 1]
    area = 0.5 * np.abs((x * np.roll(y, -1, axis=1) - y * np.roll(x, -1, axis=1)).sum(axis=1))
    ok &= area >= s.min_area * h * w
    sides = np.linalg.norm(d, axis=2)
    one, two = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    ok &= (np.maximum(one, two) <= s.most_aspect * np.minimum(one, two)) & (sides.min(axis=1) >= 0.1 * short)
    return _clockwise_all(quads[ok])


# ------------------------------------------------------------------ 3. scoring
def _oriented_edges(grey: np.ndarray, s: Settings) -> tuple[np.ndarray, int]:
    """For each of several directions of an edge's normal, where the picture
    has an edge of that direction (dilated a pixel): bins x H x W booleans."""
    g = cv2.GaussianBlur(grey, (0, 0), 1.0).astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    strong = mag > max(float(np.percentile(mag, 75)), 8.0)
    angle = np.mod(np.arctan2(gy, gx), np.pi)  # the normal's direction, either way
    bins = int(round(180 / s.edge_angle_deg))
    width = np.pi / bins
    maps = np.zeros((bins,) + grey.shape, bool)
    kernel = np.ones((3, 3), np.uint8)
    for b in range(bins):
        diff = np.abs(np.mod(angle - b * width + np.pi / 2, np.pi) - np.pi / 2)
        here = (strong & (diff <= width)).astype(np.uint8)
        maps[b] = cv2.dilate(here, kernel).astype(bool)
    return maps, bins


def _outline_scores(quads: np.ndarray, maps: np.ndarray, bins: int, s: Settings) -> np.ndarray:
    """For each quadrilateral, the share of its outline that lies on an edge
    running its way (the mean of its four sides', times the weakest side's)."""
    if len(quads) == 0:
        return np.zeros(0)
    h, w = maps.shape[1:]
    t = (np.arange(s.outline_samples) + 0.5) / s.outline_samples
    a = quads
    b = np.roll(quads, -1, axis=1)
    pts = a[:, :, None, :] + t[None, None, :, None] * (b - a)[:, :, None, :]   # N x 4 x S x 2
    d = b - a
    normal_angle = np.mod(np.arctan2(d[..., 0], -d[..., 1]), np.pi)             # N x 4
    bin_of = np.round(normal_angle / (np.pi / bins)).astype(int) % bins
    x = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    y = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    inside = (pts[..., 0] >= 0) & (pts[..., 0] <= w - 1) & (pts[..., 1] >= 0) & (pts[..., 1] <= h - 1)
    hit = maps[np.broadcast_to(bin_of[:, :, None], x.shape), y, x] & inside
    share = hit.mean(axis=2)                                                     # N x 4
    scores: np.ndarray = share.mean(axis=1) * (0.5 + 0.5 * share.min(axis=1))
    return scores


def _variation(band: np.ndarray) -> float:
    """How much a band of the rectified surface changes colour along its length."""
    return float(np.abs(np.diff(band, axis=1)).sum(axis=2).mean())


def _rectified(lab: np.ndarray, quad: np.ndarray, long_first: bool, s: Settings) -> tuple[np.ndarray, int]:
    """The quadrilateral rectified, its long sides along the canvas' length, with
    a margin round it of ``pad`` rows; and pad."""
    W, D = s.canvas
    pad = int(round(0.08 * D))
    q = quad if long_first else np.roll(quad, -1, axis=0)
    dst = np.array([[pad, pad], [pad + W - 1, pad], [pad + W - 1, pad + D - 1], [pad, pad + D - 1]], np.float32)
    m = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
    flat = cv2.warpPerspective(lab, m, (W + 2 * pad, D + 2 * pad), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    return cv2.GaussianBlur(flat, (0, 0), 1.0), pad


def _edge_score(lab: np.ndarray, quad: np.ndarray, long_first: bool, s: Settings) -> float:
    """How much each long side looks like the edge of a row of points: the
    band just inside it changes colour along its length (the points' bases,
    alternating), the band just outside does not (a rail, a frame, the
    table).  The weaker long side's figure, 0..1."""
    W, D = s.canvas
    flat, pad = _rectified(lab, quad, long_first, s)
    k = max(3, int(round(s.edge_band * D)))
    x = slice(pad + int(0.03 * W), pad + W - int(0.03 * W))
    scores = []
    for inner, outer in ((flat[pad + 1:pad + 1 + k, x], flat[pad - 1 - k:pad - 1, x]),
                         (flat[pad + D - 1 - k:pad + D - 1, x], flat[pad + D:pad + D + k, x])):
        a, b = _variation(inner), _variation(outer)
        scores.append(max(0.0, (a - b) / (a + b + 1e-6)))
    return float(min(scores))


# ------------------------------------------------------------------ the finder's own order
def _own_order(quad: np.ndarray, long_first: bool) -> np.ndarray:
    """C1..C4 from a quadrilateral and which of its sides are the long ones:
    C1..C2 the long side nearer the bottom (or the right, the board upright),
    C1 its end nearer the right (or the bottom)."""
    q = quad if long_first else np.roll(quad, -1, axis=0)
    sides = [(q[0], q[1]), (q[3], q[2])]   # the two long sides, each left to right as rectified
    d = q[1] - q[0]
    upright = abs(d[1]) > abs(d[0])
    axis = 0 if upright else 1             # nearer the right when upright, else nearer the bottom
    near = max(sides, key=lambda side: float(side[0][axis] + side[1][axis]))
    far = sides[1] if near is sides[0] else sides[0]
    end = 1 - axis                         # C1 at the end nearer the bottom when upright, else the right
    c1, c2 = (near[0], near[1]) if near[0][end] >= near[1][end] else (near[1], near[0])
    # C3 is the far side's end next to C2
    c3, c4 = (far[0], far[1]) if np.linalg.norm(far[0] - c2) <= np.linalg.norm(far[1] - c2) else (far[1], far[0])
    return np.array([c1, c2, c3, c4], np.float64)


def _distinct(quads: Sequence[np.ndarray], quad: np.ndarray, apart: float) -> bool:
    """Whether *quad* differs from each of *quads* by more than *apart* px at some corner."""
    return all(np.abs(q - quad).max() > apart for q in quads)


def _from_picture(bgr: np.ndarray, config: VisionConfig, s: Settings) -> tuple[np.ndarray, float] | None:
    """C1..C4 in the finder's own order, and the evidence of its rows of
    points (``board_layout``), or None where no quadrilateral shows them."""
    h, w = bgr.shape[:2]
    scale = min(1.0, s.search_side / max(h, w))
    small = cv2.resize(bgr, (max(1, round(w * scale)), max(1, round(h * scale))),
                       interpolation=cv2.INTER_AREA) if scale < 1 else bgr
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    if float(grey.std()) < s.flattest:
        return None
    quads = _quads(_lines(grey, s), grey.shape[:2], s)
    if len(quads) == 0:
        return None
    maps, bins = _oriented_edges(grey, s)
    outline = _outline_scores(quads, maps, bins, s)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)
    scored = []
    for k in np.argsort(-outline)[:s.shortlist]:
        for long_first in (True, False):
            q = quads[k] if long_first else np.roll(quads[k], -1, axis=0)
            sides = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
            if sides[0] + sides[2] < s.rows_longer * (sides[1] + sides[3]):
                continue   # the rows of points run along a board's longer sides
            edges = _edge_score(lab, quads[k], long_first, s)
            scored.append((edges ** s.edge_weight * float(outline[k]), q))
    scored.sort(key=lambda item: -item[0])
    apart = 0.02 * max(grey.shape)
    tried: list[np.ndarray] = []
    best, best_value = None, 0.0
    for score, q in scored:
        if len(tried) >= s.verify:
            break
        if score <= 0 or not _distinct(tried, q, apart):
            continue
        tried.append(q)
        layout = find_layout(config, small, q.tolist())
        if not layout.found:
            continue
        value = score * min(layout.evidence, s.evidence_cap)
        if value > best_value:
            best, best_value = q, value
    if best is None:
        return None
    return _own_order(best, True) / scale, best_value


def _doubled(quad: np.ndarray) -> list[np.ndarray]:
    """The quadrilateral twice as deep, across one long side or the other (the board, where *quad*
    is one half of a folding box taken the wrong way round); C1..C4 as *quad*'s, in perspective."""
    unit = np.array([[1, 1], [0, 1], [0, 0], [1, 0]], np.float32)
    m = cv2.getPerspectiveTransform(unit, quad.astype(np.float32))
    out = []
    far = 1.0 + Settings.half_reach   # a bar between the halves: the far side is looked for from beyond it
    for box in (np.array([[1, far], [0, far], [0, 0], [1, 0]]), np.array([[1, 1], [0, 1], [0, 1 - far], [1, 1 - far]])):
        out.append(cv2.perspectiveTransform(box.astype(np.float32)[None], m)[0].astype(np.float64))
    return out


def _evidence(config: VisionConfig, small: np.ndarray, scale: float, quad: np.ndarray) -> float:
    """The rows of points' evidence (``board_layout``) with *quad* (C1..C4, picture px); 0 unless found."""
    layout = find_layout(config, small, (quad * scale).tolist())
    return float(layout.evidence) if layout.found else 0.0


def _onto_surface(bgr: np.ndarray, corners: np.ndarray, config: VisionConfig,
                  s: Settings) -> tuple[np.ndarray, list[str]]:
    """The corners found in the picture with each side moved onto the surface's own edge
    (``board_edges.snap_sides``) where the rows of points show as well from there; and, where the
    quadrilateral is long and narrow, the board twice as deep where its rows show better (the whole
    of a folding box rather than one half)."""
    h, w = bgr.shape[:2]
    scale = min(1.0, s.search_side / max(h, w))
    small = cv2.resize(bgr, (max(1, round(w * scale)), max(1, round(h * scale))),
                       interpolation=cv2.INTER_AREA) if scale < 1 else bgr
    notes = []
    before = _evidence(config, small, scale, corners)
    snapped = snap_sides(bgr, corners)
    after = _evidence(config, small, scale, snapped)
    best, best_value = corners, before
    if after >= s.snap_keep * before and after > 0:
        best, best_value = snapped, after
        notes.append("sides moved onto the surface's edge")
    sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    if sides[0] + sides[2] >= s.half_aspect * (sides[1] + sides[3]):
        margin = s.outside * max(h, w)
        for double in _doubled(corners):
            if not _convex(double) or not ((double[:, 0] >= -margin).all() and (double[:, 0] <= w - 1 + margin).all() and
                    (double[:, 1] >= -margin).all() and (double[:, 1] <= h - 1 + margin).all()):
                continue
            double = snap_sides(bgr, double)
            for turned in (np.roll(double, -1, axis=0), double):
                value = _evidence(config, small, scale, turned)
                if value > best_value:
                    best, best_value = _own_order(turned, True), value
                    notes = ["the whole of a folding box, not one half"]
    return best, notes


# ------------------------------------------------------------------ the order, from a known board
def _known_order(bgr: np.ndarray, corners: np.ndarray, known: Mapping[str, Any],
                 config: VisionConfig) -> tuple[np.ndarray, bool, str]:
    """The corners in the order the photo reads the *known* board in, and
    whether that is decisive."""
    try:
        found = corner_order_among(bgr, corners.tolist(), known, config, ROW_ORDERS)
    except (KeyError, TypeError, ValueError) as exc:
        return corners, False, f"the known board could not be used ({exc})"
    if found is None:
        return corners, False, "no point reader to tell the order with"
    if found.differing > MOST_DIFFERING:
        return corners, False, (f"the photo does not read as the known board in any order "
                                f"({found.differing} points differ)")
    if found.order != ORDERS[0] and found.margin < ORDER_MARGIN:
        return corners, False, "no order reads the known board surely better than another"
    return corners[list(found.order)], True, "order told by the known board"


# ------------------------------------------------------------------ the entry point
def propose_corners(image: np.ndarray, *, known: Mapping[str, Any] | None = None,
                    config: VisionConfig | None = None) -> Proposal | None:
    """Propose the corners C1..C4 of the board's playing surface in *image*
    (a BGR or grey uint8 picture), or None where no board is plainly there.

    First from the four printed markers where all are in view (the order
    known), else from the picture alone (the order known only where *known*,
    a board document of what the photo shows, tells it); then refined along
    the board (``refine.refine_corners``).  An odd picture (tiny, flat, all
    black) gives None; only something that is not a picture raises
    (:class:`~willughby.vision.errors.FrameError`).

    >>> import numpy as np
    >>> propose_corners(np.zeros((4, 4), np.uint8)) is None
    True
    """
    t0 = time.perf_counter()
    bgr = as_bgr(image, "image")
    config = config or VisionConfig()
    s = SETTINGS
    h, w = bgr.shape[:2]
    if min(h, w) < s.smallest_side:
        return None
    bgr = np.ascontiguousarray(bgr)
    corners = _from_markers(bgr)
    if corners is not None:
        found_by, order_known, notes = "markers", True, ["the four printed markers"]
    else:
        picked = _from_picture(bgr, config, s)
        if picked is None:
            return None
        corners, _score = picked
        found_by, order_known, notes = "picture", False, ["the playing surface's outline and its rows of points"]
        try:
            corners, more = _onto_surface(bgr, corners, config, s)
            notes.extend(more)
        except (cv2.error, ValueError, IndexError, np.linalg.LinAlgError) as exc:  # pragma: no cover
            log.info("moving the sides onto the surface's edge failed: %s", exc)
    try:
        reach = s.refine_reach * float(np.linalg.norm(corners[0] - corners[2]))
        wide = replace(config, refine=replace(config.refine, max_move_px=max(config.refine.max_move_px, reach)))
        refinement = refine_corners(wide, bgr, corners.tolist())
        if refinement.refined:
            corners = refinement.corners.astype(np.float64)
            notes.append("refined to the rows of points")
    except (cv2.error, ValueError, np.linalg.LinAlgError) as exc:
        log.info("refining the proposed corners failed: %s", exc)
    if found_by == "picture" and known is not None:
        corners, order_known, why = _known_order(bgr, corners, known, config)
        notes.append(why)
    return Proposal(corners=[[float(x), float(y)] for x, y in corners], found_by=found_by,
                    order_known=order_known, note="; ".join(notes),
                    millis=(time.perf_counter() - t0) * 1000)
