"""Labelled synthetic camera frames of a tables board, for developing and
evaluating the board reader on many more images than the dev set holds.

A scene is a small 3D world: a table (cloth or wood), a wooden board on it
(a raised frame around the 530 x 450 mm playing surface, a raised bar, 24
points in two colours on a field), men as flat cylinders lying in rows, in
second layers or in piles, 0-2 dice, and sometimes a forearm and hand over
the board.  A pinhole camera looks down on it from straight above to 35
degrees of tilt; every solid is projected with the camera and painted far to
near (the order comes from separating planes between the solids), shaded by
one directional light, with soft shadows and a light fall-off, then given
camera effects: vignetting, slight blur, sensor noise and a JPEG round trip.

The label is the dev set's (``docs/vision-labels.md``): a board/1
document (``light``, ``dark``, ``bar``, ``off``, ``stacked``) plus
``corners`` (the exact projections of the playing-surface corners C1..C4 at
surface height), ``image_size``, ``occluded``, ``dice``, ``position_kind``
and ``style`` (the rendering parameters: for analysing failures, never for
the reader).

>>> import numpy as np
>>> image, label = render(np.random.default_rng(7), SceneSpec(image_size=(640, 360)))
>>> image.shape, label["format"], label["image_size"]
((360, 640, 3), 'board/1', [640, 360])

From the command line::

    python -m willughby.vision.synth OUTDIR --count 200 --seed 1
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import cv2
import numpy as np

from willughby.engine.position import Position

from .config import VisionConfig
from .geometry import BoardGeometry

__all__ = [
    "SceneSpec",
    "ScenePlan",
    "plan_scene",
    "SynthError",
    "render",
    "render_jpeg",
    "write_dataset",
    "main",
    "POSITION_KINDS",
    "WOODS",
    "FIELDS",
    "POINT_COLOURS",
    "MEN_COLOURS",
    "TABLES",
    "LIGHTINGS",
]

MEN_PER_SIDE = 15
POSITION_KINDS = ("random", "backgammon_start", "doublets_start", "doublets_played")
_IMAGE_KEYS = ("corners", "image_size", "occluded", "dice", "position_kind", "style")


class SynthError(ValueError):
    """A scene that cannot be drawn (names the bad value)."""


# --------------------------------------------------------------- palettes
# Colours are sRGB (r, g, b) as the lit surface should come out in the
# picture; they were matched by eye and by sampling to the dev images.

WOODS: dict[str, dict[str, Any]] = {
    "walnut": {"light": (168, 130, 96), "dark": (112, 80, 56), "kind": "grain"},
    "cherry": {"light": (200, 150, 104), "dark": (152, 102, 66), "kind": "grain"},
    "light_oak": {"light": (210, 192, 158), "dark": (170, 144, 108), "kind": "grain"},
    "maple": {"light": (224, 204, 168), "dark": (198, 172, 132), "kind": "grain"},
    "mahogany": {"light": (140, 78, 54), "dark": (96, 50, 34), "kind": "grain"},
    "tan_leather": {"light": (190, 162, 128), "dark": (164, 136, 104), "kind": "leather"},
}
FIELDS: dict[str, dict[str, Any]] = {
    "felt_beige": {"colour": (194, 180, 154), "kind": "felt"},
    "leather_tan": {"colour": (198, 168, 128), "kind": "leather"},
    "leather_cream": {"colour": (214, 200, 180), "kind": "leather"},
    "felt_burgundy": {"colour": (152, 60, 82), "kind": "felt"},
    "felt_green": {"colour": (60, 114, 66), "kind": "felt"},
    "felt_blue": {"colour": (60, 80, 120), "kind": "felt"},
    "same_wood": {"colour": None, "kind": "wood"},
}
POINT_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "red_black": ((170, 62, 54), (52, 50, 52)),
    "blue_white": ((94, 134, 194), (218, 218, 218)),
    "cream_green": ((218, 208, 188), (78, 144, 98)),
    "ivory_ebony": ((224, 218, 206), (72, 68, 70)),
    "red_cream": ((174, 50, 48), (226, 216, 192)),
    "brown_sand": ((114, 74, 50), (212, 188, 148)),
}
# (light, dark, grooved top)
MEN_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], bool]] = {
    "ivory_brown": ((226, 219, 204), (120, 80, 54), True),
    "white_black": ((230, 230, 230), (70, 70, 72), False),
    "wood_stained": ((206, 184, 148), (90, 62, 44), True),
    "white_red": ((230, 226, 218), (154, 44, 42), False),
    "ivory_black": ((228, 218, 194), (44, 42, 42), True),
    "natural_walnut": ((214, 182, 136), (98, 64, 42), True),
}
TABLES: dict[str, dict[str, Any]] = {
    "dark_table": {"light": (98, 78, 64), "dark": (64, 49, 38), "kind": "wood"},
    "light_table": {"light": (178, 168, 152), "dark": (148, 138, 124), "kind": "wood"},
    "white_cloth": {"light": (198, 198, 196), "kind": "cloth"},
    "grey_cloth": {"light": (110, 111, 116), "kind": "cloth"},
    "blue_cloth": {"light": (84, 104, 140), "kind": "cloth"},
    "green_cloth": {"light": (64, 100, 74), "kind": "cloth"},
}
# colour cast (r, g, b gains), light fall-off kind
LIGHTINGS: dict[str, dict[str, Any]] = {
    "daylight_window": {"cast": (0.97, 1.0, 1.04), "falloff": "gradient"},
    "warm_lamp": {"cast": (1.08, 1.0, 0.86), "falloff": "spot"},
    "overhead": {"cast": (1.0, 1.0, 1.0), "falloff": "spot_wide"},
}
_SKINS = ((232, 200, 182), (210, 164, 134), (176, 126, 94), (118, 82, 62))
_DICE_BODY = {"white": (236, 236, 233), "ivory": (232, 224, 204)}

_STYLE_TABLES = {
    "wood": WOODS, "men": MEN_COLOURS, "points": POINT_COLOURS, "field": FIELDS,
    "table": TABLES, "lighting": LIGHTINGS,
}


def _bgr(rgb: Sequence[float]) -> np.ndarray:
    return np.array([rgb[2], rgb[1], rgb[0]], np.float32)


# ------------------------------------------------------------------- spec
@dataclass(frozen=True)
class SceneSpec:
    """What a scene must show; every field left as None is drawn at random.

    *position* is a :class:`~willughby.engine.position.Position` or a board
    document (extra image keys of a label are ignored); *position_kind*
    chooses the kind of random position when *position* is None.  Angles are
    in degrees: *tilt_deg* from straight down, *board_yaw_deg* the board's
    whole turn in the picture (0 or 180, give or take 15, is the usual
    landscape view; 90 and 270 turn it upright).  *mirror* swaps the
    direction of play (light's home table on the left).  *fill* is the
    share of the frame's width or height (whichever is fuller) that the
    board's outer frame takes.  *camera_effects* False skips blur, noise
    and JPEG (for exact tests).
    """

    position: Position | Mapping[str, Any] | None = None
    position_kind: str | None = None
    image_size: tuple[int, int] | None = None
    tilt_deg: float | None = None
    board_yaw_deg: float | None = None
    cam_az_deg: float | None = None
    cam_roll_deg: float | None = None
    mirror: bool | None = None
    focal_mm: float | None = None
    fill: float | None = None
    row_max: int | None = None
    men_thick_mm: float | None = None
    n_dice: int | None = None
    dice_values: tuple[int, ...] | None = None
    occluded: bool | None = None
    occluded_share: float = 0.15
    wood: str | None = None
    men: str | None = None
    points: str | None = None
    field: str | None = None
    table: str | None = None
    lighting: str | None = None
    camera_effects: bool = True
    # spread the palettes' colours (0: as listed; 0.1: about 10% per colour),
    # so a network trained on these frames does not learn the exact palettes
    palette_jitter: float = 0.0
    # men stand up to this many mm off the board's edge (0: touching it, give
    # or take a millimetre), and the men of a row up to a tenth of it apart:
    # players do not push every man home, and a renderer may not either
    edge_gap: float = 0.0
    # vary how the men are finished, frame by frame: a turned groove on
    # either colour's tops or none, side walls from shaded to as bright as
    # the tops, and piles from neatly squared to a little askew.  The dev
    # set's renderer squares its piles and lights their sides more than
    # this one did, and a network trained on one finish reads another's
    # piles worse (docs/vision-reader.md)
    varied_men: bool = False
    # bring the two colours of men nearer each other: the light men up to
    # this share darker and the dark men up to twice it lighter (0.3: light
    # men at 70%, dark at 160%), never closer than about 35 in luminance.
    # The dev set's renderer lights its black men grey and its white men
    # dimmer than this one's palettes (docs/vision-reader.md)
    men_contrast: float = 0.0

    def __post_init__(self) -> None:
        for key, table in _STYLE_TABLES.items():
            value = getattr(self, key)
            if value is not None and value not in table:
                raise SynthError(f"unknown {key} style {value!r} (known: {', '.join(table)})")
        if self.position_kind is not None and self.position_kind not in POSITION_KINDS:
            raise SynthError(f"position_kind must be one of {', '.join(POSITION_KINDS)}, "
                             f"not {self.position_kind!r}")
        if self.image_size is not None:
            w, h = self.image_size
            if not (64 <= int(w) <= 8192 and 64 <= int(h) <= 8192):
                raise SynthError(f"image_size must be two sizes of 64..8192 pixels, not {self.image_size!r}")
        if self.tilt_deg is not None and not 0 <= self.tilt_deg <= 45:
            raise SynthError(f"tilt_deg must be 0..45, not {self.tilt_deg!r}")
        if self.fill is not None and not 0.2 <= self.fill <= 1.0:
            raise SynthError(f"fill must be 0.2..1.0, not {self.fill!r}")
        if self.focal_mm is not None and not 10 <= self.focal_mm <= 200:
            raise SynthError(f"focal_mm must be 10..200, not {self.focal_mm!r}")
        if self.row_max is not None and not 3 <= self.row_max <= 6:
            raise SynthError(f"row_max must be 3..6, not {self.row_max!r}")
        if self.men_thick_mm is not None and not 4 <= self.men_thick_mm <= 20:
            raise SynthError(f"men_thick_mm must be 4..20, not {self.men_thick_mm!r}")
        if self.n_dice is not None and not 0 <= self.n_dice <= 2:
            raise SynthError(f"n_dice must be 0..2, not {self.n_dice!r}")
        if self.dice_values is not None and (
                len(self.dice_values) > 2 or any(v not in range(1, 7) for v in self.dice_values)):
            raise SynthError(f"dice_values must be up to two values 1..6, not {self.dice_values!r}")
        if not 0 <= self.occluded_share <= 1:
            raise SynthError(f"occluded_share must be 0..1, not {self.occluded_share!r}")
        if not 0 <= self.palette_jitter <= 0.3:
            raise SynthError(f"palette_jitter must be 0..0.3, not {self.palette_jitter!r}")
        if not 0 <= self.men_contrast <= 0.4:
            raise SynthError(f"men_contrast must be 0..0.4, not {self.men_contrast!r}")
        if not 0 <= self.edge_gap <= 8:
            raise SynthError(f"edge_gap must be 0..8 mm, not {self.edge_gap!r}")


# -------------------------------------------------------------- positions
def _zeros() -> list[int]:
    return [0] * 24


def _doc(light: list[int], dark: list[int], bar: tuple[int, int] = (0, 0),
         stacked: tuple[list[int], list[int]] | None = None) -> dict[str, Any]:
    st = stacked or (_zeros(), _zeros())
    return {
        "format": "board/1",
        "light": list(light),
        "dark": list(dark),
        "bar": {"light": int(bar[0]), "dark": int(bar[1])},
        "off": {"light": MEN_PER_SIDE - sum(light) - bar[0], "dark": MEN_PER_SIDE - sum(dark) - bar[1]},
        "stacked": {"light": list(st[0]), "dark": list(st[1])},
    }


def _backgammon_start() -> dict[str, Any]:
    light, dark = _zeros(), _zeros()
    for own, n in ((6, 5), (8, 3), (13, 5), (24, 2)):
        light[own - 1] = n
        dark[24 - own] = n
    return _doc(light, dark)


def _doublets_piles() -> list[int]:
    """Own points 1..6: piles of 2 on 1-3, of 3 on 4-6."""
    return [2, 2, 2, 3, 3, 3]


def _doublets_start() -> dict[str, Any]:
    light, dark = _zeros(), _zeros()
    st = (_zeros(), _zeros())
    for own, n in enumerate(_doublets_piles(), start=1):
        light[own - 1] = n
        st[0][own - 1] = n
        dark[24 - own] = n
        st[1][24 - own] = n
    return _doc(light, dark, stacked=st)


def _doublets_played(rng: np.random.Generator) -> dict[str, Any]:
    light, dark = _zeros(), _zeros()
    st = (_zeros(), _zeros())
    for side in range(2):
        bear_off = rng.random() < 0.35
        for own, n in enumerate(_doublets_piles(), start=1):
            phys = own if side == 0 else 25 - own
            if bear_off:
                count = int(rng.integers(0, n + 1)) if rng.random() < 0.6 else n
                pile = 0
            else:
                count = n
                down = int(rng.integers(0, n + 1))
                pile = n - down
                if pile < 2:
                    pile = 0
            (light, dark)[side][phys - 1] = count
            st[side][phys - 1] = pile
        if bear_off and sum((light, dark)[side]) == MEN_PER_SIDE:
            # a side bearing off has borne off at least one man
            pts = [p for p in range(24) if (light, dark)[side][p]]
            p = pts[int(rng.integers(0, len(pts)))]
            (light, dark)[side][p] -= 1
    return _doc(light, dark, stacked=st)


def _random_position(rng: np.random.Generator) -> dict[str, Any]:
    counts = [_zeros(), _zeros()]
    bar = [0, 0]
    taken: set[int] = set()
    for side in range(2):
        total = int(rng.choice([15, 15, 15, 14, 13, 12, 11, 10, 9, 8, 7, 5, 3, 1]))
        if rng.random() < 0.3:
            bar[side] = int(rng.integers(1, 3 if rng.random() < 0.8 else 4))
            bar[side] = min(bar[side], total)
        left = total - bar[side]
        free = [p for p in range(24) if p not in taken]
        rng.shuffle(free)
        n_points = int(min(len(free), max(1, left), rng.integers(1, 8)))
        points = free[:n_points]
        if left > 0:
            big = rng.random() < 0.35  # exercise second layers: one point of 7-10
            if big:
                first = int(min(left, rng.integers(7, 11)))
                counts[side][points[0]] = first
                left -= first
                rest = points[1:] or points[:1]
            else:
                rest = points
            while left > 0:
                p = rest[int(rng.integers(0, len(rest)))]
                if counts[side][p] < 10 or all(counts[side][q] >= 10 for q in rest):
                    counts[side][p] += 1
                    left -= 1
        taken.update(p for p in range(24) if counts[side][p])
    return _doc(counts[0], counts[1], bar=(bar[0], bar[1]))


def _normalise_position(position: Position | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(position, Position):
        doc = position.to_board()
    elif isinstance(position, Mapping):
        doc = {k: v for k, v in position.items() if k not in _IMAGE_KEYS}
    else:
        raise SynthError(f"position must be a Position or a board document, not {type(position).__name__}")
    try:
        pos = Position.from_board(doc)
    except ValueError as exc:
        raise SynthError(f"bad position: {exc}") from None
    light, dark = list(pos.light), list(pos.dark)
    bar = (pos.bar[0], pos.bar[1])
    for i, name in enumerate(("light", "dark")):
        on_board = sum((light, dark)[i]) + bar[i]
        if on_board > MEN_PER_SIDE:
            raise SynthError(f"{name} has {on_board} men on the board, more than {MEN_PER_SIDE}")
    # a lone man "in a pile" lies flat: the label says what the picture shows
    st = tuple([s if s >= 2 else 0 for s in pos.stacked[i]] for i in range(2))
    return _doc(light, dark, bar=bar, stacked=(st[0], st[1]))


def _classify(doc: Mapping[str, Any]) -> str:
    if (doc["light"], doc["dark"]) == (_backgammon_start()["light"], _backgammon_start()["dark"]) \
            and not any(doc["stacked"]["light"]) and not any(doc["stacked"]["dark"]):
        return "backgammon_start"
    ds = _doublets_start()
    if doc["light"] == ds["light"] and doc["dark"] == ds["dark"] and doc["stacked"] == ds["stacked"]:
        return "doublets_start"
    if any(doc["stacked"]["light"]) or any(doc["stacked"]["dark"]):
        return "doublets_played"
    return "random"


# ------------------------------------------------------------------ layout
@dataclass
class _Man:
    colour: int          # 0 light, 1 dark
    x: float             # geometry mm (origin C3)
    y: float
    level: float         # resting height in thicknesses above its support
    on_bar: bool
    point: int           # 0 for the bar


def _row(n: int, start_k: float, row_max: int) -> list[tuple[float, int]]:
    """(k, layer) for *n* men in a row from slot *start_k*: a full layer of
    row_max, then the gaps above it, and so on."""
    out: list[tuple[float, int]] = []
    layer = 0
    while len(out) < n:
        cap = max(row_max - layer, 1)
        for j in range(cap):
            if len(out) == n:
                break
            out.append((start_k + layer / 2 + j, layer))
        layer += 1
    return out


def _layout_men(doc: Mapping[str, Any], geo: BoardGeometry, row_max: int, bar_light_side: int,
                rng: np.random.Generator, gap: float = 0.0, spread: float = 0.0,
                askew: float = 1.0) -> list[_Man]:
    """Where each man lies.  *gap*: how far (mm) the men of a point stand off
    the board's edge, give or take a little per point; *spread*: how much
    further apart (mm) than touching the men of a row lie; *askew*: how far
    a pile's men stand off one another (1: about 0.7 mm; 0: squared)."""
    men: list[_Man] = []
    for colour, name in enumerate(("light", "dark")):
        counts = doc[name]
        stacked = doc["stacked"][name]
        for p in range(1, 25):
            n = counts[p - 1]
            if not n:
                continue
            pile = stacked[p - 1]
            off = 0.0                       # away from the edge, mm
            if gap > 0 or spread > 0:
                off = max(0.0, gap + float(rng.normal(0, 0.15 * gap)))
            away = 1.0 if geo.is_top(p) else -1.0
            if pile >= 2:
                x, y = geo.slot_centre(p, 0)
                y += away * off
                jx, jy = rng.normal(0, 0.8, 2)
                for j in range(pile):
                    ex, ey = rng.normal(0, 0.7, 2) * askew
                    men.append(_Man(colour, x + jx + ex, y + jy + ey, float(j), False, p))
                slots = _row(n - pile, 1.0, row_max)
            else:
                slots = _row(n, 0.0, row_max)
            for k, layer in slots:
                x, y = geo.slot_centre(p, k)
                y += away * (off + k * spread)
                x += float(np.clip(rng.normal(0, 1.3), -2.5, 2.5))
                y += float(np.clip(rng.normal(0, 0.8), -1.5, 1.5))
                men.append(_Man(colour, x, y, float(layer), False, p))
        nbar = doc["bar"][name]
        if nbar:
            bx, by = geo.bar_centre()
            side = bar_light_side if colour == 0 else -bar_light_side
            r = geo.config.man_diameter / 2
            for k in range(nbar):
                layer = k // 4
                kk = k % 4
                men.append(_Man(colour, bx + float(rng.normal(0, 1.0)),
                                by + side * (r + 1.5 + kk * (2 * r + 1.0) + layer * r),
                                float(layer), True, 0))
    _relax(men, geo)
    return men


def _relax(men: list[_Man], geo: BoardGeometry) -> None:
    """Push apart men of one layer that jitter made overlap, and keep every
    man inside his half of the surface."""
    r = geo.config.man_diameter / 2
    flat = [m for m in men if not m.on_bar]
    for level in sorted({m.level for m in flat}):
        group = [m for m in flat if m.level == level]
        if len(group) < 2:
            _clamp(group, geo)
            continue
        xy = np.array([[m.x, m.y] for m in group])
        piles = np.array([m.point for m in group])
        for _ in range(6):
            d = xy[:, None, :] - xy[None, :, :]
            dist = np.sqrt((d ** 2).sum(-1)) + np.eye(len(group)) * 1e3
            same_pile = (piles[:, None] == piles[None, :]) & (dist < 4)
            overlap = np.clip(2 * r + 0.2 - dist, 0, None)
            overlap[same_pile] = 0
            if not overlap.any():
                break
            push = (d / dist[..., None] * overlap[..., None] / 2).sum(1)
            xy += push
        for m, (x, y) in zip(group, xy):
            m.x, m.y = float(x), float(y)
        _clamp(group, geo)


def _clamp(group: list[_Man], geo: BoardGeometry) -> None:
    r = geo.config.man_diameter / 2 + 0.3
    bar0, bar1 = geo.bar_x
    for m in group:
        lo, hi = (r, bar0 - r) if m.x < (bar0 + bar1) / 2 else (bar1 + r, geo.width - r)
        m.x = min(max(m.x, lo), hi)
        m.y = min(max(m.y, r), geo.depth - r)


def _place_dice(n: int, men: list[_Man], geo: BoardGeometry, size: float,
                rng: np.random.Generator) -> list[tuple[float, float, float]]:
    """(x, y, turn) of each die: on the surface, off the bar, clear of men and
    of each other (a die that finds no room is left out)."""
    bar0, bar1 = geo.bar_x
    r_die = size * 0.75
    r_man = geo.config.man_diameter / 2
    placed: list[tuple[float, float, float]] = []
    flat = np.array([[m.x, m.y] for m in men if not m.on_bar]).reshape(-1, 2)
    for _ in range(n):
        for _try in range(300):
            x = float(rng.uniform(r_die + 4, geo.width - r_die - 4))
            y = float(rng.uniform(r_die + 4, geo.depth - r_die - 4))
            if bar0 - r_die - 3 < x < bar1 + r_die + 3:
                continue
            if len(flat) and np.min(np.hypot(flat[:, 0] - x, flat[:, 1] - y)) < r_man + r_die + 3:
                continue
            if any(math.hypot(x - a, y - b) < 2 * r_die + 6 for a, b, _ in placed):
                continue
            placed.append((x, y, float(rng.uniform(0, np.pi / 2))))
            break
    return placed


# ------------------------------------------------------------------ camera
class _Camera:
    """A pinhole camera: world (mm, z up) to pixels."""

    def __init__(self, f: float, cx: float, cy: float, R: np.ndarray, C: np.ndarray) -> None:
        self.f, self.cx, self.cy, self.R, self.C = f, cx, cy, R, C

    def to_cam(self, P: np.ndarray) -> np.ndarray:
        return (np.asarray(P, np.float64) - self.C) @ self.R.T

    def project(self, P: np.ndarray) -> np.ndarray:
        Q = self.to_cam(P)
        z = Q[..., 2:3]
        return np.concatenate([self.f * Q[..., 0:1] / z + self.cx, self.f * Q[..., 1:2] / z + self.cy], -1)

    def depth(self, P: np.ndarray) -> np.ndarray:
        return np.linalg.norm(np.asarray(P, np.float64) - self.C, axis=-1)

    def ray_to_plane(self, px: np.ndarray, z0: float) -> np.ndarray:
        px = np.asarray(px, np.float64)
        d = np.stack([(px[..., 0] - self.cx) / self.f, (px[..., 1] - self.cy) / self.f,
                      np.ones(px.shape[:-1])], -1) @ self.R
        t = (z0 - self.C[2]) / np.minimum(d[..., 2], -1e-6)
        return self.C + t[..., None] * d


def _make_camera(f: float, size: tuple[int, int], tilt: float, az: float, roll: float,
                 dist: float, target: np.ndarray) -> _Camera:
    t, a, r = math.radians(tilt), math.radians(az), math.radians(roll)
    R0 = np.array([[1.0, 0, 0], [0, -math.cos(t), -math.sin(t)], [0, math.sin(t), -math.cos(t)]])
    Rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1.0]])
    Rr = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1.0]])
    R = Rr @ R0 @ Rz.T
    C = target + Rz @ np.array([0.0, -dist * math.sin(t), dist * math.cos(t)])
    return _Camera(f, size[0] / 2, size[1] / 2, R, C)


