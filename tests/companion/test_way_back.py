"""The referee finds its way back (issue 44, items 3 and 4): the players' board after a missed play.

House conventions, 18: "a board two plays away, an early throw, an answer
the referee cannot reach are states it knows, not errors; the players'
board always wins, and the record says what happened."

The table of the issue: light played 3-1; dark threw 6-4 and played it,
which the camera missed, so the referee still awaits dark's 6-4; light
then played (a 5-2 the referee never saw).
"""

from __future__ import annotations

import pytest

from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.engine.game import Game
from willughby.engine.notation import parse_play
from willughby.engine.position import Position

DOUBT = {str(p): 1.0 for p in range(1, 25)} | {"bar": 1.0, "3": 0.5}
SURE = {str(p): 1.0 for p in range(1, 25)} | {"bar": 1.0}


@pytest.fixture
def store(store_file):
    return store_file


def _table(store: GameStore) -> tuple[Companion, dict[str, Position]]:
    """The game up to dark's 6-4 awaited; the boards on the table after each play that follows."""
    c = Companion(store)
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    c.enter_dice([3, 1], who="test")
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    c.enter_dice([6, 4], who="test")
    held = Position.from_board(c.state()["board"])
    dark = parse_play(held, "24/18 13/9").with_turn("light")        # missed by the camera
    light = parse_play(dark, "13/8 13/11").with_turn("dark")        # light's 5-2, never seen
    dark2 = parse_play(light, "13/10 13/10 6/3 6/3").with_turn("light")   # dark's 3-3 after it, nor that
    return c, {"held": held, "dark": dark, "light": light, "dark2": dark2}


def _doc(p: Position) -> dict:
    doc = p.to_board()
    doc.pop("turn")
    return doc


def _log(c: Companion) -> list[dict]:
    return c.store.game(c.state()["game_id"])["log"]


def test_the_answer_after_a_missed_play_and_the_next_players_puts_the_game_back(store):
    c, b = _table(store)
    assert c.on_reading(_doc(b["light"]), DOUBT) is None          # the camera is unsure: a question
    q = c.state()["question"]
    pick = next(ch for ch in q["choices"] if ch["play"] == "the board as read")
    c.answer(q["id"], pick["index"])
    s = c.state()
    # the players' board is the board on the table: two turns on, dark to throw, no illegal ruling
    assert Position.from_board(s["board"]).physical_key() == b["light"].physical_key()
    assert s["phase"] == "throw" and s["board"]["turn"] == "dark" and s["question"] is None
    assert all(r["verdict"] == "legal" for r in s["rulings"])
    assert s["turn_number"] == 4 and s["turns_played"] == 3
    said = [a["text"] for a in s["announcements"] if a["kind"] == "placed"]
    assert said == ["Board placed by the players: Bob (dark)'s 6-4 (24/18 13/9, or a play like it) and then "
                    "a play of Ann (light)'s were not seen; the game goes on from it, Bob (dark) to throw"]
    log = _log(c)
    kinds = [e["kind"] for e in log]
    assert kinds.index("question") < kinds.index("answer") < kinds.index("gap")
    placed = [e["data"] for e in log if e["kind"] == "action"][-1]
    assert placed == {"type": "placed", "player": "dark", "after": b["light"].with_turn("dark").id(),
                      "dice": [6, 4], "turns": 2}
    gap = next(e["data"] for e in log if e["kind"] == "gap")
    assert gap["missed"] == "24/18 13/9" and gap["before"] == b["held"].id() and gap["turns"] == 2
    c.enter_dice([2, 1], who="test")                               # the game goes on from it
    assert c.state()["phase"] == "move" and c.state()["board"]["turn"] == "dark"


def test_the_camera_alone_never_places_a_board_but_the_players_fixing_it_do(store):
    c, b = _table(store)
    ruling = c.on_reading(_doc(b["light"]), SURE)                  # the camera's word: judged as dark's play
    assert ruling["verdict"] == "illegal" and "changed during dark's turn" in ruling["reason"]
    c.submit_board(_doc(b["light"]))                              # the page's "fix the board": the players' word
    s = c.state()
    assert s["phase"] == "throw" and s["board"]["turn"] == "dark"
    assert Position.from_board(s["board"]).physical_key() == b["light"].physical_key()


