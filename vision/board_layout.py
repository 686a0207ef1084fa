"""The board's own layout, found in the picture.

No two boards share their proportions: a tournament board has a raised bar
50 mm wide, a folding box two rails and a hinge between its halves, a felt
travel case a printed line or nothing at all; points run from a sixth of a
half to a little less, with a margin by the bar; men are nearly as wide as a
point or a sixth narrower.  So the reader does not assume where the points
and the bar lie: it finds them, once per calibration (or once per photo
read without one), from what every board shares -- twelve points along
each long side, in two groups of six, each point a triangle whose two long
sides run from its base at the board's edge to its tip -- and reads with
what it found (``BoardLayout.config``).  The configured proportions are
used only where the picture shows nothing certain, and the reading says so.

The method (a function of ``(config, image, corners)``, its numbers in
``LayoutConfig``):

1. **The surface, rectified** from the corners given, at 1 px per mm in the
   frame of the configured surface (``surface_width`` x ``surface_depth``);
   Lab, lightly smoothed; the colour change across the board's length,
   ``|d Lab / dx|``, at each pixel.
2. **The sides, made upright.**  In a band along each long edge (``band``,
   shares of the depth), the picture is sheared so that the points' left
   sides, which lean toward the tip by a slope ``s`` (half the base over the
   length), stand upright; its column means then peak at each left side's
   base.  The right sides likewise, sheared the other way.  From each
   profile the same shear of the upright profile is taken away, so what is
   upright in the picture -- the bar's, the rails' and the hinge's edges, a
   column of men -- cancels and only what leans as the sides do is left;
   then its mean over ``highpass_mm``, and it is measured in spreads (its
   median absolute value), clipped to ``z_range`` and widened by
   ``tolerance_mm``.
3. **Two groups of six.**  Along each long side, the model is two groups of
   six points of one pitch ``p`` and half base ``w``, starting at ``a`` and
   ``b`` (``b >= a + 6p``: the bar between them, of any width, or none);
   the evidence of a group is the mean, over its twelve sides, of the
   profiles where the model puts its sides.  The rows' ends are expected
   near the corners (a prior of ``end_sigma_mm`` inside the corners, where
   a board may have a border, and ``end_beyond_sigma_mm`` beyond them, over
   the rails: corners are a hint, and a group slid one point along, onto a
   bar as wide as a point or over the rail, would otherwise look as good
   where the outer point is hidden under five men).
   The slope, pitch, half base and both starts are searched (coarse, then
   fine); then the row's sides are placed one by one where their profile
   peaks near the model, and the groups' starts, the row's pitch and the
   half base fitted to them by least squares (``_polish``).  Each long
   side is fitted on its own, so two halves seen at slightly different
   angles, or corners marked off along the board, move each row where it
   is.
4. **What is certain.**  Every group must show ``min_evidence`` per side and
   the two long sides must agree: each point's centre within
   ``max_disagree_mm`` of its partner across the board, once one row is
   shifted and stretched onto the other (what corners marked a little off
   along the board do; a group found one point off is left about half a
   pitch out).  Where they do not, each group is tried one point either
   way too, and the placing of the four whose rows match with the most
   evidence (less the ends' prior) is taken (``_reconcile``).  Otherwise
   the configured proportions are kept and ``notes`` says why.
5. **The layout**: each point's centre (its own long side's), the bar
   between the groups (the mean of the two sides), the points' base width
   and length (``w / s``), the men's size (``men_share`` of the pitch: men
   are about a point wide; the round tops found in the dev photos measure
   0.9-1.0 of it, and reading with them read no better).
6. **The surface's depth** (``surface_depth``): by the camera where the
   corners' perspective fixes it and the men's round tops agree
   (``depth_from_camera``), else the configured proportion
   (``depth_from`` "configured"), and ``notes`` says so; the reader then
   has the men's columns measure it (``surface_depth.depth_from_men``,
   which needs the men read at this layout).

``BoardLayout.config`` gives the reader's configuration for this board:
the surface scaled so that the points have the configured ``point_width``
(the point reader learnt points of that width and men of their size), the
points where they were found, the bar where it was found.

>>> import numpy as np
>>> flat = find_layout(VisionConfig(), np.full((480, 640, 3), 128, np.uint8),
...                    [[600, 420], [40, 420], [40, 40], [600, 40]])
>>> flat.found, flat.notes[0].startswith("the board's points were not found")
(False, True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import cv2
import numpy as np

from .config import LayoutConfig, VisionConfig
from .errors import CalibrationError
from .geometry import BoardGeometry, Corners, corners_array
from .surface_depth import DEPTH_FROM, depth_from_camera

__all__ = ["BoardLayout", "Row", "confirms", "find_layout", "layout_config", "layout_of"]

_GROUP = 6                 # points in a quarter
_PAD_MM = 60.0             # how far a comb's origin may lie outside the profile


@dataclass(frozen=True)
class Row:
    """One long side's points as found, in mm of the frame the corners give:
    for each group of six (toward C3 or C2, then the other), where it
    starts, its pitch and half a point's base; the sides' slope; each
    group's evidence (spreads per side) and how many of its twelve sides
    were placed one by one (``_polish``)."""

    starts: tuple[float, float]
    pitches: tuple[float, float]
    half_base: tuple[float, float]
    slope: float
    evidence: tuple[float, float]
    sides: tuple[int, int] = (0, 0)

    @property
    def pitch(self) -> float:
        return float(np.mean(self.pitches))

    def centres(self) -> list[float]:
        """The twelve points' centres, from the left end (C3's or C2's)."""
        return [s + (i + 0.5) * p for s, p in zip(self.starts, self.pitches) for i in range(_GROUP)]

    @property
    def ends(self) -> tuple[float, float]:
        """Where the row begins and ends (the outer points' cells)."""
        return self.starts[0], self.starts[1] + _GROUP * self.pitches[1]

    @property
    def bar(self) -> tuple[float, float]:
        """The gap between the groups (the bar, with any margin beside it)."""
        return self.starts[0] + _GROUP * self.pitches[0], self.starts[1]


