"""A board the players place: how far it stands from the board the referee holds.

When the camera misses a play, the referee still holds the board before it
and waits for that play, while the players have gone on. The board the
players then give (their answer to a question, or a board they place) is the
board on the table (docs/house-conventions.md, convention 18: "the players'
board always wins"); these functions tell the referee how it may have come
about, from the two boards alone:

* :func:`moved_alone`: only the mover's men moved (the opponent's changed
  only by blots hit to the bar) -- one play, legal or not, so the mover's
  dice judge it;
* :func:`two_plays`: a legal play of the mover's throw, then a play of the
  other player with some throw, leads to it -- the turn has passed twice.

A board that is neither is more than one play away by a way no two plays
explain; the referee asks the players whose turn it is.

>>> from willughby.engine.rules import preset_rules, start_position
>>> from willughby.engine.referee import turn_outcomes
>>> rules = preset_rules("backgammon")
>>> before = start_position(rules).with_turn("light")
>>> mine = turn_outcomes(rules, before, (3, 1))[0].position
>>> moved_alone(before, mine, "light")
True
>>> theirs = turn_outcomes(rules, mine, (6, 5))[0].position
>>> moved_alone(before, theirs, "light")
False
>>> two_plays(rules, before, (3, 1), theirs) is not None
True
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Iterator, Sequence

from .position import Position, colour_index, other
from .referee import turn_outcomes
from .rules import Rules
from .rulings import Outcome

__all__ = ["moved_alone", "two_plays", "first_plays", "pass_between"]


def moved_alone(before: Position, after: Position, colour: str) -> bool:
    """Whether *after* differs from *before* only in *colour*'s men, save the
    opponent's men hit to the bar (a blot, or, against the rules, a held
    point the mover now stands on): a board one play of *colour* (legal or
    not) may have made."""
    opponent = other(colour)
    i = colour_index(opponent)
    if before.off[i] != after.off[i] or before.waiting[i] != after.waiting[i]:
        return False
    if before.stacked[i] != after.stacked[i] or before.phase[i] != after.phase[i]:
        return False
    hit = 0
    for was, now, mine in zip(before.points(opponent), after.points(opponent), after.points(colour), strict=True):
        if was == now:
            continue
        if now == 0 and (was == 1 or mine):
            hit += was          # a blot hit, or (illegally) a held point the mover now stands on
            continue
        return False
    return after.bar[i] - before.bar[i] == hit


def two_plays(rules: Rules, before: Position, dice: Sequence[int], after: Position) -> Outcome | None:
    """The mover's legal play of *dice* from *before* after which the other
    player, with some throw, may have played to *after* (the first found, in
    the engine's order), or None where no two plays lead there."""
    return next(iter(_first_plays(rules, before, dice, after)), None)


def first_plays(rules: Rules, before: Position, dice: Sequence[int], after: Position,
                then: Sequence[int] | None = None) -> list[tuple[Outcome, Outcome]]:
    """Every (mover's play, other player's play) that leads from *before* to
    *after*: the mover's legal plays of *dice*, each with the first legal play
    of the other's that reaches *after* with the throw *then* (None: with some
    throw), in the engine's order.

    >>> from willughby.engine.rules import preset_rules, start_position
    >>> from willughby.engine.referee import turn_outcomes
    >>> rules = preset_rules("backgammon")
    >>> before = start_position(rules).with_turn("light")
    >>> mine = next(o for o in turn_outcomes(rules, before, (3, 1)) if o.play.notation == "8/5 6/5")
    >>> theirs = turn_outcomes(rules, mine.position, (6, 5))[0]
    >>> [(a.play.notation, b.play.notation) for a, b in first_plays(rules, before, (3, 1), theirs.position, (6, 5))]
    [('8/5 6/5', '24/18 8/3')]
    """
    return [(first, second) for first, second in _pairs(rules, before, dice, after, then)]


def _pairs(rules: Rules, before: Position, dice: Sequence[int], after: Position,
           then: Sequence[int] | None) -> Iterator[tuple[Outcome, Outcome]]:
    if before.turn is None:
        return
    target = after.physical_key()
    throws = ([tuple(then)] if then is not None
              else list(combinations_with_replacement(range(1, 7), rules.dice_thrown)))
    for first in turn_outcomes(rules, before, tuple(dice)):
        middle = first.position
        if middle.turn is None or max(middle.off) >= rules.men or not moved_alone(middle, after, middle.turn):
            continue                    # the game ended with the first; the second moves the other's men alone
        for throw in throws:
            second = next((o for o in turn_outcomes(rules, middle, tuple(sorted(throw, reverse=True)))
                           if o.position.physical_key() == target), None)
            if second is not None:
                yield first, second
                break


def _first_plays(rules: Rules, before: Position, dice: Sequence[int], after: Position) -> Iterator[Outcome]:
    return (first for first, _ in _pairs(rules, before, dice, after, None))


def pass_between(rules: Rules, before: Position, dice: Sequence[int], then: Sequence[int],
                 after: Position) -> list[Outcome]:
    """The mover's legal plays of *dice* from *before* after which the other
    player's throw *then* cannot be played at all (he passes) and the mover,
    with some throw, may have played to *after*: a board of the mover's men
    alone that is two of his plays on, the other's turn passed between.

    >>> from willughby.engine.rules import preset_rules
    >>> from willughby.engine.position import Position
    >>> rules = preset_rules("backgammon")
    >>> closed = Position.from_board({"format": "board/1", "light": [2, 2, 2, 2, 2, 2, 3] + [0] * 17,
    ...     "dark": [0] * 23 + [14], "bar": {"light": 0, "dark": 1}, "turn": "light"})
    >>> first = turn_outcomes(rules, closed, (1, 1))[0]
    >>> second = turn_outcomes(rules, first.position.with_turn("light"), (2, 1))[0]
    >>> first.play.notation in [o.play.notation for o in pass_between(rules, closed, (1, 1), (6, 5), second.position)]
    True
    >>> pass_between(rules, closed, (1, 1), (6, 5), first.position)     # one play of light's: no pass between
    []
    """
    mover = before.turn
    if mover is None:
        return []
    target = after.physical_key()
    out = []
    throws = list(combinations_with_replacement(range(1, 7), rules.dice_thrown))
    for first in turn_outcomes(rules, before, tuple(dice)):
        middle = first.position
        if middle.turn is None or middle.turn == mover or max(middle.off) >= rules.men:
            continue
        passes = turn_outcomes(rules, middle, tuple(then))
        if len(passes) != 1 or passes[0].play.steps:
            continue                    # the other's throw could be played: not a pass
        again = passes[0].position.with_turn(mover)
        if not moved_alone(again, after, mover):
            continue
        if any(o.position.physical_key() == target
               for throw in throws for o in turn_outcomes(rules, again, tuple(sorted(throw, reverse=True)))):
            out.append(first)
    return out
