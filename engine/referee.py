"""The referee: the position before, the throw, the position after -> a
:class:`Ruling`, whatever the game; each game is handed to its family
(``families.py``: the race games in ``race_referee.py``, the unstacking
games in ``unstacking_referee.py``, the counting game in
``counting_throw.py``).

An illegal turn is data, not an exception (docs/house-conventions.md,
convention 6): the ruling says ``illegal``, gives a reason a player can
read, and names the rule's source.

>>> from willughby.engine.rules import preset_rules
>>> from willughby.engine.position import Position
>>> from willughby.engine.moves import legal_plays
>>> bg = preset_rules("backgammon")
>>> before = Position.from_gnubg_id("4HPwATDgc/ABMA")
>>> after = next(p.position for p in legal_plays(bg, before, (3, 1)) if p.notation == "8/5 6/5")
>>> r = judge(bg, before, (3, 1), after)
>>> r.verdict, r.play
('legal', '8/5 6/5')
"""

from __future__ import annotations

from typing import Sequence

from .families import family_of
from .options import Rules
from .position import Position
from .rulings import Event, GameOver, Outcome, Ruling

__all__ = ["Event", "GameOver", "Ruling", "judge", "game_over", "stake_terms", "turn_outcomes", "Outcome"]


def turn_outcomes(rules: Rules, before: Position, dice: Sequence[int]) -> list[Outcome]:
    """Every legal way the turn can end, distinct by final position."""
    found: list[Outcome] = family_of(rules).outcomes(rules, before, dice)
    return found


def judge(rules: Rules, before: Position, dice: Sequence[int], after: Position, cube: int = 1) -> Ruling:
    """Rule on one turn seen on the board. *before* must say whose turn it
    is; *after* is compared by what the board shows (its ``turn`` is
    ignored). *cube* multiplies the stake."""
    ruling: Ruling = family_of(rules).judge(rules, before, dice, after, cube)
    return ruling


def game_over(rules: Rules, position: Position, mover: str, dice: Sequence[int],
              cube: int = 1) -> GameOver | None:
    """The end of the game in *position*, reached on *mover*'s throw *dice*, or None."""
    over: GameOver | None = family_of(rules).game_over(rules, position, mover, dice, cube)
    return over


def stake_terms(rules: Rules, cube: int = 1) -> list[tuple[str, int, str]]:
    """What a game of *rules* can be won for with the cube at *cube*, as
    ``(kind, stake, source key)``, smallest first: the terms the end
    applies, told before it.

    >>> from willughby.engine.rules import preset_rules
    >>> stake_terms(preset_rules("backgammon"), cube=2)
    [('single', 2, 'stakes.gammon'), ('gammon', 4, 'stakes.gammon'), ('backgammon', 6, 'stakes.gammon')]
    >>> [(k, n) for k, n, _ in stake_terms(preset_rules("backgammon-willughby"))]
    [('single', 1), ('double', 2), ('backgammon', 2), ('backgammon-double', 3)]
    """
    return family_of(rules).stake_terms(rules, cube)
