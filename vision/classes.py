"""What the point reader's probabilities are indexed by: each point's
*class* (empty, 1..15 light men, 1..15 dark men) and *pile class* (the men
at its edge laid flat, a pile of 2, a pile of 3 or more), and a board
document's classes, point by point.  This module is the one place these
encodings are written; the turn reader weighs boards in their terms
(``turns``, ``turns_piles``, ``turns_race``), and so do the places' changes
(``footprints``), the network's decoding (``pointnet``), the start layouts
(``starts``) and what a board teaches the reader (``board_head``).

A class is a number: 0 for an empty point, *n* for *n* light men, and
``MOST_MEN + n`` for *n* dark men.  The network's classes stop at
``MOST_MEN`` men of a colour on a point whatever the game; how many men a
side has in all is the game's (``MEN_PER_SIDE`` where the game is not
said: 15, as in most games; 12 in Doblet and Ofanfelling).

>>> point_class("dark", 3), int(CLASS_MEN[18]), int(CLASS_COLOUR[18]), CLASSES
(18, 3, 1, 31)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["POINTS", "MOST_MEN", "CLASSES", "EMPTY", "LIGHT", "DARK", "MEN_PER_SIDE", "CLASS_MEN", "CLASS_COLOUR",
           "PILES", "PILE_HEIGHT", "point_class", "side_classes", "light_men", "dark_men", "pile_class",
           "board_classes", "pile_classes", "has_piles"]

POINTS = 24
MOST_MEN = 15                 # the most men of one colour a point's class can say
CLASSES = 1 + 2 * MOST_MEN    # empty, 1..15 light, 1..15 dark: 31
EMPTY = 0                     # the class of an empty point
LIGHT, DARK = 0, 1            # a class's colour (CLASS_COLOUR); -1 for the empty point
MEN_PER_SIDE = 15             # a side's men where the game is not said (most games; 12 in some old ones)
PILES = 3                     # the men at a point's edge: laid flat, a pile of 2, a pile of 3 or more
PILE_HEIGHT = (0, 2, 3)       # the men a pile class stands for

#: the men each class stands for (0, 1..15, 1..15) ...
CLASS_MEN = np.array([k if k <= MOST_MEN else k - MOST_MEN for k in range(CLASSES)], np.int64)
#: ... and their colour (-1 the empty point, ``LIGHT`` or ``DARK``)
CLASS_COLOUR = np.array([-1 if k == EMPTY else (LIGHT if k <= MOST_MEN else DARK) for k in range(CLASSES)], np.int64)
CLASS_MEN.setflags(write=False)
CLASS_COLOUR.setflags(write=False)


def point_class(colour: str, men: int) -> int:
    """The class of a point holding *men* men of *colour* ("light" or
    "dark"); 0 where *men* is 0.

    >>> point_class("light", 2), point_class("dark", 2), point_class("dark", 0)
    (2, 17, 0)
    """
    if not 0 <= men <= MOST_MEN:
        raise ValueError(f"a point's class holds 0 to {MOST_MEN} men, not {men}")
    if men == 0:
        return EMPTY
    return men if colour == "light" else MOST_MEN + men


def side_classes(colour: str) -> slice:
    """The classes of 1..15 men of *colour*, as a slice of a point's
    probabilities.

    >>> side_classes("light"), side_classes("dark")
    (slice(1, 16, None), slice(16, 31, None))
    """
    first = point_class(colour, 1)
    return slice(first, first + MOST_MEN)


def light_men(classes: np.ndarray) -> np.ndarray:
    """The light men each class in *classes* stands for (0 for dark men or none).

    >>> light_men(np.array([0, 3, 18])).tolist()
    [0, 3, 0]
    """
    return np.where(CLASS_COLOUR[classes] == LIGHT, CLASS_MEN[classes], 0)


def dark_men(classes: np.ndarray) -> np.ndarray:
    """The dark men each class in *classes* stands for (0 for light men or none).

    >>> dark_men(np.array([0, 3, 18])).tolist()
    [0, 0, 3]
    """
    return np.where(CLASS_COLOUR[classes] == DARK, CLASS_MEN[classes], 0)


def pile_class(height: int) -> int:
    """The pile class of a pile of *height* men (0: the men laid flat).

    >>> pile_class(0), pile_class(2), pile_class(3)
    (0, 1, 2)
    """
    if height not in PILE_HEIGHT:
        raise ValueError(f"a pile class is of {', '.join(map(str, PILE_HEIGHT))} men, not {height}")
    return PILE_HEIGHT.index(height)


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
        if n_l > MOST_MEN or n_d > MOST_MEN:
            raise ValueError(f"point {i + 1} holds more than {MOST_MEN} men")
        out[i] = n_l if n_l else (MOST_MEN + n_d if n_d else EMPTY)
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
                out[i] = pile_class(min(int(s), PILE_HEIGHT[-1]))
    return out


def has_piles(board: Mapping[str, Any] | None) -> bool:
    """Whether a board document has a man in a pile (the unstacking games)."""
    stacked = (board or {}).get("stacked") or {}
    return any(int(s) for side in ("light", "dark") for s in (stacked.get(side) or ()))
