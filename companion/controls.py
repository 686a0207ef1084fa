"""The players' other inputs: dice, the cube, taking back, and the box's buttons.

Dice arrive from the box, the Pi's pins or the page
(:meth:`Controls.enter_dice`) and go to the part that plays the game's
family (``games.FamilyPart``: the roll for start, a turn's throw, the toss
that breaks a bound table, a counting game's throw); a throw delivered twice
(the box retransmits) counts once. The cube is offered, taken or dropped
(:meth:`~Controls.cube`). UNDO takes back the last thing done, recorded as
an undo, never erased (:meth:`~Controls.undo`); DONE asks the camera to
read the board now (:meth:`~Controls.press`). The board itself is judged in
``judging.py``.

:class:`Controls` is the companion's part for these inputs; it is handed the
game in progress (``current_game.py``), what tells the players
(``state.py``), a way to rebuild the game from the store after an undo, and
the camera (when there is one).

>>> from willughby.companion.service import Companion
>>> from willughby.companion.store import GameStore
>>> c = Companion(GameStore(":memory:"))
>>> _ = c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
>>> _ = c.enter_dice([3, 3], who="test")
>>> c.state()["undo"]
'the roll for the start (Ann (light) threw 3, Bob (dark) 3)'
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from willughby.engine.errors import EngineError
from willughby.engine.position import DARK, LIGHT, other
from willughby.engine.sources import source

from .documents import StateDoc
from .errors import CompanionError, NotNowError
from .store import StoreError

if TYPE_CHECKING:
    from .current_game import CurrentGame
    from .state import Telling

__all__ = ["Controls", "undo_start"]

log = logging.getLogger(__name__)


def undo_start(actions: Sequence[Mapping[str, Any]]) -> int:
    """The index of the action UNDO takes back: the last one a person did, with what the engine did of
    itself after it (a throw that could not be played passes at once)."""
    start = len(actions) - 1
    while start > 0 and actions[start].get("automatic"):
        start -= 1
    return start


class Controls:
    """Dice, the cube, undo and the buttons, for the game in progress (see the module docstring)."""

    def __init__(self, game: "CurrentGame", telling: "Telling", reload: Callable[[str], None],
                 camera: Callable[[], Any]) -> None:
        self._game = game
        self._telling = telling
        self._reload = reload
        self._camera = camera

    # ---------------------------------------------------------------- dice
    def enter_dice(self, dice: Sequence[int], who: str = "page", ident: str | None = None) -> StateDoc:
        """Dice thrown: for the roll for start, light's die then dark's; later,
        the throw of the player on turn. *ident* (a box's or the Pi's throw
        id) makes a throw delivered twice count once."""
        try:
            values = [int(d) for d in dice]
        except (TypeError, ValueError):
            raise CompanionError(f"dice must be numbers 1 to 6, not {dice!r}") from None
        if any(not 1 <= d <= 6 for d in values):
            raise CompanionError(f"dice must be numbers 1 to 6, not {list(dice)!r}")
        game = self._game
        with game.lock:
            game.need()
            if ident is not None and ident in game.seen_events:
                log.info("throw %s already taken", ident)
                return self._telling.doc
            assert game.part is not None
            try:
                taken = game.part.take_dice(values, who, ("dice", {"dice": values, "ident": ident}), ident)
            except EngineError as exc:
                raise CompanionError(str(exc)) from None
            if taken == "in_play":
                game.throw_by = who             # (a throw held for the next player is not the throw in play)
            self._telling.publish()
            return self._telling.doc

    # ---------------------------------------------------------------- undo
    def undo(self, who: str = "page") -> StateDoc:
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
        game = self._game
        with game.lock:
            m = game.need()
            game_id = game.need_id()
            acts = m.actions
            if not acts:
                raise NotNowError("there is nothing to take back")
            if acts[-1].get("type") == "flag":
                raise NotNowError("a fallen flag is not taken back: the reserve ran out on the match's clock "
                                  "(match.flag); the director may start the match again")
            start = undo_start(acts)
            undone = game.action_ns[start:]
            ended = m.result is not None
            try:
                game.store.append_many(game_id, [("undo", {"undoes": undone}, who)], reopens=ended)
            except StoreError as exc:        # another game is in progress: this one's end stands
                raise NotNowError(f"the end of this game cannot be taken back: {exc}") from None
            text = f"{who} takes back {self.undo_text(acts[start])}"
            self._telling.say(text + (": the game is not over, it goes on" if ended else ""), "undo", who)
            keep = self._telling.announcements
            self._reload(game_id)
            self._telling.announcements = keep
            self._telling.publish()
            return self._telling.doc

    def undo_text(self, action: Mapping[str, Any]) -> str:
        """What an action was, for "X takes back ..." and the page's undo button."""
        kind = action.get("type")
        who = self._game.who(action.get("player")) if action.get("player") is not None else None
        if kind == "move":
            what = "the illegal move" if action.get("verdict") == "illegal" else "the move"
            play = action.get("play")
            return f"{what} of {who}" + (f": {play}" if play else "")
        if kind == "throw":
            return f"the throw of {who}: {'-'.join(map(str, action.get('dice', [])))}"
        if kind == "start_roll":
            light, dark = self._game.who(LIGHT), self._game.who(DARK)
            return f"the roll for the start ({light} threw {action.get('light')}, {dark} {action.get('dark')})"
        if kind == "placed":
            return "the board placed by the players"
        if kind in ("double", "take", "drop"):
            return f"the {kind} of {who}" if who else f"the {kind}"
        return f"the {str(kind).replace('_', ' ')}"

    def undo_preview(self) -> str | None:
        """What UNDO would take back now, in words, or None when nothing."""
        m = self._game.match
        if m is None or not m.actions or m.actions[-1].get("type") == "flag":
            return None
        return self.undo_text(m.actions[undo_start(m.actions)])

    # ---------------------------------------------------------------- cube
    def cube(self, action: str, who: str = "page") -> StateDoc:
        """``double`` (the player on turn, before throwing), ``take``, ``drop`` or, with ``beavers=true``,
        ``beaver`` (the player doubled redoubles at once and keeps the cube)."""
        game, name = self._game, self._game.who
        with game.lock:
            m = game.need()
            if action not in ("double", "take", "drop", "beaver"):
                raise CompanionError(f"the cube's actions are double, take, drop and beaver, not {action!r}")
            if not m.rules.cube:
                raise NotNowError("this game is played without the cube")
            if action == "double" and m.phase == "throw" and not m.can_double():
                why, rule = m.why_no_double()
                if rule == "match.crawford":     # the rule named, as a ruling names its source
                    why += f" ({source(rule).citation})"
                elif rule is not None:
                    owner = f"{name(m.cube_owner)} owns it" if m.cube_owner else "nobody owns it"
                    why = f"the cube is at {m.cube_value} and {owner}"
                raise NotNowError(f"{name(m.turn)} may not double now: {why}")
            if action == "double" and m.phase != "throw":
                raise NotNowError(f"a double is offered only before throwing: {game.awaiting()}")
            if action != "double" and m.phase != "cube":
                raise NotNowError(f"no double has been offered: {game.awaiting()}")
            try:
                if action == "double":
                    doubler = m.turn
                    m.offer_double()
                    text = f"{name(doubler)} doubles to {m.cube_value * 2}"
                elif action == "take":
                    taker = other(m.offered_by)
                    m.take()
                    text = f"{name(taker)} takes: the cube is at {m.cube_value}" + (
                        f", {name(m.cube_owner)}'s (the beaver)" if m.cube_owner != taker else "")
                elif action == "beaver":
                    m.beaver()
                    text = f"{name(m.offered_by)} beavers: the cube goes to {m.cube_value * 2} if taken"
                else:
                    result = m.drop()
                    text = f"{name(other(result.winner))} drops: {name(result.winner)} wins {result.stake}"
            except EngineError as exc:
                raise NotNowError(str(exc)) from None
            game.save(who)                        # a drop's end is stored with it
            self._telling.say(text, "cube", who)
            self._telling.publish()
            return self._telling.doc

    def press(self, button: str, who: str = "box") -> None:
        """DONE or UNDO pressed on the box or the Pi."""
        if button == "undo":
            try:
                self.undo(who)
            except NotNowError as exc:
                self._telling.say(str(exc), "notice")
        elif button == "done":
            cam = self._camera()
            fam = self._game.family
            if fam is not None and not fam.camera_reads and fam.camera_note:
                self._notice(fam.camera_note)
            elif cam is not None and hasattr(cam, "read_now"):
                cam.read_now()
            else:
                self._notice("no camera: enter the board on the page")

    def _notice(self, text: str) -> None:
        with self._game.lock:
            self._telling.say(text, "notice")
            self._telling.publish()
