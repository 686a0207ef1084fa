"""The players' other inputs: dice, the cube, taking back, and the box's buttons.

Dice arrive from the box, the Pi's pins or the page
(:meth:`ControlsMixin.enter_dice`): for the roll for start, for a turn's
throw, or for the toss that breaks a bound table; a throw delivered twice
(the box retransmits) counts once. The cube is offered, taken or dropped
(:meth:`~ControlsMixin.cube`). UNDO takes back the last thing done, recorded
as an undo, never erased (:meth:`~ControlsMixin.undo`); DONE asks the
camera to read the board now (:meth:`~ControlsMixin.press`). The board
itself is judged in ``judging.py``.

:class:`ControlsMixin` is part of :class:`~willughby.companion.service.Companion`,
whose ``__init__`` makes the attributes it reads.

>>> from willughby.companion.service import Companion
>>> from willughby.companion.store import GameStore
>>> c = Companion(GameStore(":memory:"))
>>> _ = c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
>>> _ = c.enter_dice([3, 3], who="test")
>>> c.state()["undo"]
'the roll for the start (3 against 3)'
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

from willughby.engine.errors import EngineError
from willughby.engine.position import other

from . import tally as _tally
from .announce import is_pass
from .errors import CompanionError, NotNowError
from .store import StoreError

__all__ = ["ControlsMixin"]

log = logging.getLogger(__name__)


class ControlsMixin:
    """Dice, the cube, undo and the buttons, for the game in progress."""

    # ---------------------------------------------------------------- dice
    def enter_dice(self, dice: Sequence[int], who: str = "page", ident: str | None = None) -> dict[str, Any]:
        """Dice thrown: for the roll for start, light's die then dark's; later,
        the throw of the player on turn. *ident* (a box's or the Pi's throw
        id) makes a throw delivered twice count once."""
        try:
            values = [int(d) for d in dice]
        except (TypeError, ValueError):
            raise CompanionError(f"dice must be numbers 1 to 6, not {dice!r}") from None
        if any(not 1 <= d <= 6 for d in values):
            raise CompanionError(f"dice must be numbers 1 to 6, not {list(dice)!r}")
        with self._lock:
            m = self._need_game()
            if ident is not None and ident in self._seen_events:
                log.info("throw %s already taken", ident)
                return self._state_doc
            note = ("dice", {"dice": values, "ident": ident})
            try:
                if self._family is not None and self._family.board == "tally":
                    if m.phase != "throw":
                        raise NotNowError(f"no dice are wanted now: {self._awaiting()}")
                    outcome, before, texts = _tally.throw(m, self._family, values)
                    self._remember(ident)
                    self._save(who, [note])
                    turn, _attempt = self._counter.count(True)
                    self._rulings.append(_tally.ruling_doc(outcome, before, turn, len(m.history)))
                    for text, kind in texts:
                        self._say(text, kind, who)   # (the end, if this throw ended it, was stored by _save)
                elif m.phase == "start":
                    if len(values) != 2:
                        raise CompanionError("the roll for start takes two dice: light's, then dark's")
                    m.start_roll(values[0], values[1])
                    self._remember(ident)
                    self._save(who, [note])
                    if m.phase == "start":
                        self._say(f"both threw {values[0]}: throw again", "start_roll", who)
                    else:
                        self._say(f"{self._who(m.turn)} goes first ({values[0]} against {values[1]})", "start_roll", who)
                        if m.phase == "move":
                            self._say(f"{self._who(m.turn)} plays {'-'.join(map(str, m.dice))}", "prompt", who)
                elif m.phase == "throw":
                    mover = m.turn
                    before = m.position
                    passed = m.throw(values)
                    self._remember(ident)
                    self._save(who, [note])
                    if passed is None or not is_pass(passed):
                        self._say(f"{self._who(mover)} throws {'-'.join(map(str, m.dice or values))}", "throw", who)
                    if passed is not None:       # no play: the pass says the throw too (announce.py)
                        self._ruled(passed, who, before)
                elif m.phase == "binding_toss":
                    if len(values) != 4:
                        raise CompanionError("the toss to break a bound table takes four dice: the binder's two, "
                                             "then the other's two")
                    chooser = m.binding_toss(values[:2], values[2:])
                    self._remember(ident)
                    self._save(who, [note])
                    if chooser is None:
                        self._say("the toss is tied: throw again", "binding", who)
                    else:
                        self._ask_break(chooser)
                else:
                    raise NotNowError(f"no dice are wanted now: {self._awaiting()}")
            except EngineError as exc:
                raise CompanionError(str(exc)) from None
            self._publish()
            return self._state_doc

    def _remember(self, ident: str | None) -> None:
        if ident is not None:
            self._seen_events.add(ident)

    # ---------------------------------------------------------------- undo
    def undo(self, who: str = "page") -> dict[str, Any]:
        """Take back the last thing done -- a move (legal or not), a throw, a
        cube action -- with what the engine did of itself after it (a throw
        that could not be played passes at once): recorded as an undo, not
        erased. Pressed again, it takes back the one before.

        After the end, the action that ended the game (the winning move, a
        drop, the last throw of a counting game) is taken back like any
        other, and the game is reopened with it in one transaction: the
        stored game is ``playing`` again with no result, so its record, the
        list of games, the replay and the exports keep agreeing. It is
        refused once another game has started."""
        with self._lock:
            m = self._need_game()
            acts = m.actions
            if not acts:
                raise NotNowError("there is nothing to take back")
            start = len(acts) - 1
            while start > 0 and acts[start].get("automatic"):
                start -= 1
            undone = self._action_ns[start:]
            ended = m.result is not None
            try:
                self.store.append_many(self._game_id, [("undo", {"undoes": undone}, who)], reopens=ended)
            except StoreError as exc:        # another game is in progress: this one's end stands
                raise NotNowError(f"the end of this game cannot be taken back: {exc}") from None
            text = f"{who} takes back {self._undo_text(acts[start])}"
            self._say(text + (": the game is not over, it goes on" if ended else ""), "undo", who)
            keep = self._announcements
            self._load(self._game_id)
            self._announcements = keep
            self._publish()
            return self._state_doc

    def _undo_text(self, action: Mapping[str, Any]) -> str:
        """What an action was, for "X takes back ..." and the page's undo button."""
        kind = action.get("type")
        who = self._who(action.get("player")) if action.get("player") is not None else None
        if kind == "move":
            what = "the illegal move" if action.get("verdict") == "illegal" else "the move"
            play = action.get("play")
            return f"{what} of {who}" + (f": {play}" if play else "")
        if kind == "throw":
            return f"the throw of {who}: {'-'.join(map(str, action.get('dice', [])))}"
        if kind == "start_roll":
            return f"the roll for the start ({action.get('light')} against {action.get('dark')})"
        if kind in ("double", "take", "drop"):
            return f"the {kind} of {who}" if who else f"the {kind}"
        return f"the {str(kind).replace('_', ' ')}"

    def _undo_preview(self) -> str | None:
        """What UNDO would take back now, in words, or None when nothing."""
        m = self._match
        if m is None or not m.actions:
            return None
        start = len(m.actions) - 1
        while start > 0 and m.actions[start].get("automatic"):
            start -= 1
        return self._undo_text(m.actions[start])

    # ---------------------------------------------------------------- cube
    def cube(self, action: str, who: str = "page") -> dict[str, Any]:
        """``double`` (the player on turn, before throwing), ``take`` or ``drop``."""
        with self._lock:
            m = self._need_game()
            if action not in ("double", "take", "drop"):
                raise CompanionError(f"the cube's actions are double, take and drop, not {action!r}")
            if not m.rules.cube:
                raise NotNowError("this game is played without the cube")
            if action == "double" and m.phase == "throw" and not m.can_double():
                owner = f"{self._who(m.cube_owner)} owns it" if m.cube_owner else "nobody owns it"
                raise NotNowError(f"{self._who(m.turn)} may not double now: the cube is at {m.cube_value} "
                                  f"and {owner}")
            if action == "double" and m.phase != "throw":
                raise NotNowError(f"a double is offered only before throwing: {self._awaiting()}")
            if action != "double" and m.phase != "cube":
                raise NotNowError(f"no double has been offered: {self._awaiting()}")
            try:
                if action == "double":
                    doubler = m.turn
                    m.offer_double()
                    text = f"{self._who(doubler)} doubles to {m.cube_value * 2}"
                elif action == "take":
                    m.take()
                    text = f"{self._who(m.cube_owner)} takes: the cube is at {m.cube_value}"
                elif action == "drop":
                    result = m.drop()
                    text = f"{self._who(other(result.winner))} drops: {self._who(result.winner)} wins {result.stake}"
                else:
                    raise CompanionError(f"the cube's actions are double, take and drop, not {action!r}")
            except EngineError as exc:
                raise NotNowError(str(exc)) from None
            self._save(who)                       # a drop's end is stored with it
            self._say(text, "cube", who)
            self._publish()
            return self._state_doc

    def press(self, button: str, who: str = "box") -> None:
        """DONE or UNDO pressed on the box or the Pi."""
        if button == "undo":
            try:
                self.undo(who)
            except NotNowError as exc:
                self._say(str(exc), "notice")
        elif button == "done":
            cam = self.camera
            fam = self._family
            if fam is not None and not fam.camera_reads and fam.camera_note:
                with self._lock:
                    self._say(fam.camera_note, "notice")
                    self._publish()
            elif cam is not None and hasattr(cam, "read_now"):
                cam.read_now()
            else:
                with self._lock:
                    self._say("no camera: enter the board on the page", "notice")
                    self._publish()
