"""Is the board covered: does something (a hand, an arm, a sleeve, a cup)
hide men, or the places where men stand?

A real board is not a painted one: hinges, brass corners, inlays, printed
numbers, the rails' shadows, glare on varnish, a photo cut at the board's
edge are the board's own and hide nothing.  So the check judges what a
covering object *does*, three ways (:func:`check_frame`):

1. **It crosses the frame from outside** (``frame_cues``, below): a stretch
   of the frame unlike the rest of its side.  The frame's look alone is
   trusted where it can be known: with the calibration photo's frame as the
   reference (only what changed since can cross it), or where the picture
   shows the frame and the table all round (``ring_seen`` of the ring the
   strips sample: a camera over the table).  In a photo cut close to the
   board, a crossing must also **go on over the board** as one thing: the
   places connected to the crossing, of its colour (``onto_delta_e``) and
   within its outline (no strong edge between), hold a disc of radius
   ``onto_mm`` on the playing surface.  The board's own frame does not: a
   hinge or a corner stops at the frame's edge, and the board beyond is
   not of its colour.
2. **It hides the points and the men** (:func:`cover_cues`): on the surface
   rectified top-down (``view_step_mm``), where men stand (``men_band_mm``
   from each long edge, a man further than the men read, not the bar), the
   places far from every strong edge (``cover_clear_mm``: a point's sides
   and a man's rim run everywhere there, and an object hides them) that are
   also unlike the board at their depth -- a colour found nowhere else
   along the board at that depth, beyond the place's own neighbourhood
   (points and men recur along the board, a hand's colour does not), or
   much smoother than the board's own places of that colour there (skin is
   smooth, the wood of its colour has grain) -- less the men read (inside
   their outlines and of the men's colours).  A disc of radius ``cover_mm``
   fitting there is wider than any man's top or point's base: refused.  A
   cup on the tips of empty points lies outside the men's places and is
   not counted.  And a round top half as wide again as a man or more
   (``round_covers``: an upright dice cup seen from above) over the men's
   places is refused too: a cup the men's own colour is otherwise taken
   for men read, and no man's top is that wide.  This is judged in a photo
   cut close to the board, and, against the calibration photo, on what has changed since
   (``reference_delta_e``); a camera over the table without one judges by
   the frame (its shadows, not weighed against a photo never taken, would
   otherwise be taken for something lying there).
3. **It comes and goes**: with the calibration photo (:func:`rails_picture`
   keeps its frame and its surface), a change on the frame's rows and
   beyond them is an arm whatever the cues say, an unchanged frame is not
   crossed, and only what changed on the surface can cover the men.

What follows is the frame check itself (1).

An arm reaches the board from outside it, so it crosses the board's frame.
Seen from above, each side of the frame has one cross-section that repeats
along its whole length: the playing surface's edge, the frame's top, its
outer edge (and outer wall, when the camera looks from that side), the
board's shadow, the table.  Sampled on the plane of the frame's top
(``frame_height`` above the surface) in *columns* straight out from the
playing surface, every column of a side looks like its neighbours; a stretch
of columns that does not is something lying across the frame.

Each column is compared with its side's *usual look*: per row, a slow trend
along the side (a parabola through the medians of ten stretches of it, the
three most unusual stretches left out, so an arm does not teach it), and a
lightness change shared by the whole column that varies slowly along the side
(a lamp's fall-off, vignetting) is taken for light.  Two cues then judge the
column:

* **colour**: the frame's own rows *and* the rows beyond them (wall, shadow,
  table) are both far from the usual look, each measured against how much
  that row varies along the side anyway.  Light that varies over the table
  alone is not an arm: an arm lies on the frame too; and a column whose
  edges are all where they should be is lit differently (a lamp's spot
  burning the table and frame white), not covered.
* **edges**: the edges across the column (surface to frame, frame to wall,
  wall to table, the board's shadow) are not where the usual look has them.
  A hand or forearm is one smooth blob that hides them whatever its colour,
  so this catches skin against wood of the same colour; it is only asked
  where the side has edges that stand out of its texture.

Either cue alone, or both half-way, marks the column crossed.  An arm may
cross a side aslant, so columns are also summed along slanted lines.  A run
of crossed columns ``frame_run_mm`` long or longer is a crossing (refused as
1 above says).

Men are not mistaken for a hand: the outlines of the men the reader found
(``men``) are left out, the edge cue does not use the surface's own edge
(where men lie), and a man overhanging the frame covers only the frame's
inner rows, never the table beyond.  The corners (``frame_corner_skip``),
where the printed markers go, are judged without the surface's rows, and
there black ink and white paper side by side are taken for a marker.  The
strips run on past each corner over the frame's corner block, so an arm
crossing at a corner is seen by both sides.

Of the configuration, ``frame_height``, ``frame_band_outer`` (the frame is at
least this wide), ``frame_corner_skip``, ``frame_run_mm`` and ``point_length``
are used.  The
method's own numbers are :class:`~willughby.vision.config.OcclusionConfig`,
``config.occlusion`` (the ``[vision.occlusion]`` table of a TOML file).  What
the check cannot see it does not refuse: a frame
wholly outside the picture, or an arm that matches frame, table and their
edges alike and lies on the frame alone; nor, over the men's places,
something as small as a man or of a man's colour where the reader read one.

>>> import numpy as np
>>> from willughby.vision.config import VisionConfig
>>> image = np.full((720, 1280, 3), 120, np.uint8)
>>> corners = [[1000, 620], [280, 620], [280, 100], [1000, 100]]
>>> check_frame(VisionConfig(), image, corners).occluded
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from .camera import Camera, camera_from_corners
from .config import OcclusionConfig, VisionConfig
from .errors import FrameError
from .geometry import BoardGeometry, corners_array

__all__ = ["CoverCues", "FrameCheck", "check_frame", "covered_why", "cover_cues", "frame_cues", "rails_picture",
           "round_covers", "SideCues"]

_SIDES = ("top", "bottom", "left", "right")
_GAP = 36                  # empty columns between the sides in the panel (> the widest slant's shift)


@dataclass(frozen=True)
class FrameCheck:
    """The result: whether the board is covered (refused), on which side
    (of the frame crossed, or the long side nearer what covers the men's
    places), how long the longest crossed stretch is (mm; a crossing from
    ``frame_run_mm``) or how far along the side the cover spans, the
    strongest colour evidence of that side (its largest colour ratio, 1.0
    being the colour cue's bar), why it was refused, and the largest discs
    (radius, mm) found in what covers the men's places and in what goes on
    from a crossing over the board."""

    occluded: bool
    side: str | None
    run_mm: float
    contrast: float
    reason: str | None = None        # "across the frame", "across the frame onto the board",
                                     # "over the men's places", "a round top wider than a man",
                                     # or None (not refused)
    cover_mm: float = 0.0            # the largest disc (radius, mm) in what covers the men's places
    onto_mm: float = 0.0             # ... in what crosses the frame and goes on over the points
    #: the playing surface as this check saw it (8-bit BGR, top-down at ``view_step_mm``), where it looked:
    #: the *recent* of the next frame's check, once this one settled (see :func:`check_frame`)
    surface: np.ndarray | None = field(default=None, repr=False, compare=False)


_ONES3 = np.ones((1, 3), np.float32)          # sums a 3-channel image's channels (cv2.transform)

def covered_why(check: FrameCheck) -> str:
    """Why a frame was refused, in a player's words: what was seen, where,
    and how far it reaches (the reading's note, and the turn's)."""
    where = f"{check.side} side" if check.side else "the board"
    if check.reason == "over the men's places":
        return f"something covers the men's places ({where}, {check.run_mm:.0f} mm along it)"
    if check.reason == "a round top wider than a man":
        return (f"something round and wider than a man stands over the men's places ({where}, "
                f"{check.run_mm:.0f} mm across): a dice cup?")
    if check.reason == "across the frame onto the board":
        return f"something lies across the frame and over the points ({where}, {check.run_mm:.0f} mm)"
    return f"something lies across the frame ({where}, {check.run_mm:.0f} mm)"


@dataclass
class SideCues:
    """One side's columns as judged (for evaluation and pictures): positions
    *t* (mm along the side), the colour ratio (>= 1: foreign), the edge
    correlation, whether the edge cue applies, the verdict per column, the
    slant used and the longest run (columns)."""

    name: str
    t: np.ndarray
    colour: np.ndarray
    corr: np.ndarray
    reliable: np.ndarray
    crossed: np.ndarray
    tan: float
    run: int
    z: np.ndarray
    judged: np.ndarray
    bgr: np.ndarray
    zin: np.ndarray | None = None       # mean z of the frame's rows, per column
    zout: np.ndarray | None = None      # ... of the rows beyond
    snr: np.ndarray | None = None       # usual edge energy against texture
    edge_share: np.ndarray | None = None  # usual edge energy kept, against the side's


def _as_bgr(image) -> np.ndarray:
    """The frame as an 8-bit BGR image (a grey one is widened)."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or not (
            image.ndim == 2 or (image.ndim == 3 and image.shape[2] in (1, 3))) or min(image.shape[:2]) < 8:
        what = f"{image.dtype} array of shape {image.shape}" if isinstance(image, np.ndarray) else type(image).__name__
        raise FrameError(f"a frame must be an 8-bit BGR or grey image, not a {what}")
    if image.ndim == 2 or image.shape[2] == 1:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return image


