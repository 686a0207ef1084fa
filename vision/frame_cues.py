"""The frame round the board, as the check for something covering it reads
it: each side's rails seen in a panel of their own, their usual look (or
the calibration photo's), and where along each side something crosses the
frame onto the board (:func:`frame_cues`, :class:`SideCues`); and the
rails' picture kept with a calibration (:func:`rails_picture`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Camera, camera_from_corners
from .config import OcclusionConfig, VisionConfig
from .geometry import BoardGeometry, Corners, corners_array
from .cover_view import as_bgr8, least_change, matched_gain, view_of

__all__ = ["SideCues", "frame_cues", "rails_picture", "split_reference"]


_SIDES = ("top", "bottom", "left", "right")
_GAP = 36                  # empty columns between the sides in the panel (> the widest slant's shift)


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


def _panel(config: VisionConfig, image: np.ndarray, corners: Corners, men: list[np.ndarray] | None,
           camera: Camera | None) -> _Panel:
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
        pts: list[np.ndarray] = []
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
    black_near: np.ndarray = cv2.dilate(black, near)
    white_near: np.ndarray = cv2.dilate(white, near)
    both = black_near & white_near & (black | white)
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


def rails_picture(config: VisionConfig, image: np.ndarray, corners: Corners,
                  camera: Camera | None = None) -> np.ndarray:
    """The board as the check samples it, from a photo known to be clear (the
    calibration photo), kept as the *reference* of :func:`check_frame`: what
    this board's frame, its shadow, the table and its playing surface look
    like under this camera.  8-bit BGR: the frame round the surface in its
    first rows (rows outward from the surface, columns along the four
    sides), then the playing surface top-down (``view_step_mm`` per pixel)
    in the rows below, from the left."""
    image = as_bgr8(image)
    if camera is None:
        camera = camera_from_corners(corners, (image.shape[1], image.shape[0]), BoardGeometry(config))
    rails = _panel(config, image, corners, None, camera).bgr
    view = view_of(config, image, corners)
    assert view.bgr is not None                   # view_of keeps the picture it rectified
    surface = view.surface(view.bgr)
    out = np.zeros((rails.shape[0] + surface.shape[0], max(rails.shape[1], surface.shape[1]), 3), np.uint8)
    out[:rails.shape[0], :rails.shape[1]] = rails
    out[rails.shape[0]:, :surface.shape[1]] = surface
    return out


def split_reference(config: VisionConfig, reference: np.ndarray | None) -> tuple[np.ndarray | None,
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
    is, against the reference brought to this picture's exposure and white
    balance (``reference_gain``) and moved by up to ``reference_shift_mm``,
    the least change taken; widened by the farthest slant's shift, so an arm crossing aslant is
    not taken for unchanged), and whether it is covered (at least
    ``reference_cover`` of the frame's rows *and* of the rows beyond them
    changed: something lies on the frame and reaches out over the table)."""
    then = reference.astype(np.float32)
    if oc.reference_gain:             # the camera's exposure and white balance since (every place alike)
        then = np.minimum(then * matched_gain(P.bgr, reference, judged), 255.0)
    ref: np.ndarray = cv2.cvtColor(then * (1 / 255.0), cv2.COLOR_BGR2Lab) * np.array([oc.l_weight, 1.0, 1.0], np.float32)
    now = np.ascontiguousarray(P.lab.transpose(1, 2, 0))
    shift = int(round(oc.reference_shift_mm / oc.step_mm))      # a camera nudged moves the frame's edges
    d2 = least_change(now, ref, shift, judged, (int(oc.blur[0]), int(oc.blur[1])))
    changed = (d2 >= oc.reference_delta_e ** 2) & judged
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


def frame_cues(config: VisionConfig, image: np.ndarray, corners: Corners,
               men: list[np.ndarray] | None = None, camera: Camera | None = None,
               all_slants: bool = False, reference: np.ndarray | None = None) -> list[SideCues]:
    """The cues of every side, at the slant that gives its longest run (or
    at every slant, *all_slants*), for :func:`check_frame` and for looking at.
    With *reference* (:func:`rails_picture` of a clear photo of this board
    from this camera), a column that looks as it did there is not crossed,
    whatever the cues say of it."""
    geometry = BoardGeometry(config)
    oc = config.occlusion
    image = as_bgr8(image)
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
            columns = [np.flatnonzero(side == i) for i in range(4)]      # each side's columns lie together
            spans = [slice(c[0], c[-1] + 1) if c.size else slice(0, 0) for c in columns]
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
