"""A throw made early, and a board two plays on seen by the camera (issue 44, item 2).

House conventions, 18: "a board two plays away, an early throw, an answer the referee cannot reach are
states it knows, not errors". The table: Ann (light) threw 3-1 and played 8/5 6/5; Bob (dark) threw 6-5
before the referee had seen her play (its frame had not settled), and played 24/18 18/13.
"""

from __future__ import annotations

import numpy as np
import pytest

from willughby.companion.errors import NotNowError
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.engine.notation import parse_play
from willughby.engine.position import Position
from willughby.vision.classes import CLASSES, board_classes
from willughby.vision.turns_evidence import TurnEvidence

SURE = {str(p): 1.0 for p in range(1, 25)} | {"bar": 1.0}


@pytest.fixture
def store(store_file):
    return store_file


def _game(store: GameStore) -> Companion:
    c = Companion(store)
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    c.enter_dice([3, 1], who="test")                      # Ann goes first, with 3-1
    return c


def _boards(c: Companion) -> tuple[dict, dict, dict]:
    """The board before Ann's play, after it, and after Bob's 6-5 (24/18 18/13) after it."""
    before = Position.from_board(c.state()["board"]).with_turn("light")
    ann = parse_play(before, "8/5 6/5").with_turn("dark")
    bob = parse_play(ann, "24/18 18/13")
    return before.to_board(), ann.to_board(), bob.to_board()


def _evidence(shown: dict, before: dict) -> TurnEvidence:
    """The camera's evidence of a frame showing *shown*, sure of it, the frame before showing *before*."""
    probs = np.full((24, CLASSES), 0.03 / (CLASSES - 1))
    probs[np.arange(24), board_classes(shown)] = 0.97
    changes = np.where(board_classes(shown) != board_classes(before), 0.6, 0.02)
    evidence = TurnEvidence(probs, dict(shown["bar"]), True, changes, before_read=dict(before))
    evidence.bar_change = 0.5 if shown["bar"] != before["bar"] else 0.01
    return evidence


def test_a_throw_made_while_a_play_is_awaited_is_held_for_the_next_player_and_taken_on_his_turn(store):
    c = _game(store)
    _before, ann, _bob = _boards(c)
    c.enter_dice([6, 5], who="box")                       # Bob throws before Ann's play is ruled
    s = c.state()
    assert (s["phase"], s["dice"]) == ("move", [3, 1])   # still Ann's 3-1 awaited: not refused, not taken
    assert any("held for Bob (dark)'s turn" in a["text"] for a in s["announcements"])
    assert c.on_reading(ann, SURE)["verdict"] == "legal"
    s = c.state()
    assert (s["phase"], s["dice"]) == ("move", [6, 5])   # Bob's throw taken as his, at once
    assert s["awaiting"].startswith("Bob (dark) is to move the 6-5")


def test_a_throw_held_is_kept_across_a_restart(store):
    c = _game(store)
    _before, ann, _bob = _boards(c)
    c.enter_dice([6, 5], who="box")
    again = Companion(store)                              # the power cut: a new referee over the same store
    assert again.on_reading(ann, SURE)["verdict"] == "legal"
    assert again.state()["dice"] == [6, 5]


def test_a_second_early_throw_is_refused_and_the_cameras_own_is_never_held(store):
    c = _game(store)
    c.enter_dice([6, 5], who="box", ident="box-1")
    c.enter_dice([6, 5], who="box", ident="box-1")         # the same throw delivered twice: held once
    with pytest.raises(NotNowError, match="held already for Bob"):
        c.enter_dice([2, 2], who="page")
    with pytest.raises(NotNowError):
        c.enter_dice([4, 4], who="camera")                # dice the camera sees during a play are the throw in play's
    assert [e["kind"] for e in store.game(c.game_id)["log"]].count("held") == 1


