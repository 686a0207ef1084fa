"""What lies over the points, as the check for something covering the board
judges it: colours neither the board's nor the men's, round shapes, and
how much of each side's points they hide (:func:`cover_cues`,
:class:`CoverCues`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .config import OcclusionConfig, VisionConfig
from .cover_view import View, as_bgr8, least_change, matched_gain, strong_edges, view_of
from .geometry import Corners

__all__ = ["CoverCues", "cover_cues"]

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


def _unfold(f: np.ndarray, shape: tuple[int, int], rows: int, fill: bool) -> np.ndarray:
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
    # (an odd width leaves the second half a column wider: that column joins the half's last block)
    blk = np.concatenate([np.arange(half) // block, nb + np.minimum(np.arange(cols - half) // block, nb - 1)])
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
    sums: np.ndarray = c[2 * band + 1:] - c[:-2 * band - 1]
    return sums


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


def _men_mask(lab: np.ndarray, men: list[np.ndarray] | None, oc: OcclusionConfig, step: float) -> np.ndarray:
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
    c: np.ndarray = np.stack([np.bincount(ids, px[:, k], minlength=n) for k in range(3)], axis=1)[count >= 3]
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


def _changed(now: np.ndarray, lab: np.ndarray, then: np.ndarray, known: np.ndarray, oc: OcclusionConfig
             ) -> np.ndarray:
    """Where the surface *now* (8-bit BGR, *lab* its Lab) has changed since
    the clear picture *then* (``reference_delta_e`` or more, lightness
    weighted): with ``reference_gain``, *then* first brought to *now*'s
    exposure and white balance (``matched_gain``: a camera's own drift
    changes every place alike, a hand a few).  A camera nudged a pixel or
    three moves the board's edges, but only places far from every strong
    edge are weighed here (``cover_clear_mm``), so *then* is not moved
    (``reference_shift_mm`` is the frame's: moved here too, it spared an arm
    on a real photo)."""
    then_f = then.astype(np.float32)
    if oc.reference_gain:
        then_f = np.minimum(then_f * matched_gain(now, then, known), 255.0)
    before = cv2.cvtColor(then_f * (1 / 255.0), cv2.COLOR_BGR2Lab)
    weight = np.array([oc.l_weight, 1.0, 1.0], np.float32)
    # the weighted colour distance squared, summed over the channels by OpenCV (numpy's power and sum over
    # the last axis took a tenth of a frame's read)
    changed: np.ndarray = least_change(lab * weight, before * weight, 0) >= oc.reference_delta_e ** 2
    return changed


def cover_cues(config: VisionConfig, image: np.ndarray, corners: Corners, men: list[np.ndarray] | None = None,
               view: View | None = None, exact: bool = True, reference: np.ndarray | None = None,
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
    image = as_bgr8(image)
    if view is None:
        view = view_of(config, image, corners)
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
    edge = strong_edges(config, view)[y0:y0 + rows, x0:x0 + cols]
    clear = np.minimum(cv2.distanceTransform((~edge).astype(np.uint8), cv2.DIST_L2, 5), 1e4) * step >= oc.cover_clear_mm
    want = clear & zone
    for then in (reference, recent if reference is not None else None):
        if then is not None and then.shape == (rows, cols, 3) and view.bgr is not None:
            want &= _changed(view.surface(view.bgr), lab, then, known, oc)

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


