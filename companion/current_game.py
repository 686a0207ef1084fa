"""The game in progress and its record: the companion's part that owns them.

:class:`CurrentGame` holds the one game the companion referees (an engine
match, :class:`~willughby.companion.games.GameMatch`), its family
(``games.py``), its id in the store and the store's number of each of its
actions, its numbered rulings, and the dice throws already taken. It writes
the match's new actions to the store (:meth:`CurrentGame.save`) and
rebuilds the game from the store (:meth:`CurrentGame.load`): everything
else in the companion reads the game through it, holding :attr:`lock`.

>>> from willughby.companion.store import GameStore
>>> import threading
>>> game = CurrentGame(GameStore(":memory:"), threading.RLock())
>>> game.awaiting(), game.turn_in_progress()
('no game is in progress', 0)
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Sequence

from .documents import BoardDoc, RulingDoc, board_doc
from .errors import NotNowError, UnknownError
from .games import Family, FamilyPart, GameMatch, family_of_preset
from .numbering import TurnCounter, judged_turns
from .store import GameStore

__all__ = ["CurrentGame", "LoggedAnnouncement"]

log = logging.getLogger(__name__)

#: an announcement as the log keeps it: its number, its words, its kind
LoggedAnnouncement = tuple[int, str, str]


def throw_by(log_entries: Sequence[dict[str, Any]], undone: set[int]) -> str | None:
    """Who made the throw in play (``camera``, ``page``, ``box``, ...: the ``who`` of its ``dice`` entry), of a
    game's log whose actions *undone* were taken back; None before the first. A ``dice`` entry is written
    after the actions its throw made, in the same transaction, so it is taken back with the last of them.

    >>> log = [{"n": 1, "kind": "action", "who": "camera"}, {"n": 2, "kind": "dice", "who": "camera"},
    ...        {"n": 3, "kind": "action", "who": "page"}, {"n": 4, "kind": "dice", "who": "page"}]
    >>> throw_by(log, set()), throw_by(log, {3}), throw_by(log, {1, 3})
    ('page', 'camera', None)
    """
    by, last_action = None, None
    for e in log_entries:
        if e["kind"] == "action":
            last_action = e["n"]
        elif e["kind"] == "dice" and last_action not in undone:
            by = e["who"]
    return by


#: the log's entries that leave a question open (it is said, a photo is brought, a board entered is refused:
#: one that is not refused is followed by its action or its own question); any other answers it, plays past
#: it or takes it back
_BESIDE_A_QUESTION = ("announcement", "photo", "correction", "held", "clock")


def held_throw(log_entries: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The throw a game's log holds for the next player (a ``held`` entry: a throw made while the referee
    still waited for a play, ``way_back.py``) and not yet taken (no throw taken, nothing undone, no board
    placed, since), with who made it; None where none is held.

    >>> log = [{"n": 1, "kind": "held", "who": "box", "data": {"dice": [5, 4], "player": "light", "ident": None}}]
    >>> held_throw(log)["dice"], held_throw(log + [{"n": 2, "kind": "dice", "who": "box", "data": {}}])
    ([5, 4], None)
    """
    held: dict[str, Any] | None = None
    for e in log_entries:
        if e["kind"] == "held":
            held = dict(e["data"], who=e["who"])
        elif e["kind"] in ("dice", "undo", "gap"):
            held = None           # taken, undone, or (a gap) played in the gap or taken at once after it
    return held