def _lift(config: VisionConfig, camera: Camera | None) -> np.ndarray:
    """Surface mm (as the camera sees them) to the frame-top plane's mm: the
    ray through a point of the frame's top meets the surface further from the
    camera's foot, by the factor ``camera.magnification(frame_height)``."""
    S = np.eye(3)
    if camera is not None and camera.height > config.frame_height * 2:
        k = camera.magnification(config.frame_height)
        fx, fy = camera.foot
        S = np.array([[1 / k, 0, fx * (1 - 1 / k)], [0, 1 / k, fy * (1 - 1 / k)], [0, 0, 1]])
    return S


def _side_affine(name: str, W: float, D: float) -> np.ndarray:
    """(t along the side, s outward from the surface, 1) -> frame-top (x, y, 1)."""
    return {
        "top": np.array([[1.0, 0, 0], [0, -1.0, 0], [0, 0, 1]]),
        "bottom": np.array([[1.0, 0, 0], [0, 1.0, D], [0, 0, 1]]),
        "left": np.array([[0, -1.0, 0], [1.0, 0, 0], [0, 0, 1]]),
        "right": np.array([[0, 1.0, W], [1.0, 0, 0], [0, 0, 1]]),
    }[name]


@dataclass
class _Panel:
    """The four sides' strips side by side (gaps between): rows are *s*
    (mm outward), columns positions *t* along their side."""

    s: np.ndarray            # rows
    t: np.ndarray            # per column (NaN in gaps)
    side: np.ndarray         # per column: 0..3, -1 in gaps
    length: np.ndarray       # per side: its length (mm)
    lab: np.ndarray          # 3, rows, cols (Lab, L weighted)
    known: np.ndarray        # in the picture and not under a man
    bgr: np.ndarray


def _panel(config: VisionConfig, image: np.ndarray, corners, men, camera) -> _Panel:
    geometry = BoardGeometry(config)
    W, D = geometry.width, geometry.depth
    src = corners_array(corners).astype(np.float32)
    Hs = cv2.getPerspectiveTransform(src, geometry.surface_corners().astype(np.float32)).astype(np.float64)
    lift = _lift(config, camera)
    to_image = np.linalg.inv(lift @ Hs)
    h, w = image.shape[:2]
    oc = config.occlusion
    step, ring_in, corner_ext = oc.step_mm, oc.ring_in_mm, oc.corner_ext_mm
    ns = int(round((oc.ring_out_mm - ring_in) / step))
    s = (ring_in + (np.arange(ns) + 0.5) * step).astype(np.float32)
    ext = int(round(corner_ext / step))
    xs, ys, ts, sides, offsets = [], [], [], [], []
    col = 0
    for i, name in enumerate(_SIDES):
        L = W if name in ("top", "bottom") else D
        n = int(round(L / step)) + 2 * ext
        t = ((np.arange(n) - ext + 0.5) * step).astype(np.float32)
        M = (to_image @ _side_affine(name, W, D)).astype(np.float32)
        Z = M[2, 0] * t[None, :] + M[2, 1] * s[:, None] + M[2, 2]
        bad = Z <= 1e-6
        Z[bad] = 1.0
        X = (M[0, 0] * t[None, :] + M[0, 1] * s[:, None] + M[0, 2]) / Z
        Y = (M[1, 0] * t[None, :] + M[1, 1] * s[:, None] + M[1, 2]) / Z
        X[bad] = -100
        xs += [X, np.full((ns, _GAP), -100, np.float32)]
        ys += [Y, np.full((ns, _GAP), -100, np.float32)]
        ts += [t, np.full(_GAP, np.nan, np.float32)]
        sides += [np.full(n, i), np.full(_GAP, -1)]
        offsets.append(col)
        col += n + _GAP
    mx = np.concatenate(xs, 1)
    my = np.concatenate(ys, 1)
    known = (mx >= 1) & (my >= 1) & (mx <= w - 2) & (my <= h - 2)
    bgr = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lab = cv2.cvtColor(bgr.astype(np.float32) * (1 / 255.0), cv2.COLOR_BGR2Lab)
    lab = np.ascontiguousarray(lab.transpose(2, 0, 1))
    lab[0] *= oc.l_weight
    polys = []
    if men:
        polys = [p for p in (np.asarray(m, np.float64).reshape(-1, 2) for m in men) if len(p) >= 3]
    if polys:
        hidden = np.zeros(known.shape, np.uint8)
        pts = []
        sizes = np.array([len(p) for p in polys])
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        allp = np.vstack([np.vstack(polys).T, np.ones(int(sizes.sum()))])
        for i, name in enumerate(_SIDES):
            q = (np.linalg.inv(_side_affine(name, W, D)) @ lift) @ allp
            c = (q[0] / q[2] + corner_ext) / step - 0.5 + offsets[i]
            r = (q[1] / q[2] - ring_in) / step - 0.5
            cr = np.round(np.clip(np.column_stack([c, r]), -1e5, 1e5) * 4).astype(np.int32)
            # the outlines that reach the side's rows (most lie on the surface, inside them all)
            near = (np.minimum.reduceat(r, starts) < ns) & (np.maximum.reduceat(r, starts) > 0)
            pts.extend(cr[starts[j]:starts[j] + sizes[j]] for j in np.flatnonzero(near))
        if pts:
            cv2.fillPoly(hidden, pts, 1, shift=2)
            known &= cv2.dilate(hidden, np.ones((3, 3), np.uint8)) == 0
    length = np.array([W, W, D, D], np.float32)
    return _Panel(s, np.concatenate(ts), np.concatenate(sides), length, lab, known, bgr)