def test_a_frame_two_plays_on_with_the_throw_held_rules_both_plays(store):
    c = _game(store)
    before, ann, bob = _boards(c)
    c.enter_dice([6, 5], who="box")                       # held: Ann's frame never settled
    c.on_reading(bob, None, who="camera", evidence=_evidence(bob, before))
    rulings = c.state()["rulings"]
    assert [(r["player"], r["verdict"], r["play"]) for r in rulings[-2:]] == [
        ("light", "legal", "8/5 6/5"), ("dark", "legal", "24/13")]   # (24/18 18/13, as the engine writes it)
    s = c.state()
    assert (s["phase"], s["board"]["turn"]) == ("throw", "light") and s["question"] is None


def test_a_frame_two_plays_on_without_the_throw_is_asked_once_naming_both_never_ruled_illegal(store):
    c = _game(store)
    before, _ann, bob = _boards(c)
    c.on_reading(bob, None, who="camera", evidence=_evidence(bob, before))    # Bob's throw never entered
    s = c.state()
    assert all(r["verdict"] != "illegal" for r in s["rulings"])
    q = s["question"]
    assert q is not None and q["kind"] == "two_plays" and "two plays on" in q["text"]
    pick = next(ch for ch in q["choices"] if ch["play"].startswith("8/5 6/5, then Bob (dark)"))
    c.answer(q["id"], pick["index"], who="test")
    s = c.state()
    assert s["question"] is None and s["phase"] == "throw" and s["board"]["turn"] == "light"
    assert Position.from_board(s["board"]).physical_key() == Position.from_board(bob).physical_key()
    assert any("Board placed by the players" in a["text"] and "8/5 6/5" in a["text"] for a in s["announcements"])


def test_a_two_plays_question_open_across_a_restart_is_asked_again(store):
    c = _game(store)
    before, _ann, bob = _boards(c)
    c.on_reading(bob, None, who="camera", evidence=_evidence(bob, before))
    asked = c.state()["question"]
    again = Companion(store)
    assert again.state()["question"]["id"] == asked["id"] and again.state()["question"]["kind"] == "two_plays"


def _gaps(store: GameStore, c: Companion) -> list[dict]:
    return [e["data"] for e in store.game(c.game_id)["log"] if e["kind"] == "gap"]


def _two_plays_asked(store: GameStore) -> tuple[Companion, dict]:
    """Ann's 3-1 awaited, Bob's throw never entered, and the camera's frame of Bob's play after hers: asked."""
    c = _game(store)
    before, _ann, bob = _boards(c)
    c.on_reading(bob, None, who="camera", evidence=_evidence(bob, before))
    return c, bob


def test_a_two_plays_choice_carries_its_turns_and_the_missed_play_and_keeps_them_across_a_restart(store):
    c, bob = _two_plays_asked(store)
    q = c.state()["question"]
    assert [(ch["play"], ch.get("turns"), ch.get("missed")) for ch in q["choices"]] == [
        ("8/5 6/5, then Bob (dark)'s play", 2, "8/5 6/5"),
        ("8/5 6/5", None, None), ("6/2", None, None)]          # the throw's own plays, should the picture be misread
    again = Companion(store)                                  # the power cut: asked again, the choices whole
    assert again.state()["question"]["choices"] == q["choices"]
    again.answer(q["id"], 0, who="test")
    assert [(g["turns"], g["missed"]) for g in _gaps(store, again)] == [(2, "8/5 6/5")]
    s = again.state()
    assert (s["phase"], s["board"]["turn"]) == ("throw", "light")
    assert Position.from_board(s["board"]).physical_key() == Position.from_board(bob).physical_key()


def test_a_gap_choice_is_placed_by_its_data_whatever_its_words(store):
    c, _bob = _two_plays_asked(store)
    q = c.judging.question
    assert q is not None
    q["choices"][0]["play"] = "Bob (dark)'s play, then Ann (light)'s before it"    # the words changed
    c.answer(q["id"], 0, who="test")
    assert [(g["turns"], g["missed"]) for g in _gaps(store, c)] == [(2, "8/5 6/5")]
    assert any("Ann (light)'s 3-1 (8/5 6/5, or a play like it)" in a["text"] for a in c.state()["announcements"])