def open_question(log_entries: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The entry of the question a game's log leaves open (the last question, after which nothing but
    announcements and photos were written), or None.

    >>> log = [{"n": 1, "kind": "action"}, {"n": 2, "kind": "question"}, {"n": 3, "kind": "announcement"}]
    >>> open_question(log)["n"], open_question(log + [{"n": 4, "kind": "answer"}])
    (2, None)
    """
    for e in reversed(log_entries):
        if e["kind"] == "question":
            return dict(e)
        if e["kind"] not in _BESIDE_A_QUESTION:
            return None
    return None


class CurrentGame:
    """The game in progress, its record in the store and its rulings (see the module docstring)."""

    def __init__(self, store: GameStore, lock: threading.RLock) -> None:
        self.store = store
        #: held by every part while it reads or changes the game
        self.lock = lock
        self.id: str | None = None
        self.match: Any = None                    # a GameMatch (games.py): Game or CountingGame
        self.family: Family | None = None
        #: the companion's part that plays this family's game (games.FamilyPart), set with the game
        self.part: FamilyPart | None = None
        self.action_ns: list[int] = []           # the store's n of each of the match's actions
        self.rulings: list[RulingDoc] = []        # the rulings of this game, numbered
        self.counter = TurnCounter()              # numbers the rulings as they come
        self.seen_events: set[str] = set()        # idents of dice throws already taken (box retransmissions)
        #: who gave the dice of the last throw taken ("camera", "box", "page", ...; None: not known)
        self.throw_by: str | None = None
        #: the log's entry of the question open when the game was rebuilt (:meth:`load`), or None
        self.open_question: dict[str, Any] | None = None
        #: a throw made early, held for the next player (``held_throw``): dice, player, ident, who
        self.held: dict[str, Any] | None = None
        #: the last entry of the match's clock in the log when the game was rebuilt (``clock_play.py``), or None
        self.clock_entry: dict[str, Any] | None = None

    # ------------------------------------------------------------ asking
    def need(self) -> Any:
        """The match in progress, or :class:`NotNowError` when there is none."""
        if self.match is None:
            raise NotNowError("no game is in progress: start one first")
        return self.match

    def need_id(self) -> str:
        """The id of the game in progress, or :class:`NotNowError` when there is none."""
        self.need()
        assert self.id is not None
        return self.id

    def who(self, player: Any) -> str:
        """A player in words: "Ann (light)", or a counting game's "Cat"."""
        if player is None or self.match is None or self.family is None:
            return "?"
        return self.family.who(self.match, player)

    def men_per_side(self) -> int:
        """How many men a side has in the game in progress (fifteen without one)."""
        rules = getattr(self.match, "rules", None)
        return int(getattr(rules, "men", 15) or 15)

    def turn_in_progress(self) -> int:
        """The number of the turn being played (:class:`~willughby.companion.numbering.TurnCounter`);
        once the game is over, the number of its last turn."""
        m = self.match
        if m is None:
            return 0
        return self.counter.played if m.phase == "over" else self.counter.in_progress

    def awaiting(self) -> str:
        """What the game waits for, in the players' words (for the page and for
        the errors that say why an input is not wanted now)."""
        if self.match is None or self.family is None:
            return "no game is in progress"
        return self.family.awaiting(self.match, self.who)

    def board_on_table(self) -> BoardDoc | None:
        """The board the referee holds to stand on the table (a game's start before its first turn, or the
        board after the last turn ruled), for the reader to learn the board from at calibration; None with
        no game (or a game with no board of points)."""
        with self.lock:
            position = getattr(self.match, "position", None)
            return None if position is None else board_doc(position.to_board())

    def judged_turn(self, turn: int, attempt: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Turn *turn*'s ruling *attempt* (None: its last) of the game in
        progress, as :func:`~willughby.companion.numbering.judged_turns` gives
        it, and all the turn's rulings. Call it holding the lock."""
        m = self.need()
        if self.family is not None and self.family.dispute_note:
            raise NotNowError(self.family.dispute_note)
        judged = judged_turns(m.record(), plays_for=turn)
        of_turn = [j for j in judged if j["turn"] == turn]
        if not of_turn:
            raise UnknownError(f"turn {turn} has no ruling in this game (turns played: {self.counter.played})")
        if attempt is None:
            attempt = of_turn[-1]["attempt"]
        found = [j for j in of_turn if j["attempt"] == attempt]
        if not found:
            raise UnknownError(f"turn {turn} has no attempt {attempt} (it has {len(of_turn)})")
        return found[0], of_turn

    # ------------------------------------------------------------ changing
    def begin(self, game_id: str, match: GameMatch, family: Family) -> None:
        """A new game, already in the store as *game_id*: nothing played yet."""
        self.id, self.match, self.family = game_id, match, family
        self.action_ns = []
        self.rulings = []
        self.counter = TurnCounter()
        self.seen_events = set()
        self.throw_by = None
        self.open_question = None
        self.held = None
        self.clock_entry = None

    def load(self, game_id: str) -> list[LoggedAnnouncement]:
        """Rebuild the game from the store (the actions not undone, replayed);
        the announcements its log holds, oldest first, for whoever tells them."""
        record = self.store.record(game_id)
        family = family_of_preset(record["preset"])
        match = family.from_record(record)
        game = self.store.game(game_id)
        if match.result is not None and game["status"] == "playing":
            # a store written before an end was stored with the action that made it, and cut off between
            self.store.finish(game_id, match.result.to_json())
        log_entries = game["log"]
        undone: set[int] = set()
        for e in log_entries:
            if e["kind"] == "undo":
                undone.update(e["data"]["undoes"])
        self.action_ns = [e["n"] for e in log_entries if e["kind"] == "action" and e["n"] not in undone]
        self.seen_events = {e["data"]["ident"] for e in log_entries
                            if e["kind"] == "dice" and e["data"].get("ident")}
        self.throw_by = throw_by(log_entries, undone)
        self.open_question = open_question(log_entries)
        self.held = held_throw(log_entries)
        self.clock_entry = next((dict(e) for e in reversed(log_entries) if e["kind"] == "clock"), None)
        self.id, self.match, self.family = game_id, match, family
        self.rulings, self.counter = family.rebuild_rulings(match)
        return [(e["n"], e["data"]["text"], e["data"]["kind"]) for e in log_entries if e["kind"] == "announcement"]

    def save(self, who: str, extra: Sequence[tuple[str, dict[str, Any]]] = ()) -> None:
        """Write the match's new actions (and *extra* entries) in one transaction;
        when they ended the game, its end (the result) goes in the same one."""
        assert self.match is not None and self.id is not None
        new = self.match.actions[len(self.action_ns):]
        entries = [("action", dict(a), who) for a in new] + [(k, d, who) for k, d in extra]
        if not entries:
            return
        result = self.match.result
        ends = result.to_json() if new and result is not None else None
        try:
            ns = self.store.append_many(self.id, entries, ends=ends)
        except BaseException:  # noqa: the game put back as the store holds it, then re-raised (nothing is hidden)
            self._as_stored()
            raise
        self.action_ns.extend(ns[:len(new)])

    def _as_stored(self) -> None:
        """The game in memory put back as the store holds it, after a write the store did not take: the actions
        not written (and a throw's ident) are forgotten, so they can be done again, and the record, its export
        and what the players are told keep agreeing (else the next write would store them under another's
        name)."""
        assert self.id is not None
        try:
            self.load(self.id)
        except Exception as exc:  # noqa: the store cannot be read either; the write's own error is raised
            log.warning("game %s could not be read back after a failed write: %s", self.id, exc)

    def remember(self, ident: str | None) -> None:
        """A dice throw's ident taken, so the same throw delivered again counts once."""
        if ident is not None:
            self.seen_events.add(ident)
