"""The board's look, as the reader learns it from a picture: the bare
board's colours where its layout puts them and the men's colours
(:class:`BoardModel`, :func:`learn_board`), kept from a calibration photo
(:class:`Look`), and each pixel's evidence of board, light man or dark man
(:func:`evidence`). The reader (``reader.py``) reads every frame with them.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses

from collections.abc import Iterable
from functools import lru_cache
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from . import scalar_ops
from .board_head import BoardHead
from .bare_board import (AROUND, BAR, FIELD, POINT_EVEN, POINT_ODD, REGIONS, bare_board_regions, outline_pixels,
                         point_outline)
from .board_noise import RowNoise
from .board_layout import BoardLayout
from .config import VisionConfig
from .geometry import BoardGeometry

__all__ = ["Man", "BoardModel", "Look", "learn_board", "evidence"]


@dataclass(frozen=True)
class Man:
    """One round man-top found on the rectified board (mm)."""

    x: float
    y: float
    radius: float
    colour: str = "?"
    location: str = "?"


# ------------------------------------------------------------------ the board's look
@dataclass
class BoardModel:
    """The bare board's colours (Lab) where the layout puts them, and the men's."""

    expected: np.ndarray          # rectified Lab image of the bare board
    men: dict[str, np.ndarray]    # colour -> Lab of that colour's men
    field: np.ndarray | None = None   # Lab of the open field
    points: tuple[np.ndarray, np.ndarray] | None = None   # Lab of odd, even points
    bar: np.ndarray | None = None


# 8-bit Lab (L 0..255, a and b offset by 128) to CIE Lab (L 0..100), as one affine map per pixel
_LAB8_TO_LAB = np.array([[100.0 / 255.0, 0, 0, 0], [0, 1, 0, -128.0], [0, 0, 1, -128.0]], np.float32)


def _lab(rect: np.ndarray, lab8: np.ndarray | None = None) -> np.ndarray:
    """CIE Lab (L 0..100), from the 8-bit conversion (a table lookup, fast;
    *lab8* where it was made already), rescaled in one pass
    (``cv2.transform``: a third of numpy's time)."""
    if lab8 is None:
        lab8 = cv2.cvtColor(rect, cv2.COLOR_BGR2Lab)
    return cv2.transform(lab8.astype(np.float32), _LAB8_TO_LAB)


@dataclass(frozen=True)
class _Layout:
    regions: np.ndarray                 # rectified image of region numbers
    regions3: np.ndarray                # the same in three channels (what the palette's lookup takes)
    tips: tuple[np.ndarray, ...]        # flat pixel indices of each point's tip half
    field: np.ndarray                   # flat indices: the open field (not the bar)
    bar: np.ndarray
    around: np.ndarray                  # the margin round the playing surface


@lru_cache(maxsize=8)
def _layout(config: VisionConfig, margin: float) -> _Layout:
    """Where the layout puts each part of the bare board, in rectified pixels
    (the same for every frame of a board: computed once)."""
    geometry = BoardGeometry(config)
    s = config.scale
    regions = bare_board_regions(config, margin)
    h, w = regions.shape
    rc = config.reader
    tips = []
    for p in range(1, 25):
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, outline_pixels(point_outline(geometry, p, (rc.tip_from, rc.tip_to)), s, margin), 1)
        tips.append(np.flatnonzero(mask))
    field = np.zeros((h, w), bool)
    c = config
    clear = rc.field_clear_mm
    field[int((c.point_length + clear + margin) * s):int((geometry.depth - c.point_length - clear + margin) * s), :] = True
    field &= regions == FIELD
    # the field, the bar and the margin are large: every n-th pixel gives the same median
    k = rc.sample_step
    return _Layout(regions, cv2.merge([regions] * 3), tuple(tips), np.flatnonzero(field)[::k],
                   np.flatnonzero(regions == BAR)[::k], np.flatnonzero(regions == AROUND)[::k])


