"""What the referee says of a turn: its :class:`Ruling`, the :class:`Event`
a turn makes, the :class:`GameOver` it may bring, and an :class:`Outcome` (one
way a turn can end).  Every family of game (``referee.py`` dispatches) rules in these
values, so the match, the companion and the page read them alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .sources import Source, source

__all__ = ["Event", "GameOver", "Outcome", "Ruling"]


@dataclass(frozen=True)
class Event:
    """Something a turn did.  ``point`` is in ``player``'s own numbering."""

    type: str
    player: str
    point: int | None = None
    die: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "player": self.player}
        if self.point is not None:
            out["point"] = self.point
        if self.die is not None:
            out["die"] = self.die
        return out


@dataclass(frozen=True)
class GameOver:
    """The end of a game: who won, how (``single``, ``double``, ``gammon``,
    ``backgammon``, ``backgammon-double``, ``fill``) and for how much."""

    winner: str
    kind: str
    stake: int
    rule: str = "win.single"

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "kind": self.kind, "stake": self.stake}


class Outcome:
    """One way a turn can end: the player's play, then the opponent's use of
    passed dice (``unused_throw=opponent``), and the final position.

    The final position is the last play's, built when first asked for: a
    throw may end in thousands of ways (pip-total doublets), and a judge
    needs the position of one.
    """

    __slots__ = ("play", "opponent_play", "_position")

    def __init__(self, play: Any, opponent_play: Any | None = None, position: Any | None = None) -> None:
        self.play = play  # moves.Play, or unstacking.UnstackPlay: .steps, .notation, .unused, .position
        self.opponent_play = opponent_play
        self._position = position

    @property
    def position(self) -> Any:
        """The final position (a :class:`~willughby.engine.position.Position`)."""
        if self._position is None:
            last = self.opponent_play if self.opponent_play is not None else self.play
            self._position = last.position
        return self._position

    def __repr__(self) -> str:
        return f"Outcome({self.play!r}, {self.opponent_play!r})"


@dataclass(frozen=True)
class Ruling:
    """The referee's judgement of one turn."""

    verdict: str
    player: str
    dice: tuple[int, ...]
    play: str | None = None
    events: tuple[Event, ...] = ()
    reason: str | None = None
    citation: str | None = None
    rule: str | None = None
    game_over: GameOver | None = None
    after: Any | None = None  # position.Position
    closest: tuple[str, ...] = ()
    legal_count: int | None = 0  # None: not counted (a long doublet's play found directly)
    opponent_play: str | None = None

    @property
    def legal(self) -> bool:
        return self.verdict == "legal"

    @property
    def source(self) -> Source | None:
        """The full :class:`Source` of the rule applied (illegal turns)."""
        return source(self.rule) if self.rule else None

    def to_json(self) -> dict[str, Any]:
        """The ``willughby judge --json`` document (docs/command-line.md), with a few extras."""
        out: dict[str, Any] = {
            "verdict": self.verdict,
            "play": self.play,
            "events": [e.to_json() for e in self.events],
            "reason": self.reason,
            "citation": self.citation,
            "game_over": self.game_over.to_json() if self.game_over else None,
            "player": self.player,
            "dice": list(self.dice),
            "rule": self.rule,
        }
        if self.legal_count is not None:
            out["legal_plays"] = self.legal_count
        if self.opponent_play is not None:
            out["opponent_play"] = self.opponent_play
        if self.rule:
            out["quote"] = source(self.rule).quote
        if self.closest:
            out["closest"] = list(self.closest)
        if self.after is not None:
            out["board"] = self.after.to_board()
        return out
