"""The store's disk full, read-only or failing (issue 46): at start one line and exit 2 naming the file and the
fix; while playing, input refused with what to do (503 on the page), nothing acknowledged lost, the players
told on the page, and play going on by itself once a write can be made again (companion/store_health.py).

The full disk and the read-only mount are real ones where this machine lets a test make them (a tmpfs and a
read-only bind mount in a namespace of the test's own, ``unshare``); the rest fills the store with SQLite's
own page limit, which answers as a full disk does."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from willughby.companion.service import Companion
from willughby.companion.store import GameStore, StoreUnwritableError
from willughby.companion.store_health import StoreHealth
from willughby.web_ui import WebConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
PIN = "2468"


def _full(store: GameStore) -> None:
    """No page more for the store: the next write that needs one fails as on a full disk."""
    conn = store._conn
    assert conn is not None
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")
    game_id = store.current()["id"]
    for size in (2000, 500, 100, 10, 0):         # fill the pages it has, to the last byte
        for _ in range(10_000):
            try:
                store.append(game_id, "announcement", {"text": "x" * size, "kind": "info"}, "test")
            except StoreUnwritableError:
                break
        else:
            raise AssertionError("the store never filled")


def test_a_full_store_refuses_input_tells_the_players_and_plays_on_once_there_is_room(tmp_path, monkeypatch) -> None:
    from willughby.companion import store as store_module

    store = GameStore(tmp_path / "games.sqlite")
    companion = Companion(store)
    companion.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    companion.enter_dice([3, 1], who="test")
    companion.submit_board(companion.legal_boards()["8/5 6/5"], who="test")
    shown: list[object] = []
    health = StoreHealth(store, lambda alert: (shown.append(alert), companion.set_device("store", alert)))
    client = create_app(WebConfig(pin=PIN, secret_key=b"a test secret of thirty-two byte"), companion).test_client()
    token = client.post("/api/login", json={"pin": PIN}).json["csrf"]
    _full(store)
    monkeypatch.setattr(store_module, "free_bytes", lambda path: 12 * 1024)   # the disk as full as the store
    before = companion.state()
    kept = store.game(before["game_id"])["log"]
    response = client.post("/api/dice", json={"dice": [6, 5]}, headers={"X-CSRF-Token": token})
    assert response.status_code == 503
    assert response.json["error"].startswith(f"the disk holding the game store {tmp_path / 'games.sqlite'} is full")
    assert "free space on it" in response.json["error"]
    after = companion.state()
    assert (after["dice"], after["phase"], after["turn_number"]) == (before["dice"], before["phase"],
                                                                     before["turn_number"])
    assert store.game(before["game_id"])["log"] == kept              # nothing half kept
    health.look()                                                    # the page tells the players
    alert = companion.state()["devices"]["store"]["alert"]
    assert alert.startswith("Moves are NOT being kept: the disk holding the game store")
    assert client.get("/api/state").json["devices"]["store"] == {"alert": alert}
    health.look()
    assert len(shown) == 1                                          # told once, not at every look
    store._conn.execute("PRAGMA max_page_count = 1073741823")       # type: ignore[union-attr]  # room again
    monkeypatch.undo()
    health.look()
    assert "store" not in companion.state()["devices"] and shown[-1] is None
    response = client.post("/api/dice", json={"dice": [6, 5]}, headers={"X-CSRF-Token": token})
    assert response.status_code == 200 and companion.state()["dice"] == [6, 5]
    store.close()


# ------------------------------------------------------------------ real disks, where a namespace can be made
def _namespaces() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


needs_namespaces = pytest.mark.skipif(not _namespaces(), reason="no mount namespace can be made here (unshare)")

_ON_A_REAL_DISK = r'''
import json, os, sys
from pathlib import Path
from willughby.companion.cli import main
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.companion.store_health import StoreHealth
case, data = sys.argv[1], Path(sys.argv[2])
config = data.parent / "w.toml"
results = {}
if case == "full":
    store = GameStore(data / "games.sqlite")
    companion = Companion(store)
    companion.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    companion.enter_dice([3, 1], who="test")
    companion.submit_board(companion.legal_boards()["8/5 6/5"], who="test")
    health = StoreHealth(store, lambda alert: companion.set_device("store", alert))
    filler = data / "filler"
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    before = companion.state()
    try:
        companion.enter_dice([6, 5], who="test")
        results["refused"] = None
    except OSError as exc:
        results["refused"] = str(exc)
    results["unchanged"] = companion.state()["dice"] == before["dice"]
    health.look()
    results["alert"] = companion.state()["devices"].get("store")
    results["serve"] = main(["serve", "--config", str(config)])
    filler.unlink()
    health.look()
    results["after"] = companion.state()["devices"].get("store")
    companion.enter_dice([6, 5], who="test")
    results["played_on"] = companion.state()["dice"]
    store.close()
else:
    results["serve"] = main(["serve", "--config", str(config)])
    results["games"] = main(["games", "--data-dir", str(data)])
    results["export"] = main(["export", "g-", "--data-dir", str(data), "--out", "/dev/null"])
print("RESULTS " + json.dumps(results), flush=True)
'''


def _in_namespace(tmp_path: Path, case: str, mount: str) -> tuple[dict[str, object], str]:
    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "w.toml").write_text(f'[companion]\ndata_dir = "{data}"\n[web]\nport = 59999\nhost = "127.0.0.1"\n')
    if case == "read-only":
        with GameStore(data / "games.sqlite") as store:
            c = Companion(store)
            c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
            c.enter_dice([3, 1], who="test")
    script = tmp_path / "case.py"
    script.write_text(_ON_A_REAL_DISK)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = f'{mount} && exec "{sys.executable}" "{script}" {case} "{data}"'
    done = subprocess.run(["unshare", "-rm", "sh", "-c", command], capture_output=True, text=True, env=env,
                          timeout=120)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULTS ")]
    assert lines, done.stdout + done.stderr
    return json.loads(lines[-1][len("RESULTS "):]), done.stderr


@needs_namespaces
def test_on_a_real_full_disk(tmp_path) -> None:
    data = tmp_path / "data"
    results, err = _in_namespace(tmp_path, "full", f'mount -t tmpfs -o size=4m tmpfs "{data}"')
    refused = results["refused"]
    assert isinstance(refused, str) and refused.startswith(f"the disk holding the game store {data / 'games.sqlite'} "
                                                            "is full")
    assert results["unchanged"] is True
    assert isinstance(results["alert"], dict) and "Moves are NOT being kept" in results["alert"]["alert"]
    assert results["serve"] == 2                                     # started on the full disk: one line
    start_lines = [line for line in err.splitlines() if line.startswith("willughby:")]
    assert len(start_lines) == 1 and "is full" in start_lines[0] and "Traceback" not in err
    assert results["after"] is None and results["played_on"] == [6, 5]


@needs_namespaces
def test_on_a_read_only_mount_serve_says_so_and_games_and_export_read_it(tmp_path) -> None:
    data = tmp_path / "data"
    results, err = _in_namespace(tmp_path, "read-only",
                                 f'mount --bind "{data}" "{data}" && mount -o remount,bind,ro "{data}"')
    assert results == {"serve": 2, "games": 0, "export": 0}, err
    start_lines = [line for line in err.splitlines() if line.startswith("willughby:")]
    assert len(start_lines) == 1 and "may not be written" in start_lines[0] and "Traceback" not in err


def test_a_reading_the_store_cannot_keep_is_read_again_once_it_can(tmp_path) -> None:
    """The camera's settled board, not kept (a full disk), is neither lost nor the end of the camera: the board
    is settled afresh and handed on again, until a write can be made."""
    import numpy as np

    from willughby.companion.watch import CameraWatcher

    class Reading:
        location_confidence: dict[str, float] = {}
        count_probs = None

        def to_board(self) -> dict[str, object]:
            return {"format": "board/1"}

    class Settler:
        def __init__(self) -> None:
            self.resets = 0
            self.settled = False

        def feed(self, frame: object, corners: object) -> Reading | None:
            if self.settled:
                return None
            self.settled = True
            return Reading()

        def reset(self) -> None:
            self.resets += 1
            self.settled = False

    full = [True]
    kept: list[dict[str, object]] = []

    def on_reading(board: dict[str, object], confidence: dict[str, float]) -> None:
        if full[0]:
            raise StoreUnwritableError("the disk holding the game store is full", "full")
        kept.append(board)

    watcher = CameraWatcher(None, on_reading, corners=lambda frame: [[0, 0], [1, 0], [1, 1], [0, 1]])
    watcher.settler = Settler()  # type: ignore[assignment]
    frame = np.zeros((8, 8, 3), np.uint8)
    assert [watcher.step(frame) for _ in range(3)] == ["read"] * 3       # each try refused, the board settled anew
    assert watcher.settler.resets == 3 and kept == []                    # type: ignore[attr-defined]
    full[0] = False
    assert watcher.step(frame) == "settled" and kept == [{"format": "board/1"}]
    assert watcher.step(frame) == "read" and len(kept) == 1              # once kept, settled as any other
