"""The one point in doubt: a photo read surely everywhere but one point (``photo_judge.point_question``).

A picture read surely at every point but one, where some play of the throw is the reading everywhere else,
needs no question about the whole board: "how many men stand on light's point 5?" settles it. These name
the points and the men on them in the players' words.

>>> a = {"light": [0] * 4 + [2] + [0] * 19, "dark": [0] * 24}
>>> b = dict(a, light=[0] * 4 + [1] + [0] * 19)
>>> sorted(points_apart(a, b)), sorted(points_apart(a, dict(b, dark=[1] + [0] * 23)))
([4], [0, 4])
>>> point_named(4, "light"), point_named(4, "dark")
("light's point 5", "dark's point 20")
>>> men_on(a, 4), men_on(b, 4), men_on(dict(a, light=[0] * 24), 4)
('2 light men', '1 light man', 'no man')
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["points_apart", "point_named", "men_on"]


def points_apart(a: Mapping[str, Any], b: Mapping[str, Any]) -> set[int]:
    """The indexes (0 for light's point 1) of the points where boards *a* and *b* have other men (the bar
    and the men off not looked at: a photo's reading of those is its own)."""
    return {i for side in ("light", "dark") for i in range(24) if int(a[side][i]) != int(b[side][i])}


def point_named(index: int, mover: str) -> str:
    """The point at *index* as *mover* counts it, as plays are written ("dark's point 20")."""
    return f"{mover}'s point {index + 1 if mover == 'light' else 24 - index}"


def men_on(board: Mapping[str, Any], index: int) -> str:
    """The men *board* has on the point at *index*, in words."""
    for side in ("light", "dark"):
        n = int(board[side][index])
        if n:
            return f"{n} {side} {'man' if n == 1 else 'men'}"
    return "no man"