def test_a_legal_plays_choice_is_ruled_as_the_play_even_worded_like_a_gap(store):
    c, _bob = _two_plays_asked(store)
    q = c.judging.question
    assert q is not None
    q["choices"][1]["play"] = "8/5 6/5, then nothing"           # no turns: the throw's own play, one turn
    c.answer(q["id"], 1, who="test")
    assert _gaps(store, c) == []
    assert [(r["player"], r["verdict"], r["play"]) for r in c.state()["rulings"][-1:]] == [
        ("light", "legal", "8/5 6/5")]


def test_a_gap_question_stored_before_choices_carried_their_turns_is_still_answered(store):
    c, bob = _two_plays_asked(store)
    asked = next(e for e in reversed(store.game(c.game_id)["log"]) if e["kind"] == "question")
    old = dict(asked["data"])
    old["asked"] = dict(old["asked"], choices=[{k: v for k, v in ch.items() if k not in ("turns", "missed")}
                                               for ch in old["asked"]["choices"]])
    store.append(c.game_id, "question", old, "test")          # as the referee before asked it
    again = Companion(store)
    q = again.state()["question"]
    assert q["kind"] == "two_plays" and all("turns" not in ch for ch in q["choices"])
    again.answer(q["id"], 0, who="test")        # taken as a board the players give: two plays lead to it
    assert [(g["turns"], g["missed"]) for g in _gaps(store, again)] == [(2, "8/5 6/5")]
    assert Position.from_board(again.state()["board"]).physical_key() == Position.from_board(bob).physical_key()


def test_a_board_three_turns_on_is_asked_with_each_choice_placing_it_three_turns_on(store):
    """Dark's man on the bar before light's closed board: light's 1-1, dark's 6-5 held (it cannot enter), and
    light's next play, none of it seen; the frame after them asks which play of light's 1-1 came first."""
    closed = Position.from_board({"format": "board/1", "light": [2, 2, 2, 2, 2, 2, 3] + [0] * 17,
                                  "dark": [0] * 23 + [14], "bar": {"light": 0, "dark": 1}, "turn": "light"})
    c = Companion(store)
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test", start=closed.to_board())
    c.enter_dice([1, 1], who="test")
    c.enter_dice([6, 5], who="box")                        # held for Bob, whose 6-5 cannot enter
    first = parse_play(closed, "3/1 2/1(2)").with_turn("light")
    shown = parse_play(first, "7/5 3/2").to_board()       # Ann's 2-1 after it
    c.on_reading(shown, None, who="camera", evidence=_evidence(shown, closed.to_board()))
    q = c.state()["question"]
    assert q["kind"] == "pass_between"
    gaps = [ch for ch in q["choices"] if "turns" in ch]
    assert {ch["turns"] for ch in gaps} == {3} and "3/1 2/1(2)" in [ch["missed"] for ch in gaps]
    assert all("turns" not in ch and "missed" not in ch for ch in q["choices"] if ch not in gaps)
    again = Companion(store)
    assert again.state()["question"]["choices"] == q["choices"]
    again.answer(q["id"], next(ch["index"] for ch in gaps if ch["missed"] == "3/1 2/1(2)"), who="test")
    assert [(g["turns"], g["missed"]) for g in _gaps(store, again)] == [(3, "3/1 2/1(2)")]
    s = again.state()
    assert (s["phase"], s["board"]["turn"]) == ("throw", "dark")     # Bob's throw held passed in the gap


def _throw(c: Companion, dice: list[int], who: str) -> str:
    """Dice handed to the part that plays the game, as the controls hand them: what became of them."""
    assert c.current.part is not None
    return c.current.part.take_dice(dice, who, ("dice", {"dice": dice, "ident": None}), None)