# ------------------------------------------------------------------- board
@dataclass
class _Board:
    geo: BoardGeometry
    fw: float        # frame (rail) width
    rh: float        # rail height above the surface
    bh: float        # bar height above the surface
    zs: float        # surface height above the table
    yaw: float       # degrees
    mirror: bool

    @property
    def W(self) -> float:
        return self.geo.width

    @property
    def D(self) -> float:
        return self.geo.depth

    def l2w(self, u: Any, v: Any, z: Any) -> np.ndarray:
        """Board-local (u along the long edge, v across; mm) to world."""
        y = math.radians(self.yaw)
        a = np.asarray(u, np.float64) - self.W / 2
        b = -(np.asarray(v, np.float64) - self.D / 2)
        X = math.cos(y) * a - math.sin(y) * b
        Y = math.sin(y) * a + math.cos(y) * b
        Z = np.broadcast_to(np.asarray(z, np.float64), X.shape)
        return np.stack([X, Y, Z], -1)

    def w2l(self, X: float, Y: float) -> tuple[float, float]:
        y = math.radians(self.yaw)
        a = math.cos(y) * X + math.sin(y) * Y
        b = -math.sin(y) * X + math.cos(y) * Y
        return a + self.W / 2, self.D / 2 - b

    def dir_l2w(self, du: float, dv: float) -> np.ndarray:
        y = math.radians(self.yaw)
        a, b = du, -dv
        return np.array([math.cos(y) * a - math.sin(y) * b, math.sin(y) * a + math.cos(y) * b, 0.0])

    def g2l(self, x: Any, y: Any) -> tuple[Any, Any]:
        """Geometry (origin C3) to board-local: the mirror swaps the ends."""
        return (self.W - np.asarray(x, np.float64) if self.mirror else np.asarray(x, np.float64),
                np.asarray(y, np.float64))

    def outer_corners(self) -> np.ndarray:
        us = (-self.fw, self.W + self.fw)
        vs = (-self.fw, self.D + self.fw)
        zt = self.zs + self.rh
        return np.array([self.l2w(u, v, z) for u in us for v in vs for z in (0.0, zt)])


