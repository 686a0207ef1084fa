"""The match's clock at the table (companion/clock_play.py): it follows the referee, is held by questions and
by a player, logs every step, acts on a flag, and survives a restart. A fake monotonic clock moves only
when told (tests/hardware/helpers.py)."""

from __future__ import annotations

import pytest

from willughby.companion.errors import CompanionError, NotNowError
from willughby.companion.matfile import match_to_mat
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.engine.match import Match
from willughby.engine.position import Position
from willughby.engine.sources import source

from ..hardware.helpers import FakeClock

SURE = {str(p): 1.0 for p in range(1, 25)} | {"bar": 1.0}
PLAYERS = {"light": "Ann", "dark": "Bob"}


def _match(tmp_path, t: FakeClock, **terms) -> Companion:
    c = Companion(GameStore(tmp_path / "games.sqlite3"), monotonic=t)
    c.new_match(5, players=PLAYERS, clock={"reserve_s": 60.0, "delay_s": 5.0, **terms}, who="Ann")
    return c


def _clock_log(c: Companion) -> list[tuple[str, str]]:
    """The game's clock entries: (event, who)."""
    return [(e["data"]["event"], e["who"]) for e in c.store.game(c.game_id)["log"] if e["kind"] == "clock"]


def test_the_clock_starts_at_the_opening_roll_and_switches_when_the_referee_ends_a_turn(tmp_path):
    """"The player rolling the lower die pushes (hits) the clock button nearest him, starting his opponent's
    clock. Then the player with the higher die moves." -- Unified Backgammon Tournament Clock Rules, 3.3;
    "Each player signals the end of his turn by hitting the clock" (3.4): here the referee's ruling of the
    turn is the hit, whichever way the turn was ended."""
    t = FakeClock()
    c = _match(tmp_path, t)
    clock = c.state()["clock"]
    assert clock["running"] is None and clock["left"] == {"light": 60.0, "dark": 60.0}   # the roll for start
    t.advance(30.0)
    c.enter_dice([3, 1], who="page")                    # Ann wins the opening roll: her clock starts
    assert c.state()["clock"]["running"] == "light"
    t.advance(8.0)                                       # 5 s free (Bronstein), 3 s from the reserve
    assert c.state()["clock"]["left"]["light"] == pytest.approx(57.0)
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE, who="camera")
    clock = c.state()["clock"]
    assert clock["running"] == "dark" and clock["left"] == {"light": 57.0, "dark": 60.0}
    assert clock["delay_left"] == 5.0
    assert _clock_log(c) == [("set", "Ann"), ("start", "clock"), ("switch", "clock")]
    switch = [e for e in c.store.game(c.game_id)["log"] if e["kind"] == "clock"][-1]["data"]
    assert (switch["colour"], switch["used"], switch["left"]) == ("light", 8.0, {"light": 57.0, "dark": 60.0})
    assert "starting his opponent's clock" in source("clock.opening").quote
    assert "hitting the clock" in source("clock.turn").quote


def test_an_illegal_turn_keeps_the_movers_clock_running(tmp_path):
    t = FakeClock()
    c = _match(tmp_path, t)
    c.enter_dice([3, 1])
    wrong = Position.from_board(c.state()["board"]).to_board()
    wrong["light"][12] -= 2                              # 13/8(2) with 3-1: ten pips for four
    wrong["light"][7] += 2
    assert c.on_reading(wrong, SURE)["verdict"] == "illegal"
    t.advance(20.0)
    assert c.state()["clock"]["running"] == "light" and c.state()["clock"]["left"]["light"] == 45.0


def test_a_double_runs_the_doubled_players_clock_until_he_answers(tmp_path):
    """"After doubling or redoubling, a player hits his clock." -- Unified Backgammon Tournament Clock
    Rules, 3.5."""
    t = FakeClock()
    c = _match(tmp_path, t, delay_s=0.0)
    c.enter_dice([3, 1])
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    t.advance(2.0)
    c.cube("double", who="Bob")                          # Bob doubles: Ann's clock runs while she decides
    assert c.state()["clock"]["running"] == "light"
    t.advance(10.0)
    c.cube("take", who="Ann")                            # she takes: Bob's clock again, to throw
    clock = c.state()["clock"]
    assert clock["running"] == "dark" and clock["left"] == {"light": 50.0, "dark": 58.0}
    assert "hits his clock" in source("clock.cube").quote


def test_a_question_or_a_player_holding_it_stops_the_clock(tmp_path):
    """The referee's question holds the clock: its time is no one's. "A player stops both clocks ... (e) to
    contest an opponent's action, or (f) to summon the Director." -- BIBA Clock Rules: the page's hold."""
    t = FakeClock()
    c = _match(tmp_path, t)
    c.enter_dice([3, 1])
    t.advance(6.0)
    assert c.on_reading(c.legal_boards()["8/5 6/5"], dict(SURE, **{"5": 0.55})) is None   # a question
    clock = c.state()["clock"]
    assert clock["paused"] and clock["question"] and clock["running"] == "light"
    t.advance(100.0)                                     # the players look at the question a while
    c.answer(c.state()["question"]["id"], 0, who="Ann")  # answered: the turn ends, Ann charged 1 s
    clock = c.state()["clock"]
    assert clock["running"] == "dark" and clock["left"]["light"] == 59.0 and not clock["paused"]
    t.advance(3.0)
    c.hold_clock(True, who="Bob")                        # Bob contests something: the clock stands
    t.advance(300.0)
    assert c.state()["clock"]["paused"] and c.state()["clock"]["held"]
    c.hold_clock(False, who="Bob")
    t.advance(4.0)
    assert c.state()["clock"]["left"]["dark"] == 58.0   # 7 s of his move, 5 of them free
    events = [e for e, _who in _clock_log(c)]
    assert events == ["set", "start", "pause", "switch", "held", "pause", "released", "resume"]
    assert "to contest an opponent's action" in source("clock.stop").quote


