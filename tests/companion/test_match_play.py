"""Matches at the table (``companion/match_play.py``): a match begun and played game after game through the
companion, its score in the state, the next game offered between games, a double refused in the Crawford
game with the rule named, New game in the middle asking whether the match is abandoned, an undo across a
game's end keeping the match whole, a restart carrying it on, and the whole match exported as GNU Backgammon
reads it."""

from __future__ import annotations

import random

import pytest

from willughby.companion.errors import NotNowError
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.engine.match import Match

from .test_match_mat import gnubg_match_disagrees
from .test_matfile import gnubg_import, needs_gnubg

PLAYERS = {"light": "Ann", "dark": "Bob"}


def _play_game(c: Companion, rng: random.Random, *, cube: float = 0.08) -> None:
    """Two automatic players play the game in progress to its end through the companion: dice entered,
    a legal board given as read, a double now and then (taken three times in four)."""
    for _ in range(3000):
        state = c.state()
        if state["phase"] == "over":
            return
        if state["phase"] == "start":
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            c.enter_dice([a, b] if a != b else [a, (b % 6) + 1], who="test")
        elif state["phase"] == "cube":
            c.cube("take" if rng.random() < 0.75 else "drop", who="test")
        elif state["phase"] == "throw":
            game = c.match
            if game.can_double() and game.cube_value < 8 and rng.random() < cube:
                c.cube("double", who="test")
            else:
                c.enter_dice([rng.randint(1, 6), rng.randint(1, 6)], who="test")
        elif state["phase"] == "move":
            boards = c.legal_boards()
            c.on_reading(rng.choice(sorted(boards.items()))[1], confidence=None, who="camera")
        else:
            raise AssertionError(f"unexpected phase {state['phase']}")
    raise AssertionError("a game that does not end")


def _play_match(c: Companion, length: int, seed: int) -> None:
    rng = random.Random(seed)
    c.new_match(length, "backgammon", {}, PLAYERS, who="test")
    while True:
        _play_game(c, rng)
        if c.state()["match"]["winner"]:
            return
        c.next_game(who="test")


def _crawford_seed(length: int = 5) -> int:
    """A seed whose match to *length* through the companion has a Crawford game and a game after it."""
    for seed in range(100):
        c = Companion(GameStore(":memory:"))
        _play_match(c, length, seed)
        m = c.matches.engine_match(c.state()["match"]["id"])
        crawford = m.crawford_index()
        if crawford is not None and crawford + 1 < len(m.games):
            return seed
    raise AssertionError("no seed gives a Crawford game")


def test_a_match_is_played_game_after_game_with_its_score_in_the_state():
    c = Companion(GameStore(":memory:"))
    state = c.new_match(3, "backgammon", {}, PLAYERS, who="test")
    assert state["match"]["text"] == "Ann needs 3, Bob needs 3" and state["match"]["game"] == 1
    assert any(a["text"].startswith("a match to 3 points") for a in state["announcements"])
    rng = random.Random(3)
    _play_game(c, rng)
    state = c.state()
    over = state["game_over"]
    assert state["match"]["score"][over["winner"]] == over["stake"]
    if not state["match"]["winner"]:
        with pytest.raises(NotNowError, match="a match to 3 is in play"):
            c.new_game("backgammon", {}, PLAYERS, who="test")
        state = c.next_game(who="test")
        assert state["match"]["game"] == 2 and state["phase"] == "start"
        with pytest.raises(NotNowError, match="still in play"):
            c.next_game(who="test")