# ---------------------------------------------------------------- textures
_NOISE_CACHE: dict[int, np.ndarray] = {}


def _noise_tile(n: int = 512) -> np.ndarray:
    """A fixed tile of white noise (mean 0, sd 1), sampled at random offsets."""
    tile = _NOISE_CACHE.get(n)
    if tile is None:
        tile = np.random.default_rng(20240607).standard_normal((n, n)).astype(np.float32)
        _NOISE_CACHE[n] = tile
    return tile


def _fine_noise(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    tile = _noise_tile()
    n = tile.shape[0]
    oy, ox = int(rng.integers(0, n)), int(rng.integers(0, n))
    reps = (h + oy) // n + 1, (w + ox) // n + 1
    big = np.tile(tile, reps) if reps != (1, 1) else tile
    out = big[oy:oy + h, ox:ox + w]
    if rng.random() < 0.5:
        out = out[::-1]
    return np.ascontiguousarray(out)


def _smooth_noise(rng: np.random.Generator, h: int, w: int, ch: int, cw: int) -> np.ndarray:
    """Band-limited noise: a (ch x cw) grid of random values, smoothly enlarged."""
    small = rng.standard_normal((max(ch, 2), max(cw, 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _colourise(v: np.ndarray, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Map a value field (0 = *dark*, 1 = *light*, up to 1.15) to BGR through a table."""
    q = cv2.convertScaleAbs(v, alpha=255 / 1.15)
    t = np.arange(256, dtype=np.float32)[:, None] * (1.15 / 255)
    lut = np.clip(dark + (light - dark) * t, 0, 255).astype(np.uint8).reshape(256, 1, 3)
    return cv2.LUT(cv2.merge([q, q, q]), lut)


def _wood(rng: np.random.Generator, h: int, w: int, ppm: float, light: Sequence[float],
          dark: Sequence[float], kind: str = "grain") -> np.ndarray:
    """Procedural wood (grain along x) or leather, *ppm* pixels per mm."""
    lo, hi = _bgr(dark), _bgr(light)
    if kind == "leather":
        v = 0.6 + 0.06 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 40)), max(2, int(w / ppm / 40)))
        v += 0.025 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 6)), max(2, int(w / ppm / 6)))
        v += 0.03 * _fine_noise(rng, h, w)
        return _colourise(v, lo, hi)
    period = float(rng.uniform(3.0, 8.0)) * ppm  # mm between grain lines, in px
    ys = np.arange(h, dtype=np.float32)[:, None]
    warp = _smooth_noise(rng, h, w, max(2, int(h / ppm / 25)), max(2, int(w / ppm / 120))) * (period * 1.6)
    warp += _smooth_noise(rng, h, w, max(2, int(h / ppm / 8)), max(2, int(w / ppm / 300))) * (period * 0.4)
    phase = (ys + warp) * (np.pi / period)
    rings = np.abs(np.sin(phase))
    streak = _smooth_noise(rng, h, w, max(2, int(h / ppm * 1.2)), max(2, int(w / ppm / 25)))
    broad = _smooth_noise(rng, h, w, max(2, int(h / ppm / 30)), max(2, int(w / ppm / 60)))
    v = 0.58 + 0.22 * rings + 0.08 * streak + 0.1 * broad + 0.03 * _fine_noise(rng, h, w)
    return _colourise(v, lo, hi)


def _table_wood(rng: np.random.Generator, h: int, w: int, ppm: float, light: Sequence[float],
                dark: Sequence[float]) -> np.ndarray:
    """A table top: soft bands along x, as a wide plank's grain looks from afar."""
    v = 0.5 + 0.12 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 14)), max(2, int(w / ppm / 700)))
    v += 0.1 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 80)), max(2, int(w / ppm / 900)))
    v += 0.04 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 4)), max(2, int(w / ppm / 250)))
    return _colourise(v, _bgr(dark), _bgr(light))


def _cloth(rng: np.random.Generator, h: int, w: int, ppm: float, colour: Sequence[float],
           grain: float = 0.025) -> np.ndarray:
    """Cloth or felt: smooth, faintly mottled."""
    c = _bgr(colour)
    v = 0.5 + 0.08 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 300)), max(2, int(w / ppm / 300)))
    v += 0.035 * _smooth_noise(rng, h, w, max(2, int(h / ppm / 5)), max(2, int(w / ppm / 5)))
    if grain:
        v += grain * 4 * _fine_noise(rng, h, w)
    return _colourise(v, c * 0.9, c * 1.1)


# ------------------------------------------------------------------ drawing
_SHIFT = 4
_ONE = 1 << _SHIFT


def _fix(pts: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(pts, np.float64) * _ONE).astype(np.int32).reshape(-1, 1, 2)


def _fill(img: np.ndarray, pts: np.ndarray, colour: Sequence[float], aa: bool = True) -> None:
    cv2.fillPoly(img, [_fix(pts)], tuple(float(c) for c in colour),
                 cv2.LINE_AA if aa else cv2.LINE_8, _SHIFT)