@dataclass(frozen=True)
class Look:
    """What calibration learns of one board from a photo (of the starting
    position, or of the empty board): the Lab colours of each colour of men
    (absent if no men were in the photo), of the two kinds of point, of the
    field and of the bar; and the frame round the surface as the photo shows
    it (``occlusion.rails_picture``), so that the check for a hand across the
    frame knows this board's own look.  Stored in the calibration file
    (``to_json``; the frame's picture as a PNG, base64)."""

    men: dict[str, tuple[float, float, float]]
    points: tuple[tuple[float, float, float], tuple[float, float, float]]
    field: tuple[float, float, float]
    bar: tuple[float, float, float]
    # (dataclasses.field: the bare name would be the attribute ``field`` above)
    rails: np.ndarray | None = dataclasses.field(default=None, compare=False, repr=False)
    #: where this board's points, bar and men were found in the photo
    #: (``board_layout.find_layout``, in the frame of the corners calibrated);
    #: every read of the board uses it.  None: a look saved before layouts were found
    layout: BoardLayout | None = dataclasses.field(default=None, compare=False, repr=False)
    #: what the point reader learnt of this board (``board_head``): from the calibration photo where its
    #: board is known (the start), and from every frame the referee settled since; None: nothing learnt
    head: BoardHead | None = dataclasses.field(default=None, compare=False, repr=False)
    #: this board's own noise in the comparison with the frame before (``board_noise``), learnt from every
    #: turn the referee settled; None: nothing learnt
    noise: RowNoise | None = dataclasses.field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        def r(v: Iterable[float]) -> list[float]:
            return [round(float(x), 2) for x in v]

        doc: dict[str, Any] = {"format": "willughby-look/1", "men": {k: r(v) for k, v in self.men.items()},
                               "points": [r(p) for p in self.points], "field": r(self.field), "bar": r(self.bar)}
        if self.layout is not None:
            doc["layout"] = self.layout.to_json()
        if self.head is not None:
            doc["head"] = self.head.to_json()
        if self.noise is not None:
            doc["noise"] = self.noise.to_json()
        if self.rails is not None:
            ok, png = cv2.imencode(".png", self.rails)
            if ok:
                doc["rails_png"] = base64.b64encode(png.tobytes()).decode("ascii")
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> "Look":
        from .errors import CalibrationError, VisionError
        try:
            if doc.get("format") != "willughby-look/1":
                raise ValueError("not a willughby-look/1 object")

            def trip(v: Iterable[Any]) -> tuple[float, ...]:
                return tuple(float(x) for x in v)

            men = {k: trip(v) for k, v in doc["men"].items()}
            if set(men) - {"light", "dark"} or any(len(v) != 3 for v in men.values()):
                raise ValueError("men must map light/dark to three numbers")
            points = tuple(trip(p) for p in doc["points"])
            rails = None
            if doc.get("rails_png") is not None:
                raw = np.frombuffer(base64.b64decode(doc["rails_png"], validate=True), np.uint8)
                rails = cv2.imdecode(raw, cv2.IMREAD_COLOR) if raw.size else None
                if rails is None:
                    raise ValueError("rails_png is not a PNG picture")
            layout = None if doc.get("layout") is None else BoardLayout.from_json(doc["layout"])
            head = None if doc.get("head") is None else BoardHead.from_json(doc["head"])
            noise = None if doc.get("noise") is None else RowNoise.from_json(doc["noise"])
            field, bar = trip(doc["field"]), trip(doc["bar"])
            if len(points) != 2 or any(len(p) != 3 for p in points) or len(field) != 3 or len(bar) != 3:
                raise ValueError("points, field and bar must be Lab colours")
            return cls({k: _lab3(v) for k, v in men.items()}, (_lab3(points[0]), _lab3(points[1])), _lab3(field),
                       _lab3(bar), rails, layout, head, noise)
        except (AttributeError, KeyError, TypeError, ValueError, binascii.Error, VisionError) as exc:
            raise CalibrationError(f"the calibration's colours are not a board look: {exc}") from None


def _lab3(v: Iterable[float]) -> tuple[float, float, float]:
    """A Lab colour's three numbers, as floats."""
    l_, a, b = (float(x) for x in v)
    return l_, a, b


