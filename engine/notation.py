"""Standard play notation: ``24/18* 13/11``, ``bar/22``, ``6/off``, ``8/5(2)``.

Points are in the mover's own numbering.  ``bar`` is the bar, ``in`` a man
entering from off the board (games that start off the board), ``off`` a man
borne off, ``*`` a hit, ``(n)`` the same move made by n men, and a man that
takes several dice is written once, with the points where it hit
(``13/8*/4``).  An empty play is written ``(no play)``.

>>> from willughby.engine.race_state import Step
>>> format_play((Step(24, 18, 6, True), Step(13, 11, 2)))
'24/18* 13/11'
>>> parse_moves("8/5(2) 6/5")
[(8, [], 5), (8, [], 5), (6, [], 5)]
"""

from __future__ import annotations

import re
from typing import Sequence

from .errors import InvalidBoardError, NotationError
from .race_state import BAR, OFF, WAITING, Step, apply_step, from_state, to_state
from .position import Position

__all__ = ["format_play", "parse_moves", "parse_play", "NO_PLAY"]

NO_PLAY = "(no play)"
_NAMES = {BAR: "bar", WAITING: "in", OFF: "off"}


def _name(point: int) -> str:
    return _NAMES.get(point, str(point))


def format_play(steps: Sequence[Step]) -> str:
    """Write a play's steps in standard notation."""
    if not steps:
        return NO_PLAY
    chains: list[tuple[int, list[tuple[int, bool]]]] = []  # (src, [(point, hit)...]), the last the destination
    for step in steps:
        for chain in reversed(chains):
            end, _ = chain[1][-1]
            if end == step.src and end != OFF:
                chain[1].append((step.dst, step.hit))
                break
        else:
            chains.append((step.src, [(step.dst, step.hit)]))
    # Men are alike: "8/5 13/8" leaves what "13/5" leaves, so a chain that ends
    # where another begins is one man's journey (written once, its hits kept).
    merged = True
    while merged:
        merged = False
        for a in chains:
            end = a[1][-1][0]
            if end == OFF:
                continue
            b = next((c for c in chains if c is not a and c[0] == end), None)
            if b is not None:
                a[1].extend(b[1])
                chains.remove(b)
                merged = True
                break
    texts: list[tuple[int, int, str]] = []
    for src, route in chains:
        parts = [_name(src)]
        for k, (point, hit) in enumerate(route):
            last = k == len(route) - 1
            if hit or last:
                parts.append(_name(point) + ("*" if hit else ""))
        texts.append((src, route[-1][0], "/".join(parts)))
    texts.sort(key=lambda t: (-t[0], -t[1], t[2]))
    out: list[str] = []
    k = 0
    while k < len(texts):
        n = 1
        while k + n < len(texts) and texts[k + n][2] == texts[k][2]:
            n += 1
        out.append(texts[k][2] + (f"({n})" if n > 1 else ""))
        k += n
    return " ".join(out)


_TOKEN = re.compile(r"^(bar|in|\d{1,2})((?:/(?:\d{1,2}|off)\*?)+)(?:\((\d{1,2})\))?$")


def _point(text: str, token: str) -> int:
    if text == "bar":
        return BAR
    if text == "in":
        return WAITING
    if text == "off":
        return OFF
    value = int(text)
    if not 1 <= value <= 24:
        raise NotationError(f"point {value} in {token!r} is not on the board (1 to 24)")
    return value


def parse_moves(text: str) -> list[tuple[int, list[int], int]]:
    """Read notation into man moves: (from, [hit points on the way], to), one
    per man (``(2)`` repeats).  Checks form only, not legality."""
    if not isinstance(text, str):
        raise NotationError(f"a play must be text, not {text!r}")
    body = text.strip().lower()
    if body in ("", NO_PLAY, "-", "pass"):
        return []
    moves: list[tuple[int, list[int], int]] = []
    for token in body.split():
        m = _TOKEN.match(token)
        if not m:
            raise NotationError(
                f"cannot read {token!r}: write moves like 24/18*, 13/11, bar/22, 6/off or 8/5(2)"
            )
        src = _point(m.group(1), token)
        parts = m.group(2).strip("/").split("/")
        points = [(_point(p.rstrip("*"), token), p.endswith("*")) for p in parts]
        for (p, _hit) in points[:-1]:
            if p == OFF:
                raise NotationError(f"in {token!r} a man cannot go on after bearing off")
        prev = src
        for p, _hit in points:
            if p != OFF and (p >= (25 if prev >= BAR else prev)):
                raise NotationError(f"in {token!r} a man moves from {_name(prev)} to {_name(p)}: men move down")
            prev = p
        hits = [p for p, hit in points[:-1] if hit]
        count = int(m.group(3)) if m.group(3) else 1
        if not 1 <= count <= 15:
            raise NotationError(f"repeat count in {token!r} must be 1 to 15")
        for _ in range(count):
            moves.append((src, hits, points[-1][0]))
    return moves


def parse_play(position: Position, text: str) -> Position:
    """The position that the play written *text* leaves, made by moving the men
    as written (a lone enemy man where a man lands, or is marked ``*`` on the
    way, goes to the bar).  Legality is not checked here: the referee does.
    """
    colour = position.turn
    if colour is None:
        raise InvalidBoardError("the position must say whose turn it is to read a play")
    state = to_state(position, colour)
    hit_already: set[int] = set()  # "11/7*/3(2)": the second man passes the point the first hit
    for src, hits, dst in parse_moves(text):
        if state[src] == 0:
            raise NotationError(f"{colour} has no man on {_name(src)} to move in {text!r}")
        cur = list(state)
        for h in hits:
            if cur[52 - h] == 1:
                cur[52 - h] = 0
                cur[52] += 1
                hit_already.add(h)
            elif h not in hit_already:
                raise NotationError(f"there is no blot to hit on {h} in {text!r}")
        state = apply_step(tuple(cur), Step(src, dst, 0))
    try:
        return from_state(state, colour, position, position.turn)
    except InvalidBoardError as exc:
        raise NotationError(f"{text!r} cannot stand on the board: {exc}") from None
