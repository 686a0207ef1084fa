"""What the companion tells: the state document, announcements, and who listens.

The state document is the whole of what the page shows (``GET /api/state``,
pushed to every subscriber as a server-sent event): the game in progress,
its board and dice, what it waits for, its rulings, the open question, the
devices and the latest announcements. It is built anew after every change
(:meth:`StateMixin._publish`) and handed to the state listeners (the
lights, the box's turn light) and to each :class:`Subscription` (the page's
event streams). An :class:`Announcement` is one thing said to the players,
stored with the game and handed to the announcement listeners (the voice).

:class:`StateMixin` is part of :class:`~willughby.companion.service.Companion`,
whose ``__init__`` makes the attributes it reads.

>>> Announcement(3, "Ann (light) throws 3-1", "throw").to_json()
{'n': 3, 'text': 'Ann (light) throws 3-1', 'kind': 'throw'}
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from willughby.engine.position import LIGHT, other
from willughby.engine.referee import stake_terms
from willughby.engine.rules import PRESETS

from . import tally as _tally
from .games import BoardFamily

if TYPE_CHECKING:
    from .service import Companion

__all__ = ["Announcement", "Subscription", "StateMixin", "KEEP_ANNOUNCEMENTS"]

log = logging.getLogger(__name__)

# how many announcements the state keeps
KEEP_ANNOUNCEMENTS = 30


@dataclass(frozen=True)
class Announcement:
    """One thing said to the players."""

    n: int
    text: str
    kind: str

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "text": self.text, "kind": self.kind}


class Subscription:
    """The newest state for one listener: ``get`` waits for a version it has not seen."""

    def __init__(self, owner: "Companion") -> None:
        self._owner = owner
        self._seen = -1
        self.closed = False

    def get(self, timeout: float | None = None) -> dict[str, Any] | None:
        with self._owner._changed:
            if not self._owner._changed.wait_for(lambda: self.closed or self._owner._version > self._seen,
                                                 timeout):
                return None
            if self.closed:
                return None
            self._seen = self._owner._version
            return self._owner._state_doc

    def close(self) -> None:
        with self._owner._changed:
            self.closed = True
            self._owner._changed.notify_all()


class StateMixin:
    """The companion's state document, its announcements and their listeners."""

    #: the score last counted, and the game (and whether it was over) it was counted for
    _score_cache: tuple[tuple[Any, bool], dict[str, Any] | None] | None = None

    # ------------------------------------------------------------ listeners
    def add_announcement_listener(self, fn: Callable[[Announcement], None]) -> None:
        """Call *fn* with every announcement (the voice, the lights)."""
        self._listeners.append(fn)

    def add_state_listener(self, fn: Callable[[dict[str, Any]], None]) -> None:
        """Call *fn* with every new state (the lights, the box's turn light)."""
        self._state_listeners.append(fn)

    def subscribe(self) -> Subscription:
        """A subscription whose first ``get`` is the current state."""
        return Subscription(self)

    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._state_doc

    # ------------------------------------------------------------- telling
    def _say(self, text: str, kind: str, who: str = "companion", store: bool = True) -> None:
        n = self._announcements[-1].n + 1 if self._announcements else 0
        if store and self._game_id is not None:
            n = self.store.append(self._game_id, "announcement", {"text": text, "kind": kind}, who)
        a = Announcement(n, text, kind)
        self._announcements = (self._announcements + [a])[-KEEP_ANNOUNCEMENTS:]
        for fn in list(self._listeners):
            try:
                fn(a)
            except Exception:  # noqa: a listener's fault (the voice, a light) must not stop the game
                log.exception("announcement listener failed")

    def _publish(self) -> None:
        with self._changed:
            self._version += 1
            self._state_doc = self._compute_state()
            self._changed.notify_all()
        for fn in list(self._state_listeners):
            try:
                fn(self._state_doc)
            except Exception:  # noqa: a listener's fault (a light) must not stop the game
                log.exception("state listener failed")

    # ---------------------------------------------------------------- state
    def _turn_in_progress(self) -> int:
        """The number of the turn being played (:class:`~willughby.companion.numbering.TurnCounter`);
        once the game is over, the number of its last turn."""
        m = self._match
        if m is None:
            return 0
        return self._counter.played if m.phase == "over" else self._counter.in_progress

    def _awaiting(self) -> str:
        """What the game waits for, in the players' words (for the page and for
        the errors that say why an input is not wanted now)."""
        m = self._match
        if m is None:
            return "no game is in progress"
        turn = self._who(m.turn)
        if self._family is not None and self._family.board == "tally":
            return _tally.awaiting(m, self._family)
        if m.phase == "start":
            return "the players are to throw one die each for the start"
        if m.phase == "throw":
            return f"{turn} is to throw" + (" (or double)" if m.can_double() else "")
        if m.phase == "cube":
            return f"{self._who(other(m.offered_by or LIGHT))} is to take or drop the double"
        if m.phase == "move":
            return f"{turn} is to move the {'-'.join(map(str, m.dice or ()))} thrown"
        if m.phase == "binding_toss":
            return "both players are to throw two dice to break the bound table"
        if m.phase == "binding_choice":
            return f"{self._who(m.chooser)} is to choose the point to break"
        if m.phase == "over":
            return "the game is over: start a new one"
        return f"the game is at {m.phase}"

    def _score(self) -> dict[str, Any] | None:
        """The score between the two players of the game in progress: the
        stakes each has won in the finished games of the store between the
        same two names (either colour), this one included once it is over:
        ``{"games": n, "light": points, "dark": points}`` (by the colours they
        play now), or None where the two have no name apart. Counted again
        only when a game starts or ends."""
        m = self._match
        key = (self._game_id, m.result is not None)
        if self._score_cache is not None and self._score_cache[0] == key:
            return self._score_cache[1]
        names = {colour: str(name).strip() for colour, name in dict(m.players).items()}
        score: dict[str, Any] | None = None
        if len(set(names.values())) == 2 and all(names.values()):
            points = dict.fromkeys(names.values(), 0)
            games = 0
            for g in self.store.games():
                result, players = g.get("result"), g.get("players")
                if g.get("status") != "over" or not isinstance(result, dict) or not isinstance(players, dict):
                    continue
                them = {str(n).strip() for n in players.values()}
                winner = str(players.get(str(result.get("winner")), "")).strip()
                if them == set(points) and winner in points and isinstance(result.get("stake"), int):
                    points[winner] += result["stake"]
                    games += 1
            score = {"games": games, **{colour: points[name] for colour, name in names.items()}}
        self._score_cache = (key, score)
        return score

    def _compute_state(self) -> dict[str, Any]:
        m = self._match
        base: dict[str, Any] = {"version": self._version, "devices": dict(self.devices),
                                "announcements": [a.to_json() for a in reversed(self._announcements)],
                                "presets": [p.id for p in PRESETS.values()]}
        if m is None:
            base.update({"game_id": None, "preset": None, "players": None, "board": None, "dice": None,
                         "turn_number": 0, "turns_played": 0, "phase": "none", "awaiting": "no game is in progress",
                         "rulings": [], "game_over": None, "cube": None, "question": None, "last_play": None,
                         "undo": None, "family": None, "board_kind": None, "dice_wanted": 2, "camera_reads": True})
            return base
        fam = self._family
        assert fam is not None
        base.update({"family": fam.name, "board_kind": fam.board, "dice_wanted": fam.dice_wanted(m),
                     "camera_reads": fam.camera_reads})
        if not fam.camera_reads and base["devices"].get("camera") not in (None, "absent"):
            base["devices"]["camera"] = f"idle ({fam.camera_idle})"
        if fam.board == "tally":
            base.update(_tally.state(m, fam, self._rulings, self._game_id, self._turn_in_progress(),
                                     self._awaiting(), self._undo_preview()))
            return base
        last = None
        for r in reversed(self._rulings):
            if r["verdict"] == "legal" and (r.get("play") or r.get("opponent_play")):
                last = r
                break
        base.update({
            "game_id": self._game_id,
            "preset": m.preset,
            "players": dict(m.players),
            "board": m.position.to_board(),
            "dice": list(m.dice) if m.dice else None,
            "turn_number": self._turn_in_progress(),
            "turns_played": m.turn_number,
            "phase": m.phase,
            "awaiting": self._awaiting(),
            "rulings": self._rulings[-20:],
            "game_over": m.result.to_json() if m.result else None,
            "cube": {"value": m.cube_value, "owner": m.cube_owner, "offered_by": m.offered_by,
                     "enabled": m.rules.cube, "can_double": m.can_double()},
            "question": self._question,
            "last_play": ({"turn": last["turn"], "player": last["player"], "play": last["play"],
                           "before": last["before"], "after": last.get("board"),
                           "opponent_play": last.get("opponent_play"),
                           "passed": [e["die"] for e in last["events"] if e["type"] == "opponent_uses_die"],
                           "lost": [e["die"] for e in last["events"] if e["type"] == "lost_die"]}
                          if last else None),
            "undo": self._undo_preview(),
            "stakes": [{"kind": kind, "stake": stake} for kind, stake, _key in stake_terms(m.rules, m.cube_value)],
            "score": self._score(),
        })
        phases = fam.phases(m) if isinstance(fam, BoardFamily) else None
        if phases is not None:
            base["phases"] = phases
        return base