@dataclass(frozen=True)
class BoardLayout:
    """Where this board's points, bar and men are, in mm of the frame the
    corners give (the configured ``surface_width`` x ``surface_depth``), and
    how sure that is.  ``found`` False: nothing certain was seen, and the
    layout is the configured proportions' (``notes`` says why)."""

    centres: tuple[float, ...]                # 24, index point - 1
    bar: tuple[float, float]
    pitch: float
    point_width: float                        # a point's base
    point_length: float
    man_diameter: float
    width: float                              # the frame: the surface as the corners give it
    depth: float
    found: bool
    rows: tuple[Row, ...] = ()                # (top: points 13..24, bottom: points 12..1) where found
    notes: tuple[str, ...] = ()
    millis: float = field(default=0.0, compare=False)
    #: where its depth came from: "camera" (the corners' perspective), "men" (the men's columns,
    #: ``surface_depth.depth_from_men``) or "configured" (the configured proportions')
    depth_from: str = "configured"

    @property
    def evidence(self) -> float:
        """The weakest group's evidence (spreads per side; 0 where not found)."""
        return min((e for r in self.rows for e in r.evidence), default=0.0)

    def config(self, base: VisionConfig) -> VisionConfig:
        """The configuration to read this board with (``layout_config``)."""
        return layout_config(base, self)

    def to_json(self) -> dict[str, Any]:
        """A JSON object (kept in the calibration with the board's look)."""
        def r(v: float) -> float:
            return round(float(v), 3)

        return {"format": "willughby-layout/1", "found": self.found, "centres": [r(c) for c in self.centres],
                "bar": [r(v) for v in self.bar], "pitch": round(float(self.pitch), 5),
                "point_width": r(self.point_width),
                "point_length": r(self.point_length), "man_diameter": r(self.man_diameter),
                "frame": [r(self.width), r(self.depth)], "depth_from": self.depth_from, "notes": list(self.notes)}

    @classmethod
    def from_json(cls, doc: Any) -> "BoardLayout":
        """Read :meth:`to_json`'s object; :class:`CalibrationError` otherwise."""
        try:
            if doc.get("format") != "willughby-layout/1":
                raise ValueError("not a willughby-layout/1 object")
            centres = tuple(float(v) for v in doc["centres"])
            bar = tuple(float(v) for v in doc["bar"])
            width, depth = (float(v) for v in doc["frame"])
            if len(centres) != 24 or len(bar) != 2 or bar[1] < bar[0]:
                raise ValueError("24 centres and a bar's two edges, left to right")
            numbers = [float(doc[k]) for k in ("pitch", "point_width", "point_length", "man_diameter")]
            pitch, point_width, point_length, man_diameter = numbers
            if not all(np.isfinite(v) and v > 0 for v in numbers + [width, depth]):
                raise ValueError("sizes must be positive")
            depth_from = str(doc.get("depth_from", "configured"))
            if depth_from not in DEPTH_FROM:
                raise ValueError(f"depth_from must be one of {', '.join(DEPTH_FROM)}, not {depth_from!r}")
            return cls(centres, (bar[0], bar[1]), pitch, point_width, point_length, man_diameter,
                       width=width, depth=depth, found=bool(doc["found"]),
                       notes=tuple(str(n) for n in doc.get("notes", ())), depth_from=depth_from)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"the calibration's layout is not a board layout: {exc}") from None