def _bbox(pts: np.ndarray, size: tuple[int, int], pad: int = 2) -> tuple[int, int, int, int] | None:
    x0 = max(int(math.floor(pts[:, 0].min())) - pad, 0)
    y0 = max(int(math.floor(pts[:, 1].min())) - pad, 0)
    x1 = min(int(math.ceil(pts[:, 0].max())) + pad, size[0])
    y1 = min(int(math.ceil(pts[:, 1].max())) + pad, size[1])
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _warp_quad(img: np.ndarray, tex: np.ndarray, tex_quad: np.ndarray, img_quad: np.ndarray,
               shade: float, aa: bool = True) -> None:
    """Paint the texture rectangle *tex_quad* into the image quadrilateral."""
    size = (img.shape[1], img.shape[0])
    bb = _bbox(img_quad, size)
    if bb is None:
        return
    x0, y0, x1, y1 = bb
    w, h = x1 - x0, y1 - y0
    dst = (img_quad - [x0, y0]).astype(np.float32)
    M = cv2.getPerspectiveTransform(tex_quad.astype(np.float32), dst)
    patch = cv2.warpPerspective(tex, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if shade != 1.0:
        patch = cv2.convertScaleAbs(patch, alpha=shade)
    mask = np.zeros((h, w), np.uint8)
    _fill(mask, dst, (255,), aa)
    roi = img[y0:y1, x0:x1]
    if not aa:
        np.copyto(roi, patch, where=mask[..., None] > 0)
        return
    m = mask.astype(np.uint16)[..., None]
    roi[:] = ((patch.astype(np.uint16) * m + roi.astype(np.uint16) * (255 - m) + 127) // 255).astype(np.uint8)


def _multiply(img: np.ndarray, factor: np.ndarray, x0: int, y0: int,
              where: np.ndarray | None = None) -> None:
    """img[y0:, x0:] *= factor (a float map), optionally only where the mask is set."""
    h, w = factor.shape
    roi = img[y0:y0 + h, x0:x0 + w]
    out = cv2.multiply(roi, cv2.merge([factor, factor, factor]), dtype=cv2.CV_8U)
    if where is None:
        roi[:] = out
    else:
        np.copyto(roi, out, where=where[..., None] > 0)


class _ShadowLayer:
    """Soft shadows painted at reduced resolution over an image region."""

    def __init__(self, size: tuple[int, int], region: tuple[int, int, int, int], scale: float) -> None:
        self.x0, self.y0, x1, y1 = region
        self.w, self.h = x1 - self.x0, y1 - self.y0
        self.scale = scale
        self.mask = np.zeros((max(1, int(self.h * scale) + 1), max(1, int(self.w * scale) + 1)), np.uint8)

    def add(self, pts: np.ndarray, value: int = 255) -> None:
        p = (np.asarray(pts) - [self.x0, self.y0]) * self.scale
        _fill(self.mask, p, (value,), True)

    def factor(self, sigma_px: float, strength: float) -> np.ndarray:
        s = max(sigma_px * self.scale, 0.3)
        m = cv2.GaussianBlur(self.mask, (0, 0), s).astype(np.float32) * (strength / 255.0)
        m = cv2.resize(m, (self.w, self.h), interpolation=cv2.INTER_LINEAR)
        return 1.0 - m


def _circle(n: int = 32, start: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    a = start + np.arange(n) * (2 * np.pi / n)
    return np.cos(a), np.sin(a)


def _shadow_hull(points3d: np.ndarray, light: np.ndarray, z_recv: float, cam: _Camera) -> np.ndarray:
    """Image outline of the shadow that 3D points throw on the plane z = z_recv."""
    P = np.asarray(points3d, np.float64).reshape(-1, 3)
    t = (P[:, 2] - z_recv) / light[2]
    S = P - t[:, None] * light
    S[:, 2] = z_recv
    img = cam.project(S).astype(np.float32)
    return cv2.convexHull(img).reshape(-1, 2)


# --------------------------------------------------------------- solids
@dataclass
class _Solid:
    kind: str                   # "box", "man", "die"
    zmin: float
    zmax: float
    fp: tuple                   # ("c", u, v, r) or ("r", u0, u1, v0, v1): board-local footprint
    bbox: tuple[float, float, float, float]
    depth: float
    draw: Callable[[np.ndarray], None]


def _separate(a: tuple, b: tuple) -> tuple[np.ndarray, float]:
    """A vertical plane n.p = c between two footprints, *a* on its negative side."""
    if a[0] == "c" and b[0] == "c":
        n = np.array([b[1] - a[1], b[2] - a[2]])
        ln = float(np.hypot(*n))
        if ln < 1e-9:
            return np.array([1.0, 0.0]), float(a[1])
        n /= ln
        mid = (np.array(a[1:3]) + np.array(b[1:3])) / 2
        return n, float(n @ mid)

    def extent(fp: tuple) -> tuple[float, float, float, float]:
        if fp[0] == "c":
            return fp[1] - fp[3], fp[1] + fp[3], fp[2] - fp[3], fp[2] + fp[3]
        return fp[1], fp[2], fp[3], fp[4]

    au0, au1, av0, av1 = extent(a)
    bu0, bu1, bv0, bv1 = extent(b)
    gaps = [
        (bu0 - au1, np.array([1.0, 0.0]), (au1 + bu0) / 2),
        (au0 - bu1, np.array([-1.0, 0.0]), -(au0 + bu1) / 2),
        (bv0 - av1, np.array([0.0, 1.0]), (av1 + bv0) / 2),
        (av0 - bv1, np.array([0.0, -1.0]), -(av0 + bv1) / 2),
    ]
    g = max(gaps, key=lambda t: t[0])
    return g[1], float(g[2])


def _paint_order(solids: list[_Solid], cam_uv: tuple[float, float]) -> list[int]:
    """Far to near: a topological order of 'drawn before' from separating planes."""
    n = len(solids)
    before: list[set[int]] = [set() for _ in range(n)]
    after: list[set[int]] = [set() for _ in range(n)]
    cu = np.array(cam_uv)
    for i in range(n):
        a = solids[i]
        for j in range(i + 1, n):
            b = solids[j]
            if (a.bbox[2] < b.bbox[0] or b.bbox[2] < a.bbox[0]
                    or a.bbox[3] < b.bbox[1] or b.bbox[3] < a.bbox[1]):
                continue
            if a.zmax <= b.zmin + 1e-6:
                first, second = i, j
            elif b.zmax <= a.zmin + 1e-6:
                first, second = j, i
            else:
                nrm, c = _separate(a.fp, b.fp)
                if float(nrm @ cu) - c > 0:     # the camera is on b's side: b is nearer
                    first, second = i, j
                else:
                    first, second = j, i
            before[second].add(first)
            after[first].add(second)
    order: list[int] = []
    remaining = set(range(n))
    indeg = [len(before[i]) for i in range(n)]
    heap = [(-solids[i].depth, i) for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    while remaining:
        if not heap:  # a cycle (rare): break it at the farthest solid
            k = max(remaining, key=lambda i: solids[i].depth)
            indeg[k] = 0
            heap.append((-solids[k].depth, k))
        _, k = heapq.heappop(heap)
        if k not in remaining:
            continue
        remaining.discard(k)
        order.append(k)
        for m in after[k]:
            if m in remaining:
                indeg[m] -= 1
                if indeg[m] == 0:
                    heapq.heappush(heap, (-solids[m].depth, m))
    return order


# ------------------------------------------------------------------ render
@dataclass
class _Light:
    L: np.ndarray          # unit vector towards the light (world)
    ambient: float

    def shade(self, normal: np.ndarray) -> float:
        """Brightness of a face with this normal, the top face being 1."""
        top = self.ambient + (1 - self.ambient) * self.L[2]
        return float((self.ambient + (1 - self.ambient) * max(0.0, float(normal @ self.L))) / top)

    def shade_many(self, normals: np.ndarray) -> np.ndarray:
        top = self.ambient + (1 - self.ambient) * self.L[2]
        return (self.ambient + (1 - self.ambient) * np.clip(normals @ self.L, 0, None)) / top


def _jitter_rgb(rng: np.random.Generator, rgb: Sequence[float], amount: float) -> tuple[int, ...]:
    """One colour moved by about `amount`: its brightness, and each channel a
    little less."""
    gain = math.exp(rng.normal(0, amount)) * np.exp(rng.normal(0, amount / 2, 3))
    return tuple(int(np.clip(c * g, 0, 255)) for c, g in zip(rgb, gain))


def _lum(rgb: Sequence[float]) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def _jittered_palettes(rng: np.random.Generator, amount: float, wood: str, field: str, points: str,
                       men: str) -> tuple[dict, dict, tuple, tuple]:
    """Copies of the chosen palette entries with their colours spread; the light
    men stay clearly lighter than the dark ones."""
    wd = dict(WOODS[wood])
    wd["light"] = _jitter_rgb(rng, wd["light"], amount)
    wd["dark"] = _jitter_rgb(rng, wd["dark"], amount)
    fd = dict(FIELDS[field])
    if fd["colour"] is not None:
        fd["colour"] = _jitter_rgb(rng, fd["colour"], amount)
    pc = tuple(_jitter_rgb(rng, c, amount) for c in POINT_COLOURS[points])
    light_c, dark_c, grooved = MEN_COLOURS[men]
    for _ in range(8):
        lc, dc = _jitter_rgb(rng, light_c, amount), _jitter_rgb(rng, dark_c, amount)
        if _lum(lc) - _lum(dc) >= 60:
            break
    else:
        lc, dc = light_c, dark_c
    return wd, fd, pc, (lc, dc, grooved)


def _nearer_men(rng: np.random.Generator, men: tuple, amount: float) -> tuple:
    """The men's colours (light, dark, grooved) brought nearer each other
    (``SceneSpec.men_contrast``): light men darker by up to *amount*, dark men
    lighter by up to twice it, keeping about 35 of luminance between them."""
    light_c, dark_c, grooved = men

    def scaled(rgb: Sequence[float], f: float) -> tuple[int, ...]:
        return tuple(int(np.clip(round(c * f), 0, 255)) for c in rgb)

    lc = scaled(light_c, 1.0 - float(rng.uniform(0, amount)))
    df = 1.0 + float(rng.uniform(0, 2 * amount))
    while _lum(lc) - _lum(scaled(dark_c, df)) < 35 and df > 1.0:
        df = max(1.0, df - 0.05)
    return lc, scaled(dark_c, df), grooved


def _choose(rng: np.random.Generator, value: Any, options: Sequence[Any], p: Sequence[float] | None = None) -> Any:
    if value is not None:
        return value
    if p is not None:
        p = np.asarray(p, float) / np.sum(p)
    return options[int(rng.choice(len(options), p=p))]


@dataclass
class ScenePlan:
    """Everything one scene shows, decided before anything is drawn
    (:func:`plan_scene`): the rasteriser here paints it, and
    ``tools/blender_frames.py`` builds the same scene in Blender.  Lengths
    are millimetres, angles degrees; ``cam`` and ``board`` give world
    coordinates (z up, the table at z = 0)."""

    spec: SceneSpec
    doc: dict[str, Any]
    kind: str
    wood: str
    men_style: str
    points: str
    field: str
    table: str
    lighting: str
    size: tuple[int, int]
    mirror: bool
    yaw: float
    tilt: float
    focal: float
    fill: float
    fill_actual: float
    az: float
    roll: float
    row_max: int
    thick: float
    bar_light_side: int
    board: _Board
    gap: float
    spread: float
    finish: _MenFinish | None
    men: list[_Man]
    dice_values: list[int]
    die_size: float
    dice_xy: list[tuple[float, float, float]]
    occluded: bool
    cam: _Camera
    target: np.ndarray
    shift: np.ndarray
    elev: float
    lazi: float
    light: _Light
    skin: tuple[int, int, int]
    dice_body: str
    wood_e: dict[str, Any]
    field_e: dict[str, Any]
    points_e: tuple
    men_e: tuple

    def corners(self) -> np.ndarray:
        """C1..C4 of the playing surface, projected into the frame."""
        board, geo = self.board, self.board.geo
        corners3d = board.l2w(*board.g2l(geo.surface_corners()[:, 0], geo.surface_corners()[:, 1]), board.zs)
        return self.cam.project(corners3d)

    def label(self, post: Mapping[str, Any], style_extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The frame's label (the dev set's format); *post* holds the camera
        effects drawn, *style_extra* what a renderer adds to ``style``."""
        board, cam, cfg = self.board, self.cam, self.board.geo.config
        dice_label = []
        for (x, y, _), v in zip(self.dice_xy, self.dice_values):
            u, vv = board.g2l(x, y)
            c = cam.project(board.l2w(u, vv, board.zs + self.die_size / 2))
            dice_label.append({"value": int(v), "center": [round(float(c[0]), 2), round(float(c[1]), 2)]})
        size, shift, spec, finish = self.size, self.shift, self.spec, self.finish
        style = {
            "renderer": "willughby.vision.synth/1",
            "wood": self.wood, "men": self.men_style, "lighting": self.lighting, "points": self.points,
            "field": self.field, "table": self.table, "image_size": [size[0], size[1]], "mirror": self.mirror,
            "board_yaw": round(self.yaw, 2), "tilt_deg": round(self.tilt, 2), "cam_az_deg": round(self.az, 2),
            "cam_roll_deg": round(self.roll, 2), "focal_mm": round(self.focal, 1), "fill": round(self.fill, 3),
            "fill_actual": round(self.fill_actual, 3), "shift": [round(float(shift[0] / size[0]), 4),
                                                                round(float(shift[1] / size[1]), 4)],
            "cam_dist_m": round(float(np.linalg.norm(cam.C - self.target)) / 1000, 3),
            "men_thick": round(self.thick / cfg.man_diameter, 3), "men_thick_mm": round(self.thick, 2),
            "row_max": self.row_max, "bar_light_side": self.bar_light_side, "n_dice": len(dice_label),
            "die_mm": round(self.die_size, 1), "dice_body": self.dice_body, "occluded": self.occluded,
            "skin": [round(c / 255, 2) for c in self.skin],
            "frame_mm": [round(board.fw, 1), round(board.rh, 1), round(board.bh, 1), round(board.zs, 1)],
            "light_elev_deg": round(math.degrees(self.elev), 1),
            "light_azim_deg": round(math.degrees(self.lazi), 1),
            "ambient": round(self.light.ambient, 2),
            **{k: post[k] for k in ("exposure", "contrast") if k in post},
            "palette_jitter": spec.palette_jitter,
            "edge_gap_mm": round(self.gap, 2), "row_spread_mm": round(self.spread, 2),
            **({"men_contrast": spec.men_contrast, "men_rgb": [list(self.men_e[0]), list(self.men_e[1])]}
               if spec.men_contrast > 0 else {}),
            **({} if finish is None else {"men_finish": {
                "grooved": list(finish.grooved), "side_gain": round(finish.side_gain, 2),
                "askew": round(finish.askew, 2)}}),
            **dict(style_extra or {}),
            "post": {k: post[k] for k in ("vignette", "blur", "noise", "jpeg_q")},
        }
        return {
            **self.doc,
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners()],
            "image_size": [size[0], size[1]],
            "occluded": self.occluded,
            "dice": dice_label,
            "position_kind": self.kind,
            "style": style,
        }


def plan_scene(rng: np.random.Generator, spec: SceneSpec | None = None) -> ScenePlan:
    """Decide everything a scene shows (position, styles, board, men, dice,
    camera, light, palettes), drawing from *rng* in the order :func:`render`
    always has, so a seed gives the same scene whichever renderer draws it."""
    spec = spec or SceneSpec()
    geo = BoardGeometry(VisionConfig())
    # ---- what is on the board
    if spec.position is not None:
        doc = _normalise_position(spec.position)
        kind = spec.position_kind or _classify(doc)
    else:
        kind = _choose(rng, spec.position_kind, POSITION_KINDS, (0.5, 0.2, 0.13, 0.17))
        doc = {"random": lambda: _random_position(rng),
               "backgammon_start": _backgammon_start,
               "doublets_start": _doublets_start,
               "doublets_played": lambda: _doublets_played(rng)}[kind]()
    # ---- style
    wood = _choose(rng, spec.wood, list(WOODS), (3, 2, 2, 1, 1, 3))
    men_style = _choose(rng, spec.men, list(MEN_COLOURS), (3, 4, 3, 1, 1, 1))
    points = _choose(rng, spec.points, list(POINT_COLOURS), (2, 3, 2, 2, 1, 1))
    field = _choose(rng, spec.field, list(FIELDS), (2, 2, 1, 2, 1, 1, 4))
    table = _choose(rng, spec.table, list(TABLES), (3, 2, 2, 2, 2, 1))
    lighting = _choose(rng, spec.lighting, list(LIGHTINGS), (5, 3, 2))
    width, height = spec.image_size or ((1280, 720) if rng.random() < 0.7 else (1280, 960))
    size = (int(width), int(height))
    mirror = bool(rng.random() < 0.5) if spec.mirror is None else bool(spec.mirror)
    if spec.board_yaw_deg is None:
        base = float(rng.choice([0.0, 180.0, 90.0, 270.0], p=[0.44, 0.44, 0.06, 0.06]))
        yaw = base + float(np.clip(rng.normal(0, 6.0), -15, 15))
    else:
        yaw = float(spec.board_yaw_deg)
    tilt = float(rng.uniform(0, 35) if spec.tilt_deg is None else spec.tilt_deg)
    focal = float(rng.uniform(24, 60) if spec.focal_mm is None else spec.focal_mm)
    fill = float(rng.uniform(0.6, 0.95) if spec.fill is None else spec.fill)
    az = float(rng.uniform(-5, 5) if spec.cam_az_deg is None else spec.cam_az_deg)
    roll = float(rng.uniform(-3, 3) if spec.cam_roll_deg is None else spec.cam_roll_deg)
    row_max = int(rng.choice([5, 6]) if spec.row_max is None else spec.row_max)
    thick = float(rng.uniform(9.0, 12.6) if spec.men_thick_mm is None else spec.men_thick_mm)
    bar_light_side = int(rng.choice([-1, 1]))
    board = _Board(geo, fw=float(rng.uniform(24, 38)), rh=float(rng.uniform(15, 24)),
                   bh=0.0, zs=float(rng.uniform(8, 14)), yaw=yaw, mirror=mirror)
    board.bh = board.rh - float(rng.uniform(0, 3))
    # ---- men and dice
    gap = spread = 0.0
    if spec.edge_gap > 0:           # drawn only when asked, so other renders stay as they were
        gap = float(rng.uniform(0, spec.edge_gap))
        spread = float(rng.uniform(0, spec.edge_gap / 10))
    finish = None
    if spec.varied_men:             # likewise
        finish = _MenFinish(grooved=(bool(rng.random() < 0.5), bool(rng.random() < 0.5)),
                            side_gain=float(rng.uniform(0.85, 1.3)),
                            askew=float(rng.choice([0.0, rng.uniform(0.0, 1.0)])))
    men = _layout_men(doc, geo, row_max, bar_light_side, rng, gap, spread,
                      1.0 if finish is None else finish.askew)
    if spec.dice_values is not None:
        dice_values = list(spec.dice_values)
    else:
        nd = int(rng.choice([0, 1, 2], p=[0.35, 0.1, 0.55]) if spec.n_dice is None else spec.n_dice)
        dice_values = [int(v) for v in rng.integers(1, 7, nd)]
    die_size = float(rng.uniform(14.5, 17.0))
    dice_xy = _place_dice(len(dice_values), men, geo, die_size, rng)
    dice_values = dice_values[:len(dice_xy)]
    occluded = bool(rng.random() < spec.occluded_share) if spec.occluded is None else bool(spec.occluded)
    # ---- camera: fit the distance so the board fills the frame as asked
    f_px = focal / 36.0 * size[0]
    target = np.array([0.0, 0.0, board.zs])
    dist = 1500.0
    outer = board.outer_corners()
    for _ in range(6):
        cam = _make_camera(f_px, size, tilt, az, roll, dist, target)
        p = cam.project(outer)
        bw, bh_ = np.ptp(p[:, 0]), np.ptp(p[:, 1])
        got = max(bw / size[0], bh_ / size[1])
        dist *= got / fill
    cam = _make_camera(f_px, size, tilt, az, roll, dist, target)
    p = cam.project(outer)
    bw, bh_ = np.ptp(p[:, 0]), np.ptp(p[:, 1])
    fill_actual = max(bw / size[0], bh_ / size[1])
    slack = np.array([max(size[0] - bw, 0) / 2, max(size[1] - bh_, 0) / 2])
    shift = rng.uniform(-0.35, 0.35, 2) * np.minimum(slack, 0.04 * np.array(size))
    centre = (p.min(0) + p.max(0)) / 2
    cam.cx += size[0] / 2 - centre[0] + shift[0]
    cam.cy += size[1] / 2 - centre[1] + shift[1]
    # ---- light
    elev = math.radians(rng.uniform(30, 65))
    lazi = rng.uniform(0, 2 * math.pi)
    light = _Light(np.array([math.cos(elev) * math.cos(lazi), math.cos(elev) * math.sin(lazi), math.sin(elev)]),
                   float(rng.uniform(0.35, 0.55)))
    skin = _SKINS[int(rng.integers(0, len(_SKINS)))]
    dice_body = "white" if rng.random() < 0.6 else "ivory"

    if spec.palette_jitter > 0:
        wood_e, field_e, points_e, men_e = _jittered_palettes(rng, spec.palette_jitter, wood, field, points,
                                                              men_style)
    else:
        wood_e, field_e, points_e, men_e = WOODS[wood], FIELDS[field], POINT_COLOURS[points], MEN_COLOURS[men_style]
    if spec.men_contrast > 0:       # drawn only when asked
        men_e = _nearer_men(rng, men_e, spec.men_contrast)
    return ScenePlan(
        spec=spec, doc=doc, kind=kind, wood=wood, men_style=men_style, points=points, field=field, table=table,
        lighting=lighting, size=size, mirror=mirror, yaw=yaw, tilt=tilt, focal=focal, fill=fill,
        fill_actual=float(fill_actual), az=az, roll=roll, row_max=row_max, thick=thick,
        bar_light_side=bar_light_side, board=board, gap=gap, spread=spread, finish=finish, men=men,
        dice_values=dice_values, die_size=die_size, dice_xy=dice_xy, occluded=occluded, cam=cam, target=target,
        shift=shift, elev=elev, lazi=lazi, light=light, skin=skin, dice_body=dice_body,
        wood_e=wood_e, field_e=field_e, points_e=points_e, men_e=men_e)


def _render(rng: np.random.Generator, spec: SceneSpec) -> tuple[np.ndarray, dict[str, Any], int]:
    """The picture before JPEG, its label, and the JPEG quality to use (0: none)."""
    plan = plan_scene(rng, spec)
    cam, board, light, men, thick = plan.cam, plan.board, plan.light, plan.men, plan.thick
    cfg = board.geo.config
    img = np.zeros((plan.size[1], plan.size[0], 3), np.uint8)
    ppm = float(np.linalg.norm(np.diff(cam.project(board.l2w([0, cfg.surface_width], [0, 0], board.zs)), axis=0)))
    ppm /= cfg.surface_width
    tex_ppm = float(np.clip(round(ppm * 1.05, 1), 0.6, 2.0))
    _draw_table(img, rng, cam, board, light, TABLES[plan.table])
    solids = _board_solids(rng, cam, board, light, plan.wood_e, tex_ppm, _bar_men_cylinders(board, men, thick))
    _draw_surface(img, rng, cam, board, light, plan.field_e, plan.points_e, plan.wood_e, tex_ppm, men, thick,
                  plan.dice_xy, plan.die_size, solids)
    man_solids = _men_solids(cam, board, light, men, thick, plan.men_e, rng, plan.finish)
    die_solids = _dice_solids(cam, board, light, plan.dice_xy, plan.dice_values, plan.die_size, plan.dice_body,
                              rng)
    everything = solids + man_solids + die_solids
    cam_uv = board.w2l(float(cam.C[0]), float(cam.C[1]))
    for k in _paint_order(everything, cam_uv):
        everything[k].draw(img)
    if plan.occluded:
        _draw_hand(img, rng, cam, board, light, plan.skin)
    # ---- lighting and camera
    post = _post_params(rng)
    img = _light_and_tone(img, cam, board, LIGHTINGS[plan.lighting], post)
    if spec.camera_effects:
        img = _camera_effects(img, rng, post)
    return img, plan.label(post), (post["jpeg_q"] if spec.camera_effects else 0)


# ------------------------------------------------------------ scene parts
def _draw_table(img: np.ndarray, rng: np.random.Generator, cam: _Camera, board: _Board,
                light: _Light, table: Mapping[str, Any]) -> None:
    h, w = img.shape[:2]
    px = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    P = cam.ray_to_plane(px, 0.0)
    lim = 2500.0
    xs = np.clip(P[:, 0], -lim, lim)
    ys = np.clip(P[:, 1], -lim, lim)
    x0, x1, y0, y1 = xs.min() - 50, xs.max() + 50, ys.min() - 50, ys.max() + 50
    tppm = float(min(0.5, 1400.0 / max(x1 - x0, y1 - y0)))
    tw, th = max(int((x1 - x0) * tppm), 8), max(int((y1 - y0) * tppm), 8)
    if table["kind"] == "wood":
        if rng.random() < 0.8:
            tex = _table_wood(rng, th, tw, tppm, table["light"], table["dark"])
        else:
            tex = np.ascontiguousarray(
                _table_wood(rng, tw, th, tppm, table["light"], table["dark"]).transpose(1, 0, 2))
    else:
        tex = _cloth(rng, th, tw, tppm, table["light"])
    tq = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64)
    world = np.stack([x0 + tq[:, 0] / tppm, y1 - tq[:, 1] / tppm, np.zeros(4)], -1)
    # the table is smooth: warp it at half size and enlarge
    M = cv2.getPerspectiveTransform(tq.astype(np.float32), (cam.project(world) / 2).astype(np.float32))
    half = cv2.warpPerspective(tex, M, ((w + 1) // 2, (h + 1) // 2), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)
    img[:] = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
    # the board's soft shadow and contact darkening on the table
    outer = board.outer_corners()
    hull = _shadow_hull(outer, light.L, 0.0, cam)
    foot = cam.project(outer[outer[:, 2] == 0]).astype(np.float32)
    foot = cv2.convexHull(foot).reshape(-1, 2)
    bb = _bbox(np.concatenate([hull, foot]), (w, h), pad=int(0.06 * w))
    if bb is None:
        return
    layer = _ShadowLayer((w, h), bb, 0.25)
    layer.add(hull)
    ppm = _ppm(cam, board)
    f = layer.factor(sigma_px=max(3.0, 10 * ppm), strength=0.85 * (1 - light.ambient))
    ao = _ShadowLayer((w, h), bb, 0.25)
    ao.add(foot)
    f *= ao.factor(sigma_px=max(2.0, 6 * ppm), strength=0.35)
    _multiply(img, f, bb[0], bb[1])


def _ppm(cam: _Camera, board: _Board) -> float:
    p = cam.project(board.l2w([0, board.W], [board.D / 2] * 2, board.zs))
    return float(np.linalg.norm(p[1] - p[0]) / board.W)


def _box_faces(board: _Board, u0: float, u1: float, v0: float, v1: float, z0: float, z1: float,
               inner_z0: float, skip: Sequence[str]) -> list[tuple[str, np.ndarray, np.ndarray, float, float]]:
    """(name, 4 local corners (u, v, z) with the first edge along the grain,
    local normal (du, dv, dz), grain length, width) of a box's outer faces."""
    faces = []
    Lu, Lv = u1 - u0, v1 - v0
    if Lu >= Lv:
        top = np.array([[u0, v0, z1], [u1, v0, z1], [u1, v1, z1], [u0, v1, z1]])
        faces.append(("top", top, np.array([0, 0, 1.0]), Lu, Lv))
    else:
        top = np.array([[u0, v0, z1], [u0, v1, z1], [u1, v1, z1], [u1, v0, z1]])
        faces.append(("top", top, np.array([0, 0, 1.0]), Lv, Lu))
    W, D = board.W, board.D

    def zb(name: str, nrm: tuple[float, float]) -> float:
        # faces towards the playing surface start at the surface
        cu, cv = (u0 + u1) / 2 + nrm[0] * Lu, (v0 + v1) / 2 + nrm[1] * Lv
        inside = 0 < cu < W and 0 < cv < D
        return inner_z0 if inside else z0

    for name, nrm in (("-v", (0, -1)), ("+v", (0, 1)), ("-u", (-1, 0)), ("+u", (1, 0))):
        if name in skip:
            continue
        b = zb(name, nrm)
        if name == "-v":
            q = [[u0, v0, z1], [u1, v0, z1], [u1, v0, b], [u0, v0, b]]
            length = Lu
        elif name == "+v":
            q = [[u1, v1, z1], [u0, v1, z1], [u0, v1, b], [u1, v1, b]]
            length = Lu
        elif name == "-u":
            q = [[u0, v1, z1], [u0, v0, z1], [u0, v0, b], [u0, v1, b]]
            length = Lv
        else:
            q = [[u1, v0, z1], [u1, v1, z1], [u1, v1, b], [u1, v0, b]]
            length = Lv
        faces.append((name, np.array(q, np.float64), np.array([nrm[0], nrm[1], 0.0]), length, z1 - b))
    return faces


def _bar_men_cylinders(board: _Board, men: list[_Man], thick: float) -> list[np.ndarray]:
    """Rim points (bottom and top circle, world) of each man on the bar."""
    r = board.geo.config.man_diameter / 2
    cx, cy = _circle(24)
    out = []
    for m in men:
        if m.on_bar:
            u, v = board.g2l(m.x, m.y)
            c = board.l2w(u, v, 0.0)
            z0 = board.zs + board.bh + m.level * thick
            ring = np.stack([c[0] + r * cx, c[1] + r * cy, np.full(24, z0)], -1)
            out.append(np.concatenate([ring, ring + [0, 0, thick]]))
    return out


def _board_solids(rng: np.random.Generator, cam: _Camera, board: _Board, light: _Light, wd: dict,
                  tex_ppm: float, bar_men: Sequence[np.ndarray] = ()) -> list[_Solid]:
    """The four rails and the bar, as boxes painted with wood; the men on the
    bar throw their shadows on its top."""
    W, D, fw = board.W, board.D, board.fw
    ztop = board.zs + board.rh
    length_px = int((W + 2 * fw + 20) * tex_ppm)
    tex_h = int(180 * tex_ppm)
    tex = _wood(rng, tex_h, length_px, tex_ppm, wd["light"], wd["dark"], wd["kind"])
    edge = np.clip(np.array(cv2.mean(tex)[:3]) * 1.12, 0, 255)   # the rounded edges of a top catch light
    boxes = [
        # (u0, u1, v0, v1, z0, z1, skip)
        (-fw, W + fw, -fw, 0.0, 0.0, ztop, ()),
        (-fw, W + fw, D, D + fw, 0.0, ztop, ()),
        (-fw, 0.0, 0.0, D, 0.0, ztop, ("-v", "+v")),
        (W, W + fw, 0.0, D, 0.0, ztop, ("-v", "+v")),
    ]
    b0, b1 = board.geo.bar_x
    boxes.append((W - b1 if board.mirror else b0, W - b0 if board.mirror else b1, 0.0, D, board.zs,
                  board.zs + board.bh, ("-v", "+v")))
    solids = []
    for (u0, u1, v0, v1, z0, z1, skip) in boxes:
        faces = _box_faces(board, u0, u1, v0, v1, z0, z1, board.zs, skip)
        drawn = []
        all_pts = []
        for name, q, n_local, length, width in faces:
            Pw = board.l2w(q[:, 0], q[:, 1], q[:, 2])
            nw = board.dir_l2w(n_local[0], n_local[1]) if name != "top" else np.array([0, 0, 1.0])
            centre = Pw.mean(0)
            if float((cam.C - centre) @ nw) <= 0:
                continue
            ip = cam.project(Pw)
            all_pts.append(ip)
            ox = float(rng.uniform(0, max(1.0, tex.shape[1] - length * tex_ppm - 1)))
            oy = float(rng.uniform(0, max(1.0, tex.shape[0] - width * tex_ppm - 1)))
            tq = np.array([[ox, oy], [ox + length * tex_ppm, oy],
                           [ox + length * tex_ppm, oy + width * tex_ppm], [ox, oy + width * tex_ppm]])
            shade = light.shade(nw)
            if name != "top":
                shade *= 0.93
            drawn.append((ip, tq, shade, name))
        pts = np.concatenate(all_pts) if all_pts else cam.project(board.l2w([u0], [v0], [z1]))
        corners = board.l2w(np.array([u0, u1, u0, u1]), np.array([v0, v0, v1, v1]), (z0 + z1) / 2)

        casters = bar_men if z0 > 0 else ()

        def draw(img: np.ndarray, drawn: list = drawn, tex: np.ndarray = tex, casters: Sequence = casters,
                 ztop: float = z1) -> None:
            for ip, tq, shade, name in drawn:
                _warp_quad(img, tex, tq, ip, shade)
                if name == "top":
                    cv2.polylines(img, [_fix(ip)], True, tuple(float(c) for c in np.clip(edge * shade, 0, 255)),
                                  1, cv2.LINE_AA, _SHIFT)
                    if casters:
                        _shadows_on_top(img, ip, casters, ztop, cam, board, light)

        solids.append(_Solid("box", z0, z1, ("r", u0, u1, v0, v1),
                             (float(pts[:, 0].min()), float(pts[:, 1].min()),
                              float(pts[:, 0].max()), float(pts[:, 1].max())),
                             float(cam.depth(corners.mean(0))), draw))
    return solids


def _shadows_on_top(img: np.ndarray, top: np.ndarray, casters: Sequence[np.ndarray], z: float,
                    cam: _Camera, board: _Board, light: _Light) -> None:
    """Soft shadows of men standing on a raised top face (the bar)."""
    size = (img.shape[1], img.shape[0])
    bb = _bbox(top, size)
    if bb is None:
        return
    ppm = _ppm(cam, board)
    shadow = _ShadowLayer(size, bb, 0.5)
    contact = _ShadowLayer(size, bb, 0.5)
    for pts in casters:
        shadow.add(_shadow_hull(pts, light.L, z, cam))
        base = pts[: len(pts) // 2]
        centre = base.mean(0)
        contact.add(cam.project(centre + (base - centre) * 1.04))
    f = shadow.factor(max(1.0, 1.6 * ppm), 0.9 * (1 - light.ambient))
    f *= contact.factor(max(0.8, 1.2 * ppm), 0.45)
    region = np.zeros((bb[3] - bb[1], bb[2] - bb[0]), np.uint8)
    _fill(region, top - [bb[0], bb[1]], (255,), False)
    _multiply(img, f, bb[0], bb[1], region)


def _draw_surface(img: np.ndarray, rng: np.random.Generator, cam: _Camera, board: _Board, light: _Light,
                  fd: dict, cols: tuple, wd: dict, tex_ppm: float, men: list[_Man], thick: float,
                  dice_xy: list[tuple[float, float, float]], die_size: float, solids: list[_Solid]) -> None:
    """The field and the points, and the shadows that fall on them."""
    geo = board.geo
    W, D = board.W, board.D
    s = tex_ppm
    th, tw = int(D * s) + 1, int(W * s) + 1
    if fd["kind"] == "wood":
        lighter = [min(255, c * 1.08 + 6) for c in wd["light"]]
        tex = np.ascontiguousarray(_wood(rng, tw, th, s, lighter, wd["dark"], wd["kind"]).transpose(1, 0, 2))
    elif fd["kind"] == "leather":
        c = np.array(fd["colour"], float)
        tex = _wood(rng, th, tw, s, c, c * 0.88, "leather")
    else:
        tex = _cloth(rng, th, tw, s, fd["colour"], grain=0.012)
    if rng.random() < 0.5:
        cols = (cols[1], cols[0])
    half = geo.config.point_width / 2
    length = geo.config.point_length
    for col in range(12):
        x = geo.point_centre_x(13 + col)
        for top in (True, False):
            c = cols[(col + (0 if top else 1)) % 2]
            if top:
                tri = np.array([[x - half, 0], [x + half, 0], [x, length]])
            else:
                tri = np.array([[x - half, D], [x + half, D], [x, D - length]])
            _fill(tex, tri * s, _bgr(c), True)
    tq = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float64)
    quad3 = board.l2w(tq[:, 0] / s, tq[:, 1] / s, board.zs)
    ip = cam.project(quad3)
    _warp_quad(img, tex, tq, ip, 1.0, aa=False)

    # shadows on the surface: rails, bar, men, dice; and contact darkening
    size = (img.shape[1], img.shape[0])
    sq = cam.project(board.l2w([0, W, W, 0], [0, 0, D, D], board.zs))
    bb = _bbox(sq, size)
    if bb is None:
        return
    ppm = _ppm(cam, board)
    shadow = _ShadowLayer(size, bb, 0.5)
    ao = _ShadowLayer(size, bb, 0.5)
    contact = _ShadowLayer(size, bb, 0.5)
    for sol in solids:
        u0, u1, v0, v1 = sol.fp[1:]
        corners = []
        for z in (max(sol.zmin, board.zs), sol.zmax):
            corners.append(board.l2w(np.array([u0, u1, u1, u0]), np.array([v0, v0, v1, v1]), z))
        shadow.add(_shadow_hull(np.concatenate(corners), light.L, board.zs, cam))
        ao.add(cam.project(corners[0]))
    r = geo.config.man_diameter / 2
    cx, cy = _circle(24)
    for m in men:
        if m.on_bar:
            continue
        u, v = board.g2l(m.x, m.y)
        c = board.l2w(u, v, 0.0)
        z0 = board.zs + m.level * thick
        ring = np.stack([c[0] + r * cx, c[1] + r * cy, np.full(24, z0)], -1)
        top = ring.copy()
        top[:, 2] = z0 + thick
        shadow.add(_shadow_hull(np.concatenate([ring, top]), light.L, board.zs, cam))
        if m.level == 0:
            ring2 = ring.copy()
            ring2[:, :2] = c[:2] + (ring[:, :2] - c[:2]) * 1.04
            contact.add(cam.project(ring2))
    for (x, y, yaw) in dice_xy:
        u, v = board.g2l(x, y)
        c = board.l2w(u, v, board.zs)
        ex, ey, ez = _die_axes(yaw)
        h = die_size / 2
        foot = np.array([c + (ex * i + ey * j) * h for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        shadow.add(_shadow_hull(np.concatenate([foot, foot + ez * die_size]), light.L, board.zs, cam))
        contact.add(cam.project(foot))
    k = 0.9 * (1 - light.ambient)
    f = shadow.factor(max(1.0, 1.6 * ppm), k)
    f *= ao.factor(max(2.0, 9 * ppm), 0.3)
    f *= contact.factor(max(0.8, 1.2 * ppm), 0.45)
    region = np.zeros((bb[3] - bb[1], bb[2] - bb[0]), np.uint8)
    _fill(region, sq - [bb[0], bb[1]], (255,), False)
    _multiply(img, f, bb[0], bb[1], region)


@dataclass(frozen=True)
class _MenFinish:
    """How the men are finished (``SceneSpec.varied_men``): a groove on the
    (light, dark) tops, the side walls' brightness against the palette's
    usual, and how askew a pile's men stand (``_layout_men``)."""

    grooved: tuple[bool, bool]
    side_gain: float
    askew: float


def _men_solids(cam: _Camera, board: _Board, light: _Light, men: list[_Man], thick: float,
                colours: tuple, rng: np.random.Generator, finish: _MenFinish | None = None) -> list[_Solid]:
    """Each man a cylinder: side wall (shaded in three bands), a rounded rim
    lit on the light's side, the top face and, for some sets, a turned groove."""
    geo = board.geo
    r = geo.config.man_diameter / 2
    light_c, dark_c, grooved = colours
    grooves = (grooved, grooved) if finish is None else finish.grooved
    base = (_bgr(light_c), _bgr(dark_c))
    N = 32
    ca, sa = _circle(N)
    mid_a = np.arange(N) * (2 * np.pi / N) + np.pi / N
    normals = np.stack([np.cos(mid_a), np.sin(mid_a), np.zeros(N)], -1)
    side_shade = light.shade_many(normals) * 0.8
    if finish is not None:
        side_shade = np.minimum(side_shade * finish.side_gain, 1.0)
    rim_normals = np.stack([normals[:, 0] * 0.6, normals[:, 1] * 0.6, np.full(N, 0.8)], -1)
    rim_shade = light.shade_many(rim_normals)
    lit = rim_shade >= np.median(rim_shade)
    bevel = float(rng.uniform(0.86, 0.93))
    covered: set[int] = set()
    if finish is not None:          # a pile's men under another show no top: no seam where they meet
        covered = {i for i, m in enumerate(men) for o in men
                   if not m.on_bar and not o.on_bar and o.point == m.point and o.level == m.level + 1
                   and math.hypot(o.x - m.x, o.y - m.y) < 3.0}
    solids = []
    for i, m in enumerate(men):
        u, v = board.g2l(m.x, m.y)
        c = board.l2w(u, v, 0.0)
        support = board.zs + (board.bh if m.on_bar else 0.0)
        z0 = support + m.level * thick
        z1 = z0 + thick
        ring = np.stack([c[0] + r * ca, c[1] + r * sa], -1)
        pts3 = np.concatenate([np.concatenate([ring, np.full((N, 1), z0)], 1),
                               np.concatenate([ring, np.full((N, 1), z1)], 1),
                               [[c[0], c[1], z1]]])
        proj = cam.project(pts3)
        pb, pt, ct = proj[:N], proj[N:2 * N], proj[2 * N]
        mid = np.stack([c[0] + r * normals[:, 0], c[1] + r * normals[:, 1], np.full(N, (z0 + z1) / 2)], -1)
        visible = np.einsum("ij,ij->i", cam.C - mid, normals) > 0
        col = base[m.colour] * float(rng.uniform(0.97, 1.03))
        allp = np.concatenate([pb, pt])
        # the visible side wall as up to three bands of one shade each
        bands = []
        idx = np.nonzero(visible)[0]
        if len(idx):
            # order the visible segments as one run around the circle
            start = next((i for i in idx if not visible[(i - 1) % N]), idx[0])
            run = [(start + k) % N for k in range(len(idx))]
            for chunk in np.array_split(np.array(run), min(3, len(run))):
                ks = list(chunk) + [(chunk[-1] + 1) % N]
                poly = np.concatenate([pb[ks], pt[ks][::-1]])
                bands.append((poly, col * float(side_shade[chunk].mean())))
        side_mean = col * float(side_shade[visible].mean() if visible.any() else 0.6)
        lit_idx = np.nonzero(lit)[0]
        start = next((i for i in lit_idx if not lit[(i - 1) % N]), lit_idx[0])
        arc = [(start + k) % N for k in range(len(lit_idx) + 1)]
        outer = pt[arc]
        rim_poly = np.concatenate([outer, ct + (outer[::-1] - ct) * bevel])
        rim_col = np.clip(col * float(rim_shade[lit].mean()) * 0.97, 0, 255)

        def draw(img: np.ndarray, allp: np.ndarray = allp, bands: list = bands, pt: np.ndarray = pt,
                 ct: np.ndarray = ct, col: np.ndarray = col, side_mean: np.ndarray = side_mean,
                 rim_poly: np.ndarray = rim_poly, rim_col: np.ndarray = rim_col,
                 grooved: bool = grooves[m.colour], under: bool = i in covered) -> None:
            hull = cv2.convexHull(allp.astype(np.float32)).reshape(-1, 2)
            _fill(img, hull, side_mean)
            for poly, bc in bands:
                _fill(img, poly, bc, aa=False)
            if under:
                return
            _fill(img, pt, col * 0.86)
            _fill(img, rim_poly, rim_col, aa=False)
            _fill(img, ct + (pt - ct) * bevel, col)
            if grooved:
                cv2.polylines(img, [_fix(ct + (pt - ct) * 0.62), ], True, tuple(float(x) for x in col * 0.8),
                              1, cv2.LINE_AA, _SHIFT)
                cv2.polylines(img, [_fix(ct + (pt - ct) * 0.665)], True,
                              tuple(float(x) for x in np.clip(col * 1.06, 0, 255)), 1, cv2.LINE_AA, _SHIFT)

        solids.append(_Solid("man", z0, z1, ("c", float(u), float(v), r),
                             (float(allp[:, 0].min()), float(allp[:, 1].min()),
                              float(allp[:, 0].max()), float(allp[:, 1].max())),
                             float(cam.depth(np.array([c[0], c[1], (z0 + z1) / 2]))), draw))
    return solids


def _die_axes(yaw: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (np.array([math.cos(yaw), math.sin(yaw), 0.0]), np.array([-math.sin(yaw), math.cos(yaw), 0.0]),
            np.array([0, 0, 1.0]))


_PIPS = {
    1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _dice_solids(cam: _Camera, board: _Board, light: _Light, dice_xy: list[tuple[float, float, float]],
                 values: list[int], s: float, body: str, rng: np.random.Generator) -> list[_Solid]:
    solids = []
    colour = _bgr(_DICE_BODY[body])
    pip_col = np.array([28, 28, 30], np.float32)
    pc, ps = _circle(10)
    for (x, y, yaw), value in zip(dice_xy, values):
        u, v = board.g2l(x, y)
        c = board.l2w(u, v, board.zs)
        ex, ey, ez = _die_axes(yaw)
        h = s / 2
        centre = c + ez * h
        # faces: normal, two in-plane axes, value (opposite faces sum to 7)
        side = [a for a in range(1, 7) if a not in (value, 7 - value)]
        a = side[int(rng.integers(0, 4))]
        b = [q for q in side if q not in (a, 7 - a)][0]
        faces = [(ez, ex, ey, value), (ex, ey, ez, a), (-ex, ey, ez, 7 - a), (ey, ex, ez, b), (-ey, ex, ez, 7 - b)]
        draws = []
        pts_all = []
        for n, e1, e2, val in faces:
            fc = centre + n * h
            if float((cam.C - fc) @ n) <= 0:
                continue
            q = np.array([fc + (e1 * i + e2 * j) * h for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
            iq = cam.project(q)
            pts_all.append(iq)
            pips = []
            for (i, j) in _PIPS[val]:
                pcen = fc + (e1 * i + e2 * j) * h * 0.5
                ring = pcen + (np.outer(pc, e1) + np.outer(ps, e2)) * s * 0.09
                pips.append(cam.project(ring))
            draws.append((iq, colour * min(light.shade(n), 1.05), pips))
        pts = np.concatenate(pts_all)

        def draw(img: np.ndarray, draws: list = draws) -> None:
            for iq, col, pips in draws:
                _fill(img, iq, col)
                cv2.polylines(img, [_fix(iq)], True, tuple(float(v) for v in col * 0.85), 1, cv2.LINE_AA, _SHIFT)
                for p in pips:
                    _fill(img, p, pip_col)

        solids.append(_Solid("die", board.zs, board.zs + s, ("c", float(u), float(v), s * 0.72),
                             (float(pts[:, 0].min()), float(pts[:, 1].min()),
                              float(pts[:, 0].max()), float(pts[:, 1].max())),
                             float(cam.depth(centre)), draw))
    return solids




# -------------------------------------------------------------------- hand
def _capsule_outline(a: np.ndarray, b: np.ndarray, ra: float, rb: float, n: int = 12) -> np.ndarray:
    d = b - a
    ln = float(np.hypot(*d))
    d = d / ln if ln > 1e-6 else np.array([1.0, 0.0])
    nn = np.array([-d[1], d[0]])
    t = np.linspace(0, np.pi, n)
    arc_b = b + rb * (np.outer(np.cos(t), nn) + np.outer(np.sin(t), d))
    arc_a = a + ra * (np.outer(np.cos(t), -nn) + np.outer(np.sin(t), -d))
    return np.concatenate([arc_b, arc_a])


def _hand_parts(rng: np.random.Generator, board: _Board) -> list[tuple[np.ndarray, np.ndarray, float, float]]:
    """Capsules (3D end points in world, radii in mm): forearm, palm, fingers, thumb."""
    W, D = board.W, board.D
    u = float(rng.uniform(0.15, 0.85) * W)
    v = float(rng.uniform(0.2, 0.8) * D)
    side = int(rng.integers(0, 4))
    ang = side * np.pi / 2 + float(rng.normal(0, 0.3))
    dl = np.array([math.cos(ang), math.sin(ang)])          # from the hand towards the body (local)
    dw = board.dir_l2w(dl[0], dl[1])[:2]
    pw = np.array([-dw[1], dw[0]])
    hz = board.zs + board.rh + float(rng.uniform(40, 120))
    wrist = np.append(board.l2w(u, v, 0.0)[:2], hz)
    forearm_len = float(rng.uniform(260, 320))
    elbow = np.append(wrist[:2] + dw * forearm_len, hz + float(rng.uniform(30, 120)))
    shoulder = np.append(elbow[:2] + dw * 300, elbow[2] + 150)
    parts = [(shoulder, elbow, 40.0, 34.0), (elbow, wrist, float(rng.uniform(30, 35)), float(rng.uniform(22, 26)))]
    palm_len = float(rng.uniform(60, 75))
    knuckles = np.append(wrist[:2] - dw * palm_len, hz - 6)
    parts.append((wrist - np.append(dw * 10, 0), knuckles, 27.0, 32.0))
    spread = float(rng.uniform(0.0, 0.25))
    curl = float(rng.uniform(5, 30))
    for i, off in enumerate((-24.0, -8.0, 8.0, 22.0)):
        base = knuckles.copy()
        base[:2] += pw * off
        a = -dw + pw * (off / 24.0) * spread
        a /= np.linalg.norm(a)
        length = float((62, 74, 76, 60)[i] * rng.uniform(0.9, 1.1))
        tip = np.append(base[:2] + a * length, hz - curl)
        parts.append((base, tip, 8.5, 7.0))
    tside = 1 if rng.random() < 0.5 else -1
    tb = wrist.copy()
    tb[:2] += pw * tside * 25 - dw * 15
    ta = -dw * 0.6 + pw * tside * 0.8
    ta /= np.linalg.norm(ta)
    parts.append((tb, np.append(tb[:2] + ta * 55, hz - 8), 11.0, 8.5))
    return parts


def _draw_hand(img: np.ndarray, rng: np.random.Generator, cam: _Camera, board: _Board, light: _Light,
               skin: Sequence[int]) -> None:
    parts = _hand_parts(rng, board)
    size = (img.shape[1], img.shape[0])
    # its shadow on the board, taken to lie at the surface's height
    outlines = []
    for a, b, ra, rb in parts:
        sa, sb = [p - (p[2] - board.zs) / light.L[2] * light.L for p in (a, b)]
        pa, pb = cam.project(np.array([sa, sb]))
        za, zb = cam.to_cam(np.array([sa, sb]))[:, 2]
        outlines.append(_capsule_outline(pa, pb, cam.f * ra / za, cam.f * rb / zb))
    allp = np.concatenate(outlines)
    bb = _bbox(allp, size, pad=int(0.05 * size[0]))
    if bb is not None:
        layer = _ShadowLayer(size, bb, 0.25)
        for o in outlines:
            layer.add(o)
        _multiply(img, layer.factor(max(4.0, 14 * _ppm(cam, board)), 0.85 * (1 - light.ambient)), bb[0], bb[1])
    col = _bgr(skin)
    order = sorted(parts, key=lambda p: -float(cam.depth((p[0] + p[1]) / 2)))
    for a, b, ra, rb in order:
        pa, pb = cam.project(np.array([a, b]))
        za, zb = cam.to_cam(np.array([a, b]))[:, 2]
        rpa, rpb = cam.f * ra / za, cam.f * rb / zb
        d = pb - pa
        ln = float(np.hypot(*d)) or 1.0
        nn = np.array([-d[1], d[0]]) / ln
        lp = cam.project(np.array([a, a + light.L * 100]))
        toward = float(np.sign(nn @ (lp[1] - lp[0])) or 1.0)
        levels = 8
        for k in range(levels):
            s = 1 - 0.85 * k / levels
            off = (1 - s) * 0.4 * toward * nn
            bright = 0.52 + 0.56 * math.sqrt(max(0.0, 1 - s * s))
            _fill(img, _capsule_outline(pa + off * rpa, pb + off * rpb, rpa * s, rpb * s),
                  np.clip(col * bright, 0, 255))


# ----------------------------------------------------------- light, camera
def _post_params(rng: np.random.Generator) -> dict[str, Any]:
    """Exposure, tone, light fall-off and camera-effect settings of one picture."""
    return {
        "exposure": round(float(rng.uniform(-0.2, 0.25)), 2),
        "contrast": round(float(rng.uniform(-0.2, 0.25)), 2),
        "cast_jitter": [round(float(x), 3) for x in rng.uniform(-0.03, 0.03, 3)],
        "vignette": round(float(rng.uniform(0.1, 0.45)), 3),
        "blur": round(float(rng.uniform(0.25, 0.9)), 2),
        "noise": round(float(rng.uniform(1.2, 3.4)), 2),
        "jpeg_q": int(rng.integers(75, 96)),
        "falloff": round(float(rng.uniform(0.05, 0.22)), 3),
        "falloff_dir": round(float(rng.uniform(0, 2 * np.pi)), 3),
        "lamp": [round(float(x), 1) for x in (*rng.uniform(-500, 500, 2), rng.uniform(700, 1500))],
        "lamp_power": round(float(rng.uniform(1.0, 2.2)), 2),
    }


def _light_and_tone(img: np.ndarray, cam: _Camera, board: _Board,
                    lighting: Mapping[str, Any], post: Mapping[str, Any]) -> np.ndarray:
    """The light's fall-off over the scene (a window's gradient or a lamp's
    pool), vignetting, colour cast, exposure and the camera's tone curve."""
    h, w = img.shape[:2]
    gw = 64
    gh = max(2, int(round(gw * h / w)))
    gx, gy = np.meshgrid((np.arange(gw) + 0.5) * w / gw, (np.arange(gh) + 0.5) * h / gh)
    P = cam.ray_to_plane(np.stack([gx, gy], -1), board.zs)
    X, Y = P[..., 0], P[..., 1]
    if lighting["falloff"] == "gradient":
        a = post["falloff_dir"]
        t = (X * math.cos(a) + Y * math.sin(a)) / 600.0
        I = 1 + post["falloff"] * np.tanh(t)
        I *= 1 - 0.5 * post["falloff"] * np.tanh((X ** 2 + Y ** 2) / 1.2e6)
    else:
        lx, ly, lh = post["lamp"]
        if lighting["falloff"] == "spot_wide":
            lh *= 1.6
        r2 = (X - lx) ** 2 + (Y - ly) ** 2
        I = (lh ** 2 / (lh ** 2 + r2)) ** post["lamp_power"]
        I0 = (lh ** 2 / (lh ** 2 + lx ** 2 + ly ** 2)) ** post["lamp_power"]
        I = I / I0
        I = 0.35 + 0.65 * I
        I = np.minimum(I, 1.45)
    rn2 = ((gx - w / 2) ** 2 + (gy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)  # 1 at a corner
    V = 1 - post["vignette"] * np.clip(rn2, 0, 1.2) ** 1.1
    gain = 2.0 ** post["exposure"]
    cast = np.array(lighting["cast"][::-1], np.float32) + np.array(post["cast_jitter"], np.float32)
    grid = (I * V * gain).astype(np.float32)[..., None] * cast
    m = cv2.resize(grid, (w, h), interpolation=cv2.INTER_LINEAR)
    u8 = cv2.multiply(img, m, dtype=cv2.CV_8U)
    x = np.arange(256, dtype=np.float64) / 255
    c = post["contrast"]
    y = x + c * x * (1 - x) * (2 * x - 1) * 2.2
    y = np.clip(y, 0, 1) * 0.97 + 0.012          # a little lift and roll-off, as a camera's tone curve
    lut = np.clip(np.round(y * 255), 0, 255).astype(np.uint8)
    return cv2.LUT(u8, lut)


_GAUSS_LUT = np.array([0.0], np.float32)


def _gauss_lut() -> np.ndarray:
    """Normal quantiles of 256 equal slices: a uint8 of uniform noise through it is Gaussian."""
    global _GAUSS_LUT
    if _GAUSS_LUT.size != 256:
        p = (np.arange(256) + 0.5) / 256
        # inverse normal CDF by Newton's method on erf (no scipy)
        z = np.zeros(256)
        for _ in range(50):
            cdf = 0.5 * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))
            pdf = np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
            z -= (cdf - p) / pdf
        _GAUSS_LUT = (z / z.std()).astype(np.float32)
    return _GAUSS_LUT


def _camera_effects(img: np.ndarray, rng: np.random.Generator, post: Mapping[str, Any]) -> np.ndarray:
    """Lens blur, then sensor noise (mostly in brightness, a little in colour)."""
    h, w = img.shape[:2]
    img = cv2.GaussianBlur(img, (0, 0), post["blur"])
    lut = _gauss_lut()
    lum = cv2.LUT(np.frombuffer(rng.bytes(h * w), np.uint8).reshape(h, w), lut * post["noise"])
    hh, hw = (h + 1) // 2, (w + 1) // 2
    cb = np.frombuffer(rng.bytes(3 * hh * hw), np.uint8).reshape(hh, hw, 3)
    noise = cv2.resize(cv2.LUT(cb, lut * (post["noise"] * 0.4)), (w, h), interpolation=cv2.INTER_LINEAR)
    noise += lum[..., None]
    return cv2.add(img, noise, dtype=cv2.CV_8U)


# -------------------------------------------------------------- public API
def render(rng: np.random.Generator, spec: SceneSpec | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Draw one labelled frame: a BGR uint8 image and its label (the dev set's format).

    Everything *spec* leaves open is drawn from *rng*, so the same generator
    state gives the same picture.  The image has been through the JPEG round
    trip (unless ``spec.camera_effects`` is False).

    >>> import numpy as np
    >>> from willughby.engine.rules import preset_rules, start_position
    >>> spec = SceneSpec(position=start_position(preset_rules("backgammon")), image_size=(640, 360))
    >>> image, label = render(np.random.default_rng(1), spec)
    >>> label["position_kind"], sum(label["light"]), len(label["corners"])
    ('backgammon_start', 15, 4)
    """
    img, label, q = _render(rng, spec or SceneSpec())
    if q:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img, label


def render_jpeg(rng: np.random.Generator, spec: SceneSpec | None = None) -> tuple[bytes, dict[str, Any]]:
    """Like :func:`render`, but the JPEG file's bytes (which decode to render's image)."""
    spec = spec or SceneSpec()
    img, label, q = _render(rng, spec)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q or 95])
    return buf.tobytes(), label


def write_dataset(outdir: str | Path, count: int, seed: int, *, occluded_share: float = 0.15,
                  spec: SceneSpec | None = None, start: int = 1, progress: Any = None) -> list[Path]:
    """Write img_0001.jpg + img_0001.json ... (the dev set's layout) into *outdir*.

    Image *i* is drawn from ``numpy.random.default_rng([seed, i])``, so a
    seed always gives the same set, whatever the count.
    """
    if count < 0:
        raise SynthError(f"count must be 0 or more, not {count}")
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    base = replace(spec or SceneSpec(), occluded_share=occluded_share)
    written = []
    t0 = time.perf_counter()
    for i in range(start, start + count):
        data, label = render_jpeg(np.random.default_rng([seed, i]), base)
        stem = out / f"img_{i:04d}"
        stem.with_suffix(".jpg").write_bytes(data)
        with open(stem.with_suffix(".json"), "w") as f:
            json.dump(label, f, indent=1)
            f.write("\n")
        written.append(stem.with_suffix(".jpg"))
        if progress is not None:
            n = i - start + 1
            progress(f"{n}/{count} {stem.name}.jpg {label['position_kind']}"
                     f"{' occluded' if label['occluded'] else ''} "
                     f"({(time.perf_counter() - t0) / n:.3f} s per image)")
    return written


def add_scene_options(parser: argparse.ArgumentParser) -> None:
    """The command-line options for how the men lie and look (``SceneSpec``'s
    *edge_gap*, *varied_men* and *men_contrast*), shared by this command and
    the tools that make frames with the generator."""
    parser.add_argument("--edge-gap", type=float, default=0.0,
                        help="men stand up to this many mm off the board's edge (default 0: touching it)")
    parser.add_argument("--varied-men", action="store_true",
                        help="vary the men's finish frame by frame (grooves, side walls' shade, squared piles)")
    parser.add_argument("--men-contrast", type=float, default=0.0,
                        help="bring the men's two colours up to this share nearer each other (e.g. 0.3)")


def scene_options(args: argparse.Namespace) -> dict[str, Any]:
    """``SceneSpec`` keyword arguments from the options of ``add_scene_options``."""
    return {"edge_gap": args.edge_gap, "varied_men": args.varied_men, "men_contrast": args.men_contrast}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m willughby.vision.synth OUTDIR --count N --seed S [--occluded-share 0.15] [--edge-gap MM]
    [--varied-men] [--men-contrast SHARE]``."""
    parser = argparse.ArgumentParser(
        prog="python -m willughby.vision.synth",
        description="Write labelled synthetic frames of a tables board (the vision dev set's layout).")
    parser.add_argument("outdir", help="folder for img_0001.jpg + img_0001.json ...")
    parser.add_argument("--count", type=int, default=100, help="how many images (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed: the same seed gives the same images")
    parser.add_argument("--occluded-share", type=float, default=0.15,
                        help="share of images with a hand over the board (default 0.15)")
    add_scene_options(parser)
    parser.add_argument("--quiet", action="store_true", help="print no progress")
    args = parser.parse_args(argv)
    if args.count < 0:
        parser.error(f"--count must be 0 or more, not {args.count}")
    if not 0 <= args.occluded_share <= 1:
        parser.error(f"--occluded-share must be 0..1, not {args.occluded_share}")
    try:
        spec = SceneSpec(**scene_options(args))
    except SynthError as exc:
        parser.error(str(exc))
    say = None if args.quiet else (lambda s: print(s, flush=True))
    t0 = time.perf_counter()
    write_dataset(args.outdir, args.count, args.seed, occluded_share=args.occluded_share, spec=spec,
                  progress=say)
    if not args.quiet:
        print(f"wrote {args.count} images to {args.outdir} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