def _lighter_group(arr: np.ndarray) -> np.ndarray:
    """Which of the colours *arr* (Lab, at least two) form the lighter of
    two groups: of every cut of them ordered by lightness, the one whose two
    groups lie closest round their means (least sum of squares).  The men's
    two colours differ above all in lightness, so this is the best split
    into two groups there is, and the same every time: k-means from random
    starts (as this was before) now and then stopped at a worse one, so a
    frame read twice could be read two ways."""
    order = np.argsort(arr[:, 0], kind="stable")
    x = arr[order].astype(np.float64)
    n = len(x)
    c1, c2 = np.cumsum(x, axis=0), np.cumsum(x * x, axis=0)
    best_cut, best = 1, np.inf
    for k in range(1, n):                     # the k darkest, and the rest
        lo = (c2[k - 1] - c1[k - 1] ** 2 / k).sum()
        hi_sum, hi_sq = c1[-1] - c1[k - 1], c2[-1] - c2[k - 1]
        hi = (hi_sq - hi_sum ** 2 / (n - k)).sum()
        if lo + hi < best - 1e-9:
            best_cut, best = k, lo + hi
    lighter = np.zeros(n, bool)
    lighter[order[best_cut:]] = True
    return lighter


def _men_colours(samples: list[np.ndarray], look: Look | None,
                 config: VisionConfig | None = None) -> dict[str, np.ndarray]:
    """The two colours of men, from the middles of the round tops found.
    Two clearly different groups are the two colours; otherwise there is
    one colour on the board, and the calibrated look (or, without one, its
    lightness) says which."""
    rc = (config or VisionConfig.default()).reader
    known = {k: np.array(v, np.float32) for k, v in (look.men if look else {}).items()}

    def nearest(colour: np.ndarray) -> str:
        if len(known) == 2:
            return min(known, key=lambda k: float(np.linalg.norm(colour - known[k])))
        return "light" if colour[0] >= rc.light_from else "dark"

    out: dict[str, np.ndarray] = {}
    if len(samples) >= 2:
        arr = np.array(samples, np.float32)
        lighter = _lighter_group(arr)
        centres = np.array([arr[lighter].mean(axis=0), arr[~lighter].mean(axis=0)])
        two = abs(float(centres[0, 0] - centres[1, 0])) >= rc.two_colours_apart
        if (two and len(known) == 2 and nearest(centres[0]) == nearest(centres[1])
                and np.linalg.norm(centres[0] - centres[1]) < np.linalg.norm(known["light"] - known["dark"])):
            # one colour, in light and shade: both groups nearest one calibrated colour, and nearer each
            # other than the calibrated light and dark men are (two groups further apart than that are two
            # colours, whatever a calibration photo that missed one colour's men says)
            two = False
        if two:
            out["light"] = np.median(arr[lighter], axis=0)
            out["dark"] = np.median(arr[~lighter], axis=0)
        else:
            only = np.median(arr, axis=0)
            out[nearest(only)] = only
    elif samples:
        only = np.array(samples[0], np.float32)
        out[nearest(only)] = only
    for k, v in known.items():             # a colour not on the board: as calibrated
        out.setdefault(k, v)
    return out


def _lut(palette: np.ndarray) -> np.ndarray:
    lut = np.zeros((1, 256, 3), np.float32)
    lut[0, :len(palette)] = palette
    return lut


def _median_where(flat_lab: np.ndarray, idx: np.ndarray, free: np.ndarray, least: int) -> np.ndarray:
    """The median colour of the pixels *idx* not under a man (all of them
    where fewer than *least* are free): each channel's middle value found by
    partitioning a contiguous row (a sixth of ``np.median``'s time on a point's
    tip; the same values)."""
    sel = idx[free[idx]]
    v = np.ascontiguousarray(flat_lab[sel if sel.size >= least else idx].T)
    n = v.shape[1]
    if n == 0:
        return np.full(v.shape[0], np.nan, v.dtype)
    k = n // 2
    if n % 2:
        return np.partition(v, k, axis=1)[:, k]
    part = np.partition(v, (k - 1, k), axis=1)
    return (part[:, k - 1] + part[:, k]) / 2


