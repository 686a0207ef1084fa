"""The companion's turn logic with fake devices: a legal turn, an illegal
turn, an unreadable board, a correction, undo, the end of a game, and
recovery after the process is killed mid-game."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap

import pytest

from willughby.companion.service import Companion, CompanionError, NotNowError, UnknownError
from willughby.companion.store import GameStore
from willughby.engine.position import Position

SURE = {str(p): 1.0 for p in range(1, 25)} | {"bar": 1.0}


@pytest.fixture
def c(tmp_path):
    store = GameStore(tmp_path / "games.sqlite")
    comp = Companion(store)
    comp.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    comp.enter_dice([3, 1], who="test")            # roll for start: Ann 3, Bob 1: Ann plays 3-1
    yield comp
    store.close()


def _kinds(comp):
    return [e["kind"] for e in comp.store.game(comp.state()["game_id"])["log"]]


def test_the_roll_for_start_gives_the_higher_die_the_first_play(c):
    s = c.state()
    assert s["phase"] == "move" and s["board"]["turn"] == "light" and s["dice"] == [3, 1]
    said = [a["text"] for a in s["announcements"]]
    # each die named with its thrower: "3 against 1" did not say whose 3 it was
    assert "Ann (light) goes first (Ann (light) threw 3, Bob (dark) 1)" in said
    assert "throw one die each for the start: Ann (light)'s die first, then Bob (dark)'s" in said


def test_the_roll_for_start_awaited_says_whose_die_is_entered_first(tmp_path):
    with GameStore(tmp_path / "games.sqlite") as store:
        comp = Companion(store)
        comp.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
        assert comp.state()["awaiting"] == ("the players are to throw one die each for the start "
                                            "(Ann (light)'s die first, then Bob (dark)'s)")
        comp.enter_dice([1, 4], who="test")
        said = [a["text"] for a in comp.state()["announcements"]]
        assert "Bob (dark) goes first (Ann (light) threw 1, Bob (dark) 4)" in said


def test_a_legal_turn_read_by_the_camera_is_ruled_announced_and_recorded(c):
    after = c.legal_boards()["8/5 6/5"]
    ruling = c.on_reading(after, SURE)
    assert ruling["verdict"] == "legal" and ruling["play"] == "8/5 6/5"
    s = c.state()
    assert s["phase"] == "throw" and s["board"]["turn"] == "dark"
    assert (s["turns_played"], s["turn_number"]) == (1, 2)       # Ann's turn 1 played, Bob's turn 2 to come
    assert s["announcements"][0]["text"] == "Ann (light) plays 3-1: 8/5 6/5"
    assert s["last_play"]["play"] == "8/5 6/5" and s["last_play"]["after"]["light"][4] == 2
    log = c.store.game(s["game_id"])["log"]
    moves = [e["data"] for e in log if e["kind"] == "action" and e["data"]["type"] == "move"]
    assert moves == [{"type": "move", "player": "light", "after": moves[0]["after"], "verdict": "legal",
                      "play": "8/5 6/5"}]


def test_the_board_as_it_was_asks_nothing(c):
    assert c.on_reading(c.state()["board"], SURE) is None
    assert c.state()["phase"] == "move" and c.state()["rulings"] == []


def test_an_illegal_turn_is_ruled_with_its_reason_and_source_and_waits_for_the_board(c):
    # 13/8(2) with 3-1: ten pips for four, two men off any legal play (a camera
    # sure of every point, and no single misread man explains it)
    board = _two_men_13_to_8(c)
    ruling = c.on_reading(board, SURE)
    assert ruling["verdict"] == "illegal"
    assert ruling["reason"] and ruling["citation"]
    s = c.state()
    assert s["phase"] == "move" and s["board"]["turn"] == "light"     # waits for the board put right
    assert s["announcements"][0]["kind"] == "illegal"
    # it says whose play was illegal, not only that one was
    assert s["announcements"][0]["text"].startswith("illegal play by Ann (light): ")
    assert ruling["source"] is not None and ruling["source"]["quote"]
    # put right and played properly
    assert c.on_reading(c.legal_boards()["8/5 6/5"], SURE)["verdict"] == "legal"


def _two_men_13_to_8(c):
    board = Position.from_board(c.state()["board"]).to_board()
    board["light"][12] -= 2
    board["light"][7] += 2
    return board


def test_a_doubtful_reading_becomes_a_question_never_a_silent_guess(c):
    after = c.legal_boards()["8/5 6/5"]
    doubt = dict(SURE, **{"5": 0.55})
    assert c.on_reading(after, doubt) is None
    q = c.state()["question"]
    assert q is not None and q["text"] == "Which play was made? The camera is unsure of light's point 5."
    # issue 15: a question says whose turn and which throw it is about
    assert q["about"] == "Turn 1: Ann (light) threw 3-1"
    assert (q["turn"], q["player"], q["dice"]) == (1, "light", [3, 1])
    assert q["choices"][0]["play"] == "8/5 6/5"                 # the nearest legal play first
    assert q["choices"][-1]["play"] == "the board as read"
    assert c.state()["phase"] == "move" and c.state()["rulings"] == []
    c.answer(q["id"], 0, who="Ann")
    s = c.state()
    assert s["question"] is None and s["rulings"][-1]["play"] == "8/5 6/5" and s["phase"] == "throw"
    answer = [e for e in c.store.game(s["game_id"])["log"] if e["kind"] == "answer"]
    assert answer[0]["who"] == "Ann" and answer[0]["data"]["play"] == "8/5 6/5"


def test_a_confident_reading_one_man_from_a_legal_play_is_asked_about(c):
    after = c.legal_boards()["8/5 6/5"]
    after["light"][4] -= 1                # one man of the 5 point not seen
    after["off"] = {"light": 1, "dark": 0}
    assert c.on_reading(after, SURE) is None
    # the board as read and the nearest play differ at one point alone: the question names it (issue 45, item 5)
    assert c.state()["question"]["text"] == (
        "How many men stand on light's point 5? The camera reads every other point as 8/5 6/5 leaves it, and "
        "there 1 light man where that play leaves 2 light men.")


def test_a_wrong_question_or_choice_is_refused(c):
    after = c.legal_boards()["8/5 6/5"]
    c.on_reading(after, dict(SURE, **{"8": 0.2}))
    q = c.state()["question"]
    with pytest.raises(UnknownError):
        c.answer("q-999", 0)
    with pytest.raises(CompanionError):
        c.answer(q["id"], 99)


def test_a_board_set_by_hand_is_judged_and_the_correction_recorded(c):
    c.submit_board(c.legal_boards()["24/21 6/5"], who="Bob")
    s = c.state()
    assert s["rulings"][-1]["play"] == "24/21 6/5" and s["phase"] == "throw"
    log = c.store.game(s["game_id"])["log"]
    assert [e["who"] for e in log if e["kind"] == "correction"] == ["Bob"]
    with pytest.raises(NotNowError):
        c.submit_board(s["board"])                     # no move is awaited now


def test_a_refused_board_is_not_kept(c, tmp_path):
    """A board the referee refuses (an unknown field, 250 KB of padding) used to be stored as a correction
    before it was checked: 20 of them grew the store by 4 MB, for ever (issue 46)."""
    game_id = c.state()["game_id"]
    log_before = c.store.game(game_id)["log"]
    played = c.legal_boards()["24/21 6/5"]
    padded = [{**played, "padding": "x" * 250_000},                      # an unknown field
              {**played, "light": played["light"][:23]},                   # a board no position can be
              {**c.state()["board"], "confidence": {"1": "x" * 250_000}}]  # the board before the move, padded
    for _ in range(7):
        for board in padded:
            with pytest.raises(CompanionError):
                c.submit_board(board, who="Eve")
    c.store.close()
    size = (tmp_path / "games.sqlite").stat().st_size
    assert size < 1_000_000, f"the store holds {size} bytes after 21 refused boards"
    c.store = GameStore(tmp_path / "games.sqlite")
    assert c.store.game(game_id)["log"] == log_before


def test_a_board_taken_is_kept_as_read(c):
    played = c.legal_boards()["24/21 6/5"]
    c.submit_board({**played, "confidence": {"1": 0.5}}, who="Bob")
    log = c.store.game(c.state()["game_id"])["log"]
    kept = [e["data"]["board"] for e in log if e["kind"] == "correction"]
    assert len(kept) == 1 and "confidence" not in kept[0] and kept[0]["light"] == played["light"]


def test_malformed_input_is_a_clear_error_and_changes_nothing(c):
    before = c.state()["version"]
    with pytest.raises(CompanionError, match="board"):
        c.on_reading({"format": "board/1", "light": [1] * 23, "dark": [0] * 24})
    with pytest.raises(CompanionError, match="1 to 6"):
        c.enter_dice([0, 7])
    with pytest.raises(CompanionError):
        c.new_game("no-such-game")
    assert c.state()["version"] == before
    with pytest.raises(NotNowError):
        c.cube("take")                                 # no double was offered


def test_a_throw_delivered_twice_counts_once(c):
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    c.enter_dice([6, 5], who="box", ident="box-0000abcd-3")
    c.enter_dice([6, 5], who="box", ident="box-0000abcd-3")
    s = c.state()
    assert s["dice"] == [6, 5] and s["phase"] == "move"
    assert _kinds(c).count("dice") == 2                # the start roll and this throw, once


def test_undo_takes_back_the_last_move_and_is_recorded_not_erased(c):
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    c.undo(who="Bob")
    s = c.state()
    assert s["phase"] == "move" and s["dice"] == [3, 1] and s["board"]["turn"] == "light"
    assert s["board"]["light"][4] == 0                 # the men are back
    log = c.store.game(s["game_id"])["log"]
    undo = [e for e in log if e["kind"] == "undo"]
    assert len(undo) == 1 and undo[0]["who"] == "Bob"
    assert any(e["kind"] == "action" and e["data"].get("play") == "8/5 6/5" for e in log)   # still there
    assert "Bob takes back the move of Ann (light): 8/5 6/5" in [a["text"] for a in s["announcements"]]
    # and a companion started afresh on the store sees the same game
    again = Companion(c.store)
    assert again.state()["board"] == s["board"] and again.state()["dice"] == [3, 1]


def test_the_end_of_a_game_names_the_winner_kind_and_stake(tmp_path):
    store = GameStore(tmp_path / "g.sqlite")
    comp = Companion(store)
    light = [0] * 24
    light[0] = 1                                      # light's last man on his ace point
    dark = [0] * 24
    dark[23] = 15                                     # dark has borne off none: a gammon
    comp.new_game("backgammon", {"cube": "false"}, {"light": "Ann", "dark": "Bob"},
                  start={"format": "board/1", "light": light, "dark": dark, "off": {"light": 14, "dark": 0},
                         "turn": "light"})
    comp.enter_dice([2, 1])
    after = comp.legal_boards()
    assert list(after) == ["1/off"]
    ruling = comp.on_reading(after["1/off"], SURE)
    assert ruling["game_over"] == {"winner": "light", "kind": "gammon", "stake": 2}
    s = comp.state()
    assert s["phase"] == "over" and s["game_over"]["kind"] == "gammon"
    assert s["announcements"][0]["text"] == "Ann (light) wins: gammon, stake 2"
    assert store.games()[0]["status"] == "over" and store.games()[0]["result"]["stake"] == 2
    with pytest.raises(NotNowError):
        comp.enter_dice([3, 3])
    store.close()


def test_a_subscription_gets_the_state_then_each_change(c):
    sub = c.subscribe()
    first = sub.get(timeout=1)
    assert first == c.state()
    assert sub.get(timeout=0.05) is None                # nothing changed
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    nxt = sub.get(timeout=1)
    assert nxt["version"] > first["version"] and nxt["phase"] == "throw"
    sub.close()
    assert sub.get(timeout=0.05) is None


def test_the_dispute_view_shows_before_after_ruling_and_every_legal_play(c):
    board = c.state()["board"]
    c.on_reading(_two_men_13_to_8(c), SURE)
    d = c.dispute(1)
    assert d["ruling"]["verdict"] == "illegal" and d["dice"] == [3, 1]
    assert d["before"]["light"] == board["light"] and d["after"]["light"][7] == 5
    assert len(d["legal_plays"]) == 16 and "8/5 6/5" in {p["play"] for p in d["legal_plays"]}
    assert d["source"]["quote"]
    with pytest.raises(UnknownError):
        c.dispute(5)


def test_a_stored_game_replays_turn_by_turn(c):
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    c.enter_dice([6, 4])
    c.on_reading(c.legal_boards()["24/18 13/9"], SURE)
    g = c.game(c.state()["game_id"])
    assert [t["play"] for t in g["turns"]] == ["8/5 6/5", "24/18 13/9"]
    assert g["turns"][1]["before"] == g["turns"][0]["after"]
    assert g["turns"][1]["after"] == c.state()["board"] | {"turn": "light"} or \
        g["turns"][1]["after"]["dark"] == c.state()["board"]["dark"]
    assert c.games()[0]["game_id"] == g["game_id"]
    with pytest.raises(UnknownError):
        c.game("g-nothere")


CHILD = textwrap.dedent("""
    import json, os, signal, sys
    from willughby.companion.service import Companion
    from willughby.companion.store import GameStore
    SURE = {str(p): 1.0 for p in range(1, 25)}
    c = Companion(GameStore(sys.argv[1]))
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"})
    c.enter_dice([3, 1])
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    c.enter_dice([6, 4])
    c.on_reading(c.legal_boards()["24/18 13/9"], SURE)
    c.enter_dice([5, 5])
    s = c.state()
    print(json.dumps({"board": s["board"], "dice": s["dice"], "phase": s["phase"]}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_a_game_killed_mid_turn_resumes_where_it_was(tmp_path):
    path = tmp_path / "games.sqlite"
    run = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == -signal.SIGKILL
    before = json.loads(run.stdout)
    store = GameStore(path)
    again = Companion(store)
    s = again.state()
    assert s["board"] == before["board"] and s["dice"] == before["dice"] == [5, 5]
    assert s["phase"] == "move" and (s["turns_played"], s["turn_number"]) == (2, 3)
    assert s["announcements"][0]["kind"] == "resume"
    assert again.legal_boards()                        # and play goes on
    store.close()


def test_announcements_name_the_point_in_both_numberings_each_with_its_owner(c):
    # an earlier issue's example: the blot on dark's 5 point (light's 20); the Pi owner's journey: "22/16*" beside
    # "hits the blot on light's 9 point" was two numberings in one line. The play's number comes first, and each
    # number says whose it is.
    from willughby.engine.referee import Event, GameOver, Ruling
    r = Ruling("legal", "light", (6, 5), play="24/20* 13/7", events=(Event("hit", "light", 20),))
    assert c.judging.describe(r) == [("Ann (light) plays 6-5: 24/20* 13/7", "play"),
                              ("Ann (light) hits dark's blot on light's 20 point (dark's 5)", "hit")]
    r = Ruling("legal", "dark", (6, 1), play="22/16* 8/7", events=(Event("hit", "dark", 16),))
    assert c.judging.describe(r)[1] == ("Bob (dark) hits light's blot on dark's 16 point (light's 9)", "hit")
    r = Ruling("legal", "dark", (6, 2), play="bar/23 6/off",
               events=(Event("enter", "dark", 23), Event("bear_off", "dark", 6), Event("lost_die", "dark", die=2)),
               game_over=GameOver("dark", "single", 1))
    assert [t for t, _ in c.judging.describe(r)] == ["Bob (dark) plays 6-2: bar/23 6/off",
                                              "Bob (dark) enters a man from the bar",
                                              "Bob (dark) bears a man off", "Bob (dark) cannot use the 2: it is lost",
                                              "Bob (dark) wins: single, stake 1"]


def test_dice_lost_alike_are_said_once_with_their_number(c):
    # issue 15: "dark cannot use the 1: it is lost" was said four times for a 1-1 that could not be played
    from willughby.engine.referee import Event, Ruling
    r = Ruling("legal", "dark", (1, 1), play="(no play)",
               events=tuple(Event("lost_die", "dark", die=1) for _ in range(4)))
    assert [t for t, _ in c.judging.describe(r)] == ["Bob (dark) cannot use four of the 1s: they are lost"]
    r = Ruling("legal", "dark", (6, 2), play="6/off",
               events=(Event("bear_off", "dark", 6), Event("lost_die", "dark", die=2)))
    assert [t for t, _ in c.judging.describe(r)][-1] == "Bob (dark) cannot use the 2: it is lost"


def test_a_camera_reading_no_board_can_be_becomes_a_question_not_a_stall(c):
    after = c.legal_boards()["8/5 6/5"]
    after["light"][4] += 1                             # a sixteenth light man seen on the 5 point
    assert c.on_reading(after, SURE) is None
    q = c.state()["question"]
    assert q["text"].startswith("Which play was made? The camera's reading is not a possible board")
    assert q["choices"][0]["play"] == "8/5 6/5"         # nearest to what was seen
    assert all(ch["play"] != "the board as read" for ch in q["choices"])
    c.answer(q["id"], 0, who="Ann")
    assert c.state()["rulings"][-1]["play"] == "8/5 6/5"
    # the same board entered by a person is refused with the reason
    c.enter_dice([2, 2])
    bad = c.legal_boards()[sorted(c.legal_boards())[0]]
    bad["dark"][0] += 1
    with pytest.raises(CompanionError, match="board"):
        c.submit_board(bad)


def test_undo_takes_back_one_thing_at_a_time_newest_first(c):
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    c.enter_dice([6, 4], who="box")
    c.undo(who="Bob")                                  # Bob's throw, first
    s = c.state()
    assert s["phase"] == "throw" and s["board"]["turn"] == "dark" and s["dice"] is None
    c.undo(who="Ann")                                  # then Ann's move
    s = c.state()
    assert s["phase"] == "move" and s["board"]["turn"] == "light" and s["dice"] == [3, 1]
    texts = [a["text"] for a in s["announcements"]]
    assert texts[:2] == ["Ann takes back the move of Ann (light): 8/5 6/5", "Bob takes back the throw of Bob (dark): 6-4"]


def test_a_throw_with_no_play_is_announced_once(tmp_path):
    # light on the bar against dark's closed home table dances: one line says it, not three
    # ("throws 6-6", "cannot play 6-6", "loses four 6s" all said the same)
    store = GameStore(tmp_path / "g.sqlite")
    comp = Companion(store)
    light = [0] * 24
    light[5] = 14                                      # light's 6 point
    dark = [0] * 24
    for p in range(18, 24):                            # dark's home table, physical 19-24, closed
        dark[p] = 2
    dark[0] = 3
    comp.new_game("backgammon", {"cube": "false"}, {"light": "Ann", "dark": "Bob"},
                  start={"format": "board/1", "light": light, "dark": dark, "bar": {"light": 1, "dark": 0},
                         "off": {"light": 0, "dark": 0}, "turn": "light"})
    before = len(comp.state()["announcements"])
    comp.enter_dice([6, 6])
    s = comp.state()
    said = [a["text"] for a in s["announcements"]][: len(s["announcements"]) - before]
    assert said == ["Ann (light) throws 6-6 and cannot play"], said
    assert s["board"]["turn"] == "dark" and s["phase"] == "throw"
    store.close()


def test_the_stake_and_the_score_are_shown_while_the_game_is_played(c):
    """The Pi owner's journey, item 8: "no score or stake until the game
    ends". The stake is the preset's terms times the cube; the score is
    what the same two players have won of each other, either colour."""
    assert c.state()["stakes"] == [{"kind": "single", "stake": 1}, {"kind": "gammon", "stake": 2},
                                   {"kind": "backgammon", "stake": 3}]
    assert c.state()["score"] == {"games": 0, "light": 0, "dark": 0}
    c.on_reading(c.legal_boards()["8/5 6/5"], confidence=None, who="test")
    c.cube("double", who="test")                       # Bob doubles before his throw
    c.cube("take", who="test")
    assert [t["stake"] for t in c.state()["stakes"]] == [2, 4, 6]
    c.enter_dice([6, 5], who="test")
    c.on_reading(c.legal_boards()["24/13"], confidence=None, who="test")
    c.cube("double", who="test")                       # Ann redoubles to 4; Bob drops and pays 2
    c.cube("drop", who="test")
    assert c.state()["game_over"]["stake"] == 2
    assert c.state()["score"] == {"games": 1, "light": 2, "dark": 0}
    c.new_game("backgammon", {}, {"light": "Bob", "dark": "Ann"}, who="test")   # they change sides
    assert c.state()["score"] == {"games": 1, "light": 0, "dark": 2}
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Cat"}, who="test")   # another pair: their own score
    assert c.state()["score"] == {"games": 0, "light": 0, "dark": 0}


def test_players_as_a_list_for_a_game_on_the_board_is_a_clear_error_over_the_page(c):
    """``players: ["a", "b"]`` to /api/game used to end in a 500 with a traceback."""
    from willughby.web_ui import WebConfig, create_app

    client = create_app(WebConfig(pin="2468", secret_key=b"a test secret of thirty-two byte"), c).test_client()
    token = client.post("/api/login", json={"pin": "2468"}).json["csrf"]
    response = client.post("/api/game", json={"preset": "backgammon", "players": ["a", "b"]},
                           headers={"X-CSRF-Token": token})
    assert response.status_code == 400
    assert response.json["error"].endswith("players are named by colour ({\"light\": ..., \"dark\": ...}), "
                                           "not given as a list")
