"""The surface's depth against its width.

Four corners say where the playing surface is, not how deep it is against
its width.  Two things in the picture do (each a function of the
configuration and what was seen, as every stage of the reader is; their
numbers in ``LayoutConfig``):

**The camera** (``depth_from_camera``).  Where the corners' perspective
fixes the camera's focal length (square pixels, the principal point at the
middle), it also fixes the true proportion (``camera_aspect``), and that is
used when it is one a board can have (``aspect``), clearly not the
configured one (beyond ``aspect_tolerance``: the estimate scatters by a few
per cent, and a board read a few per cent too deep or shallow reads worse
than at the configured proportion) and the men agree: more of their round
tops look round (``round_tops``) at the camera's proportion than at the
configured one (a lens or a crop that moved the picture's middle misleads
the camera's estimate; a man's top is round on every board).

**The men** (``depth_from_men``), where the camera does not say (a photo
stretched after it was taken, a crop, a lens that moved the picture's
middle), since a board deeper or shallower than the configured proportions
is otherwise read with its men squashed or drawn out along the points, and
the point reader counts a column by how far along its point the men reach:
a column of five squashed by a tenth reads as four, or none.  But men on a
point stand in a line, each touching the next: along the point they repeat
every man's diameter, on every board and under every camera.

1. In the rectified surface at the layout found (the reader's
   ``Observation``), each point's middle (``period_band`` of the point's
   width) is followed from the board's edge toward the middle
   (``period_reach`` of the depth); where men of either colour are seen
   (the reader's evidence of men) with no gap longer than ``period_gap``
   of a diameter, for at least ``column_men`` men's diameters, that run is
   a column.
2. The picture's change along the point there (``|dL / dy|``: the men's
   rims and the gaps between them) is compared with itself shifted
   (autocorrelation); its strongest repeat between ``period_range`` men's
   diameters, where it is at least ``period_strength``, is that column's
   period (to a tenth of a pixel, from the peak's parabola).
3. The depth is set so the columns' median period is a man's diameter as
   the reader expects it (``man_diameter``, ``men_share`` of the pitch):
   the depth times that over the period, kept within the depths a board can
   have (``aspect``).  With no column, or none whose repeat is clear, the
   depth stays as it was.

The men's diameter across the point is taken as the configured share of
the pitch, not measured: what the point reader needs is a man's length
along the point as it learnt it, which is what this sets.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from .config import LayoutConfig, VisionConfig

if TYPE_CHECKING:                       # board_layout imports this module
    from .board_layout import BoardLayout

__all__ = ["ColumnPeriod", "DEPTH_FROM", "camera_aspect", "column_periods", "depth_from_camera", "depth_from_men",
           "round_tops"]

#: where a layout's depth came from: the corners' perspective, the men's columns, or the configured proportions
DEPTH_FROM = ("camera", "men", "configured")
#: how a note saying the configured proportions were kept begins (the men's depth replaces it)
_CONFIGURED = "the surface's depth is the configured proportions': "


# ------------------------------------------------------------------ the camera
def camera_aspect(corners: np.ndarray, image_size: tuple[int, int], width: float, depth: float) -> float | None:
    """The surface's depth over its width, from the perspective of its four
    corners, or None where they do not fix it.  The corners' homography onto
    a ``width`` x ``depth`` frame is ``K [r1 r2 t]`` with each column scaled
    by how far the frame's unit is from the true one along it; with square
    pixels and the principal point at the picture's middle, r1 and r2 being
    orthogonal gives the focal length (where the view is not straight down),
    and their being of equal length then gives the true proportion.  A
    picture whose pixels were stretched after it was taken breaks this, and
    is usually seen in no focal length fitting the orthogonality."""
    src = np.array([[width, depth], [0, depth], [0, 0], [width, 0]], np.float32)
    H = cv2.getPerspectiveTransform(src, corners.astype(np.float32)).astype(np.float64)
    w, h = image_size
    a = H.copy()
    a[0] -= w / 2.0 * H[2]
    a[1] -= h / 2.0 * H[2]
    a1, a2 = a[:, 0], a[:, 1]
    den = a1[2] * a2[2]
    if abs(den) < 1e-15:
        return None
    f2 = -(a1[0] * a2[0] + a1[1] * a2[1]) / den
    if not (0.5 * w) ** 2 <= f2 <= (5.0 * w) ** 2:
        return None
    n1 = np.sqrt((a1[0] ** 2 + a1[1] ** 2) / f2 + a1[2] ** 2)
    n2 = np.sqrt((a2[0] ** 2 + a2[1] ** 2) / f2 + a2[2] ** 2)
    return float(depth / width * n2 / n1)


def round_tops(lc: LayoutConfig, image: np.ndarray, corners: np.ndarray, width: float, depth: float,
               radius: float) -> int:
    """How many round tops of a man's size (*radius*, mm) the surface shows
    rectified onto a *width* x *depth* frame (a man's top is a circle
    whichever way it is seen: it looks round only at the true proportion)."""
    dst = np.array([[width, depth], [0, depth], [0, 0], [width, 0]], np.float32)
    H = cv2.getPerspectiveTransform(corners.astype(np.float32), dst)
    rect = cv2.warpPerspective(image, H, (int(round(width)), int(round(depth))), flags=cv2.INTER_LINEAR)
    grey = cv2.GaussianBlur(cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY), (0, 0), lc.smooth_px)
    found = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, dp=1, minDist=0.8 * radius, param1=80,
                             param2=lc.round_votes, minRadius=int(0.8 * radius), maxRadius=int(np.ceil(1.3 * radius)))
    return 0 if found is None else len(found[0])


def depth_from_camera(lc: LayoutConfig, image: np.ndarray, corners: np.ndarray, width: float, depth: float,
                      pitch: float) -> tuple[float, str, tuple[str, ...]]:
    """How much deeper than *depth* (the configured frame's) the surface is
    by the camera, where it says (the module's docstring): (factor, where
    the depth came from, notes); (1.0, "configured", why) where it does not."""
    notes: list[str] = []
    aspect = camera_aspect(corners, (image.shape[1], image.shape[0]), width, depth) if lc.aspect_from_camera else None
    if aspect is None or not lc.aspect[0] <= aspect <= lc.aspect[1]:
        notes.append(_CONFIGURED
                     + ("the corners' perspective does not fix it" if aspect is None else
                        f"the corners' perspective makes it {aspect:.2f} of the width, which no board is"))
        return 1.0, "configured", tuple(notes)
    if abs(aspect * width / depth - 1) <= lc.aspect_tolerance:
        return 1.0, "camera", ()                 # the camera's proportion is the configured one
    # the men's round tops must agree: more of them look round at the camera's proportion
    radius = lc.men_share * pitch / 2
    at_camera = round_tops(lc, image, corners, width, depth * aspect * width / depth, radius)
    at_configured = round_tops(lc, image, corners, width, depth, radius)
    if at_camera > at_configured:
        return aspect * width / depth, "camera", ()
    return 1.0, "configured", (_CONFIGURED + f"the corners' perspective "
                               f"makes it {aspect:.2f} of the width, but the men look no rounder so "
                               f"({at_camera} round tops against {at_configured})",)


# ------------------------------------------------------------------ the men

@dataclass(frozen=True)
class ColumnPeriod:
    """A column of men on one point: the point, how far its men reach from
    the edge (mm) and how far apart they repeat along it (mm), and how
    clearly (the autocorrelation's peak, 0..1)."""

    point: int
    length_mm: float
    period_mm: float
    strength: float


def _repeat(profile: np.ndarray, lo: int, hi: int) -> tuple[float, float] | None:
    """The strongest repeat of *profile* between lags *lo* and *hi*
    (samples): (lag, autocorrelation there), the lag refined by the peak's
    parabola; None where it lies at the range's ends or the profile is flat."""
    p = profile - profile.mean()
    energy = float(np.dot(p, p))
    hi = min(hi, len(p) - 2)
    if energy <= 1e-9 or hi <= lo + 1:
        return None
    ac = np.correlate(p, p, "full")[len(p) - 1:] / energy
    i = lo + int(np.argmax(ac[lo:hi + 1]))
    if i <= lo or i >= hi:
        return None
    a, b, c = float(ac[i - 1]), float(ac[i]), float(ac[i + 1])
    bend = a - 2 * b + c
    return (i + (0.5 * (a - c) / bend if bend < 0 else 0.0)), b


def column_periods(obs: Any) -> list[ColumnPeriod]:
    """The columns of men in *obs* (a reader's ``Observation`` at the
    layout found) and how far apart their men repeat along their points."""
    config: VisionConfig = obs.config or VisionConfig.default()
    lc = config.layout
    geometry = obs.geometry
    s, margin = config.scale, obs.margin
    diameter = config.man_diameter * s                     # px
    L = np.ascontiguousarray(obs.lab[..., 0])
    along = np.abs(cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3))
    men = np.max(np.stack([obs.llr[c] for c in sorted(obs.llr)]), axis=0) if obs.llr else None
    if men is None:
        return []
    h, w = L.shape
    span = int(lc.period_reach * geometry.depth * s)
    lo, hi = (int(np.floor(f * diameter)) for f in lc.period_range)
    gap = max(1, int(round(lc.period_gap * diameter)))
    found = []
    for p in range(1, 25):
        xc = (geometry.point_centre_x(p) + margin) * s
        half = lc.period_band * config.point_width * s / 2
        x0, x1 = max(0, int(xc - half)), min(w, int(np.ceil(xc + half)))
        if x1 - x0 < 2:
            continue
        if geometry.is_top(p):
            y0 = int(round(margin * s))
            rows = slice(y0, min(h, y0 + span))
        else:
            y1 = int(round((margin + geometry.depth) * s))
            rows = slice(max(0, y1 - span), min(h, y1))
        profile = along[rows, x0:x1].mean(axis=1)
        seen = men[rows, x0:x1].mean(axis=1) > 0
        if not geometry.is_top(p):                          # from the edge inward
            profile, seen = profile[::-1], seen[::-1]
        n = 0                                               # the column: men from the edge, gaps shorter than *gap*
        while n < len(seen) and seen[n:n + gap].any():
            n += 1
        if n < lc.column_men * diameter:
            continue
        rep = _repeat(profile[:n], lo, hi)
        if rep is not None and rep[1] >= lc.period_strength:
            found.append(ColumnPeriod(p, n / s, rep[0] / s, round(rep[1], 3)))
    return found


def depth_from_men(layout: "BoardLayout", obs: Any) -> "BoardLayout":
    """*layout* with its depth (and its points' length) set so that the men
    of the columns in *obs* (read at *layout*'s configuration) repeat along
    their points every man's diameter; *layout* itself where no column is
    clear.  The result's ``depth_from`` is ``"men"``, and a note says what
    was measured."""
    config: VisionConfig = obs.config or VisionConfig.default()
    columns = column_periods(obs)
    if not columns:
        return layout
    period = float(np.median([c.period_mm for c in columns]))
    k = config.man_diameter / period
    lo, hi = config.layout.aspect
    k = float(np.clip(k * layout.depth / layout.width, lo, hi) * layout.width / layout.depth)
    note = (f"the surface's depth from the men's columns: {len(columns)} column(s) repeat every "
            f"{period:.1f} mm along the point where a man is {config.man_diameter:.0f} mm wide, so the "
            f"surface is {k:.2f} times as deep as the configured proportions'")
    notes = tuple(n for n in layout.notes if not n.startswith(_CONFIGURED)) + (note,)
    return replace(layout, depth=layout.depth * k, point_length=layout.point_length * k, depth_from="men",
                   notes=notes)
