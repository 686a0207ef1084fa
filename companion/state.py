"""What the companion tells: the state document, announcements, and who listens.

The state document is the whole of what the page shows (``GET /api/state``,
pushed to every subscriber as a server-sent event): the game in progress,
its board and dice, what it waits for, its rulings, the open question, the
devices and the latest announcements. It is built anew after every change
(:meth:`Telling.publish`) and handed to the state listeners (the
lights, the box's turn light) and to each :class:`Subscription` (the page's
event streams). An :class:`Announcement` is one thing said to the players,
stored with the game and handed to the announcement listeners (the voice).

:class:`Telling` is the companion's part that owns what was said and who
listens; :func:`state_document` builds the document from the game in
progress (``current_game.py``) and the part that plays its family
(``games.FamilyPart``); :class:`ScoreBoard` counts the score between two
players over the stored games.

>>> Announcement(3, "Ann (light) throws 3-1", "throw").to_json()
{'n': 3, 'text': 'Ann (light) throws 3-1', 'kind': 'throw'}
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from willughby.engine.rules import PRESETS

from .documents import AnnouncementDoc, QuestionDoc, StateDoc
from .store import GameStore

if TYPE_CHECKING:
    from .current_game import CurrentGame

__all__ = ["Announcement", "Subscription", "Telling", "ScoreBoard", "state_document", "KEEP_ANNOUNCEMENTS"]

log = logging.getLogger(__name__)

# how many announcements the state keeps
KEEP_ANNOUNCEMENTS = 30


@dataclass(frozen=True)
class Announcement:
    """One thing said to the players."""

    n: int
    text: str
    kind: str

    def to_json(self) -> AnnouncementDoc:
        return {"n": self.n, "text": self.text, "kind": self.kind}


class Subscription:
    """The newest state for one listener: ``get`` waits for a version it has not seen."""

    def __init__(self, owner: "Telling") -> None:
        self._owner = owner
        self._seen = -1
        self.closed = False

    def get(self, timeout: float | None = None) -> StateDoc | None:
        changed = self._owner.changed
        with changed:
            if not changed.wait_for(lambda: self.closed or self._owner.version > self._seen, timeout):
                return None
            if self.closed:
                return None
            self._seen = self._owner.version
            return self._owner.fresh(self._owner.doc)

    def close(self) -> None:
        with self._owner.changed:
            self.closed = True
            self._owner.changed.notify_all()


class Telling:
    """What the companion tells, and who listens: the announcements of the game
    (each stored in the game's log as it is said), the state document's
    versions, and the listeners and subscriptions handed each."""

    def __init__(self, game: "CurrentGame", compute: Callable[[int], StateDoc]) -> None:
        self._game = game
        self._compute = compute
        #: notified with every new version (the subscriptions wait on it); it shares the game's lock
        self.changed = threading.Condition(game.lock)
        self.version = 0
        self.doc: StateDoc = {}
        self.announcements: list[Announcement] = []
        self._listeners: list[Callable[[Announcement], None]] = []
        self._state_listeners: list[Callable[[StateDoc], None]] = []
        #: called before each new version is built, under the lock (the match's clock follows the game)
        self.before_publish: Callable[[], None] = lambda: None
        #: the document as handed out now (the clock's reserves read at the moment it is sent)
        self.fresh: Callable[[StateDoc], StateDoc] = lambda doc: doc

    def add_announcement_listener(self, fn: Callable[[Announcement], None]) -> None:
        self._listeners.append(fn)

    def add_state_listener(self, fn: Callable[[StateDoc], None]) -> None:
        self._state_listeners.append(fn)

    def subscribe(self) -> Subscription:
        return Subscription(self)

    def say(self, text: str, kind: str, who: str = "companion", store: bool = True) -> None:
        """Say *text* to the players: stored in the game's log (unless *store* is false), then handed to
        each announcement listener."""
        n = self.announcements[-1].n + 1 if self.announcements else 0
        game_id = self._game.id
        if store and game_id is not None:
            n = self._game.store.append(game_id, "announcement", {"text": text, "kind": kind}, who)
        a = Announcement(n, text, kind)
        self.announcements = (self.announcements + [a])[-KEEP_ANNOUNCEMENTS:]
        for fn in list(self._listeners):
            try:
                fn(a)
            except Exception:  # noqa: a listener's fault (the voice, a light) must not stop the game
                log.exception("announcement listener failed")

    def publish(self) -> None:
        """Build the state document anew and hand it to every listener and subscription."""
        with self.changed:
            self.before_publish()
            self.version += 1
            self.doc = self._compute(self.version)
            self.changed.notify_all()
        for fn in list(self._state_listeners):
            try:
                fn(self.doc)
            except Exception:  # noqa: a listener's fault (a light) must not stop the game
                log.exception("state listener failed")


class ScoreBoard:
    """The score between the two players of the game in progress: the stakes
    each has won in the finished games of the store between the same two
    names (either colour), this one included once it is over."""

    def __init__(self, store: GameStore) -> None:
        self._store = store
        #: the score last counted, and the game (and whether it was over) it was counted for
        self._cache: tuple[tuple[str | None, bool], dict[str, Any] | None] | None = None

    def score(self, game_id: str | None, match: Any) -> dict[str, Any] | None:
        """``{"games": n, "light": points, "dark": points}`` (by the colours they
        play now), or None where the two have no name apart. Counted again
        only when a game starts or ends."""
        key = (game_id, match.result is not None)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        names = {colour: str(name).strip() for colour, name in dict(match.players).items()}
        score: dict[str, Any] | None = None
        if len(set(names.values())) == 2 and all(names.values()):
            points = dict.fromkeys(names.values(), 0)
            games = 0
            for g in self._store.games():
                result, players = g.get("result"), g.get("players")
                if g.get("status") != "over" or not isinstance(result, dict) or not isinstance(players, dict):
                    continue
                them = {str(n).strip() for n in players.values()}
                winner = str(players.get(str(result.get("winner")), "")).strip()
                if them == set(points) and winner in points and isinstance(result.get("stake"), int):
                    points[winner] += result["stake"]
                    games += 1
            score = {"games": games, **{colour: points[name] for colour, name in names.items()}}
        self._cache = (key, score)
        return score


#: the state's keys with no game in progress
_NO_GAME: StateDoc = {
    "game_id": None, "preset": None, "players": None, "board": None, "dice": None, "turn_number": 0,
    "turns_played": 0, "phase": "none", "awaiting": "no game is in progress", "rulings": [], "game_over": None,
    "cube": None, "question": None, "last_play": None, "undo": None, "family": None, "board_kind": None,
    "dice_wanted": 2, "camera_reads": True}


def state_document(version: int, game: "CurrentGame", announcements: list[Announcement], devices: dict[str, Any],
                   undo: str | None, question: QuestionDoc | None, match: dict[str, Any] | None = None,
                   clock: dict[str, Any] | None = None) -> StateDoc:
    """The state document (see the module docstring): the keys every state
    has, and those the part playing the game's family gives; *match*, the
    match the game is a game of (``MatchPlay.doc``), or None; *clock*, the match's clock
    (``ClockPlay.doc``), or None."""
    base: StateDoc = {"version": version, "devices": dict(devices),
                      "announcements": [a.to_json() for a in reversed(announcements)],
                      "presets": [p.id for p in PRESETS.values()], "match": match,
                      "clock": clock}
    m, fam, part = game.match, game.family, game.part
    if m is None or fam is None or part is None:
        base.update(_NO_GAME)
        base["rulings"] = []
        return base
    base.update({"family": fam.name, "board_kind": fam.board, "dice_wanted": fam.dice_wanted(m),
                 "camera_reads": fam.camera_reads})
    if not fam.camera_reads and base["devices"].get("camera") not in (None, "absent"):
        base["devices"]["camera"] = f"idle ({fam.camera_idle})"
    base.update(part.state_keys(game.awaiting(), undo, question))
    return base