def learn_board(config: VisionConfig, lab: np.ndarray, men: list[Man], margin: float = 0.0,
                look: Look | None = None) -> BoardModel:
    """Learn the bare board's look and the men's colours from this picture;
    *look*, what calibration learnt of this board, says which colour is
    which when the picture alone cannot (one colour of men, or none, on the
    board)."""
    s = config.scale
    rc = config.reader
    h, w = lab.shape[:2]
    layout = _layout(config, margin)
    men_mask = np.zeros((h, w), np.uint8)
    for m in men:
        cv2.circle(men_mask, (int((m.x + margin) * s), int((m.y + margin) * s)), int(m.radius * s * rc.men_mask_radius),
                   255, -1)
    free = (men_mask == 0).ravel()
    flat = lab.reshape(-1, 3)
    # the points: their tip halves, where men seldom lie; points alternate in
    # colour along the track, so a point's parity is its colour
    tips = np.array([_median_where(flat, idx, free, rc.least_tip_pixels) for idx in layout.tips], np.float32)
    parity = np.array([p % 2 for p in range(1, 25)])
    palette = np.zeros((REGIONS, 3), np.float32)
    for k in (0, 1):
        palette[(POINT_EVEN, POINT_ODD)[k]] = np.median(tips[parity == k], axis=0)
    least = rc.least_region_pixels
    palette[FIELD] = _median_where(flat, layout.field, free, least)
    # a board with no bar (two halves hinged edge to edge) has no bar's colour: the field's stands for it
    palette[BAR] = _median_where(flat, layout.bar, free, least) if layout.bar.size else palette[FIELD]
    palette[AROUND] = _median_where(flat, layout.around, free, least) if layout.around.size else palette[FIELD]
    expected = cv2.LUT(layout.regions3, _lut(palette))
    # the men's colours: the middle of each round top, in two groups
    samples = []
    for m in men:
        x, y, rr = int((m.x + margin) * s), int((m.y + margin) * s), max(2, int(m.radius * s * rc.top_middle))
        patch = lab[max(0, y - rr):y + rr + 1, max(0, x - rr):x + rr + 1]
        if patch.size:
            samples.append(patch.reshape(-1, 3).mean(axis=0))
    men_colours = _men_colours(samples, look, config)
    return BoardModel(expected, men_colours, palette[FIELD].copy(),
                      (palette[POINT_EVEN].copy(), palette[POINT_ODD].copy()), palette[BAR].copy())


def _distance(lab: np.ndarray, ref: np.ndarray, lightness_weight: float = 0.5,
              cap: float | None = None, scratch: np.ndarray | None = None) -> np.ndarray:
    """Per pixel, the Lab distance to *ref*, a colour or an image, lightness
    counting *lightness_weight* (``ReaderConfig.lightness_weight``: shading moves it),
    and no more than *cap* where given.  Each step writes over the one
    before, and *scratch* (an array like *lab*) takes the differences where
    given: a frame's worth of fresh memory costs more than the arithmetic."""
    weights = np.array([[lightness_weight, 1.0, 1.0]], np.float32)
    if ref.shape != lab.shape:                  # one colour: subtract it as a scalar
        r = np.asarray(ref, np.float64).ravel()
        d = scalar_ops.subtract(lab, (float(r[0]), float(r[1]), float(r[2]), 0.0), dst=scratch)
    else:
        d = cv2.subtract(lab, ref, dst=scratch)
    cv2.multiply(d, d, dst=d)
    out = cv2.transform(d, weights)
    cv2.sqrt(out, dst=out)
    if cap is not None:
        scalar_ops.minimum(out, cap, dst=out)
    return out


def evidence(lab: np.ndarray, model: BoardModel, config: VisionConfig | None = None) -> dict[str, np.ndarray]:
    """Per pixel and colour: how much better a man of that colour explains it than the board."""
    rc = (config or VisionConfig.default()).reader
    cap, lw = rc.distance_cap, rc.lightness_weight
    scratch = np.empty_like(lab)
    d_bg = _distance(lab, model.expected, lw, cap, scratch)
    d_men = {c: _distance(lab, ref, lw, cap, scratch) for c, ref in model.men.items()}
    out = {}
    for colour, d_c in d_men.items():
        rival = d_bg
        for other, d_o in d_men.items():
            if other != colour:
                rival = cv2.min(rival, d_o)
        diff: np.ndarray = cv2.subtract(rival, d_c, dst=None if rival is d_bg else rival)
        scalar_ops.multiply(diff, rc.evidence_scale, dst=diff)
        np.clip(diff, -rc.evidence_clip, rc.evidence_clip, out=diff)
        diff -= rc.evidence_bias
        out[colour] = diff
    return out


