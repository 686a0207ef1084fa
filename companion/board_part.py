"""The companion's part for the games on a board: their dice, their opening words, their state.

The race games and the unstacking games are played between light and dark on
the points (or piles) of a board. Dice come for the roll for the start, for
a turn's throw, or for the toss that breaks a bound table; a throw that
cannot be played passes at once and is ruled as it stands. The moves
themselves are judged in ``judging.py``. :class:`BoardPart` is the
:class:`~willughby.companion.games.FamilyPart` of these families, as
:class:`~willughby.companion.tally.TallyPart` is the counting game's.

>>> from willughby.companion.service import Companion
>>> from willughby.companion.store import GameStore
>>> c = Companion(GameStore(":memory:"))
>>> _ = c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
>>> _ = c.enter_dice([6, 1], who="test")
>>> c.state()["awaiting"]
'Ann (light) is to move the 6-1 thrown'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from willughby.engine.position import DARK, LIGHT
from willughby.engine.referee import stake_terms

from .announce import is_pass
from .documents import LastPlayDoc, QuestionDoc, RulingDoc, StateDoc, board_doc
from .errors import CompanionError, NotNowError
from .state import ScoreBoard

if TYPE_CHECKING:
    from .current_game import CurrentGame
    from .games import DiceTaken
    from .judging import Judging
    from .state import Telling

__all__ = ["BoardPart"]


class BoardPart:
    """The dice, the opening and the state of a game on a board (see the module docstring)."""

    def __init__(self, game: "CurrentGame", telling: "Telling", judging: "Judging") -> None:
        self._game = game
        self._telling = telling
        self._judging = judging
        self._scores = ScoreBoard(game.store)

    def opening(self, game_name: str, who: str, camera: bool) -> None:
        game, say = self._game, self._telling.say
        m = game.match
        say(f"new game of {game_name}: {m.players[LIGHT]} plays light, {m.players[DARK]} dark", "new_game", who=who)
        note = game.family.camera_note if game.family is not None else None
        if note and camera:
            say(note, "notice", who=who)
        if m.phase == "start":
            say(f"throw one die each for the start: {game.who(LIGHT)}'s die first, then {game.who(DARK)}'s",
                "prompt", who=who)

    def take_dice(self, values: list[int], who: str, note: tuple[str, dict[str, Any]],
                  ident: str | None) -> DiceTaken:
        game, say = self._game, self._telling.say
        m = game.match
        if m.phase == "start":
            if len(values) != 2:
                raise CompanionError("the roll for start takes two dice: light's, then dark's")
            m.start_roll(values[0], values[1])
            game.remember(ident)
            game.save(who, [note])
            if m.phase == "start":
                say(f"both threw {values[0]}: throw again", "start_roll", who)
            else:
                say(f"{game.who(m.turn)} goes first ({game.who(LIGHT)} threw {values[0]}, "
                    f"{game.who(DARK)} {values[1]})", "start_roll", who)
                if m.phase == "move":
                    say(f"{game.who(m.turn)} plays {'-'.join(map(str, m.dice))}", "prompt", who)
            return "in_play"
        if m.phase == "throw":
            mover = m.turn
            before = m.position
            passed = m.throw(values)
            game.remember(ident)
            game.save(who, [note])
            if passed is None or not is_pass(passed):
                say(f"{game.who(mover)} throws {'-'.join(map(str, m.dice or values))}", "throw", who)
            if passed is not None:       # no play: the pass says the throw too (announce.py)
                self._judging.ruled(passed, who, before)
            return "in_play"
        if m.phase == "binding_toss":
            if len(values) != 4:
                raise CompanionError("the toss to break a bound table takes four dice: the binder's two, "
                                     "then the other's two")
            chooser = m.binding_toss(values[:2], values[2:])
            game.remember(ident)
            game.save(who, [note])
            if chooser is None:
                say("the toss is tied: throw again", "binding", who)
            else:
                self._judging.ask_break(chooser)
            return "in_play"
        if m.phase == "move" and who != "camera":
            # the next player threw while the referee still waits for this play (its frame not yet settled,
            # or missed): held for the next player's turn, not refused (way_back.py). Not the camera's: the
            # dice it sees while a play is awaited are the throw in play's (camera_throws.py)
            self._judging.way_back.hold(values, who, ident)
            return "held"
        raise NotNowError(f"no dice are wanted now: {game.awaiting()}")

    def state_keys(self, awaiting: str, undo: str | None, question: QuestionDoc | None) -> StateDoc:
        game = self._game
        m = game.match
        keys: StateDoc = {
            "game_id": game.id,
            "preset": m.preset,
            "players": dict(m.players),
            "board": board_doc(m.position.to_board()),
            "dice": list(m.dice) if m.dice else None,
            "turn_number": game.turn_in_progress(),
            "turns_played": m.turn_number,
            "phase": m.phase,
            "awaiting": awaiting,
            "rulings": game.rulings[-20:],
            "game_over": m.result.to_json() if m.result else None,
            "cube": {"value": m.cube_value, "owner": m.cube_owner, "offered_by": m.offered_by,
                     "enabled": m.rules.cube, "can_double": m.can_double()},
            "question": question,
            "last_play": _last_play(game.rulings),
            "undo": undo,
            "stakes": [{"kind": kind, "stake": stake} for kind, stake, _key in stake_terms(m.rules, m.cube_value)],
            "score": self._scores.score(game.id, m),
        }
        phases = game.family.phases(m) if game.family is not None else None
        if phases is not None:
            keys["phases"] = phases
        return keys


def _last_play(rulings: list[RulingDoc]) -> LastPlayDoc | None:
    """The last legal play (or the opponent's play it forced), for the page to show what moved."""
    for r in reversed(rulings):
        if r["verdict"] == "legal" and (r.get("play") or r.get("opponent_play")):
            events = r.get("events", [])
            return {"turn": r["turn"], "player": r["player"], "play": r.get("play"), "before": r["before"],
                    "after": r.get("board"), "opponent_play": r.get("opponent_play"),
                    "passed": [e["die"] for e in events if e["type"] == "opponent_uses_die"],
                    "lost": [e["die"] for e in events if e["type"] == "lost_die"]}
    return None
