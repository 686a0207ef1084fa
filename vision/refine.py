"""Finding the playing surface's true corners from rough ones.

A player marks the board's four corners with a finger on a phone, 5-10 px
off, and every pixel of error moves the points under the men.  The board's
outer edges are a poor guide to the true corners: the rails stand above the
surface, so what the camera sees there is the rails' top edge on one side
and the foot of their inner wall on the other, and how far apart the two
lie depends on the rails' height, which no two boards share.  This stage
(docs/house-conventions.md, convention 10: functions of ``(config, image, ...)``, their
numbers in ``RefineConfig``) uses what lies *on* the surface instead:

1. **Along the board: this board's own rows of points.**  No board's
   proportions are assumed (``board_layout``): the layout found in the
   picture says where each long side's row of twelve points begins and
   ends, each side on its own (so a box whose two halves lie at slightly
   different angles, or a corner marked off along one side, is each
   where it is), and each corner is moved along its long edge to the end
   of its row (``to_rows``): to the outer point's cell, to a fraction of a
   millimetre (the rows' sides placed one by one), found again from the
   corners moved (``rounds``: corners off along the board shear the
   rectified surface, so the sides lean and their middles are found a
   little off; the shear shrinks each round).  A corner whose row
   ends further than ``max_move_px`` from it stays where it was given: the
   board has a border there between its rail and its points (a felt case's
   margin), and the layout holds it.
   Where no layout is found, the configured layout's points are used as
   before: the 48 sides of the 24 points, long straight edges on the
   surface itself, free of parallax, are sampled (``side_samples`` per
   side, from ``side_from`` to ``side_to`` of the way from base to tip); at
   each sample the strongest colour edge across the side is looked for
   (Lab, within ``search_px``, coarse to fine); a robust least-squares fit
   (Tukey weights) moves the four corners so the model's sides lie on the
   edges found (``along_points``).  The sides fix where the board lies
   *along* its length very well; *across* it they say little and are
   biased (a board's points may be a little narrower or wider than the
   layout says, and that reads as the points being shorter or longer), so
   only the move along the board is kept.
2. **Across the board** the corners are kept as given.  The rails' top
   edge and the foot of their inner wall are both strong edges there, and
   which one is the surface's depends on the rails' height; and the
   point reader's own confidence, tried as a guide with the start position
   known, moved the edges further from the truth than the finger had
   (``benchmarks/corners.py``; docs/vision-reader.md).

A picture whose points show too few clear edges keeps the corners as
given, with a note; no corner moves further than ``max_move_px``.

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

from .board_layout import BoardLayout, find_layout
from .config import VisionConfig
from .geometry import BoardGeometry, Corners, corners_array

__all__ = ["Refinement", "refine_corners", "along_points", "to_rows"]


@dataclass
class Refinement:
    """The corners after refinement, and how they were found."""

    corners: np.ndarray                       # 4x2, C1..C4, pixels
    given: np.ndarray                         # 4x2, as given
    notes: list[str] = field(default_factory=list)
    millis: float = 0.0
    along_support: float = 0.0                # share of the points' side samples the fit kept

    @property
    def refined(self) -> bool:
        """Whether any corner was moved."""
        return bool(np.any(self.corners != self.given))

    @property
    def moved_px(self) -> np.ndarray:
        """How far each corner moved (pixels)."""
        moved: np.ndarray = np.linalg.norm(self.corners - self.given, axis=1)
        return moved


# ------------------------------------------------------------------ 1. along the board
def _sides_of(geometry: BoardGeometry) -> list[tuple[np.ndarray, np.ndarray]]:
    """The 48 sides of the configured layout's points, each (base, tip) in surface mm."""
    c = geometry.config
    sides = []
    for p in range(1, 25):
        x = geometry.point_centre_x(p)
        top = geometry.is_top(p)
        base_y = 0.0 if top else geometry.depth
        tip = np.array([x, c.point_length if top else geometry.depth - c.point_length])
        for side in (-1.0, 1.0):
            sides.append((np.array([x + side * c.point_width / 2, base_y]), tip))
    return sides