def _masked_median(X: np.ndarray, ok: np.ndarray, min_count: int = 3) -> np.ndarray:
    """Median along the last axis of X over the entries where *ok* (which
    broadcasts to X); NaN where fewer than *min_count* entries are ok."""
    Y = np.where(ok, X, np.float32(np.nan)).astype(np.float32, copy=False)
    Y.sort(axis=-1)                                   # NaN sorts last
    n = np.broadcast_to(ok, X.shape).sum(-1)
    lo = np.clip((n - 1) // 2, 0, X.shape[-1] - 1)
    hi = np.clip(n // 2, 0, X.shape[-1] - 1)
    med = 0.5 * (np.take_along_axis(Y, lo[..., None], -1)[..., 0] + np.take_along_axis(Y, hi[..., None], -1)[..., 0])
    med[n < min_count] = np.nan
    return med


def _by_side(P: _Panel, sel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column indices (4, n) of the selected columns of each side, padded,
    and their validity."""
    groups = [np.nonzero(sel & (P.side == i))[0] for i in range(4)]
    n = max(1, max(len(g) for g in groups))
    idx = np.zeros((4, n), np.int64)
    ok = np.zeros((4, n), bool)
    for i, g in enumerate(groups):
        idx[i, :len(g)] = g
        ok[i, :len(g)] = True
    return idx, ok


def _row_medians(X: np.ndarray, mask: np.ndarray, idx: np.ndarray, ok: np.ndarray, min_count: int = 10) -> np.ndarray:
    """Per row and side, the median of X (rows, cols) over the side's columns
    *idx* where *mask*: (rows, 4)."""
    return _masked_median(X[:, idx], mask[:, idx] & ok[None], min_count)


def _usual_look(P: _Panel, judged: np.ndarray, oc: OcclusionConfig) -> np.ndarray:
    """Each side's usual look per row as a parabola along the side, fitted to
    the medians of ``knots`` stretches, the ``knots_dropped`` most unusual left out;
    held constant past the first and last stretch's middle."""
    knots, dropped = oc.knots, oc.knots_dropped
    per = []
    for i in range(4):
        inside = np.nonzero((P.side == i) & (P.t > 0) & (P.t < P.length[i]))[0]
        k = len(inside) // knots
        start = (len(inside) - k * knots) // 2
        per.append(inside[start:start + k * knots].reshape(knots, k))
    width = max(p.shape[1] for p in per)
    idx = np.zeros((4, knots, width), np.int64)
    ok = np.zeros((4, knots, width), bool)
    for i, p in enumerate(per):
        idx[i, :, :p.shape[1]] = p
        ok[i, :, :p.shape[1]] = True
    K = _masked_median(P.lab[:, :, idx], (judged[:, idx] & ok[None])[None])   # ch, rows, 4, K
    good = np.isfinite(K).all(0)                                              # rows, 4, K
    Kz = np.where(good[None], K, 0)
    level = _masked_median(K, good[None], 1)[..., None]
    level = np.where(np.isfinite(level), level, 0)
    err = np.where(good, ((Kz - level) ** 2).sum(0), np.inf)
    rank = np.argsort(np.argsort(err, axis=2), axis=2)
    wgt = (good & (rank < knots - dropped)).astype(np.float32)
    x = np.linspace(-1, 1, knots, dtype=np.float32)
    V = np.stack([np.ones_like(x), x, x * x], 1)                              # K, 3
    G = np.einsum("rik,ka,kb->riab", wgt, V, V) + np.eye(3, dtype=np.float32) * 1e-4
    rhs = np.einsum("rik,ka,crik->riac", wgt, V, Kz, optimize=True)
    coef = np.linalg.solve(G, rhs).astype(np.float32)                        # rows, 4, 3, ch
    usual = np.zeros_like(P.lab)
    for i, p in enumerate(per):
        cols = np.nonzero(P.side == i)[0]
        first, last = P.t[p[0]].mean(), P.t[p[-1]].mean()
        tc = np.clip((P.t[cols] - first) / max(last - first, 1e-6) * 2 - 1, -1, 1)
        Vt = np.stack([np.ones_like(tc), tc, tc * tc], 1)
        usual[:, :, cols] = coef[:, i].transpose(2, 0, 1) @ Vt.T
    return usual


def _marker_like(lab: np.ndarray, oc: OcclusionConfig) -> np.ndarray:
    """Samples that could be a printed marker: black ink and white paper side
    by side (a dark table alone is not a marker)."""
    L = lab[0] / oc.l_weight
    grey = (lab[1] ** 2 + lab[2] ** 2) < oc.marker_chroma ** 2
    black = (grey & (L < oc.marker_black)).astype(np.uint8)
    white = (grey & (L > oc.marker_white)).astype(np.uint8)
    if not black.any() or not white.any():
        return np.zeros(L.shape, bool)
    k = 2 * int(round(oc.marker_near_mm / oc.step_mm)) + 1
    near = np.ones((k, k), np.uint8)
    both = cv2.dilate(black, near) & cv2.dilate(white, near) & (black | white)
    k = 2 * int(round(oc.marker_pad_mm / oc.step_mm)) + 1
    return cv2.dilate(both, np.ones((k, k), np.uint8)) > 0


def _longest_run(flags: np.ndarray) -> tuple[int, int]:
    """Length and start of the longest run of True."""
    if not flags.any():
        return 0, 0
    f = np.concatenate([[0], flags.astype(np.int8), [0]])
    d = np.diff(f)
    starts, ends = np.nonzero(d == 1)[0], np.nonzero(d == -1)[0]
    k = int(np.argmax(ends - starts))
    return int(ends[k] - starts[k]), int(starts[k])


def rails_picture(config: VisionConfig, image: np.ndarray, corners, camera: Camera | None = None) -> np.ndarray:
    """The board as the check samples it, from a photo known to be clear (the
    calibration photo), kept as the *reference* of :func:`check_frame`: what
    this board's frame, its shadow, the table and its playing surface look
    like under this camera.  8-bit BGR: the frame round the surface in its
    first rows (rows outward from the surface, columns along the four
    sides), then the playing surface top-down (``view_step_mm`` per pixel)
    in the rows below, from the left."""
    image = _as_bgr(image)
    if camera is None:
        camera = camera_from_corners(corners, (image.shape[1], image.shape[0]), BoardGeometry(config))
    rails = _panel(config, image, corners, None, camera).bgr
    view = _view(config, image, corners)
    surface = view.surface(view.bgr)
    out = np.zeros((rails.shape[0] + surface.shape[0], max(rails.shape[1], surface.shape[1]), 3), np.uint8)
    out[:rails.shape[0], :rails.shape[1]] = rails
    out[rails.shape[0]:, :surface.shape[1]] = surface
    return out


def _split_reference(config: VisionConfig, reference: np.ndarray | None) -> tuple[np.ndarray | None,
                                                                                  np.ndarray | None]:
    """The frame's and the surface's parts of a reference (a rails picture
    of this configuration's shape; one saved before the surface was kept
    has the frame's part only); (None, None) for any other shape."""
    if reference is None or reference.ndim != 3:
        return None, None
    geometry = BoardGeometry(config)
    oc = config.occlusion
    ns = int(round((oc.ring_out_mm - oc.ring_in_mm) / oc.step_mm))
    ext = int(round(oc.corner_ext_mm / oc.step_mm))
    cols = sum(int(round(L / oc.step_mm)) + 2 * ext + _GAP
               for L in (geometry.width, geometry.width, geometry.depth, geometry.depth))
    rows = int(round(geometry.depth / oc.view_step_mm))
    scols = int(round(geometry.width / oc.view_step_mm))
    if reference.shape == (ns, cols, 3):
        return reference, None
    if reference.shape == (ns + rows, max(cols, scols), 3):
        return reference[:ns, :cols], reference[ns:, :scols]
    return None, None


def _changes(P: _Panel, judged: np.ndarray, reference: np.ndarray, oc: OcclusionConfig,
             frame_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Against *reference* (``rails_picture`` of a clear photo), per column:
    whether it looks as it did (at most ``reference_share`` of its rows
    changed by ``reference_delta_e`` or more, Lab averaged as the colour cue
    is; widened by the farthest slant's shift, so an arm crossing aslant is
    not taken for unchanged), and whether it is covered (at least
    ``reference_cover`` of the frame's rows *and* of the rows beyond them
    changed: something lies on the frame and reaches out over the table)."""
    ref = cv2.cvtColor(reference.astype(np.float32) * (1 / 255.0), cv2.COLOR_BGR2Lab).transpose(2, 0, 1)
    ref = np.ascontiguousarray(ref)
    ref[0] *= oc.l_weight
    blur = tuple(oc.blur)
    weight = judged.astype(np.float32)
    wsum = np.maximum(cv2.blur(weight, blur), 1e-3)
    d2 = np.zeros(judged.shape, np.float32)
    for c in range(3):
        b = cv2.blur((P.lab[c] - ref[c]) * weight, blur) / wsum
        d2 += b * b
    changed = (np.sqrt(d2) >= oc.reference_delta_e) & judged
    share = changed.sum(0) / np.maximum(judged.sum(0), 1)
    moved = (share > oc.reference_share).astype(np.uint8).reshape(1, -1)
    reach = int(np.ceil(max(abs(t) for t in oc.shears) * judged.shape[0] / 2)) if oc.shears else 0
    if reach:
        moved = cv2.dilate(moved, np.ones((1, 2 * reach + 1), np.uint8))
    inner, outer = judged & frame_rows, judged & ~frame_rows
    covered = ((changed & inner).sum(0) >= oc.reference_cover * np.maximum(inner.sum(0), 1)) & (inner.sum(0) > 0) \
        & ((changed & outer).sum(0) >= oc.reference_cover * np.maximum(outer.sum(0), 1)) & (outer.sum(0) > 0)
    return moved.ravel() == 0, covered


def _quiet_side(name: str, t: np.ndarray, judged: np.ndarray, bgr: np.ndarray) -> SideCues:
    """A side with no column crossed and no cue measured."""
    n = len(t)
    zeros = np.zeros(n, np.float32)
    return SideCues(name, t, zeros, np.ones(n, np.float32), np.zeros(n, bool), np.zeros(n, bool), 0.0, 0,
                    np.zeros(judged.shape, np.float32), judged, bgr)


def frame_cues(config: VisionConfig, image: np.ndarray, corners,
               men: list[np.ndarray] | None = None, camera: Camera | None = None,
               all_slants: bool = False, reference: np.ndarray | None = None) -> list[SideCues]:
    """The cues of every side, at the slant that gives its longest run (or
    at every slant, *all_slants*), for :func:`check_frame` and for looking at.
    With *reference* (:func:`rails_picture` of a clear photo of this board
    from this camera), a column that looks as it did there is not crossed,
    whatever the cues say of it."""
    geometry = BoardGeometry(config)
    oc = config.occlusion
    image = _as_bgr(image)
    if camera is None:
        camera = camera_from_corners(corners, (image.shape[1], image.shape[0]), geometry)
    P = _panel(config, image, corners, men, camera)
    s, t, side = P.s, P.t, P.side
    in_side = side >= 0
    sidx = np.maximum(side, 0)
    L = P.length[sidx]
    with np.errstate(invalid="ignore"):
        corner = in_side & ((t < config.frame_corner_skip) | (t > L - config.frame_corner_skip))
        beyond = in_side & ((t < 0) | (t > L))
        left, right = geometry.bar_x
        bar = (side <= 1) & in_side & (t > left - oc.bar_pad_mm) & (t < right + oc.bar_pad_mm)
    mid = in_side & ~corner
    frame_rows_mm = config.frame_band_outer + oc.frame_rows_extra_mm
    judged = P.known.copy()
    judged[np.ix_(s < oc.bar_inner_mm, bar)] = False
    judged[np.ix_(s < 0, corner)] = False
    judged[np.ix_(s < oc.corner_ext_inner_mm, beyond)] = False
    marker = _marker_like(P.lab, oc) & corner[None, :]
    # a column a marker takes much of is the marker's, not judged at all
    marked = marker.sum(0) > oc.marker_column_share * np.maximum(judged.sum(0), 1)
    judged &= ~marker
    judged[:, marked] = False
    frame_rows = (s <= frame_rows_mm)[:, None]
    unchanged = covered = np.zeros(judged.shape[1], bool)
    if reference is not None and reference.shape == P.bgr.shape:
        unchanged, covered = _changes(P, judged, reference, oc, frame_rows)
        if not all_slants and unchanged[in_side].all():
            # the whole frame looks as it did in the clear photo: nothing can be crossing it (the
            # usual case once calibrated, and a third of the check's time)
            spans = [np.flatnonzero(side == i) for i in range(4)]        # each side's columns lie together
            spans = [slice(c[0], c[-1] + 1) if c.size else slice(0, 0) for c in spans]
            return [_quiet_side(name, t[cols], judged[:, cols], P.bgr[:, cols])
                    for name, cols in zip(_SIDES, spans)]
    usual = _usual_look(P, judged, oc)
    # ---- colour: how far each sample is from the usual look
    delta = (P.lab - usual) * judged[None]
    # a column's lightness change, where it varies slowly along the side, is light
    gain = _masked_median(delta[0].T, judged.T, 4)
    half = int(oc.gain_window_mm / oc.step_mm / 2)
    for i in range(4):
        cols = np.nonzero(side == i)[0]
        gi = gain[cols]
        fin = np.isfinite(gi)
        if not fin.any():
            gain[cols] = 0
            continue
        gi = np.where(fin, gi, np.median(gi[fin]))
        q = np.clip(np.round(gi * 2 + 128), 0, 255).astype(np.uint8).reshape(1, -1)
        gain[cols] = (cv2.medianBlur(np.repeat(q, 3, 0), min(2 * half + 1, 255))[1].astype(np.float32) - 128) / 2
    delta[0] -= np.where(np.isfinite(gain), gain, 0)[None, :] * judged
    blur = tuple(oc.blur)
    wsum = np.maximum(cv2.blur(judged.astype(np.float32), blur), 1e-3)
    d2 = np.zeros(judged.shape, np.float32)
    for c in range(3):
        b = cv2.blur(delta[c], blur)
        d2 += b * b
    d = np.sqrt(d2) / wsum
    idx_mid, ok_mid = _by_side(P, mid)
    spread = _row_medians(d, judged, idx_mid, ok_mid)          # rows, 4
    for i in range(4):
        col = spread[:, i]
        col[~np.isfinite(col)] = np.nanmax(col) if np.isfinite(col).any() else 1e3
    spread = np.maximum(1.4826 * spread, oc.spread_floor)     # median absolute deviation -> spread
    z = d / spread[:, sidx]
    zc = np.minimum(z, oc.z_cap)
    j_in, j_out = judged & frame_rows, judged & ~frame_rows
    # ---- edges across the side: gradients along s against the usual look's
    g = P.lab[:, 2:] - P.lab[:, :-2]
    gE = usual[:, 2:] - usual[:, :-2]
    kg = judged[2:] & judged[:-2] & (s[1:-1] >= oc.edge_from_mm)[:, None]
    rows, ncols = judged.shape
    prod = np.zeros((rows, ncols), np.float32)
    eng = np.zeros((rows, ncols), np.float32)
    ggs = np.zeros((rows, ncols), np.float32)
    resid = np.zeros((rows, ncols), np.float32)
    prod[1:-1] = (g[0] * gE[0] + g[1] * gE[1] + g[2] * gE[2]) * kg
    eng[1:-1] = (gE[0] * gE[0] + gE[1] * gE[1] + gE[2] * gE[2]) * kg
    ggs[1:-1] = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * kg
    r = g - gE
    resid[1:-1] = r[0] * r[0] + r[1] * r[1] + r[2] * r[2]
    kgp = np.zeros_like(judged)
    kgp[1:-1] = kg
    noise = _row_medians(resid, kgp, idx_mid, ok_mid)          # rows, 4
    noise = np.where(np.isfinite(noise), noise, 0)
    noise_px = noise[:, sidx] * kgp
    idx_ref, ok_ref = _by_side(P, mid & ~bar)
    idx_bar, ok_bar = _by_side(P, mid & bar)
    colour_maps = cv2.merge([j_in.astype(np.float32), zc * j_in, j_out.astype(np.float32), zc * j_out])
    edge_maps = cv2.merge([prod, eng, ggs, noise_px])
    need = np.where(corner, oc.min_seen_corner_mm, oc.min_seen_mm) / oc.step_mm
    pivot = (frame_rows_mm / 2 - s[0]) / oc.step_mm
    results: list[SideCues] = []
    best: dict[int, SideCues] = {}
    for tan in oc.shears:
        # sums along slanted columns: the sample at (c + tan (r - pivot), r)
        A = np.array([[1.0, tan, -tan * pivot], [0.0, 1.0, 0.0]])
        flags = cv2.WARP_INVERSE_MAP | cv2.INTER_NEAREST
        if tan:
            cs = cv2.warpAffine(colour_maps, A, (ncols, rows), flags=flags).sum(0)
            es = cv2.warpAffine(edge_maps, A, (ncols, rows), flags=flags).sum(0)
        else:
            cs, es = colour_maps.sum(0), edge_maps.sum(0)
        seen_in, seen_out = cs[:, 0], cs[:, 2]
        zin = cs[:, 1] / np.maximum(seen_in, 1)
        zout = cs[:, 3] / np.maximum(seen_out, 1)
        seen = seen_in + seen_out
        ok = (seen >= need) & in_side
        colour = np.where(ok & (seen_in > 0) & (seen_out > 0), np.minimum(zin / oc.z_frame, zout / oc.z_beyond), 0.0)
        num, ee, gg, nz = es[:, 0], es[:, 1], es[:, 2], es[:, 3]
        corr = num / np.sqrt(ee * gg + 1e-6)
        corr = cv2.blur(corr.reshape(1, -1).astype(np.float32), (oc.corr_blur, 1)).ravel()
        snr = ee / np.maximum(nz, 1e-6)
        # the column must keep most of its side's usual edge energy (at the
        # bar, where the surface's edge is missing, the bar's columns are the reference)
        ref_side = _masked_median(ee[idx_ref], ok_ref, 1)
        ref_bar = _masked_median(ee[idx_bar], ok_bar, 1)
        ref = np.where(bar, ref_bar[sidx], ref_side[sidx])
        ref = np.where(np.isfinite(ref), ref, np.inf)
        reliable = ok & (snr >= oc.edge_snr) & (ee >= oc.edge_share * ref)
        edge = np.where(reliable, corr, 1.0)
        # colour with the usual edges all in place is light (a lamp, a highlight), not an arm
        foreign = (colour >= 1.0) & ~(reliable & (corr >= oc.colour_veto_corr))
        crossed = ok & (foreign | (edge < oc.corr_crossed) | ((colour >= oc.mix_colour) & (edge < oc.mix_corr)))
        crossed = (crossed & ~unchanged) | (ok & covered)
        for i, name in enumerate(_SIDES):
            cols = np.nonzero(side == i)[0]
            run, _ = _longest_run(crossed[cols])
            if all_slants or i not in best or run > best[i].run:
                cue = SideCues(name, t[cols], colour[cols], corr[cols], reliable[cols], crossed[cols], tan, run,
                               z[:, cols], judged[:, cols], P.bgr[:, cols], zin[cols] * ok[cols],
                               zout[cols] * ok[cols], snr[cols], (ee / np.maximum(ref, 1e-6))[cols])
                if all_slants:
                    results.append(cue)
                if i not in best or run > best[i].run:
                    best[i] = cue
    return results if all_slants else [best[i] for i in range(4)]


# ------------------------------------------------------------------ what covers the points
@dataclass
class _View:
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


def _edges(config: VisionConfig, view: _View) -> np.ndarray:
    """The view's strong edges: a colour gradient of ``edge_strong`` of the
    points' ``edge_pct`` percentile or more (the points' sides, the men's
    rims, an arm's outline; not the wood's grain), and everything outside
    the picture."""
    if view.edge is None:
        oc = config.occlusion
        g = view.geometry
        grad = np.zeros(view.known.shape, np.float32)
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


def _view(config: VisionConfig, image: np.ndarray, corners) -> _View:
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
    known = np.zeros((size[1], size[0]), np.uint8)
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
    return _View(lab, known, step, margin, geometry, bgr)


@dataclass
class CoverCues:
    """What lies over the points, as judged (for :func:`check_frame` and for
    looking at): the largest disc (radius, mm) that fits in what hides the
    points' edges and is unlike the board where the men stand (``cover_mm``;
    0 where nothing), the nearer long side and the stretch along it (mm) it
    spans, and the maps, on the rectified surface (``view_step_mm`` per
    pixel): where men stand and were looked at (``zone``), far from every edge
    (``clear``), a colour found nowhere else at that depth (``foreign``),
    smoother than the board's grain there (``smooth``), the men read
    (``men``) and the region judged covered (``region``)."""

    cover_mm: float
    side: str | None
    extent_mm: float
    zone: np.ndarray
    clear: np.ndarray
    foreign: np.ndarray
    smooth: np.ndarray
    men: np.ndarray
    region: np.ndarray


def _fold(a: np.ndarray, rows: int) -> np.ndarray:
    """The top *rows* of the surface and the bottom *rows*, upside down, side
    by side: depth from each long edge down the rows, both long edges across."""
    return np.concatenate([a[:rows], a[a.shape[0] - rows:][::-1]], axis=1)


def _unfold(f: np.ndarray, shape: tuple[int, int], rows: int, fill) -> np.ndarray:
    out = np.full(shape, fill, dtype=f.dtype)
    w = shape[1]
    out[:rows] = f[:, :w]
    out[shape[0] - rows:] = f[:, w:][::-1]
    return out


def _colour_support(lab: np.ndarray, grain: np.ndarray, ok: np.ndarray, want: np.ndarray, oc: OcclusionConfig,
                    step: float) -> tuple[np.ndarray, np.ndarray]:
    """Per place wanted (folded rows, see ``_fold``): the share of the places
    at about its depth (``support_band_mm``), farther than
    ``support_near_mm`` along the board (or on the other long side), whose
    colour falls in its bin (Lab binned by ``support_bin``, lightness
    weighted by ``l_weight``; two grids half a bin apart, the better taken),
    and the mean *grain* of those places.  The points and the men recur
    along the board; a hand's colour does not, and where the board's wood of
    a hand's colour recurs, it has grain and the hand has none.  Counted on
    places twice ``step`` apart; share 1 and grain 0 where not wanted."""
    rows0, cols0 = ok.shape
    size = (cols0 // 2, rows0 // 2)
    small = cv2.resize(lab, size, interpolation=cv2.INTER_AREA)
    gsmall = cv2.resize(grain, size, interpolation=cv2.INTER_AREA)
    okk = cv2.resize(ok.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST) > 0
    wanted = (cv2.resize(want.astype(np.uint8), size, interpolation=cv2.INTER_AREA) > 0) & okk
    share_out = np.ones(ok.shape, np.float32)
    grain_out = np.zeros(ok.shape, np.float32)
    if not wanted.any():
        return share_out, grain_out
    step2 = 2 * step
    rows, cols = okk.shape
    half = cols // 2
    block = max(1, int(round(oc.support_near_mm / 2 / step2)))
    nb = (half + block - 1) // block
    blk = np.concatenate([np.arange(half) // block, nb + np.arange(cols - half) // block])
    nk = 2 * nb
    near = 2                                      # blocks either side (each half a near-distance long)
    band = max(0, int(round(oc.support_band_mm / step2)))
    q = oc.support_bin
    yy, xx = np.nonzero(okk)
    kk = blk[xx]
    gv = gsmall[yy, xx]
    tot = np.bincount(yy * nk + kk, minlength=rows * nk).reshape(rows, nk).astype(np.float32)
    tot = _band_sum(tot, band)
    far_tot = np.maximum(tot.sum(1, keepdims=True) - _near_sum(tot, nb, near), 1.0)
    wy, wx = np.nonzero(wanted)
    wk = blk[wx]
    best = np.full(wy.size, -1.0, np.float32)
    best_grain = np.zeros(wy.size, np.float32)
    pix = small * np.array([oc.l_weight, 1.0, 1.0], np.float32)
    # the rows and blocks near each wanted place: its rows, the blocks within `near` of its own, its long side
    r = wy[:, None, None] + np.arange(-band, band + 1)[None, :, None]
    k = wk[:, None, None] + np.arange(-near, near + 1)[None, None, :]
    valid = (r >= 0) & (r < rows) & (k >= 0) & (k < nk) & ((k < nb) == (wk < nb)[:, None, None])
    r, k = np.clip(r, 0, rows - 1), np.clip(k, 0, nk - 1)
    for off in (0.0, 0.5):
        bins = np.floor(pix / q + off).astype(np.int64)
        code = (bins[..., 0] * 64 + bins[..., 1] + 32) * 64 + bins[..., 2] + 32
        uniq, winv = np.unique(code[wy, wx], return_inverse=True)      # only the bins of the places wanted
        nc = len(uniq)
        pos = np.searchsorted(uniq, code[yy, xx])
        hit = uniq[np.minimum(pos, nc - 1)] == code[yy, xx]
        index = (yy[hit] * nc + pos[hit]) * nk + kk[hit]
        far = np.zeros(wy.size, np.float32)
        far_grain = np.zeros(wy.size, np.float32)
        for values, into in ((None, far), (gv[hit], far_grain)):
            cnt = np.bincount(index, weights=values, minlength=rows * nc * nk).reshape(rows, nc, nk)
            alls = _band_sum(cnt.sum(2), band)[wy, winv]
            into[:] = alls - np.where(valid, cnt[r, winv[:, None, None], k], 0).sum((1, 2))
        share = far / far_tot[wy, wk]
        better = share > best
        best = np.where(better, share, best)
        best_grain = np.where(better, far_grain / np.maximum(far, 1.0), best_grain)
    sup = np.ones((rows, cols), np.float32)
    sup[wy, wx] = best
    gra = np.zeros((rows, cols), np.float32)
    gra[wy, wx] = best_grain
    for small_map, out in ((sup, share_out), (gra, grain_out)):
        big = np.repeat(np.repeat(small_map, 2, axis=0), 2, axis=1)
        out[:big.shape[0], :big.shape[1]] = big
    return share_out, grain_out


def _band_sum(a: np.ndarray, band: int) -> np.ndarray:
    """Sums over rows within *band* of each row (first axis)."""
    if band <= 0:
        return a
    c = np.cumsum(np.concatenate([np.zeros((band + 1,) + a.shape[1:], a.dtype), a,
                                  np.zeros((band,) + a.shape[1:], a.dtype)]), axis=0)
    return c[2 * band + 1:] - c[:-2 * band - 1]


def _near_sum(a: np.ndarray, nb: int, near: int) -> np.ndarray:
    """Sums over the blocks within *near* of each block of the same long side
    (last axis: the first *nb* blocks one side, the rest the other)."""
    out = np.empty_like(a)
    for part in (slice(0, nb), slice(nb, a.shape[-1])):
        b = a[..., part]
        pad = [(0, 0)] * (b.ndim - 1)
        c = np.cumsum(np.pad(b, pad + [(near + 1, near)]), axis=-1)
        out[..., part] = c[..., 2 * near + 1:] - c[..., :-2 * near - 1]
    return out


def _men_mask(lab: np.ndarray, men, oc: OcclusionConfig, step: float) -> np.ndarray:
    """The places that are one of the men read: inside an outline the reader
    drew (surface mm) and near one of the men's colours (the outlines' mean
    colours, in one or two groups by lightness; a group of a fifth of them
    or more), or within a few mm of such a place (his rim, his shadow).  An
    outline the reader drew over a cup or a hand holds neither colour, and
    its place is not excused."""
    shape = lab.shape[:2]
    polys = [np.asarray(m, np.float64).reshape(-1, 2) for m in men or []]
    polys = [np.round(p / step * 4).astype(np.int32) for p in polys if len(p) >= 3]
    if not polys:
        return np.zeros(shape, bool)
    which = np.zeros(shape, np.int32)
    for i, p in enumerate(polys, start=1):
        cv2.fillPoly(which, [p], i, shift=2)
    ys, xs = np.nonzero(which)
    if ys.size == 0:
        return np.zeros(shape, bool)
    ids = which[ys, xs]
    n = len(polys) + 1
    count = np.bincount(ids, minlength=n)
    px = lab[ys, xs]
    c = np.stack([np.bincount(ids, px[:, k], minlength=n) for k in range(3)], axis=1)[count >= 3]
    c = c / count[count >= 3, None]
    if len(c) == 0:
        return np.zeros(shape, bool)
    c = c[np.argsort(c[:, 0])]
    groups = [c]
    if len(c) >= 2:
        gaps = np.diff(c[:, 0])
        cut = int(np.argmax(gaps)) + 1
        if gaps[cut - 1] > oc.men_delta_e:
            groups = [c[:cut], c[cut:]]
    weight = np.array([oc.l_weight, 1.0, 1.0], np.float32)
    k = 2 * int(round(4.0 / step)) + 1
    grow = np.ones((k, k), np.uint8)
    inside = cv2.dilate((which > 0).astype(np.uint8), grow) > 0
    iy, ix = np.nonzero(inside)
    vals = lab[iy, ix] * weight
    near = np.zeros(iy.size, bool)
    for g in groups:
        if len(g) >= max(2, 0.2 * len(c)) or len(c) < 2:
            centre = np.median(g, axis=0) * weight
            near |= ((vals - centre) ** 2).sum(-1) < oc.men_delta_e ** 2
    out = np.zeros(shape, np.uint8)
    out[iy[near], ix[near]] = 1
    return (cv2.dilate(out, grow) > 0) & inside


def cover_cues(config: VisionConfig, image: np.ndarray, corners, men: list[np.ndarray] | None = None,
               view: _View | None = None, exact: bool = True, reference: np.ndarray | None = None,
               recent: np.ndarray | None = None) -> CoverCues:
    """What lies over the places where men stand (see the module's
    description): the region that hides the points' and men's edges (no
    edge within ``cover_clear_mm``) and is unlike the board at its depth (a
    colour that recurs nowhere else at that depth, or smoother than the
    board's grain there), less the men read (*men*, their outlines in
    surface mm); and the largest disc that fits in it.  With *reference*
    (the surface's part of a :func:`rails_picture` of a clear photo from this
    camera), only what has changed since (``reference_delta_e``) can cover:
    the board's own shadows and blank places were there then.  With *recent*
    as well (the surface of the frame settled last, ``FrameCheck.surface``),
    only what has changed since both can cover: a point's base bared by men
    that left two turns ago, and the shadow of a pile built since the
    calibration, were there a turn ago; a hand was not.  Not *exact*: where
    no disc that large can fit in what is blank and not a man, the colour and
    grain are not weighed and ``cover_mm`` is 0."""
    oc = config.occlusion
    image = _as_bgr(image)
    if view is None:
        view = _view(config, image, corners)
    g = view.geometry
    W, D = g.width, g.depth
    step = view.step
    y0, x0 = view.px(0), view.px(0)
    rows, cols = int(round(D / step)), int(round(W / step))
    lab = view.lab[y0:y0 + rows, x0:x0 + cols]
    known = view.known[y0:y0 + rows, x0:x0 + cols]
    shape = (rows, cols)
    # where men stand: the base of every point, and a man beyond the men read
    deep = min(rows // 2, int(round(min(config.point_length, D / 2) / step)))
    band = min(deep, int(round(oc.men_band_mm / step)))
    zone = np.zeros(shape, bool)
    zone[:band] = True
    zone[rows - band:] = True
    men_read = np.zeros(shape, np.uint8)
    polys = [np.asarray(m, np.float64).reshape(-1, 2) for m in men or []]
    polys = [np.round(p / step * 4).astype(np.int32) for p in polys if len(p) >= 3]
    if polys:
        cv2.fillPoly(men_read, polys, 1, shift=2)
        reach = cv2.distanceTransform(1 - men_read, cv2.DIST_L2, 3) * step <= oc.men_reach_mm
        reach[deep:rows - deep] = False
        zone |= reach
    left, right = g.bar_x
    zone[:, max(0, int((left - oc.bar_pad_mm) / step)):int(np.ceil((right + oc.bar_pad_mm) / step))] = False
    points = np.zeros(shape, bool)
    points[:deep] = True
    points[rows - deep:] = True
    points &= known
    zone &= known
    empty = np.zeros(shape, bool)
    if zone.sum() < 10:
        return CoverCues(0.0, None, 0.0, zone, empty, empty, empty, empty, empty)
    # edges: the points' sides, the men's rims (strong against the board's own)
    edge = _edges(config, view)[y0:y0 + rows, x0:x0 + cols]
    clear = np.minimum(cv2.distanceTransform((~edge).astype(np.uint8), cv2.DIST_L2, 5), 1e4) * step >= oc.cover_clear_mm
    want = clear & zone
    for then in (reference, recent if reference is not None else None):
        if then is not None and then.shape == (rows, cols, 3):
            before = cv2.cvtColor(then.astype(np.float32) * (1 / 255.0), cv2.COLOR_BGR2Lab)
            diff = cv2.blur(lab, (3, 3)) - cv2.blur(before, (3, 3))
            diff[..., 0] *= oc.l_weight
            # the weighted colour distance squared, summed over the channels by OpenCV (numpy's power and sum
            # over the last axis took a tenth of a frame's read)
            want &= cv2.transform(cv2.multiply(diff, diff), _ONES3) >= oc.reference_delta_e ** 2

    def too_small(where: np.ndarray) -> bool:
        """Holds no disc the size of the bar: nothing there can cover the men (not weighed further)."""
        radius = float(cv2.distanceTransform(np.pad(where.astype(np.uint8), 1), cv2.DIST_L2, 5).max()) * step
        return not exact and radius + oc.cover_clear_mm < oc.cover_mm

    if too_small(want):
        return CoverCues(0.0, None, 0.0, zone, clear, empty, empty, empty, empty)
    men_mask = _men_mask(lab, men, oc, step)
    want &= ~men_mask
    if too_small(want):
        return CoverCues(0.0, None, 0.0, zone, clear, empty, empty, men_mask, empty)
    # unlike the board at its depth: a colour found nowhere else there, or smoother than the board's own
    # places of its colour there (skin is smooth, the wood of its colour has grain)
    L = lab[..., 0]
    lit = cv2.GaussianBlur(L, (0, 0), 1.5)
    grain = cv2.blur(np.abs(L - lit), (5, 5)) / (cv2.blur(lit, (5, 5)) + oc.grain_dark) * 50.0
    share, usual = _colour_support(_fold(lab, deep), _fold(grain, deep), _fold(points, deep), _fold(want, deep),
                                   oc, step)
    foreign = _unfold(share < oc.support_share, shape, deep, False) & points
    smooth = _unfold((_fold(grain, deep) < oc.grain_share * usual) & (usual >= oc.grain_least), shape, deep,
                     False) & points
    region = (foreign | smooth) & want
    if not region.any():
        return CoverCues(0.0, None, 0.0, zone, clear, foreign, smooth, men_mask, region)
    dist = cv2.distanceTransform(np.pad(region.astype(np.uint8), 1), cv2.DIST_L2, 5)[1:-1, 1:-1]
    r, c = np.unravel_index(int(np.argmax(dist)), dist.shape)
    cover = float(dist[r, c]) * step + oc.cover_clear_mm
    n, labels = cv2.connectedComponents(region.astype(np.uint8), connectivity=8)
    xs = np.nonzero((labels == labels[r, c]).any(axis=0))[0]
    extent = float((xs.max() - xs.min() + 1) * step) if xs.size else 0.0
    side = "top" if r < rows / 2 else "bottom"
    return CoverCues(cover, side, extent, zone, clear, foreign, smooth, men_mask, region)


def _side_box(config: VisionConfig, view: _View, name: str, t0: float, t1: float, s0: float,
              s1: float) -> tuple[int, int, int, int]:
    """The view's pixels (row0, row1, col0, col1) of the stretch *t0*..*t1*
    of side *name*, *s0*..*s1* mm out from the surface (clipped)."""
    W, D = view.geometry.width, view.geometry.depth
    x0, y0, x1, y1 = {"top": (t0, -s1, t1, -s0), "bottom": (t0, D + s0, t1, D + s1),
                      "left": (-s1, t0, -s0, t1), "right": (W + s0, t0, W + s1, t1)}[name]
    h, w = view.known.shape
    return (max(0, view.px(min(y0, y1))), min(h, view.px(max(y0, y1)) + 1),
            max(0, view.px(min(x0, x1))), min(w, view.px(max(x0, x1)) + 1))


def _onto_points(config: VisionConfig, view: _View, cue: SideCues, start: int, stop: int) -> float:
    """How far something crossing the frame (the columns *start*:*stop* of
    *cue*) goes on over the points: the largest disc (radius, mm) on the
    surface inside the region connected to the crossing whose colour is the
    crossing's (its median on the frame, ``onto_delta_e``, lightness weighted
    ``onto_l_weight`` for the shading across an arm)."""
    oc = config.occlusion
    g = view.geometry
    W, D = g.width, g.depth
    t0, t1 = float(cue.t[start]), float(cue.t[stop - 1])
    s0, s1 = 3.0, config.frame_band_outer
    r0, r1, c0, c1 = _side_box(config, view, cue.name, t0, t1, s0, s1)
    if c1 <= c0 or r1 <= r0:
        return 0.0
    seen = view.known[r0:r1, c0:c1]
    if seen.sum() < 4:
        return 0.0
    weight = np.array([oc.onto_l_weight, 1.0, 1.0], np.float32)
    samples = view.lab[r0:r1, c0:c1][seen] * weight
    # what crosses may share the stretch with the frame beside it and its shadow: its colour, and the
    # two colours the stretch splits into (two means from its darkest and lightest)
    centres = [np.median(samples, axis=0)]
    if len(samples) >= 8:
        two = samples[[int(np.argmin(samples[:, 0])), int(np.argmax(samples[:, 0]))]].copy()
        for _ in range(5):
            near = ((samples[:, None, :] - two[None]) ** 2).sum(-1).argmin(1)
            two = np.array([samples[near == i].mean(0) if (near == i).any() else two[i] for i in range(2)])
        centres += list(two)
    # looked at within reach of the crossing (an arm's length onto the board)
    reach = int(round(oc.onto_reach_mm / view.step))
    h, w = view.known.shape
    wr0, wr1, wc0, wc1 = max(0, r0 - reach), min(h, r1 + reach), max(0, c0 - reach), min(w, c1 + reach)
    edge = _edges(config, view)[wr0:wr1, wc0:wc1]
    surface = np.zeros(edge.shape, bool)
    surface[max(0, view.px(0) - wr0):max(0, view.px(D) - wr0), max(0, view.px(0) - wc0):max(0, view.px(W) - wc0)] = True
    lab = view.lab[wr0:wr1, wc0:wc1] * weight
    box = (slice(r0 - wr0, r1 - wr0), slice(c0 - wc0, c1 - wc0))
    best = 0.0
    for colour in centres:
        # of its colour and within its outline (an edge stops it: the board's own colour beyond is not it)
        like = (((lab - colour) ** 2).sum(-1) < oc.onto_delta_e ** 2) & ~edge
        n, labels = cv2.connectedComponents(like.astype(np.uint8), connectivity=4)
        seeds = np.unique(labels[box][like[box]])
        seeds = seeds[seeds > 0]
        if seeds.size == 0:
            continue
        keep = np.zeros(n, bool)
        keep[seeds] = True
        inside = (keep[labels] & surface).astype(np.uint8)
        if inside.any():
            best = max(best, float(cv2.distanceTransform(inside, cv2.DIST_L2, 5).max()) * view.step)
    return best


def _ring_seen(config: VisionConfig, shape: tuple[int, ...], corners) -> float:
    """The share of the ring round the surface the frame check samples (out
    to ``ring_out_mm``, on the surface's plane) that lies in the picture: all
    of it from a camera over the table, much less in a photo cut close to the
    board."""
    geometry = BoardGeometry(config)
    W, D, out = geometry.width, geometry.depth, config.occlusion.ring_out_mm
    xs, ys = np.meshgrid(np.arange(-out, W + out, 6.0), np.arange(-out, D + out, 6.0))
    ring = (xs < 0) | (xs > W) | (ys < 0) | (ys > D)
    pts = np.column_stack([xs[ring], ys[ring]]).astype(np.float32).reshape(-1, 1, 2)
    H = cv2.getPerspectiveTransform(geometry.surface_corners().astype(np.float32),
                                    corners_array(corners).astype(np.float32))
    img = cv2.perspectiveTransform(pts, H).reshape(-1, 2)
    h, w = shape[:2]
    inside = (img[:, 0] >= 0) & (img[:, 1] >= 0) & (img[:, 0] <= w - 1) & (img[:, 1] <= h - 1)
    return float(inside.mean()) if inside.size else 0.0


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of every run of True."""
    f = np.concatenate([[0], flags.astype(np.int8), [0]])
    d = np.diff(f)
    return list(zip(np.nonzero(d == 1)[0].tolist(), np.nonzero(d == -1)[0].tolist()))


def check_frame(config: VisionConfig, image: np.ndarray, corners,
                men: list[np.ndarray] | None = None, camera: Camera | None = None,
                reference: np.ndarray | None = None, recent: np.ndarray | None = None) -> FrameCheck:
    """Is the board covered (see the module's description)?  *corners* are
    the playing surface's C1..C4 in *image*; *men* are the outlines (surface
    mm, as the camera sees them) of men read on the board: a man on an edge
    point, seen from the side, may overhang the frame, and the frame under
    him is not looked at, nor is a man read taken for something covering the
    points; *camera* (from
    :func:`~willughby.vision.camera.camera_from_corners`) puts the strips on
    the plane of the frame's top rather than the surface's; *reference*
    (:func:`rails_picture` of a clear photo of this board, from this camera,
    such as the calibration photo) keeps the board's own look from being
    taken for an arm: only what has changed since can be one, and what
    changed on the frame and beyond it is an arm; *recent* (with
    *reference*: the ``surface`` of the check of the frame settled last,
    from the same camera) narrows what may cover the men's places to what
    has changed since that frame too: something lying there comes and goes
    between frames, the board's own look stays."""
    oc = config.occlusion
    image = _as_bgr(image)
    if camera is None:
        camera = camera_from_corners(corners, (image.shape[1], image.shape[0]), BoardGeometry(config))
    rails_ref, surface_ref = _split_reference(config, reference)
    referenced = rails_ref is not None
    whole = _ring_seen(config, image.shape, corners) >= oc.ring_seen
    view: _View | None = None
    worst = FrameCheck(False, None, 0.0, 0.0)
    cues = frame_cues(config, image, corners, men, camera, reference=rails_ref)
    for cue in cues:
        contrast = float(cue.colour.max()) if cue.colour.size else 0.0
        for start, stop in _runs(cue.crossed):
            run_mm = (stop - start) * oc.step_mm
            if run_mm < config.frame_run_mm:
                if not worst.occluded and run_mm > worst.run_mm:
                    worst = FrameCheck(False, None, run_mm, contrast)
                continue
            # the frame is judged alone where the calibration photo tells its own look, or where the
            # picture shows it and the table round it (a camera over the table); in a photo cut close to
            # the board the frame's own look (a hinge, a brass corner, the picture's edge) can look
            # crossed: an arm also goes on over the points
            if referenced or whole:
                onto = math.inf
            else:
                view = view or _view(config, image, corners)
                onto = _onto_points(config, view, cue, start, stop)
            measured = onto if math.isfinite(onto) else 0.0
            if onto >= oc.onto_mm and run_mm > worst.run_mm:
                why = "across the frame onto the board" if math.isfinite(onto) else "across the frame"
                worst = FrameCheck(True, cue.name, run_mm, contrast, why, worst.cover_mm, measured)
            elif not worst.occluded and run_mm > worst.run_mm:
                worst = FrameCheck(False, None, run_mm, contrast, None, 0.0, measured)
    # what lies over the men's places: in a photo cut close to the board (whose frame tells little), or
    # against the calibration photo (what has changed since); a camera over the table without one sees
    # an arm on the frame and the table round it, and the board's own shadows are not weighed against
    # the light of a photo that was never taken
    if whole and surface_ref is None:
        return worst
    view = view or _view(config, image, corners)
    seen = view.surface(view.bgr)
    cover = cover_cues(config, image, corners, men, view, exact=False, reference=surface_ref, recent=recent)
    if not worst.occluded and cover.cover_mm >= oc.cover_mm:
        return FrameCheck(True, cover.side, cover.extent_mm, worst.contrast, "over the men's places",
                          cover.cover_mm, worst.onto_mm, seen)
    if not worst.occluded:
        rounds = round_covers(config, view)
        if rounds:
            _, y, r = max(rounds, key=lambda c: c[2])
            side = "top" if y < view.geometry.depth / 2 else "bottom"
            return FrameCheck(True, side, 2 * r, worst.contrast, "a round top wider than a man", cover.cover_mm,
                              worst.onto_mm, seen)
    return FrameCheck(worst.occluded, worst.side, worst.run_mm, worst.contrast, worst.reason, cover.cover_mm,
                      worst.onto_mm, seen)


def round_covers(config: VisionConfig, view: _View) -> list[tuple[float, float, float]]:
    """Round tops much wider than any man over the men's places, as an
    upright dice cup shows from above (``round_cover`` of a man's radius
    across, with ``round_votes``, in the view's lightness at 1 px a mm):
    ``(x, y, r)`` in mm of the playing surface.  No man's top is that wide,
    and a point's base is no circle; in a photo of one frame, a cup the
    colour of the men is otherwise a man read."""
    oc = config.occlusion
    g = view.geometry
    scale = view.step                                   # view pixels to 1 px a mm
    L = np.clip(view.lab[..., 0] * 2.55, 0, 255).astype(np.uint8)
    L = cv2.resize(L, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    grey = cv2.GaussianBlur(L, (0, 0), oc.round_smooth_mm)
    r = config.man_diameter / 2
    found = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1, minDist=r, param1=80, param2=oc.round_votes,
                             minRadius=int(oc.round_cover[0] * r), maxRadius=int(math.ceil(oc.round_cover[1] * r)))
    out = []
    for x, y, rr in ([] if found is None else found[0]):
        x, y = float(x) - view.margin, float(y) - view.margin
        if 0 <= x <= g.width and (0 <= y <= oc.men_band_mm or g.depth - oc.men_band_mm <= y <= g.depth):
            out.append((x, y, float(rr)))
    return out


def main(argv=None) -> int:
    """``python -m willughby.vision.occlusion FOLDER...``: over labelled
    frames (``img_NNNN.jpg`` + ``.json`` with ``corners`` and ``occluded``),
    how many frames with a hand are refused, how many clear ones are, the
    longest crossed run seen on each kind, and the time per frame (one
    thread).  The men's outlines are not used (``men=None``)."""
    import argparse
    import json
    import time
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m willughby.vision.occlusion", description=main.__doc__)
    parser.add_argument("folders", nargs="+", help="folders of labelled frames")
    parser.add_argument("--misses", action="store_true", help="name every wrong verdict")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    config = VisionConfig()
    geometry = BoardGeometry(config)
    for folder in args.folders:
        hit = miss = wrong = clear = 0
        runs = {True: [], False: []}
        millis = []
        for label_path in sorted(Path(folder).glob("img_*.json")):
            label = json.loads(label_path.read_text())
            image = cv2.imread(str(label_path.with_suffix(".jpg")))
            if image is None:
                continue
            camera = camera_from_corners(label["corners"], (image.shape[1], image.shape[0]), geometry)
            t0 = time.perf_counter()
            result = check_frame(config, image, label["corners"], None, camera)
            millis.append((time.perf_counter() - t0) * 1000)
            occluded = bool(label["occluded"])
            runs[occluded].append(result.run_mm)
            if occluded:
                hit += result.occluded
                miss += not result.occluded
            else:
                wrong += result.occluded
                clear += not result.occluded
            if args.misses and result.occluded != occluded:
                print(f"  {'missed' if occluded else 'wrongly refused'}: {label_path.stem} {result}")
        if not millis:
            print(f"{folder}: no labelled frames")
            continue
        print(f"{folder}: hand refused {hit}/{hit + miss}, clear wrongly refused {wrong}/{wrong + clear}, "
              f"shortest run with a hand {min(runs[True], default=float('nan')):.0f} mm, "
              f"longest clear {max(runs[False], default=float('nan')):.0f} mm (refusal at {config.frame_run_mm:.0f}), "
              f"{np.median(millis):.1f} ms per frame (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
