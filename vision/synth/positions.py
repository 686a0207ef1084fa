"""What is on the board: the starting positions, random positions of the
kinds the painter knows, and a caller's position made into a label's board
document (``docs/vision-labels.md``)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from willughby.engine.position import Position

from .spec import _IMAGE_KEYS, MEN_PER_SIDE, SynthError


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
        n_points = min(len(free), max(1, left), int(rng.integers(1, 8)))
        points = free[:n_points]
        if left > 0:
            big = rng.random() < 0.35  # exercise second layers: one point of 7-10
            if big:
                first = min(left, int(rng.integers(7, 11)))
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
