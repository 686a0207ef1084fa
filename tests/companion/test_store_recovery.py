"""A store with damaged pages: serve refuses it in one line naming the fix, and ``willughby recover`` keeps it
aside untouched and recovers every game that can be read (companion/store_recovery.py). It used to be that
nothing of such a store could be read (issue 46)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from willughby.companion.cli import main
from willughby.companion.service import Companion
from willughby.companion.store import GameStore

GAMES = 30


def _played(data: Path) -> list[str]:
    ids = []
    with GameStore(data / "games.sqlite") as store:
        c = Companion(store)
        for _ in range(GAMES):
            ids.append(c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")["game_id"])
            c.enter_dice([3, 1], who="test")
            c.submit_board(c.legal_boards()["8/5 6/5"], who="test")
            for _ in range(30):
                c.notice("a notice long enough to fill the log's pages " * 3)
    return ids


def _damage(path: Path, first_page: int, pages: int) -> None:
    data = bytearray(path.read_bytes())
    assert len(data) > (first_page + pages) * 4096
    data[first_page * 4096:(first_page + pages) * 4096] = b"\xab" * (pages * 4096)
    path.write_bytes(bytes(data))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def damaged(tmp_path: Path) -> tuple[Path, list[str]]:
    data = tmp_path / "data"
    ids = _played(data)
    store = data / "games.sqlite"
    pages = store.stat().st_size // 4096
    _damage(store, pages // 2, 4)
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(store).execute("SELECT count(*) FROM log").fetchone()
    return data, ids


def test_serve_refuses_a_damaged_store_in_one_line_naming_the_fix(capsys, damaged) -> None:
    data, _ = damaged
    config = data.parent / "w.toml"
    config.write_text(f'[companion]\ndata_dir = "{data}"\n')
    assert main(["serve", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"the game store {data / 'games.sqlite'} is damaged" in err
    assert f"willughby recover --config {config} keeps it aside, untouched" in err


def test_recover_keeps_the_damaged_store_aside_untouched_and_recovers_what_reads(capsys, damaged) -> None:
    data, ids = damaged
    store = data / "games.sqlite"
    before = _digest(store)
    assert main(["recover", "--data-dir", str(data)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.count("\n") == 1
    aside = sorted(data.glob("games.sqlite.damaged-*"))
    assert [p.name for p in aside if not p.name.endswith(("-wal", "-shm"))] == [aside[0].name]
    assert _digest(aside[0]) == before                          # kept as it was, byte for byte
    assert out.startswith(f"recovered ") and f"kept, untouched, as {aside[0]}" in out
    recovered = int(out.split()[1])
    assert GAMES // 2 < recovered <= GAMES and f"of {GAMES} games" in out
    with GameStore(store) as fresh:                                # a sound store, every game in it replays
        assert fresh._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"  # type: ignore[union-attr]
        listed = {g["id"]: g for g in fresh.games()}
        assert len(listed) == recovered and set(listed) <= set(ids)
        for game_id in listed:
            fresh.record(game_id)
        assert sum(g["status"] == "playing" for g in listed.values()) <= 1
    assert main(["games", "--data-dir", str(data)]) == 0
    assert main(["recover", "--data-dir", str(data)]) == 2        # now sound: nothing to do
    assert "is not damaged" in capsys.readouterr().err


def test_recover_of_no_store_says_so(capsys, tmp_path: Path) -> None:
    assert main(["recover", "--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"willughby recover: there is no game store at {tmp_path / 'games.sqlite'}\n"