def test_a_board_only_the_movers_men_made_is_still_his_illegal_play(store):
    c, b = _table(store)
    wrong = parse_play(b["held"], "24/18 13/10")                  # dark's men alone, not his 6-4
    c.submit_board(_doc(wrong))
    s = c.state()
    assert s["rulings"][-1]["verdict"] == "illegal" and s["phase"] == "move" and s["board"]["turn"] == "dark"
    assert [e for e in _log(c) if e["kind"] == "gap"] == []


def test_an_answer_two_plays_ahead_asks_whose_turn_and_goes_on_from_it(store):
    c, b = _table(store)
    c.on_reading(_doc(b["dark2"]), DOUBT)
    q = c.state()["question"]
    c.answer(q["id"], next(ch for ch in q["choices"] if ch["play"] == "the board as read")["index"])
    q = c.state()["question"]                                      # no two plays make it: whose turn?
    assert q["kind"] == "turn" and q["text"].startswith("Whose turn is it?")
    assert [ch["play"] for ch in q["choices"]] == ["Ann (light) throws next", "Bob (dark) throws next"]
    assert c.state()["phase"] == "move"                            # nothing placed before the players say
    c.answer(q["id"], 0)
    s = c.state()
    assert s["phase"] == "throw" and s["board"]["turn"] == "light" and s["question"] is None
    assert Position.from_board(s["board"]).physical_key() == b["dark2"].physical_key()
    assert [e["data"]["turns"] for e in _log(c) if e["kind"] == "gap"] == [1]
    assert any(a["kind"] == "placed" and "the players say Ann (light) is to throw" in a["text"]
               for a in s["announcements"])


def test_a_question_open_across_a_restart_is_asked_again_and_answered(store, tmp_path):
    c, b = _table(store)
    c.on_reading(_doc(b["light"]), DOUBT)
    before = c.state()["question"]
    again = Companion(GameStore(tmp_path / "games.sqlite"))        # a power cut at the table
    try:
        q = again.state()["question"]
        assert q == before
        again.answer(q["id"], next(ch for ch in q["choices"] if ch["play"] == "the board as read")["index"])
        assert again.state()["board"]["turn"] == "dark" and again.state()["phase"] == "throw"
        third = Companion(GameStore(tmp_path / "games.sqlite"))    # answered: not asked again
        assert third.state()["question"] is None and third.state()["board"] == again.state()["board"]
        third.store.close()
    finally:
        again.store.close()


def test_a_question_taken_back_is_not_asked_after_a_restart(store, tmp_path):
    c, b = _table(store)
    c.on_reading(_doc(b["light"]), DOUBT)
    c.undo()                                                       # dark's throw taken back
    again = Companion(GameStore(tmp_path / "games.sqlite"))
    try:
        assert again.state()["question"] is None and again.state()["phase"] == "throw"
    finally:
        again.store.close()


def test_the_stored_game_replays_with_the_placed_board_and_the_record_agrees(store):
    c, b = _table(store)
    c.submit_board(_doc(b["light"]))
    gid = c.state()["game_id"]
    game = c.game(gid)
    placed = [t for t in game["turns"] if t["verdict"] == "placed"]
    assert len(placed) == 1 and placed[0]["turn"] == 2 and placed[0]["turns"] == 2
    assert game["turns_played"] == 3 == c.games()[0]["turns"] == c.state()["turns_played"]
    assert Game.from_record(store.record(gid)).position == Game.from_record(game["record"]).position


def test_undo_takes_back_a_placed_board_and_says_so(store):
    c, b = _table(store)
    c.submit_board(_doc(b["light"]))
    assert c.state()["undo"] == "the board placed by the players"
    c.undo()
    s = c.state()
    assert s["phase"] == "move" and s["board"]["turn"] == "dark" and s["dice"] == [6, 4]
    assert Position.from_board(s["board"]).physical_key() == b["held"].physical_key()
    assert s["turn_number"] == 2


def test_a_board_of_both_sides_that_ends_the_game_is_refused_and_nothing_is_written(store):
    c, b = _table(store)
    over = Position((0,) * 23 + (2,), (0,) * 24, off=(13, 15), turn="light")
    c.on_reading(_doc(over), DOUBT)
    q = c.state()["question"]
    entries = len(_log(c))
    with pytest.raises(ValueError, match="borne off every man"):
        c.answer(q["id"], next(ch for ch in q["choices"] if ch["play"] == "the board as read")["index"])
    assert len(_log(c)) == entries and c.state()["question"] == q     # still asked, here and after a restart