def _side_model(sides: Sequence[tuple[np.ndarray, np.ndarray]], samples: int, u0: float,
                u1: float) -> tuple[np.ndarray, np.ndarray]:
    """Sample places on the points' sides (surface mm) and each side's unit normal there."""
    places, normals = [], []
    u = np.linspace(u0, u1, samples)
    for base, tip in sides:
        d = (tip - base) / np.linalg.norm(tip - base)
        places.append(base[None] + u[:, None] * (tip - base)[None])
        normals.append(np.repeat(np.array([[-d[1], d[0]]]), samples, axis=0))
    return np.concatenate(places), np.concatenate(normals)


def _surface_to_image(geometry: BoardGeometry, corners: np.ndarray) -> np.ndarray:
    return cv2.getPerspectiveTransform(geometry.surface_corners().astype(np.float32),
                                       corners.astype(np.float32)).astype(np.float64)


def _apply(M: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ M.T
    out: np.ndarray = p[:, :2] / p[:, 2:3]
    return out


def _edges_across(lab: np.ndarray, at: np.ndarray, normal: np.ndarray, reach: float,
                  step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """At each place *at* (image px), the strongest colour edge along its
    *normal* within *reach* px: its offset (sub-sample) and its strength, and
    the median strength of the whole profile (how clear the edge is)."""
    t = np.arange(-reach, reach + step / 2, step)
    xs = (at[:, 0:1] + t[None] * normal[:, 0:1]).astype(np.float32)
    ys = (at[:, 1:2] + t[None] * normal[:, 1:2]).astype(np.float32)
    profile = cv2.remap(lab, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    strength = np.linalg.norm(profile[:, 2:] - profile[:, :-2], axis=2) / (2 * step)
    rows = np.arange(len(at))
    k = np.clip(strength.argmax(axis=1), 1, strength.shape[1] - 2)
    below, here, above = strength[rows, k - 1], strength[rows, k], strength[rows, k + 1]
    curve = below - 2 * here + above
    sub = np.where(curve < -1e-6, 0.5 * (below - above) / np.where(curve < -1e-6, curve, -1.0), 0.0)
    offset = t[1:-1][k] + np.clip(sub, -0.5, 0.5) * step
    return offset, here, np.median(strength, axis=1)


def along_points(config: VisionConfig, image: np.ndarray, corners: Corners) -> tuple[np.ndarray, float, str]:
    """Step 1: the corners moved along the board so the configured layout's
    points' sides lie on the picture's edges; (corners, share of samples
    kept, why not moved or "")."""
    rc = config.refine
    given = corners_array(corners)
    geometry = BoardGeometry(config)
    lab: np.ndarray = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32), (0, 0), rc.smooth_px)
    places, normals = _side_model(_sides_of(geometry), rc.side_samples, rc.side_from, rc.side_to)
    out = given.copy()
    kept = 0.0
    for reach in rc.search_px:
        M = _surface_to_image(geometry, out)
        at = _apply(M, places)
        normal = _apply(M, places + normals) - at
        normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-9)
        offset, strength, typical = _edges_across(lab, at, normal, reach, rc.search_step_px)
        clear = np.clip((strength - typical) / np.maximum(strength, 1e-6), 0.0, 1.0)
        weight = np.minimum(strength, np.percentile(strength, 90)) * clear
        weight[strength < rc.min_edge] = 0.0
        if (weight > 0).mean() < rc.min_support:
            return given, float((weight > 0).mean()), (
                f"the points' edges are not clear enough ({100 * (weight > 0).mean():.0f}% of the samples)")
        # how each sample's place across its side moves with each corner coordinate
        J = np.empty((len(places), 8))
        for j in range(8):
            moved = out.copy()
            moved.flat[j] += 0.5
            J[:, j] = ((_apply(_surface_to_image(geometry, moved), places) - at) / 0.5 * normal).sum(axis=1)
        delta = np.zeros(8)
        w = weight.copy()
        for _ in range(rc.fit_rounds):
            residual = offset - J @ delta
            used = w > 0
            if not used.any():
                break
            spread = max(1.4826 * float(np.median(np.abs(residual[used]))), rc.min_spread_px)
            w = weight * np.clip(1 - (residual / (4.685 * spread)) ** 2, 0, None) ** 2
            A = J * w[:, None]
            delta = np.linalg.solve(J.T @ A + 1e-3 * float(w.sum()) * np.eye(8), A.T @ offset)
        out = out + delta.reshape(4, 2)
        kept = float((w > 0.05 * max(float(weight.max()), 1e-9)).mean())
    # keep only the move along the board: its long sides' directions at each corner
    along = []
    for i, (a, b) in enumerate(((1, 0), (1, 0), (2, 3), (2, 3))):
        d = given[b] - given[a]
        d /= np.linalg.norm(d)
        along.append(given[i] + float((out[i] - given[i]) @ d) * d)
    return np.array(along), kept, ""


