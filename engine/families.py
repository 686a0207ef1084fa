"""The families of game, each one object that answers for its games.

A game is data (``options.py``: its options and its start) played by one
*family*, which knows how its men move and end: the race games
(``race_referee.RACE``), the unstacking games
(``unstacking_referee.UNSTACKING``) and the counting game
(``counting_throw.COUNTING``). Every family answers the same questions
(:class:`GameFamily`): where a game starts, the ways a throw can end, the
ruling on what the players did, the end and its stake, and what the page
draws (``board``: ``points``, ``piles`` or ``tally``). The referee, the
match, the companion and the page ask the family of a game's rules
(:func:`family_of`); none of them compares a family's name.

A new family is one module that answers these questions, registered here
(:func:`register_family`); its presets are rows of ``options.PRESETS``.

>>> from willughby.engine.options import get_preset
>>> family_of(get_preset("doublets").rules).board, family_of(get_preset("sice-ace").rules).board
('piles', 'tally')
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable

from . import options
from .counting_throw import COUNTING
from .errors import InvalidOptionError
from .options import Rules
from .race_referee import RACE
from .unstacking_referee import UNSTACKING

__all__ = ["GameFamily", "BOARDS", "family_of", "register_family", "families"]

#: what a family's games are drawn as on the page
BOARDS = ("points", "piles", "tally")


@runtime_checkable
class GameFamily(Protocol):
    """What every family answers. Its state is what the game is played on:
    a :class:`~willughby.engine.position.Position` for the games on the
    board, a :class:`~willughby.engine.tally.Tally` for the counting game."""

    #: the name the rules give (``Rules.family``)
    name: str
    #: what the page draws: one of :data:`BOARDS`
    board: str
    #: whether its games are played as matches to N points (two players, each game won for its stake:
    #: ``engine/match.py``)
    matches: bool

    def start(self, rules: Rules, turn: Any = None) -> Any:
        """Where a game of *rules* starts, *turn* to play (None: not said)."""

    def outcomes(self, rules: Rules, before: Any, dice: Sequence[int]) -> list[Any]:
        """Every legal way the turn of *dice* from *before* can end."""

    def judge(self, rules: Rules, before: Any, dice: Sequence[int], after: Any, cube: int = 1) -> Any:
        """The ruling on *after*, what the players made of *dice* from *before*."""

    def game_over(self, rules: Rules, position: Any, mover: Any, dice: Sequence[int], cube: int = 1) -> Any:
        """The end *position* shows, reached on *mover*'s throw *dice*, or None."""

    def stake_terms(self, rules: Rules, cube: int = 1) -> list[tuple[str, int, str]]:
        """What a game can be won for, as (kind, stake, source key), smallest first."""


_FAMILIES: dict[str, GameFamily] = {}


def register_family(family: GameFamily) -> GameFamily:
    """Make *family* the one that plays the games whose rules name it.
    Raises ``ValueError`` for a family that does not answer every question,
    or names a board the page does not draw."""
    if not isinstance(family, GameFamily):
        raise ValueError(f"{family!r} does not answer what a family answers (families.GameFamily)")
    if family.board not in BOARDS:
        raise ValueError(f"a family's board is one of {', '.join(BOARDS)}, not {family.board!r}")
    _FAMILIES[family.name] = family
    options.know_family(family.name)
    return family


def family_of(rules: Rules) -> GameFamily:
    """The family that plays a game of *rules*."""
    try:
        return _FAMILIES[rules.family]
    except KeyError:
        raise InvalidOptionError(f"unknown game family {rules.family!r} ({', '.join(_FAMILIES)})") from None


def families() -> tuple[GameFamily, ...]:
    """Every family registered, the built-in ones first."""
    return tuple(_FAMILIES.values())


for _family in (RACE, UNSTACKING, COUNTING):
    register_family(_family)
