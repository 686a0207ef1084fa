"""What the point reader's probabilities are indexed by: each point's
*class* (empty, 1..15 light men, 1..15 dark men) and *pile class* (the men
at its edge laid flat, a pile of 2, a pile of 3 or more), and a board
document's classes, point by point.  The turn reader weighs boards in these
terms (``turns``, ``turns_piles``), and so do the places' changes
(``footprints``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["POINTS", "CLASSES", "PILES", "PILE_HEIGHT", "board_classes", "pile_classes", "has_piles"]

POINTS = 24
CLASSES = 31                  # empty, 1..15 light, 1..15 dark
PILES = 3                     # the men at a point's edge: laid flat, a pile of 2, a pile of 3 or more
PILE_HEIGHT = (0, 2, 3)       # the men a pile class stands for


def board_classes(board: Mapping[str, Any]) -> np.ndarray:
    """The class of each point of a board document (0 empty, n light men,
    15 + n dark men): what the point reader's probabilities are indexed by.

    >>> board_classes({"light": [2] + [0] * 23, "dark": [0] * 23 + [3]})[[0, 1, 23]].tolist()
    [2, 0, 18]
    """
    light, dark = board["light"], board["dark"]
    out = np.zeros(POINTS, np.int64)
    for i in range(POINTS):
        n_l, n_d = int(light[i]), int(dark[i])
        if n_l and n_d:
            raise ValueError(f"point {i + 1} holds men of both colours")
        if n_l > 15 or n_d > 15:
            raise ValueError(f"point {i + 1} holds more than 15 men")
        out[i] = n_l if n_l else (15 + n_d if n_d else 0)
    return out


def pile_classes(board: Mapping[str, Any]) -> np.ndarray:
    """The pile class of each point of a board document (0 men laid flat,
    1 a pile of 2, 2 a pile of 3 or more): what the point reader's pile
    probabilities are indexed by.

    >>> pile_classes({"light": [3] + [0] * 23, "dark": [0] * 24,
    ...               "stacked": {"light": [2] + [0] * 23, "dark": [0] * 24}})[:2].tolist()
    [1, 0]
    """
    stacked = board.get("stacked") or {}
    out = np.zeros(POINTS, np.int64)
    for side in ("light", "dark"):
        for i, s in enumerate(stacked.get(side) or [0] * POINTS):
            if int(s) >= 2:
                out[i] = 1 if int(s) == 2 else 2
    return out


def has_piles(board: Mapping[str, Any] | None) -> bool:
    """Whether a board document has a man in a pile (the unstacking games)."""
    stacked = (board or {}).get("stacked") or {}
    return any(int(s) for side in ("light", "dark") for s in (stacked.get(side) or ()))
