"""Turns numbered, and rulings written for the page.

The house has one numbering of turns (:class:`TurnCounter`,
``docs/control-api.md``, "Turns"); the companion's state, its dispute view,
the stored games' replay and Sice-Ace's tally all count with it.
:func:`judged_turns` replays a game record into its numbered rulings, with the
boards around each; :func:`ruling_doc` writes one ruling as the page reads
it; :func:`notation` writes one of the engine's outcomes as the companion
names a play.

>>> c = TurnCounter()
>>> c.count(True), c.count(False), c.in_progress
((1, 1), (2, 1), 2)
"""

from __future__ import annotations

from typing import Any, Mapping, cast

from willughby.engine.game import Game
from willughby.engine.notation import NO_PLAY
from willughby.engine.position import Position
from willughby.engine.referee import Ruling

from .documents import RulingDoc

__all__ = ["TurnCounter", "judged_turns", "notation", "ruling_doc"]


class TurnCounter:
    """The house's one numbering of turns (``docs/control-api.md``, "Turns").

    A turn is one player's go: the throw and the play made with it, a pass
    included, numbered from 1 in the order played. A board ruled illegal is
    an *attempt* within the turn in progress, not a turn of its own: the
    rulings of one turn are its attempts 1, 2, ..., the last of them (the
    legal one) ending the turn. A turn taken back is not counted, since the
    record it is counted from no longer holds it.

    >>> c = TurnCounter()
    >>> [c.count(legal) for legal in (True, False, False, True, True)]
    [(1, 1), (2, 1), (2, 2), (2, 3), (3, 1)]
    >>> c.played, c.in_progress
    (3, 4)

    A board the players placed (``Game.place``: a play the camera missed,
    or two) ends the turns it says it ends, with no ruling (:meth:`skip`).
    """

    def __init__(self) -> None:
        self.played = 0
        self._attempts = 0

    @property
    def in_progress(self) -> int:
        """The number of the turn being played now."""
        return self.played + 1

    def count(self, ruling: Ruling | bool) -> tuple[int, int]:
        """Number the next ruling: ``(turn, attempt)``."""
        legal = ruling if isinstance(ruling, bool) else ruling.legal
        self._attempts += 1
        numbered = (self.played + 1, self._attempts)
        if legal:
            self.played += 1
            self._attempts = 0
        return numbered

    def skip(self, turns: int) -> None:
        """*turns* turns ended by a board the players placed: no ruling numbers them, the next turn
        is counted after them."""
        self.played += turns
        self._attempts = 0


def notation(outcome: Any) -> str:
    """A legal outcome of the throw as the companion names the play: the
    player's play, then the opponent's use of any dice passed to him."""
    text = outcome.play.notation or NO_PLAY
    if outcome.opponent_play is not None and outcome.opponent_play.notation:
        text += f"; opponent {outcome.opponent_play.notation}"
    return text


def ruling_doc(ruling: Ruling, number: Mapping[str, int], before: Position) -> RulingDoc:
    """A ruling for the page, numbered as :class:`TurnCounter` says:
    ``turn`` (the turn it belongs to), ``attempt`` (1, 2, ... within that
    turn) and ``seq`` (every ruling of the game, from 1)."""
    doc = ruling.to_json()
    doc["turn"] = number["turn"]
    doc["attempt"] = number["attempt"]
    doc["seq"] = number["seq"]
    doc["before"] = before.to_board()
    src = ruling.source
    doc["source"] = None if src is None else {"key": src.key, "citation": src.citation, "quote": src.quote}
    doc["closest"] = list(ruling.closest)
    return cast(RulingDoc, doc)     # the engine's ruling (judge --json), with the keys above: documents.py


def judged_turns(record: Mapping[str, Any], plays_for: int | None = None,
                 placed: list[dict[str, Any]] | None = None,
                 numbers: TurnCounter | None = None) -> list[dict[str, Any]]:
    """Replay a game record and collect each judged turn: the ruling, the
    position before it, the board judged (``seen``) and the position after;
    for the rulings of turn *plays_for*, also the legal plays its throw
    allowed (the same for each of its attempts: one board before, one throw).

    Each ruling's entry has ``n``, the index of its action in the record.
    A board the players placed (a ``placed`` action) has no ruling: it ends
    its turns in the numbering, and where *placed* is a list, an entry is
    added to it (``n``, ``turn``: the first turn it ended, ``turns``,
    ``player``, ``dice``, ``before``, ``after``). *numbers*, where given, is
    the counter the turns are counted with (the game's count after them)."""
    partial = {k: v for k, v in record.items() if k != "position"}
    actions = list(record["actions"])
    partial["actions"] = []
    match = Game.from_record(partial)
    out: list[dict[str, Any]] = []
    numbers = TurnCounter() if numbers is None else numbers
    turn_plays: list[dict[str, Any]] | None = None
    for n, action in enumerate(actions):
        if n < len(match.actions):
            continue                      # made by the replay itself (an automatic pass)
        before = match.position
        plays = None
        if action.get("type") == "move" and numbers.in_progress == plays_for:
            if turn_plays is None:
                turn_plays = [{"play": notation(o), "board": o.position.to_board()}
                              for o in match.legal_outcomes()]
            plays = turn_plays
        count = len(match.rulings)
        match.apply_action(action)
        if action.get("type") == "placed":
            if placed is not None:
                placed.append({"n": n, "turn": numbers.in_progress, "turns": action["turns"],
                               "player": action["player"], "dice": action.get("dice"), "before": before,
                               "after": match.position})
            numbers.skip(action["turns"])
        for r in match.rulings[count:]:
            seen = Position.from_id(action["after"]) if action.get("type") == "move" else match.position
            turn, attempt = numbers.count(r)
            out.append({"turn": turn, "attempt": attempt, "seq": len(out) + 1, "ruling": r, "before": before,
                        "seen": seen, "after": match.position, "plays": plays or [], "n": n})
            before = match.position
    return out