# ------------------------------------------------------------------ the reader's configuration
def layout_config(base: VisionConfig, layout: BoardLayout) -> VisionConfig:
    """*base* with this board's layout: the surface scaled so that a point
    is ``base.point_width`` wide (its pitch), the 24 centres and the bar
    where they were found, the points' base and length and the men's size
    as measured.  A layout not found gives *base*'s proportions, with the
    finding switched off (what reads with it reads as this read)."""
    if not layout.found:
        return base.with_values({"layout": {"find": False}}) if base.layout.find else base
    u = base.point_width / layout.pitch
    width, depth = layout.width * u, layout.depth * u
    bar = (layout.bar[0] * u, layout.bar[1] * u)
    bar_width = max(bar[1] - bar[0], 0.01)
    half = (width - bar_width) / 2
    return base.with_values({
        "surface_width": width, "surface_depth": depth, "half_width": half, "bar_width": bar_width,
        "point_width": min(layout.point_width * u, half / _GROUP),
        "point_length": min(layout.point_length * u, base.layout.longest_point * depth),
        "man_diameter": layout.man_diameter * u,
        "layout": {"centres": [c * u for c in layout.centres], "bar": list(bar)},
    })


def layout_of(config: VisionConfig) -> BoardLayout:
    """The layout a configuration's proportions describe, as if found: what
    a board drawn or built to *config* should be found to be (the painter's
    boards of other proportions, whose labels give their ``geometry``), so
    that ``layout_of(true).config(base)`` reads such a board as a finder
    that found it exactly would."""
    g = BoardGeometry(config)
    return BoardLayout(tuple(g.point_centre_x(p) for p in range(1, 25)), g.bar_x, config.point_width,
                       config.point_width, config.point_length, config.man_diameter, g.width, g.depth, True)


def _fallback(config: VisionConfig, why: str, millis: float = 0.0) -> BoardLayout:
    g = BoardGeometry(config)
    return BoardLayout(tuple(g.point_centre_x(p) for p in range(1, 25)), g.bar_x, config.point_width,
                       config.point_width, config.point_length, config.man_diameter, g.width, g.depth, False,
                       notes=(f"the board's points were not found ({why}): read with the configured proportions",),
                       millis=millis)


