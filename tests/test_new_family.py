"""A new family of game is one object the engine registers: the referee, the
match and the companion play it without a line of theirs changed.

The toy family here, "first off wins", moves men as the race games do but
ends as soon as a side has borne off one man. It is written in the test (a
few lines, borrowing the race family's moves), registered, given a preset,
and played through the referee, an engine match and the companion."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

import pytest

from willughby.engine import families, options
from willughby.engine.race_referee import RACE
from willughby.engine.rulings import Event, GameOver


class FirstOffWins:
    """The toy family: the race games' moves, and the first man borne off wins one stake."""

    name = "first-off"
    board = "points"
    matches = False        # a first-off race of one stake: no matches

    def start(self, rules: Any, turn: Any = None) -> Any:
        return RACE.start(rules, turn)

    def outcomes(self, rules: Any, before: Any, dice: Sequence[int]) -> list[Any]:
        return RACE.outcomes(rules, before, dice)

    def game_over(self, rules: Any, position: Any, mover: Any, dice: Sequence[int], cube: int = 1) -> Any:
        winners = [c for c, k in (("light", 0), ("dark", 1)) if position.off[k]]
        return GameOver(winners[0], "single", cube, "win.single") if winners else None

    def judge(self, rules: Any, before: Any, dice: Sequence[int], after: Any, cube: int = 1) -> Any:
        ruling = RACE.judge(rules, before, dice, after, cube)
        over = self.game_over(rules, after, ruling.player, dice, cube) if ruling.verdict == "legal" else None
        if over is None or ruling.game_over is not None:
            return ruling
        return replace(ruling, game_over=over, events=ruling.events + (Event("win", over.winner),))

    def stake_terms(self, rules: Any, cube: int = 1) -> list[tuple[str, int, str]]:
        return [("single", cube, "win.single")]


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> options.Preset:
    """The toy family registered, with a preset: every man of each side on its ace point."""
    monkeypatch.setattr(families, "_FAMILIES", dict(families._FAMILIES))
    monkeypatch.setattr(options, "_KNOWN_FAMILIES", set(options._KNOWN_FAMILIES))
    families.register_family(FirstOffWins())
    preset = options.Preset("first-off", "First off wins", "a test's toy", options.Rules(
        family="first-off", start=((1, 15),), cube=False, opening="play"))
    monkeypatch.setitem(options.PRESETS, preset.id, preset)
    return preset


def test_the_referee_and_a_match_play_a_family_they_never_heard_of(toy: options.Preset) -> None:
    from willughby.engine.game import Game
    from willughby.engine.referee import judge, stake_terms, turn_outcomes
    from willughby.engine.rules import start_position

    rules = toy.rules
    start = start_position(rules, "light")
    assert start.light[0] == 15 and start.dark[23] == 15
    assert stake_terms(rules) == [("single", 1, "win.single")]
    off = next(o for o in turn_outcomes(rules, start, (2, 1)) if o.position.off[0])
    ruling = judge(rules, start, (2, 1), off.position)
    assert ruling.verdict == "legal" and ruling.game_over is not None and ruling.game_over.winner == "light"

    match = Game(rules, preset=toy.id, players={"light": "Ann", "dark": "Bob"})
    match.start_roll(3, 1)                                       # light's 3 beats dark's 1: light plays 3-1
    assert match.phase == "move"
    first = next(o for o in match.legal_outcomes() if o.position.off[0])
    match.play(first.position)
    assert match.phase == "over" and match.result is not None and match.result.winner == "light"


def test_the_companion_plays_it_through_its_page_controls(toy: options.Preset) -> None:
    from willughby.companion.service import Companion
    from willughby.companion.store import GameStore

    companion = Companion(GameStore(":memory:"))
    companion.new_game("first-off", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    companion.enter_dice([3, 1], who="test")                     # the throw for the start: Ann plays 3-1
    state = companion.state()
    assert state["family"] == "first-off" and state["phase"] == "move"
    board = next(b for play, b in companion.legal_boards().items() if b["off"]["light"])
    assert companion.on_reading(board, confidence=None, who="test")["verdict"] == "legal"
    state = companion.state()
    assert state["game_over"] == {"winner": "light", "kind": "single", "stake": 1}
    assert state["stakes"] == [{"kind": "single", "stake": 1}]
    assert "Ann (light) wins: single, stake 1" in [a["text"] for a in state["announcements"]]
    stored = companion.game(state["game_id"])
    assert stored["result"]["winner"] == "light" and len(stored["turns"]) == 1