def test_the_part_says_whether_a_throw_was_taken_in_play_or_held(store):
    c = Companion(store)
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    assert _throw(c, [3, 1], "test") == "in_play"             # the roll for the start: Ann's 3-1 in play
    assert _throw(c, [6, 5], "box") == "held"                 # Bob's, while her play is awaited
    assert (c.match.phase, list(c.match.dice)) == ("move", [3, 1])     # still her 3-1 awaited
    c.new_game("sice-ace", {}, {}, who="test")
    assert _throw(c, [6, 1], "test") == "in_play"             # a counting game holds no throw


def test_a_held_throw_delivered_again_does_not_become_the_throw_in_play(store):
    c = _game(store)                                          # Ann's 3-1, entered by "test"
    c.enter_dice([6, 5], who="box", ident="box-1")            # held for Bob
    c.enter_dice([6, 5], who="box", ident="box-1")            # the same throw again: still only held
    assert c.current.throw_by == "test"                       # the throw in play is still Ann's


def _coincidence(store: GameStore) -> tuple[Companion, dict, dict]:
    """Bob (dark) to play 4-1 with one of Ann's men on the bar and her blot on his 2 point; Ann throws 2-6
    before his play is seen. Bob's 6/1, and Bob's 6/2*/1 then Ann's bar/23 (her hit man entered where it
    stood), leave the same board: the frame of it is asked about, not ruled Bob's 6/1."""
    start = Position.from_board({
        "format": "board/1", "light": [1, 0, 0, 0, 0, 4, 0, 2, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0],
        "dark": [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 3, 0, 4, 0, 1, 0, 0, 2],
        "bar": {"light": 1, "dark": 0}, "off": {"light": 0, "dark": 0}, "turn": "dark"})
    c = Companion(store)
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test", start=start.to_board())
    c.enter_dice([4, 1], who="test")
    c.enter_dice([2, 6], who="box")                       # held for Ann
    single = parse_play(start, "6/1").to_board()
    assert Position.from_board(single).physical_key() == \
        parse_play(parse_play(start, "6/2*/1").with_turn("light"), "bar/23").physical_key()
    c.on_reading(single, None, who="camera", evidence=_evidence(single, start.to_board()))
    return c, start.to_board(), single


def test_a_board_one_play_or_two_leave_alike_with_a_throw_held_is_asked_never_ruled_one_play(store):
    c, _start, single = _coincidence(store)
    s = c.state()
    assert not s["rulings"] or s["rulings"][-1]["player"] != "dark"          # Bob's 6/1 not ruled
    q = s["question"]
    assert q is not None and q["kind"] == "two_plays"
    assert q["choices"][0]["play"] == "6/1" and "turns" not in q["choices"][0]
    two = [ch for ch in q["choices"] if ch.get("turns") == 2]
    assert [ch["missed"] for ch in two] == ["6/2*/1"] and "then Ann (light)'s 2-6" in two[0]["play"]
    c.answer(q["id"], two[0]["index"], who="test")              # the players: Bob hit, and Ann entered
    s = c.state()
    assert (s["phase"], s["board"]["turn"], s["question"]) == ("throw", "dark", None)
    assert [(g["turns"], g["missed"]) for g in _gaps(store, c)] == [(2, "6/2*/1")]


def test_the_one_play_answered_is_ruled_and_the_throw_held_taken_as_the_next_players(store):
    c, _start, _single = _coincidence(store)
    q = c.state()["question"]
    c.answer(q["id"], 0, who="test")                            # the players: Bob played 6/1, Ann not yet
    s = c.state()
    assert (s["rulings"][-1]["player"], s["rulings"][-1]["verdict"], s["rulings"][-1]["play"]) == \
        ("dark", "legal", "6/1")
    assert (s["phase"], s["dice"], s["board"]["turn"]) == ("move", [2, 6], "light")
