"""The game store's matches (``companion/store_matches.py``, schema 2): a match and its games in order, the
Crawford game marked, and a store of schema 1 brought to 2 with everything it held."""

from __future__ import annotations

import sqlite3

import pytest

from willughby.companion.store import GameStore, StoreError
from willughby.companion.store_matches import MatchNotFoundError
from willughby.companion.store_schema import MATCH_TABLES, PUBLISH_TABLES, SCHEMA
from willughby.engine.match import Match

PLAYERS = {"light": "Ann", "dark": "Bob"}
START = "4HPwATDgc/ABMA"


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "data" / "games.sqlite3")


def _v1_store(path: str) -> str:
    """A store as schema 1 made it (the games and their log only), with one game over in it."""
    import os
    os.makedirs(os.path.dirname(path), exist_ok=True)
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA journal_mode = WAL")
    for statement in SCHEMA:
        if statement not in (*MATCH_TABLES, *PUBLISH_TABLES) and not statement.startswith("PRAGMA user_version"):
            raw.execute(statement)
    raw.execute("PRAGMA user_version = 1")
    raw.execute("INSERT INTO games VALUES ('g-00000000000a', 'backgammon', '{}', '{\"light\": \"Ann\"}', ?, 1.0, "
                "2.0, '{\"winner\": \"light\", \"kind\": \"single\", \"stake\": 1}', 'over')", (START,))
    raw.execute("INSERT INTO log VALUES ('g-00000000000a', 0, 'action', 'referee', 1.0, "
                "'{\"type\": \"start_roll\", \"light\": 3, \"dark\": 1}')")
    raw.commit()
    raw.close()
    return path


def test_a_store_of_schema_1_is_brought_to_3_keeping_every_game_and_entry(path):
    _v1_store(path)
    with GameStore(path) as store:
        assert [g["id"] for g in store.games()] == ["g-00000000000a"]
        assert store.actions("g-00000000000a") == [{"type": "start_roll", "light": 3, "dark": 1}]
        assert store.has_matches() and store.matches() == []
        assert store.waiting_to_publish() == 2        # its game's row and entry wait for the hub, as any
        store.create_match(5, True, "backgammon", {}, PLAYERS, START)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 3
    raw.close()


def test_a_store_of_schema_1_read_only_has_no_matches_and_reads_its_games(path):
    _v1_store(path)
    with GameStore(path, read_only=True) as store:
        assert not store.has_matches() and store.matches() == [] and store.current_match() is None
        assert store.record("g-00000000000a")["preset"] == "backgammon"
        assert store.in_match("g-00000000000a") is None


def test_a_match_keeps_its_games_in_order_and_marks_its_crawford_game(path):
    with GameStore(path) as store:
        match_id, first = store.create_match(3, True, "backgammon", {}, PLAYERS, START)
        assert store.current_match()["games"] == [first]
        with pytest.raises(StoreError, match="game 1 of match .* is playing, not over"):
            store.next_match_game(match_id, START, crawford=False)
        store.finish(first, {"winner": "light", "kind": "single", "stake": 2})
        second = store.next_match_game(match_id, START, crawford=True)
        assert store.match(match_id)["games"] == [first, second]
        assert store.in_match(second) == {"match_id": match_id, "number": 2, "crawford": True}
        assert store.record(second)["crawford"] is True and "crawford" not in store.record(first)
        record = store.match_record(match_id)
        assert record["length"] == 3 and [g["preset"] for g in record["games"]] == ["backgammon"] * 2


def test_a_match_record_from_the_store_replays_in_the_engine(path):
    m = Match(3, players=PLAYERS)
    game = m.next_game()
    game.start_roll(3, 1)
    game.play_notation("8/5 6/5")
    with GameStore(path) as store:
        match_id, game_id = store.create_match(3, True, "backgammon", {}, PLAYERS, game.start.id())
        store.append_many(game_id, [("action", a, "referee") for a in game.actions])
        again = Match.from_record(store.match_record(match_id))
    assert again.games[0].position == game.position and again.score == {"light": 0, "dark": 0}


def test_a_new_match_abandons_the_one_in_play_and_a_match_ends_and_reopens(path):
    with GameStore(path) as store:
        first, _ = store.create_match(3, True, "backgammon", {}, PLAYERS, START)
        second, _ = store.create_match(5, False, "backgammon", {}, PLAYERS, START)
        assert store.match(first)["status"] == "abandoned" and store.current_match()["id"] == second
        store.end_match(second, "over")
        assert store.current_match() is None and store.match(second)["ended"] is not None
        store.end_match(second, "playing")
        assert store.current_match()["id"] == second


def test_bad_match_ids_lengths_and_statuses_are_refused_by_name(path):
    with GameStore(path) as store:
        with pytest.raises(MatchNotFoundError, match="not a match id"):
            store.match("g-000000000000")
        with pytest.raises(MatchNotFoundError, match="no match 'm-000000000000'"):
            store.match("m-000000000000")
        with pytest.raises(ValueError, match="1 to 64 points"):
            store.create_match(0, True, "backgammon", {}, PLAYERS, START)
        match_id, _ = store.create_match(3, True, "backgammon", {}, PLAYERS, START)
        with pytest.raises(ValueError, match="playing, over or abandoned"):
            store.end_match(match_id, "won")


def test_export_of_a_match_from_a_store_of_schema_1_says_it_holds_none(path, capsys):
    from willughby.companion.cli import main

    _v1_store(path)
    import os
    os.rename(path, os.path.join(os.path.dirname(path), "games.sqlite"))
    assert main(["export", "m-000000000000", "--data-dir", os.path.dirname(path)]) == 2
    assert "there is no match 'm-000000000000': this store holds no matches" in capsys.readouterr().err
