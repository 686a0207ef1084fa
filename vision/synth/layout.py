"""Where the men and dice lie on the board, in the board geometry's
millimetres: rows, second layers, piles and the bar, pushed apart where
jitter made them overlap; and how the men are finished."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from ..geometry import BoardGeometry

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
                askew: float = 1.0,
                rng_for: Callable[[int, int], np.random.Generator] | None = None) -> list[_Man]:
    """Where each man lies.  *gap*: how far (mm) the men of a point stand off
    the board's edge, give or take a little per point; *spread*: how much
    further apart (mm) than touching the men of a row lie; *askew*: how far
    a pile's men stand off one another (1: about 0.7 mm; 0: squared).

    The jitter is drawn from *rng*, or, where *rng_for* is given, from
    ``rng_for(colour, point)`` for each colour's men on a point (point 0:
    the bar), so a point's men lie where they lay whatever happens on the
    other points, and a man added to a row leaves the others in place."""
    men: list[_Man] = []
    for colour, name in enumerate(("light", "dark")):
        counts = doc[name]
        stacked = doc["stacked"][name]
        for p in range(1, 25):
            n = counts[p - 1]
            if not n:
                continue
            if rng_for is not None:
                rng = rng_for(colour, p)
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
            if rng_for is not None:
                rng = rng_for(colour, 0)
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


@dataclass(frozen=True)
class _MenFinish:
    """How the men are finished (``SceneSpec.varied_men``): a groove on the
    (light, dark) tops, the side walls' brightness against the palette's
    usual, and how askew a pile's men stand (``_layout_men``)."""

    grooved: tuple[bool, bool]
    side_gain: float
    askew: float