def test_a_double_in_the_crawford_game_is_refused_naming_the_rule():
    c = Companion(GameStore(":memory:"))
    c.new_match(3, "backgammon", {}, PLAYERS, who="test")
    c.enter_dice([3, 1], who="test")                               # Ann opens
    c.on_reading(c.legal_boards()["8/5 6/5"], confidence=None, who="camera")
    c.cube("double", who="test")                                   # Bob doubles, Ann takes
    c.cube("take", who="test")
    c.enter_dice([2, 1], who="test")
    c.on_reading(sorted(c.legal_boards().items())[0][1], confidence=None, who="camera")
    c.cube("double", who="test")                                   # Ann redoubles to 4: Bob drops, Ann 2
    c.cube("drop", who="test")
    state = c.next_game(who="test")
    assert state["match"]["stage"] == "crawford" and state["match"]["text"].endswith("(Crawford game)")
    c.enter_dice([1, 3], who="test")                               # Bob opens ...
    c.on_reading(sorted(c.legal_boards().items())[0][1], confidence=None, who="camera")
    with pytest.raises(NotNowError, match=r"no double in the Crawford game.*Danish Backgammon Federation"):
        c.cube("double", who="test")                               # ... and Ann may not double


def test_new_game_in_the_middle_of_a_match_abandons_it_only_when_told():
    store = GameStore(":memory:")
    c = Companion(store)
    c.new_match(5, "backgammon", {}, PLAYERS, who="test")
    match_id = c.state()["match"]["id"]
    state = c.new_game("backgammon", {}, PLAYERS, who="test", abandon_match=True)
    assert state["match"] is None and store.match(match_id)["status"] == "abandoned"
    assert any("the match to 5 is abandoned" in a["text"] for a in state["announcements"])


def test_an_undo_across_the_end_of_the_winning_game_keeps_the_match_whole(tmp_path):
    store = GameStore(tmp_path / "games.sqlite3")
    c = Companion(store)
    c.new_match(1, "backgammon", {}, PLAYERS, who="test")
    c.enter_dice([3, 1], who="test")
    c.on_reading(c.legal_boards()["8/5 6/5"], confidence=None, who="camera")
    c.cube("double", who="test")
    state = c.cube("drop", who="test")                             # Bob wins the match to 1
    match_id = state["match"]["id"]
    assert state["match"]["winner"] == "dark" and store.match(match_id)["status"] == "over"
    state = c.undo(who="test")                                     # the drop taken back
    assert state["phase"] == "cube" and state["match"]["winner"] is None
    assert store.match(match_id)["status"] == "playing"
    again = Match.from_record(store.match_record(match_id))        # the record replays whole
    assert again.score == {"light": 0, "dark": 0} and len(again.games) == 1


def test_a_match_survives_a_restart(tmp_path):
    path = tmp_path / "games.sqlite3"
    store = GameStore(path)
    c = Companion(store)
    _play_match_to_second_game(c)
    before = c.state()["match"]
    store.close()
    again = Companion(GameStore(path))
    after = again.state()["match"]
    assert after == before and after["game"] == 2


def _play_match_to_second_game(c: Companion) -> None:
    c.new_match(5, "backgammon", {}, PLAYERS, who="test")
    c.enter_dice([3, 1], who="test")
    c.on_reading(c.legal_boards()["8/5 6/5"], confidence=None, who="camera")
    c.cube("double", who="test")
    c.cube("drop", who="test")
    c.next_game(who="test")


@needs_gnubg
def test_a_match_to_5_played_through_the_companion_is_exported_and_gnubg_reads_its_final_score(tmp_path):
    from willughby.companion.cli import main

    seed = _crawford_seed()
    store = GameStore(tmp_path / "data" / "games.sqlite")     # where serve and demo keep it
    c = Companion(store)
    _play_match(c, 5, seed)
    match_id = c.state()["match"]["id"]
    store.close()
    out = tmp_path / "match.mat"
    assert main(["export", match_id, "--format", "mat", "--out", str(out), "--data-dir", str(tmp_path / "data")]) == 0
    [theirs] = gnubg_import([out], tmp_path / "out.json")
    with GameStore(tmp_path / "data" / "games.sqlite") as again:
        m = Match.from_record(again.match_record(match_id))
    assert m.over and gnubg_match_disagrees(m, theirs) == []