def test_a_flag_loses_the_match_said_logged_stored_and_not_taken_back(tmp_path):
    """"When a player's time reserve is exhausted they have lost the match" -- BIBA Clock Rules, Time
    Expiration: the flag is said when it falls (the ticker), the game ends with the points Ann needed, the
    match is over in the store, the record replays and the flag cannot be undone."""
    t = FakeClock()
    c = _match(tmp_path, t)
    c.enter_dice([3, 1])
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    t.advance(64.9)
    assert c.tick() is False                             # 59.9 s of Bob's reserve used: not yet
    t.advance(0.2)
    assert c.tick() is True
    s = c.state()
    assert s["announcements"][0]["text"] == ("Bob (dark)'s flag has fallen: his reserve of time ran out: Ann "
                                             "(light) wins the match on time (match.flag)")
    assert s["clock"]["flagged"] == "dark" and s["clock"]["running"] is None
    assert s["match"]["winner"] == "light" and s["match"]["status"] == "over"
    assert s["match"]["text"] == "Ann wins the match 5-0 (to 5) on time (Bob's flag fell)"
    record = c.store.match_record(s["match"]["id"])
    assert Match.from_record(record).winner == "light"
    assert "Bob's flag fell" not in match_to_mat(record) and "dark's flag fell" in match_to_mat(record)
    assert ("flag", "clock") in _clock_log(c)
    with pytest.raises(NotNowError, match="a fallen flag is not taken back"):
        c.undo(who="Bob")
    assert c.state()["undo"] is None
    with pytest.raises(NotNowError, match="the match is over"):
        c.next_game()


def test_a_flag_only_announced_stops_the_clocks_and_the_game_goes_on(tmp_path):
    t = FakeClock()
    c = _match(tmp_path, t, on_flag="announce")
    c.enter_dice([3, 1])
    t.advance(70.0)
    assert c.tick() is True
    s = c.state()
    assert "the clocks stop and the game goes on" in s["announcements"][0]["text"]
    assert s["clock"]["flagged"] == "light" and s["clock"]["running"] is None and s["phase"] == "move"
    assert c.on_reading(c.legal_boards()["8/5 6/5"], SURE)["verdict"] == "legal"
    assert c.state()["clock"]["running"] is None and c.tick() is False


def test_the_clock_survives_a_restart_and_goes_on_into_the_next_game(tmp_path):
    """Each reserve as the log left it after a restart (the move in progress starts afresh); the next game
    of the match carries the clock on, stopped until its opening roll."""
    t = FakeClock()
    c = _match(tmp_path, t, delay_s=0.0)
    c.enter_dice([3, 1])
    t.advance(4.0)
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    t.advance(6.0)
    c.store.close()
    again = Companion(GameStore(tmp_path / "games.sqlite3"), monotonic=t)
    clock = again.state()["clock"]
    assert clock["left"] == {"light": 56.0, "dark": 60.0} and clock["running"] == "dark"
    t.advance(2.0)
    again.cube("double", who="Bob")
    again.cube("drop", who="Ann")                        # Bob wins a point; the clock stops with the game
    assert again.state()["clock"]["running"] is None
    t.advance(50.0)
    again.next_game(who="Ann")
    clock = again.state()["clock"]
    assert clock["running"] is None and clock["left"] == {"light": 56.0, "dark": 58.0}
    assert _clock_log(again) == [("carried", "Ann")]
    again.enter_dice([1, 4])                             # Bob opens: his clock starts
    assert again.state()["clock"]["running"] == "dark"


def test_done_presses_are_logged_with_the_game_where_a_clock_is_kept(tmp_path):
    t = FakeClock()
    c = _match(tmp_path, t)
    c.press("done", who="box")
    c.press("done", who="page")
    presses = [(e["who"], e["data"]["button"]) for e in c.store.game(c.game_id)["log"]
               if e["kind"] == "clock" and e["data"]["event"] == "press"]
    assert presses == [("box", "done"), ("page", "done")]
    plain = Companion(GameStore(":memory:"))
    plain.new_game("backgammon", {}, PLAYERS)
    plain.press("done", who="box")
    assert plain.state()["clock"] is None
    assert not [e for e in plain.store.game(plain.game_id)["log"] if e["kind"] == "clock"]
    with pytest.raises(NotNowError, match="no clock"):
        plain.hold_clock(True)


@pytest.mark.parametrize("terms, words", [({"reserve_s": 0}, "a reserve is 1 s to 24 hours"),
                                          ({"reserve_s": 60, "mode": "hourglass"}, "a clock's mode is"),
                                          ({"reserve_s": 60, "on_flag": "shrug"}, "a flag means"),
                                          ({"delay_s": 12}, "need reserve_s"),
                                          ({"reserve_s": 60, "tick": 1}, "have no 'tick'")])
def test_a_clock_that_cannot_be_is_refused_in_one_line_and_no_match_begins(terms, words):
    c = Companion(GameStore(":memory:"))
    with pytest.raises(CompanionError, match=words):
        c.new_match(5, players=PLAYERS, clock=terms)
    assert c.state()["match"] is None and c.game_id is None
