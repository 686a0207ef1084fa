"""The companion's part for the counting game (Sice-Ace): throws, rulings, state, replay.

Sice-Ace is refereed from the dice alone (``docs/games.md``): each throw is one
turn, always legal, its outcome counted by the engine
(:func:`~willughby.engine.counting.count_throw` through
:class:`~willughby.engine.counting.CountingGame`). The service calls these
part :class:`TallyPart` for the counting family (``games.py``); nothing else
in the companion knows the game.

The state document of a counting game (``GET /api/state``) has, beside the
keys every game has:

- ``players``: the names in turn order; ``board``: the ``tally/1`` document
  (``turn`` the index of the player to throw, absent once the game is over);
- ``tally``: ``{"players": [{"index", "name", "men", "off", "out", "to_throw"}], "pool", "turn", "out"}``;
- ``game_over``: null or ``{"loser", "kind", "stake"}``, the loser paying;
- ``rulings``: one per throw, with ``dice`` (in reading order), ``events``,
  ``before`` and ``board`` (tallies), ``player`` an index.

>>> from willughby.engine.counting import CountingGame
>>> from willughby.companion.games import CountingFamily
>>> m = CountingGame.new(options={"players": "3"}, players=["Ann", "Bob", "Cat"])
>>> new_game_text("Sice-Ace", m)
'new game of Sice-Ace: Ann, Bob and Cat, six men each; Ann throws first'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from willughby.engine.counting import CountingGame, Tally

from .announce import describe_tally_throw
from .documents import QuestionDoc, RulingDoc, StateDoc, board_doc
from .errors import NotNowError
from .numbering import TurnCounter

if TYPE_CHECKING:
    from .current_game import CurrentGame
    from .games import DiceTaken
    from .state import Telling

__all__ = ["TallyPart", "new_game_text", "awaiting", "rebuild", "turns", "state", "ruling_doc"]


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def names_of(players: Any) -> list[str]:
    """The names of a counting game's players as the store keeps them (``{"0": name, ...}``), in turn order."""
    if isinstance(players, Mapping):
        return [str(players[k]) for k in sorted(players, key=lambda k: int(k) if str(k).isdigit() else 99)]
    return list(players or [])


def new_game_text(game_name: str, match: CountingGame) -> str:
    first = match.names[match.turn] if match.turn is not None else "?"
    return (f"new game of {game_name}: {_listed(list(match.names))}, six men each; {first} throws first")


def awaiting(match: CountingGame, who: Callable[[Any], str]) -> str:
    """What the counting game waits for, in the players' words."""
    if match.phase == "over":
        return "the game is over: start a new one"
    again = bool(match.history) and match.history[-1].throws_again
    return f"{who(match.turn)} is to throw" + (" again" if again else "")


def ruling_doc(outcome: Any, before: Tally, turn: int, seq: int) -> RulingDoc:
    """One throw as a ruling for the page (always legal: the dice decide)."""
    return {"verdict": "legal", "play": None, "events": [e.to_json() for e in outcome.events],
            "reason": None, "citation": None,
            "game_over": outcome.game_over.to_json() if outcome.game_over else None,
            "player": outcome.player, "dice": list(outcome.dice), "turn": turn, "attempt": 1, "seq": seq,
            "before": board_doc(before.to_doc()), "board": board_doc(outcome.after.to_doc()), "throws_again": outcome.throws_again,
            "source": None, "closest": []}




def rebuild(match: CountingGame) -> tuple[list[RulingDoc], TurnCounter]:
    """The rulings of a match replayed from the store, and the turn counter after them."""
    counter = TurnCounter()
    out: list[RulingDoc] = []
    before = match.start
    for k, outcome in enumerate(match.history):
        turn, _ = counter.count(True)
        out.append(ruling_doc(outcome, before, turn, k + 1))
        before = outcome.after
    return out, counter


def turns(record: Mapping[str, Any], family: Any) -> list[dict[str, Any]]:
    """Each throw of a counting game's record, with the tallies before and after (for replay)."""
    match = family.from_record(record)
    out = []
    before = match.start
    for k, outcome in enumerate(match.history):
        doc = ruling_doc(outcome, before, k + 1, k + 1)
        out.append({"turn": k + 1, "attempt": 1, "seq": k + 1, "player": outcome.player,
                    "player_text": family.who(match, outcome.player), "dice": list(outcome.dice),
                    "play": None, "verdict": "legal", "before": before.to_doc(), "after": outcome.after.to_doc(),
                    "ruling": doc})
        before = outcome.after
    return out


def state(match: CountingGame, rulings: Sequence[RulingDoc], game_id: str | None,
          turn_number: int, awaiting_text: str, undo: str | None) -> StateDoc:
    """The state document's keys for a counting game (see the module docstring)."""
    t = match.tally
    players = [{"index": k, "name": name, "men": t.men[k], "out": t.men[k] == 0,
                "to_throw": match.phase != "over" and t.turn == k}
               for k, name in enumerate(match.names)]
    last = rulings[-1] if rulings else None
    return {
        "game_id": game_id,
        "preset": match.preset,
        "players": list(match.names),
        "board": board_doc(t.to_doc()),
        "dice": list(match.dice) if match.dice else None,
        "turn_number": turn_number,
        "turns_played": match.turn_number,
        "phase": match.phase,
        "awaiting": awaiting_text,
        "rulings": list(rulings[-20:]),
        "game_over": match.result.to_json() if match.result else None,
        "cube": None,
        "question": None,
        "last_play": None,
        "undo": undo,
        "tally": {"players": players, "pool": t.pool, "turn": t.turn, "out": list(t.out),
                  "throws_again": bool(last and last.get("throws_again")) and match.phase != "over"},
    }


class TallyPart:
    """The companion's part for a counting game in progress: its dice, its
    opening words and its state (``games.FamilyPart``)."""

    def __init__(self, game: "CurrentGame", telling: "Telling") -> None:
        self._game = game
        self._telling = telling

    def opening(self, game_name: str, who: str, camera: bool) -> None:
        game = self._game
        self._telling.say(new_game_text(game_name, game.match), "new_game", who=who)
        note = game.family.camera_note if game.family is not None else None
        if note:                    # said with or without a camera: the page shows the camera idle
            self._telling.say(note, "notice", who=who)

    def take_dice(self, values: list[int], who: str, note: tuple[str, dict[str, Any]],
                  ident: str | None) -> DiceTaken:
        """The player on turn threw *values*: counted by the engine (which refuses dice the game cannot
        throw, ``EngineError``), recorded, ruled (always legal: the dice decide) and announced; always the
        throw in play (a counting game holds no throw)."""
        game = self._game
        m: CountingGame = game.match
        if m.phase != "throw":
            raise NotNowError(f"no dice are wanted now: {game.awaiting()}")
        before = m.tally
        outcome = m.throw(values)
        game.remember(ident)
        game.save(who, [note])
        turn, _attempt = game.counter.count(True)
        game.rulings.append(ruling_doc(outcome, before, turn, len(m.history)))
        for text, kind in describe_tally_throw(outcome, game.who):
            self._telling.say(text, kind, who)   # (the end, if this throw ended it, was stored by save)
        return "in_play"

    def state_keys(self, awaiting: str, undo: str | None, question: QuestionDoc | None) -> StateDoc:
        game = self._game
        return state(game.match, game.rulings, game.id, game.turn_in_progress(), awaiting, undo)