# ------------------------------------------------------------------ 1, 2: the sides' profiles
def _gradient(config: VisionConfig, image: np.ndarray, corners: np.ndarray, width: float,
              depth: float) -> np.ndarray:
    """|d Lab / dx| of the surface rectified at 1 px per mm (frame: width x depth)."""
    src = corners.astype(np.float32)
    dst = np.array([[width, depth], [0, depth], [0, 0], [width, 0]], np.float32)
    H = cv2.getPerspectiveTransform(src, dst)
    size = (int(round(width)), int(round(depth)))
    rect = cv2.warpPerspective(image, H, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    lab: np.ndarray = cv2.cvtColor(rect, cv2.COLOR_BGR2Lab).astype(np.float32)
    lab = cv2.GaussianBlur(lab, (0, 0), config.layout.smooth_px)
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)
    # 8-bit Lab: L in 0..255 for 0..100, a and b in their own units; lightness counts half
    weights = np.array([0.5 * (100 / 255) ** 2, 1.0, 1.0], np.float32) / 16.0
    return np.sqrt(cv2.transform(gx * gx, weights[None]))


def _profiles(lc: LayoutConfig, band: np.ndarray, slopes: np.ndarray, R: int) -> np.ndarray:
    """For each slope and each side (left, right): the sheared band's column
    means, less the same shear of the upright profile, high-passed, in
    spreads, clipped and widened (the module's step 2); (slopes, 2, samples),
    *R* samples per mm."""
    h = band.shape[0]
    up = cv2.resize(band, (band.shape[1] * R, h), interpolation=cv2.INTER_AREA if R < 1 else cv2.INTER_LINEAR)
    n = up.shape[1]
    upright = up.mean(axis=0).astype(np.float64)
    xs = np.arange(n, dtype=np.float64)
    # the running integral of the upright profile, to average it along a slanted line
    integral = np.concatenate([[0.0], np.cumsum((upright[1:] + upright[:-1]) / 2)])
    k = int(lc.highpass_mm * R) | 1
    out = np.empty((len(slopes), 2, n), np.float32)
    for i, s in enumerate(slopes):
        c = s * R                                  # samples per row
        reach = c * (h - 1)
        for j, sign in enumerate((1.0, -1.0)):
            M = np.array([[1, sign * c, 0], [0, 1, 0]], np.float32)
            summed = cv2.warpAffine(up, M, (n, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP).sum(axis=0)
            # how many of the band's rows each sheared column holds (x + sign c y within the band)
            room = (n - 1 - xs) if sign > 0 else xs
            seen = np.clip(np.floor(room / c) + 1, 1, h)
            P = summed / seen
            # the same shear of what is upright: its mean over x .. x + sign * reach
            ends = np.clip(xs + sign * reach, 0, n - 1)
            P -= (sign * (np.interp(ends, xs, integral) - integral)) / np.maximum(np.abs(ends - xs), 1e-6) * (
                np.abs(ends - xs) > 1e-6) + upright * (np.abs(ends - xs) <= 1e-6)
            P -= cv2.blur(P.reshape(1, -1).astype(np.float32), (k, 1)).ravel()
            out[i, j] = P
    spread = 1.4826 * float(np.median(np.abs(out))) + 1e-6
    np.clip(out / spread, lc.z_range[0], lc.z_range[1], out=out)
    widen = 2 * int(round(lc.tolerance_mm * R)) + 1
    if widen > 1:
        kernel = np.ones((1, widen), np.uint8)
        for i in range(len(slopes)):
            out[i] = cv2.dilate(out[i], kernel)
    return out


# ------------------------------------------------------------------ 3: two groups of six
@dataclass(frozen=True)
class _Fit:
    score: float
    slope: float
    pitch: float
    starts: tuple[float, float]
    half_base: tuple[float, float]
    evidence: tuple[float, float]


def _combs(P: np.ndarray, pitches: np.ndarray, R: int, pad: int) -> np.ndarray:
    """C[p, k] = the sum over a group's six teeth of P at (k - pad + (i + 0.5) * pitch) samples
    (linear between samples; 0 outside P)."""
    n = len(P)
    span = int(np.ceil(_GROUP * float(pitches.max()) * R)) + 2
    Pp = np.zeros(pad + n + pad + span, np.float32)
    Pp[pad:pad + n] = P                  # Pp[j] = P(j - pad)
    m = n + 2 * pad
    teeth = (np.arange(_GROUP) + 0.5)[None, :] * pitches[:, None] * R          # (pitches, 6)
    lo = np.floor(teeth).astype(np.int64)
    f = (teeth - lo).astype(np.float32)[..., None]
    idx = lo[..., None] + np.arange(m)[None, None, :]
    combs: np.ndarray = ((1 - f) * Pp[idx] + f * Pp[idx + 1]).sum(axis=1)
    return combs


def _fit_side(lc: LayoutConfig, prof: np.ndarray, slopes: np.ndarray, pitches: np.ndarray, halves: np.ndarray,
              width: float, R: int) -> _Fit:
    """The best two groups of six along one long side (the module's step 3)."""
    n = prof.shape[2]
    pad = int(_PAD_MM * R)
    lo = int(2 * lc.end_sigma_mm * R)
    a = np.arange(-lo, n + 1)                                       # a group's start (samples)
    a_mm = a / R
    na = len(a)
    sigma, beyond = lc.end_sigma_mm, lc.end_beyond_sigma_mm
    best: _Fit | None = None
    wpx = np.round(halves[None, :] * pitches[:, None] * R).astype(np.int64)     # (pitches, halves)
    ends = a_mm[None, :] + _GROUP * pitches[:, None]                               # (pitches, starts)
    valid = ends <= width + 2 * sigma

    def prior(inside: np.ndarray) -> np.ndarray:
        """A row's end *inside* mm within the corner's edge (negative: beyond it, over the rails)."""
        shares: np.ndarray = 0.5 * (inside / np.where(inside >= 0, sigma, beyond)) ** 2 / (2 * _GROUP)
        return shares

    left_prior = prior(a_mm)
    right_prior = prior(width - ends)
    rows = np.arange(len(pitches))
    span = np.arange(na)[None, :]
    for k, s in enumerate(slopes):
        CL = _combs(prof[k, 0], pitches, R, pad)
        CR = _combs(prof[k, 1], pitches, R, pad)
        Sm = np.empty((len(pitches), na), np.float32)
        jw = np.empty((len(pitches), na), np.int64)
        for pi in range(len(pitches)):
            i0 = (pad - lo - wpx[pi])[:, None] + span               # CL index of a - w, each half base
            v = CL[pi][i0] + CR[pi][i0 + 2 * wpx[pi][:, None]]
            jw[pi] = v.argmax(axis=0)
            Sm[pi] = v.max(axis=0)
        Sm /= 2 * _GROUP
        SL = np.where(valid, Sm - left_prior[None, :], -np.inf)
        SR = np.where(valid, Sm - right_prior, -np.inf)
        run = np.maximum.accumulate(SL, axis=1)
        where = np.maximum.accumulate(np.where(SL >= run, span, 0), axis=1)
        gap = np.ceil((_GROUP * pitches - lc.tolerance_mm) * R).astype(np.int64)  # b >= a + 6p
        ai = span - gap[:, None]
        total = np.where(ai >= 0, run[rows[:, None], np.clip(ai, 0, None)] + SR, -np.inf)
        pi, bi = (int(i) for i in np.unravel_index(int(np.argmax(total)), total.shape))
        score = float(total[pi, bi])
        if best is None or score > best.score:
            li = int(where[pi, ai[pi, bi]])
            best = _Fit(score, float(s), float(pitches[pi]), (float(a_mm[li]), float(a_mm[bi])),
                        (float(halves[jw[pi, li]] * pitches[pi]), float(halves[jw[pi, bi]] * pitches[pi])),
                        (float(Sm[pi, li]), float(Sm[pi, bi])))
    assert best is not None
    return best


def _search(lc: LayoutConfig, G: np.ndarray, width: float, depth: float) -> list[_Fit]:
    """Both long sides' fits: coarse (every other slope, pitch and half
    base, one sample per mm), then fine round the coarse answer."""
    y0 = int(lc.band[0] * depth)
    y1 = max(int(lc.band[1] * depth), y0 + 8)
    R = lc.samples_per_mm
    fits = []
    for flip in (False, True):                    # the top side (points 13..24), the bottom (12..1)
        band = np.ascontiguousarray((G[::-1] if flip else G)[y0:y1])
        s_lo, s_hi = lc.slopes
        slopes = np.arange(s_lo, s_hi + 1e-9, 3 * lc.slope_step)
        pitches = np.arange(lc.pitch[0] * width, lc.pitch[1] * width + 1e-9, 2 * lc.pitch_step_mm)
        halves = np.arange(lc.half_base[0], lc.half_base[1] + 1e-9, 2 * lc.half_base_step)
        fit = _fit_side(lc, _profiles(lc, band, slopes, 1), slopes, pitches, halves, width, 1)
        slopes = np.arange(max(s_lo, fit.slope - lc.slope_step), min(s_hi, fit.slope + lc.slope_step) + 1e-9,
                           lc.slope_step)
        pitches = np.arange(fit.pitch - 2 * lc.pitch_step_mm, fit.pitch + 2 * lc.pitch_step_mm + 1e-9,
                            lc.pitch_step_mm)
        halves = np.arange(lc.half_base[0], lc.half_base[1] + 1e-9, lc.half_base_step)
        fits.append(_fit_side(lc, _profiles(lc, band, slopes, R), slopes, pitches, halves, width, R))
    return fits


def _polish(lc: LayoutConfig, G: np.ndarray, depth: float, flip: bool, fit: _Fit) -> Row:
    """The fit's sides placed one by one: each of the row's 24 sides found
    where its profile (at the fit's slope, neither clipped nor widened)
    peaks near where the fit put it (to a fraction of a sample; a peak
    weaker than ``min_evidence``, or none within reach, leaves the side
    out), and the two groups' starts, the row's pitch and the points' half
    base fitted to them by least squares (twice, the second time without
    the sides more than ``tolerance_mm`` off).  With fewer than two sides in
    a group the search's numbers are kept.  The search steps by half a
    millimetre of pitch, three at a group's far end; this brings the ends
    to a fraction of one."""
    y0 = int(lc.band[0] * depth)
    y1 = max(int(lc.band[1] * depth), y0 + 8)
    band = np.ascontiguousarray((G[::-1] if flip else G)[y0:y1])
    R = lc.samples_per_mm
    sharp = replace(lc, tolerance_mm=0.0, z_range=(lc.z_range[0], 1e6))
    PL, PR = _profiles(sharp, band, np.array([fit.slope]), R)[0]
    n = len(PL)
    # a side may lie up to half the search's pitch step times six from where the search put it
    reach = max(1, int(round((lc.tolerance_mm + 3 * lc.pitch_step_mm) * R)))
    rows, where, weight = [], [], []
    for g in range(2):
        a, p, w = fit.starts[g], fit.pitch, fit.half_base[g]
        for i in range(_GROUP):
            for sign, P in ((-1.0, PL), (1.0, PR)):
                k0 = int(round((a + (i + 0.5) * p + sign * w) * R))
                lo, hi = max(1, k0 - reach), min(n - 2, k0 + reach)
                if hi <= lo:
                    continue
                k = lo + int(np.argmax(P[lo:hi + 1]))
                if P[k] < lc.min_evidence or k in (lo, hi):      # weak, or no peak within reach
                    continue
                below, here, above = P[k - 1], P[k], P[k + 1]
                curve = below - 2 * here + above
                sub = 0.5 * (below - above) / curve if curve < -1e-6 else 0.0
                rows.append([g == 0, g == 1, i + 0.5, sign])
                where.append((k + float(np.clip(sub, -0.5, 0.5))) / R)
                weight.append(min(float(here), lc.z_range[1]))
    A, b, wt = np.array(rows, np.float64).reshape(-1, 4), np.array(where), np.sqrt(np.array(weight))
    placed = (int(A[:, 0].sum()), int(A[:, 1].sum())) if len(A) else (0, 0)
    starts, pitches, halves = fit.starts, (fit.pitch, fit.pitch), fit.half_base
    if min(placed) >= 2 and len(A) >= 6:
        keep = np.ones(len(A), bool)
        for _ in range(2):
            sol = np.linalg.lstsq(A[keep] * wt[keep, None], b[keep] * wt[keep], rcond=None)[0]
            keep = np.abs(A @ sol - b) <= max(lc.tolerance_mm, 0.5)
            if keep[A[:, 0] > 0].sum() < 2 or keep[A[:, 1] > 0].sum() < 2:
                break
        if abs(sol[2] - fit.pitch) <= 2 * lc.pitch_step_mm and max(abs(sol[0] - fit.starts[0]),
                                                                   abs(sol[1] - fit.starts[1])) <= reach / R + 1:
            starts, pitches = (float(sol[0]), float(sol[1])), (float(sol[2]), float(sol[2]))
            halves = (float(abs(sol[3])), float(abs(sol[3])))
    # the profiles place each side where it crosses the band's first row, y0 from the edge: its base at
    # the edge lies slope * y0 further out
    out = fit.slope * y0
    return Row(starts, pitches, (halves[0] + out, halves[1] + out), fit.slope, fit.evidence, placed)


# ------------------------------------------------------------------ 4: the two long sides together
def _centres(fit: _Fit) -> list[float]:
    return [s + (i + 0.5) * fit.pitch for s in fit.starts for i in range(_GROUP)]


def _mismatch(top: Sequence[float], bottom: Sequence[float]) -> float:
    """How far the two rows' points lie apart across the board once one row
    is shifted and stretched onto the other (what corners marked a little
    off along the board do to them; what is left is a group a point off)."""
    A = np.c_[np.asarray(top, np.float64), np.ones(len(top))]
    b = np.asarray(bottom, np.float64)
    sol, *_ = np.linalg.lstsq(A, b, rcond=None)
    return float(np.abs(A @ sol - b).max())


def _reconcile(lc: LayoutConfig, G: np.ndarray, width: float, depth: float, top: _Fit,
               bottom: _Fit) -> tuple[_Fit, _Fit]:
    """Where the two long sides do not match, each group tried one point
    either way too (its outer point hidden under men, a group slides onto a
    bar or a border as wide as a point): of the four groups' placings whose
    rows match (``_mismatch`` within ``max_disagree_mm``) and do not
    overlap, the one with the most evidence less the ends' prior.  None
    matching: the fits as they were."""
    y0 = int(lc.band[0] * depth)
    y1 = max(int(lc.band[1] * depth), y0 + 8)
    R = lc.samples_per_mm
    options = []                                      # per row: [(starts, score) for each pair of shifts]
    for flip, fit in ((False, top), (True, bottom)):
        band = np.ascontiguousarray((G[::-1] if flip else G)[y0:y1])
        PL, PR = _profiles(lc, band, np.array([fit.slope]), R)[0]
        xs = np.arange(len(PL)) / R

        def group(start: float, w: float) -> float:
            c = start + (np.arange(_GROUP) + 0.5) * fit.pitch
            return float((np.interp(c - w, xs, PL, left=0, right=0) + np.interp(c + w, xs, PR, left=0, right=0)).sum()
                         / (2 * _GROUP))

        def prior(inside: float) -> float:
            return 0.5 * (inside / (lc.end_sigma_mm if inside >= 0 else lc.end_beyond_sigma_mm)) ** 2 / (2 * _GROUP)

        row = []
        for kl in (-1, 0, 1):
            for kr in (-1, 0, 1):
                a, b = fit.starts[0] + kl * fit.pitch, fit.starts[1] + kr * fit.pitch
                if b < a + _GROUP * fit.pitch - lc.tolerance_mm:
                    continue
                score = (group(a, fit.half_base[0]) - prior(a) + group(b, fit.half_base[1])
                         - prior(width - b - _GROUP * fit.pitch))
                row.append(((a, b), score))
        options.append(row)
    best, chosen = -np.inf, None
    for (ts, tscore) in options[0]:
        for (bs, bscore) in options[1]:
            t_fit = replace(top, starts=ts)
            b_fit = replace(bottom, starts=bs)
            if _mismatch(_centres(t_fit), _centres(b_fit)) <= lc.max_disagree_mm and tscore + bscore > best:
                best, chosen = tscore + bscore, (t_fit, b_fit)
    return chosen if chosen is not None else (top, bottom)


def confirms(config: VisionConfig, image: np.ndarray, corners: Corners, layout: BoardLayout) -> bool:
    """Whether *image* still shows the points of *layout* (found before with
    these corners): every group's sides where the layout has them, with at
    least ``min_evidence`` (a tenth of finding it again: one slope per side,
    no search).  Another board under a camera whose corners did not move
    fails it."""
    if not layout.found or len(layout.rows) != 2:
        return False
    lc = config.layout
    width, depth = float(config.surface_width), float(config.surface_depth)
    G = _gradient(config, image, corners_array(corners), width, depth)
    y0 = int(lc.band[0] * depth)
    y1 = max(int(lc.band[1] * depth), y0 + 8)
    R = lc.samples_per_mm
    for flip, row in ((False, layout.rows[0]), (True, layout.rows[1])):
        band = np.ascontiguousarray((G[::-1] if flip else G)[y0:y1])
        PL, PR = _profiles(lc, band, np.array([row.slope]), R)[0]
        xs = np.arange(len(PL)) / R
        for g in range(2):
            w = row.half_base[g] - row.slope * y0                 # where the sides cross the band's first row
            c = row.starts[g] + (np.arange(_GROUP) + 0.5) * row.pitches[g]
            score = (np.interp(c - w, xs, PL, left=0, right=0) + np.interp(c + w, xs, PR, left=0, right=0)).mean() / 2
            if score < lc.min_evidence:
                return False
    return True


# ------------------------------------------------------------------ 4, 5, 6: the layout (6: surface_depth.py)
def find_layout(config: VisionConfig, image: np.ndarray, corners: Corners) -> BoardLayout:
    """Where this board's points, bar and men are (the module's docstring),
    in mm of the frame *corners* give; the configured proportions, with a
    note, where the picture shows nothing certain."""
    t0 = time.perf_counter()
    lc = config.layout
    c = corners_array(corners)
    width, depth = float(config.surface_width), float(config.surface_depth)
    G = _gradient(config, image, c, width, depth)
    top, bottom = _search(lc, G, width, depth)

    def ms() -> float:
        return (time.perf_counter() - t0) * 1000

    weakest = min(top.evidence + bottom.evidence)
    if weakest < lc.min_evidence:
        return _fallback(config, f"the clearest group of six shows only {weakest:.1f} spreads per side, "
                                 f"less than {lc.min_evidence:g}", ms())
    if _mismatch(_centres(top), _centres(bottom)) > lc.max_disagree_mm:
        top, bottom = _reconcile(lc, G, width, depth, top, bottom)
    rows = tuple(_polish(lc, G, depth, flip, f) for flip, f in ((False, top), (True, bottom)))
    top_c, bottom_c = rows[0].centres(), rows[1].centres()
    disagree = _mismatch(top_c, bottom_c)
    if disagree > lc.max_disagree_mm:
        return _fallback(config, f"the two long sides' points do not match across the board (up to "
                                 f"{disagree:.0f} mm apart, beyond a shift and a stretch)", ms())
    centres = [0.0] * 24
    for i in range(12):
        centres[12 + i] = top_c[i]                # point 13 + i
        centres[11 - i] = bottom_c[i]             # point 12 - i
    bar = tuple(float(np.mean([r.bar[k] for r in rows])) for k in (0, 1))
    pitch = float(np.mean([r.pitch for r in rows]))
    half = float(np.mean([w for r in rows for w in r.half_base]))
    slope = float(np.mean([r.slope for r in rows]))
    # the surface's true depth, in the units of its width (the points' length with it)
    k, depth_from, notes = depth_from_camera(lc, image, c, width, depth, pitch)
    return BoardLayout(tuple(centres), (bar[0], max(bar)), pitch, min(2 * half, pitch), half / slope * k,
                       lc.men_share * pitch, width, depth * k, True, rows, notes, millis=ms(),
                       depth_from=depth_from)
