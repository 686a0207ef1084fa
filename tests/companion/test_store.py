"""The game store: one SQLite file in WAL mode, an append-only log per game,
undo recorded rather than erased, and records the engine replays."""

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from willughby.companion.store import (KINDS, SCHEMA_VERSION, CorruptStoreError, GameNotFoundError,
                                       GameStore, StoreClosedError, StoreError)
from willughby.engine.game import RECORD_FORMAT, Game
from willughby.engine.rules import preset_rules, start_position

START = start_position(preset_rules("backgammon")).id()
PLAYERS = {"light": "Ann", "dark": "Bob"}


class Clock:
    """A clock the test moves by hand: 1000.0, 1001.0, ..."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


@pytest.fixture
def path(tmp_path):
    return tmp_path / "data" / "games.sqlite3"


@pytest.fixture
def store(path):
    with GameStore(path, clock=Clock()) as s:
        yield s


def new_game(store, preset="backgammon"):
    return store.create_game(preset, {}, PLAYERS, START)


def play_random_game(store, game_id, seed, *, max_turns=60):
    """Play a game of random legal turns (some illegal boards, some cube
    turns) and append each match action to the store as the service does."""
    rng = random.Random(seed)
    match = Game.new("backgammon", players=PLAYERS)
    written = 0

    def sync():
        nonlocal written
        new = match.actions[written:]
        if new:
            store.append_many(game_id, [("action", a, a.get("player")) for a in new])
        written = len(match.actions)

    while match.phase == "start":
        match.start_roll(rng.randint(1, 6), rng.randint(1, 6))
        sync()
    turns = 0
    while match.phase != "over" and turns < max_turns:
        if match.phase == "throw":
            if match.can_double() and rng.random() < 0.05:
                match.offer_double()
                sync()
                match.take() if rng.random() < 0.8 else match.drop()
            else:
                match.throw([rng.randint(1, 6), rng.randint(1, 6)])
        else:
            outcomes = match.legal_outcomes()
            if len(outcomes) > 1 and rng.random() < 0.1:
                match.play(match.position)  # nothing moved: an illegal turn, put right next
            else:
                match.play(rng.choice(outcomes).position)
                turns += 1
        sync()
    if match.result is not None:
        store.finish(game_id, match.result.to_json())
    return match


# ------------------------------------------------------------------ the file
def test_the_file_is_wal_with_full_sync_foreign_keys_and_a_schema_version(store, path):
    assert path.exists()
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"games", "log"} <= tables
    finally:
        raw.close()
    conn = store._conn
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    with pytest.raises(sqlite3.IntegrityError):  # the log refers to its game
        conn.execute("INSERT INTO log VALUES ('g-000000000000', 0, 'dice', NULL, 0, '[]')")


def test_a_store_written_by_a_newer_willughby_is_refused_by_name(path):
    GameStore(path).close()
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA user_version = 7")
    raw.close()
    with pytest.raises(StoreError, match=r"schema version 7, newer than this program reads \(3\)"):
        GameStore(path)


def test_a_file_that_is_not_a_database_is_a_corrupt_store_naming_the_file(tmp_path):
    bad = tmp_path / "games.sqlite3"
    bad.write_bytes(b"this is not a database, just some text " * 100)
    with pytest.raises(CorruptStoreError, match=re.escape(str(bad))):
        GameStore(bad)


def test_a_damaged_file_is_a_corrupt_store_naming_the_file(path):
    with GameStore(path) as store:
        gid = new_game(store)
        store.append_many(gid, [("reading", {"i": i, "pad": "x" * 500}, None) for i in range(100)])
    data = bytearray(path.read_bytes())
    for page in range(4096, len(data), 4096):   # scribble over every page but the first
        data[page:page + 200] = b"\xff" * 200
    path.write_bytes(data)
    with pytest.raises(CorruptStoreError, match=re.escape(str(path)) + ".*malformed"):
        with GameStore(path) as store:
            store.game(gid)


def test_another_programs_database_is_not_taken_for_a_store(tmp_path):
    other = tmp_path / "other.sqlite3"
    raw = sqlite3.connect(other)
    raw.execute("CREATE TABLE notes (text TEXT)")
    raw.commit()
    raw.close()
    with pytest.raises(CorruptStoreError, match="not a Willughby game store"):
        GameStore(other)


def test_a_row_with_bad_json_is_a_corrupt_store_naming_the_file_and_entry(store, path):
    gid = new_game(store)
    store.append(gid, "reading", {"ok": True}, "camera")
    store._conn.execute("INSERT INTO log VALUES (?, 1, 'action', NULL, 0, '{not json')", (gid,))
    with pytest.raises(CorruptStoreError, match=re.escape(str(path)) + r".*entry 1"):
        store.game(gid)
    with pytest.raises(CorruptStoreError, match=re.escape(str(path))):
        store.actions(gid)
    assert store.games()[0]["turns"] == 0  # the list still shows the game


def test_the_log_is_append_only_even_to_sql(store):
    gid = new_game(store)
    store.append(gid, "dice", [3, 1], "light")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store._conn.execute("UPDATE log SET data = '[6, 6]'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store._conn.execute("DELETE FROM log")
    assert store.game(gid)["log"][0]["data"] == [3, 1]


# ---------------------------------------------------------------- lifecycle
def test_close_twice_is_harmless_and_use_after_close_raises(path):
    store = GameStore(path)
    gid = new_game(store)
    assert not store.closed and "open" in repr(store)
    store.close()
    store.close()
    assert store.closed and "closed" in repr(store)
    calls = [lambda: store.current(), lambda: store.games(), lambda: store.game(gid),
             lambda: store.append(gid, "dice", [1, 2], "light"), lambda: store.actions(gid),
             lambda: store.record(gid), lambda: store.finish(gid, {}), lambda: new_game(store)]
    for call in calls:
        with pytest.raises(StoreClosedError, match="closed"):
            call()
    assert issubclass(StoreClosedError, StoreError) and issubclass(StoreClosedError, RuntimeError)
    with pytest.raises(StoreClosedError):
        with store:
            pass


def test_the_context_manager_closes_and_a_reopened_store_resumes_the_game(path):
    with GameStore(path) as store:
        gid = new_game(store)
        store.append(gid, "action", {"type": "start_roll", "light": 3, "dark": 1}, "referee")
    assert store.closed
    with GameStore(path) as again:  # after a restart: the game in progress is still there
        assert again.current()["id"] == gid
        assert again.actions(gid) == [{"type": "start_roll", "light": 3, "dark": 1}]


# -------------------------------------------------------------------- games
def test_a_new_game_has_an_id_of_g_and_12_hex_digits_and_is_current(store):
    gid = store.create_game("backgammon", {"cube": "false"}, PLAYERS, START)
    assert re.fullmatch(r"g-[0-9a-f]{12}", gid)
    current = store.current()
    assert current == {"id": gid, "preset": "backgammon", "options": {"cube": "false"},
                       "players": PLAYERS, "start": START, "started": 1001.0, "ended": None,
                       "result": None, "status": "playing", "turns": 0}


def test_a_new_game_abandons_the_one_in_progress(store):
    first = new_game(store)
    second = new_game(store)
    assert second != first
    assert store.current()["id"] == second
    statuses = {g["id"]: (g["status"], g["ended"]) for g in store.games()}
    assert statuses[first] == ("abandoned", 1002.0)   # ended when the second began
    assert statuses[second] == ("playing", None)
    assert [g["status"] for g in store.games()].count("playing") == 1


def test_finish_records_the_end_and_the_result(store):
    gid = new_game(store)
    store.finish(gid, {"winner": "dark", "kind": "gammon", "stake": 2})
    game = store.game(gid)
    assert (game["status"], game["ended"], game["result"]) == (
        "over", 1002.0, {"winner": "dark", "kind": "gammon", "stake": 2})
    assert store.current() is None
    with pytest.raises(StoreError, match="is over, not playing"):
        store.finish(gid, {"winner": "light", "kind": "single", "stake": 1})
    with pytest.raises(StoreError, match="is over, not playing"):
        store.abandon(gid)


def test_abandon_gives_a_game_up(store):
    gid = new_game(store)
    store.abandon(gid)
    assert store.game(gid)["status"] == "abandoned" and store.current() is None


def test_an_unknown_game_is_a_lookup_error_naming_it(store):
    for call in (lambda: store.game("g-nope"), lambda: store.append("g-nope", "dice", [], None),
                 lambda: store.actions("g-nope"), lambda: store.record("g-nope"),
                 lambda: store.finish("g-nope", {})):
        with pytest.raises(GameNotFoundError, match="g-nope") as info:
            call()
        assert isinstance(info.value, LookupError) and isinstance(info.value, StoreError)


def test_games_are_listed_newest_first_with_their_turns(store):
    a = new_game(store)
    store.append_many(a, [
        ("action", {"type": "start_roll", "light": 3, "dark": 1}, "referee"),
        ("action", {"type": "move", "player": "light", "verdict": "legal"}, "light"),
        ("action", {"type": "throw", "player": "dark", "dice": [6, 4]}, "dark"),
        ("action", {"type": "move", "player": "dark", "verdict": "illegal"}, "dark"),
        ("action", {"type": "move", "player": "dark", "verdict": "legal"}, "dark"),
        ("reading", {"type": "move", "verdict": "legal"}, "camera"),   # not an action
    ])
    b = new_game(store)
    assert [g["id"] for g in store.games()] == [b, a]
    assert [g["turns"] for g in store.games()] == [0, 2]
    store.append(a, "undo", {"undoes": [4]}, "dark")
    assert store.games()[1]["turns"] == 1


# ---------------------------------------------------------------------- log
def test_entries_are_numbered_from_zero_in_each_game(store):
    a = new_game(store)
    assert [store.append(a, "dice", [d, 1], "light") for d in (1, 2, 3)] == [0, 1, 2]
    b = new_game(store)
    assert store.append(b, "dice", [5, 5], "dark") == 0
    assert store.append_many(a, [("reading", {"k": 1}, "camera"), ("answer", "yes", "light")]) == [3, 4]
    assert store.append_many(a, []) == []


def test_game_gives_the_whole_log_decoded(store):
    gid = new_game(store)
    store.append(gid, "question", {"text": "Is this the board?"}, "referee")
    store.append(gid, "answer", {"yes": True}, "light")
    store.append(gid, "announcement", "light to play", None)
    log = store.game(gid)["log"]
    assert log == [
        {"n": 0, "kind": "question", "who": "referee", "at": 1002.0, "data": {"text": "Is this the board?"}},
        {"n": 1, "kind": "answer", "who": "light", "at": 1003.0, "data": {"yes": True}},
        {"n": 2, "kind": "announcement", "who": None, "at": 1004.0, "data": "light to play"},
    ]


def test_kinds_are_1_to_20_of_a_to_z_and_underscore(store):
    gid = new_game(store)
    for kind in KINDS + ("x" * 20, "camera_raw"):
        store.append(gid, kind, {"undoes": [0]} if kind == "undo" else {"type": "throw"}, None)
    for bad in ("", "Action", "dice-box", "x" * 21, "reading\n", None, 3):
        with pytest.raises(ValueError, match="kind must be"):
            store.append(gid, bad, {}, None)
    with pytest.raises(ValueError, match="kind must be"):
        store.append_many(gid, [("dice", [1, 2], None), ("BAD", {}, None)])
    assert len(store.game(gid)["log"]) == len(KINDS) + 2


def test_append_many_is_all_or_nothing(store):
    gid = new_game(store)
    store.append(gid, "dice", [3, 1], "light")
    with pytest.raises(TypeError, match=r"entry 2 \(reading\) data cannot be stored as JSON"):
        store.append_many(gid, [("dice", [6, 6], "dark"), ("reading", {"ok": 1}, "camera"),
                                ("reading", {"frame": object()}, "camera")])
    with pytest.raises(TypeError, match="JSON"):
        store.append(gid, "reading", {"nan": float("nan")}, "camera")
    assert [e["n"] for e in store.game(gid)["log"]] == [0]   # the first two were rolled back
    assert store.append(gid, "dice", [6, 6], "dark") == 1     # and their numbers are free again
    assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_actions_must_be_match_actions_and_undo_must_name_actions(store):
    gid = new_game(store)
    store.append(gid, "action", {"type": "start_roll", "light": 3, "dark": 1}, "referee")
    store.append(gid, "reading", {}, "camera")
    with pytest.raises(ValueError, match="an action is a match action"):
        store.append(gid, "action", [1, 2], None)
    with pytest.raises(ValueError, match="an undo is"):
        store.append(gid, "undo", {"undoes": []}, None)
    with pytest.raises(ValueError, match="does not have"):
        store.append(gid, "undo", {"undoes": [9]}, None)
    with pytest.raises(ValueError, match="a reading, not an action"):
        store.append(gid, "undo", {"undoes": [1]}, None)
    store.append(gid, "undo", {"undoes": [0]}, "light")
    with pytest.raises(ValueError, match="already taken back"):
        store.append(gid, "undo", {"undoes": [0]}, None)


def test_undo_is_recorded_not_erased(store):
    gid = new_game(store)
    store.append_many(gid, [
        ("action", {"type": "start_roll", "light": 3, "dark": 1}, "referee"),     # 0
        ("action", {"type": "move", "player": "light", "after": "x", "verdict": "legal"}, "light"),
        ("action", {"type": "throw", "player": "dark", "dice": [2, 2]}, "dark"),   # 2
    ])
    store.append(gid, "undo", {"undoes": [2, 1]}, "light")
    assert [a["type"] for a in store.actions(gid)] == ["start_roll"]
    log = store.game(gid)["log"]
    assert [e["kind"] for e in log] == ["action", "action", "action", "undo"]  # all still there
    assert log[1]["data"]["type"] == "move"


# ----------------------------------------------------------- engine records
@pytest.mark.parametrize("seed", range(4))
def test_the_record_replays_to_the_same_match(store, seed):
    gid = new_game(store)
    match = play_random_game(store, gid, seed)
    record = store.record(gid)
    assert set(record) == {"format", "preset", "options", "players", "start", "actions", "result"}
    assert record["format"] == RECORD_FORMAT and record["start"] == START
    assert record["actions"] == match.actions
    replay = Game.from_record(record)
    assert replay.position == match.position and replay.phase == match.phase
    assert replay.cube_value == match.cube_value
    assert (record["result"] is None) == (match.result is None)
    if match.result is not None:
        assert replay.result == match.result and record["result"] == match.result.to_json()
    legal = sum(1 for a in match.actions if a["type"] == "move" and a["verdict"] == "legal")
    assert store.game(gid)["turns"] == legal


def test_a_move_taken_back_is_replayed_as_if_never_made(store):
    gid = new_game(store)
    match = Game.new("backgammon", players=PLAYERS)
    match.start_roll(3, 1)
    store.append(gid, "action", match.actions[-1], "referee")
    match.play_notation("24/21 24/23")
    n = store.append(gid, "action", match.actions[-1], "light")
    store.append(gid, "undo", {"undoes": [n]}, "light")       # "I meant to make my five point"
    resumed = Game.from_record(store.record(gid))
    assert resumed.phase == "move" and resumed.dice == (3, 1)
    assert resumed.play_notation("8/5 6/5").verdict == "legal"
    store.append(gid, "action", resumed.actions[-1], "light")
    replay = Game.from_record(store.record(gid))
    assert replay.position == resumed.position and replay.turn == "dark"
    assert [a.get("play") for a in store.actions(gid)] == [None, "8/5 6/5"]


# ------------------------------------------------------------------ threads
def test_many_threads_append_without_losing_or_repeating_a_number(store):
    gid = new_game(store)
    numbers: list[int] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def worker(k):
        try:
            for i in range(25):
                n = store.append(gid, "reading", {"thread": k, "i": i}, "camera")
                with lock:
                    numbers.append(n)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(numbers) == list(range(200))
    log = store.game(gid)["log"]
    for k in range(8):  # each thread's entries are in its own order
        assert [e["data"]["i"] for e in log if e["data"]["thread"] == k] == list(range(25))


# --------------------------------------------------------------- durability
CHILD = """
import sys
from willughby.companion.store import GameStore
store = GameStore(sys.argv[1])
game = sys.argv[2]
for i in range(100000):
    n = store.append(game, "reading", {"i": i, "pad": "x" * 200}, "camera")
    print(n, flush=True)
"""


def test_every_entry_appended_before_a_kill_is_there_after_it(path):
    with GameStore(path) as store:
        gid = new_game(store)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), gid],
                             stdout=subprocess.PIPE, text=True)
    printed = []
    try:
        deadline = time.monotonic() + 20
        while len(printed) < 40 and time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            printed.append(int(line))
    finally:
        os.kill(child.pid, signal.SIGKILL)
        rest, _ = child.communicate(timeout=10)
    printed += [int(x) for x in rest.split()]
    assert child.returncode == -signal.SIGKILL
    assert len(printed) >= 40, "the child did not get going"
    with GameStore(path) as store:
        log = store.game(gid)["log"]
        assert store._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = {e["n"]: e["data"]["i"] for e in log}
    assert all(stored.get(n) == n for n in printed), "an entry the child saw written is missing"
    assert sorted(stored) == list(range(len(stored)))  # nothing half-written, no gaps