# ------------------------------------------------------------------ 0. the board's own rows
def to_rows(config: VisionConfig, image: np.ndarray, corners: np.ndarray,
            layout: BoardLayout | None = None) -> tuple[np.ndarray, list[bool], list[str], BoardLayout]:
    """Each corner moved along its long edge to where its row of points
    begins or ends on this board (``board_layout.find_layout``: the outer
    point's cell, each long side's own); a corner whose row ends further
    than ``max_move_px`` from it is kept (the board has a border there).
    Returns the corners, which were moved, notes and the layout."""
    rc = config.refine
    layout = layout or find_layout(config, image, corners)
    if not layout.found:
        return corners.copy(), [False] * 4, [], layout
    geometry = BoardGeometry(config)
    M = _surface_to_image(geometry, corners)
    top, bottom = layout.rows
    # C1 ends the bottom row (point 1), C2 begins it (12), C3 begins the top row (13), C4 ends it (24)
    targets = np.array([[bottom.ends[1], geometry.depth], [bottom.ends[0], geometry.depth],
                        [top.ends[0], 0.0], [top.ends[1], 0.0]])
    moved = _apply(M, targets)
    out = corners.copy()
    snapped = [False] * 4
    far = []
    for i in range(4):
        d = float(np.linalg.norm(moved[i] - corners[i]))
        if d <= rc.max_move_px:
            out[i] = moved[i]
            snapped[i] = True
        else:
            far.append(f"C{i + 1} ({d:.0f} px)")
    notes = [f"corners kept where given, their rows of points ending further off: {', '.join(far)}"] if far else []
    return out, snapped, notes, layout


# ------------------------------------------------------------------ both
def refine_corners(config: VisionConfig, image: np.ndarray, corners: Corners) -> Refinement:
    """The corners C1..C4 of the playing surface in *image*, refined from
    the rough *corners* along the board: where this board's layout is found
    (``board_layout``), to the ends of its own rows of points (``to_rows``);
    else from the configured layout's points' sides (``along_points``; the
    module's docstring).
    Nothing moves a corner by more than ``config.refine.max_move_px``."""
    t0 = time.perf_counter()
    given = corners_array(corners)
    rc = config.refine
    notes: list[str] = []
    out, snapped, row_notes, layout = to_rows(config, image, given)
    # corners off along the board shear the rectified surface, which leans the points' sides and moves
    # where their middles are found; found again from the corners moved, they lean less
    for _ in range(rc.rounds - 1):
        if not layout.found or not any(snapped):
            break
        again, snapped_again, again_notes, layout_again = to_rows(config, image, out)
        if not layout_again.found:
            break
        step = float(np.abs(again - out).max())
        out = np.where(np.array(snapped_again)[:, None], again, out)
        if step < 0.25:
            break
    notes.extend(row_notes)
    support = 1.0
    if not layout.found:
        notes.extend(layout.notes)
        out, support, why = along_points(config, image, given)
        if why:
            notes.append(f"corners kept as given along the board: {why}")
    moved = np.linalg.norm(out - given, axis=1)
    if np.any(moved > rc.max_move_px):
        notes.append(f"corners kept as given: the edges found would move a corner {moved.max():.1f} px, "
                     f"more than {rc.max_move_px:g} px")
        out = given.copy()
    return Refinement(out, given, notes, (time.perf_counter() - t0) * 1000, support)
