"""The one point in doubt: a photo read surely everywhere but one point (:func:`point_question`).

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

from typing import Any, Mapping, Sequence

__all__ = ["point_question", "points_apart", "point_named", "men_on"]


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


def point_question(ranked: Sequence[Mapping[str, Any]], reading: Mapping[str, Any], mover: str,
                   sure: float = 0.9) -> dict[str, Any] | None:
    """Where the camera read every location surely (*sure*, as ``reading["confidence"]`` gives it) but one
    point, and some of the boards the turn reader weighed (*ranked*: the throw's plays, and another board)
    are the reading everywhere else, the one question that settles the turn: how many men stand on that
    point (``{"point", "index", "question", "choices": [{"play", "men", "p"}]}``, the point named as *mover*
    counts it, ``index`` as light counts it; the reading's own count there is a choice too, as "the board
    as read"); else None. The throw's legal plays never differ at one point alone (men are neither made nor
    lost), so where one of them is the reading everywhere but there, the question is whether it was made."""
    confidence = reading.get("confidence") or {}
    doubtful = [k for k, v in confidence.items() if float(v) < sure]
    if len(doubtful) != 1 or not str(doubtful[0]).isdigit():
        return None
    at = int(doubtful[0]) - 1
    fits = [r for r in ranked if r.get("board") is not None and points_apart(reading, r["board"]) <= {at}][:4]
    if not any(points_apart(reading, r["board"]) == {at} for r in fits):
        return None                   # no board weighed differs from the reading there: nothing to ask
    name = point_named(at, mover)
    choices = [{"play": r["play"], "men": men_on(r["board"], at), "p": round(float(r["p"]), 4)} for r in fits]
    read = men_on(reading, at)
    if read not in {c["men"] for c in choices}:
        choices.append({"play": "the board as read", "men": read, "p": None})
    return {"point": name, "index": at + 1, "question": f"How many men stand on {name}?", "choices": choices}
