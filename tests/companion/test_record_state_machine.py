"""A stored game, its replay and its exports always agree, whatever is done when.

A state machine over the page's control API (hypothesis's stateful
testing): random sequences of every control -- login and logout, a new game
of each family (race, unstacking, counting; from the start or near the
end), dice, a board entered by hand (or one two or three plays on, as after a
missed play: a board the players place), an answer, undo, the cube, calibrate --
with the camera reading the table and the demo's automatic players acting in
between, as they do at a running table. After every step the list of games,
each game's record replayed by the engine, the page's JSON export and the
``.mat`` agree (``record_driver.check_agreement``), and a companion started
afresh on the same file (as after a ``kill -9``) shows what the running one
showed. A real ``kill -9`` of a child process at random steps loses nothing
it had answered.

Bounded and seeded for CI (``WILLUGHBY_STATE_STEPS`` and
``WILLUGHBY_STATE_EXAMPLES`` run it longer by hand).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.engine.match import Match

from .record_driver import PRESETS, Driver, check_agreement, log_hash, random_step, resumed_state, summary

STEPS = int(os.environ.get("WILLUGHBY_STATE_STEPS", "40"))
EXAMPLES = int(os.environ.get("WILLUGHBY_STATE_EXAMPLES", "20"))
ROOT = Path(__file__).resolve().parents[2]


class RecordMachine(RuleBasedStateMachine):
    """Every control at every stage; the record checked after each step."""

    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.TemporaryDirectory()
        self.d = Driver(Path(self.dir.name) / "games.sqlite", seed=0)

    def teardown(self) -> None:
        self.d.close()
        self.dir.cleanup()

    @rule(right=st.booleans())
    def login(self, right: bool) -> None:
        self.d.login(right)

    @rule()
    def logout(self) -> None:
        self.d.logout()

    @rule(preset=st.sampled_from(PRESETS), near_end=st.booleans())
    def new_game(self, preset: str, near_end: bool) -> None:
        self.d.new_game(preset, near_end)

    @rule(sensible=st.booleans())
    def dice(self, sensible: bool) -> None:
        self.d.dice(sensible)

    @rule(legal=st.booleans(), seed=st.integers(0, 2**16))
    def board(self, legal: bool, seed: int) -> None:
        self.d.rng.seed(seed)
        self.d.board(legal)

    @rule(plays=st.integers(2, 3), seed=st.integers(0, 2**16))
    def board_plays_ahead(self, plays: int, seed: int) -> None:
        """The players fix the board after the camera missed a play: placed two turns on, or asked whose turn."""
        self.d.rng.seed(seed)
        self.d.ahead(plays)

    @rule(pick=st.integers(0, 7))
    def answer(self, pick: int) -> None:
        self.d.answer(pick)

    @rule()
    def undo(self) -> None:
        self.d.undo()

    @rule(action=st.sampled_from(("double", "take", "drop")))
    def cube(self, action: str) -> None:
        self.d.cube(action)

    @rule()
    def calibrate(self) -> None:
        self.d.calibrate()

    @rule(sure=st.booleans())
    def camera(self, sure: bool) -> None:
        self.d.camera(sure)

    @rule(length=st.sampled_from((1, 2, 3)), seed=st.integers(0, 2**16))
    def match(self, length: int, seed: int) -> None:
        """A match begun (half of them with a clock, some short enough for a flag to fall)."""
        self.d.rng.seed(seed)
        self.d.new_match(length)

    @rule()
    def next_game(self) -> None:
        self.d.next_game()

    @rule()
    def wait(self) -> None:
        """Time passes: a flag may fall and end the match."""
        self.d.wait()

    @rule(seed=st.integers(0, 2**16), times=st.integers(1, 12))
    def demo_players(self, seed: int, times: int) -> None:
        self.d.rng.seed(seed)
        for _ in range(times):
            self.d.demo_players()
            self.d.camera(True)

    @precondition(lambda self: self.d.companion.state()["phase"] == "over"
                  and self.d.companion.state()["undo"] is not None)      # a fallen flag is not taken back
    @rule()
    def undo_the_end(self) -> None:
        """Undo straight after the end (the case that once broke a stored game)."""
        if self.d.token is None:
            self.d.login(True)
        ended = self.d.companion.state()["game_id"]
        assert self.d.undo() == 200
        state = self.d.companion.state()
        assert state["game_id"] == ended and state["phase"] != "over" and state["game_over"] is None

    @invariant()
    def store_summary_replay_and_export_agree(self) -> None:
        check_agreement(self.d.store, self.d.client, self.d.companion)

    @invariant()
    def a_restart_shows_what_was_shown(self) -> None:
        # a second companion on the same file, the first never closed: what a kill -9 leaves
        running = summary(self.d.companion.state())
        resumed = resumed_state(self.d.path)
        if running["phase"] == "over":        # a finished game is stored as such; nothing is in progress
            assert resumed["phase"] == "none"
            assert self.d.store.game(running["game_id"])["result"] == running["game_over"]
        else:
            assert resumed == running


RecordMachine.TestCase.settings = settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None,
                                           derandomize=True,
                                           suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.filter_too_much])
TestRecordMachine = RecordMachine.TestCase


def test_seeded_random_play_at_every_stage(tmp_path: Path) -> None:
    """The same checks over long seeded runs, which are sure to reach every
    stage: games of several families ended, and ends taken back."""
    ends_undone = 0
    finished: set[str] = set()
    for seed in (11, 12, 14, 15):
        d = Driver(tmp_path / f"games-{seed}.sqlite", seed=seed)
        try:
            for _ in range(STEPS * 5):
                state = d.companion.state()
                if state["phase"] == "over":
                    finished.add(state["preset"])
                answered = len(d.statuses)
                what = random_step(d)
                if state["phase"] == "over" and what == "undo" and d.statuses[answered:] == [200]:
                    ends_undone += 1
                check_agreement(d.store, d.client, d.companion)
                running = summary(d.companion.state())
                if running["phase"] != "over":
                    assert resumed_state(d.path) == running
        finally:
            d.close()
    assert ends_undone >= 2 and len(finished) >= 2, (ends_undone, finished)


# ------------------------------------------------------------------ kill -9

@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_kill_9_at_a_random_step_loses_nothing_answered(tmp_path: Path, seed: int) -> None:
    """The child plays at random and prints what is stored after each step it
    finished; killed at a random moment, every entry it had printed is still
    in the store, unchanged, and a companion resumes on the store."""
    path = tmp_path / "games.sqlite"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-m", "tests.companion.record_driver", str(path), str(seed)],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    stop_at = random.Random(seed).randint(20, 120)
    try:
        assert child.stdout is not None
        for line in child.stdout:
            lines.append(json.loads(line))
            if len(lines) >= stop_at:
                child.send_signal(signal.SIGKILL)     # at whatever the child is doing now
                break
        rest, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGKILL, err[-2000:]
    lines += [json.loads(x) for x in rest.splitlines() if x.strip().endswith("}")]
    assert len(lines) >= stop_at
    last = lines[-1]
    store = GameStore(path)
    try:
        stored = {g["id"]: g for g in store.games()}
        for game_id, (length, digest, _status) in last["stored"].items():
            assert game_id in stored
            assert len(store.game(game_id)["log"]) >= length
            assert log_hash(store, game_id, length) == digest, f"game {game_id}'s first {length} entries changed"
        companion = Companion(store)
        state = summary(companion.state())
        check_agreement(store, _client(companion), companion)
        # the step after the last one printed may have been stored before the kill; if not,
        # the companion shows exactly what the child showed last
        if all(len(store.game(g)["log"]) == n for g, (n, _h, _s) in last["stored"].items()) \
                and set(stored) == set(last["stored"]):
            if last["state"]["phase"] == "over":   # a finished game is stored as such; none is in progress
                assert state["phase"] == "none"
            else:
                assert state == last["state"]
    finally:
        store.close()


def _client(companion: Companion):  # type: ignore[no-untyped-def]
    from willughby.web_ui import WebConfig, create_app

    from .record_driver import PIN, SECRET

    return create_app(WebConfig(pin=PIN, secret_key=SECRET), companion=companion).test_client()


# ------------------------------------------------------------ undo after the end

def _finished_game(tmp_path: Path) -> Driver:
    d = Driver(tmp_path / "games.sqlite", seed=5)
    d.login(True)
    d.new_game("backgammon", near_end=True)
    for _ in range(60):
        if d.companion.state()["phase"] == "over":
            return d
        d.demo_players()
        d.camera(True)
    raise AssertionError("the game near its end did not end")


def test_undo_after_the_end_reopens_the_game_and_every_view_agrees(tmp_path: Path) -> None:
    d = _finished_game(tmp_path)
    gid = d.companion.state()["game_id"]
    assert d.store.game(gid)["status"] == "over"
    assert d.undo() == 200
    row = d.store.game(gid)
    assert row["status"] == "playing" and row["result"] is None
    assert d.companion.state()["phase"] == "move"
    assert any("it goes on" in a["text"] for a in d.companion.state()["announcements"][:1])
    check_agreement(d.store, d.client, d.companion)
    d.close()


def test_the_demo_does_not_start_a_new_game_over_an_undone_end(tmp_path: Path) -> None:
    """The players saw the end and waited; an undo came meanwhile: no new game."""
    d = _finished_game(tmp_path)
    gid = d.companion.state()["game_id"]
    seen_over = d.companion.state()
    assert d.undo() == 200
    from willughby.companion.errors import NotNowError

    with pytest.raises(NotNowError, match="no longer over"):   # (their thread logs it and looks again)
        d.players._act(seen_over)             # the players act on the state they saw before the undo
    assert d.companion.state()["game_id"] == gid
    assert [g["id"] for g in d.store.games()] == [gid]
    check_agreement(d.store, d.client, d.companion)
    d.close()


def test_the_end_and_the_action_that_made_it_are_stored_together(tmp_path: Path) -> None:
    """One transaction: the end is written with the action that made it, or
    neither is, so a crash between them cannot leave a record that ends under
    a row that says the game is still playing."""
    store = GameStore(tmp_path / "games.sqlite")
    gid = store.create_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, "4HPwATDgc/ABMA")
    result = {"winner": "light", "kind": "single", "stake": 1}
    with pytest.raises(ValueError):           # the second entry cannot be stored: neither is, nor the end
        store.append_many(gid, [("action", {"type": "move"}, "camera"), ("undo", {"undoes": [99]}, None)],
                          ends=result)
    assert store.game(gid)["status"] == "playing" and store.game(gid)["log"] == []
    store.append_many(gid, [("action", {"type": "move"}, "camera")], ends=result)
    assert store.game(gid)["status"] == "over" and store.game(gid)["result"] == result
    store.append_many(gid, [("undo", {"undoes": [0]}, "page")], reopens=True)
    assert store.game(gid)["status"] == "playing" and store.game(gid)["result"] is None
    store.close()


def test_an_end_is_not_taken_back_while_another_game_is_in_progress(tmp_path: Path) -> None:
    from willughby.companion.store import StoreError

    store = GameStore(tmp_path / "games.sqlite")
    first = store.create_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, "4HPwATDgc/ABMA")
    store.append_many(first, [("action", {"type": "drop"}, "dark")],
                      ends={"winner": "light", "kind": "single", "stake": 1})
    store.create_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, "4HPwATDgc/ABMA")
    with pytest.raises(StoreError, match="in progress"):
        store.append_many(first, [("undo", {"undoes": [0]}, "page")], reopens=True)
    assert store.game(first)["status"] == "over"
    store.close()


def test_a_match_won_its_end_taken_back_and_won_again_every_view_agrees(tmp_path: Path) -> None:
    """The records' checks over a match through the page's controls: a match to 1 won by a drop, the drop
    taken back (the match in play again), dropped again; each step checked, and a restart shows the same."""
    d = Driver(tmp_path / "games.sqlite", seed=3)
    try:
        assert d.login(True) == 200 and d.new_match(1) == 200
        assert d.post("/api/dice", {"dice": [3, 1]}) == 200             # Ann opens 3-1 ...
        assert d.post("/api/board", {"board": d.companion.legal_boards()["8/5 6/5"]}) == 200
        assert d.cube("double") == 200 and d.cube("drop") == 200          # ... Bob doubles, Ann drops
        match = d.companion.state()["match"]
        assert match["winner"] == "dark" and d.store.match(match["id"])["status"] == "over"
        check_agreement(d.store, d.client, d.companion)
        assert d.next_game() == 409                                      # the match is won: no next game
        assert d.undo() == 200
        assert d.store.match(match["id"])["status"] == "playing"
        check_agreement(d.store, d.client, d.companion)
        assert d.cube("drop") == 200
        check_agreement(d.store, d.client, d.companion)
        again = GameStore(d.path)                   # as a restart reads it (a game over is not resumed)
        try:
            assert Match.from_record(again.match_record(match["id"])).winner == "dark"
            assert again.match(match["id"])["status"] == "over"
        finally:
            again.close()
    finally:
        d.close()
