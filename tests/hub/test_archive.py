"""The hub's archive (hub/archive.py, hub/follow.py): every board's games kept, each entry once, each game's
export identical to its board's own, entry by entry, and checked as an import is once it ended and came
whole; what is not a board's message, or not the board's own, refused in one line and changing nothing."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from willughby.companion.hub_fake import FakeBroker
from willughby.companion.hub_publish import HubPublisher, HubSettings, PahoLink, topics
from willughby.companion.mqtt_client import BrokerAccount
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.hub.archive import HubArchive, Refused
from willughby.hub.follow import FollowSettings, HubFollower

from ..broker import Broker, needs_mosquitto
from ..companion.test_hub_publish import _play, _stored
from ..hardware.helpers import wait_until

PLAYERS = {"light": "Ann", "dark": "Bob"}


def _finish(c: Companion, rng: random.Random) -> None:
    """Play on to the end of the game in progress."""
    for _ in range(3000):
        if c.state()["phase"] == "over":
            return
        _play(c, rng, 1)
    raise AssertionError("the game did not end")


def _archived(archive: HubArchive) -> dict[str, list[dict[str, Any]]]:
    """Each game the hub holds whole: its log as the hub exports it."""
    out = {}
    for g in archive.games():
        try:
            out[g["game_id"]] = archive.export(g["board"], g["game_id"])["log"]
        except ValueError:          # not whole yet
            pass
    return out


def _board(tmp_path: Any, name: str, seed: int, broker: FakeBroker) -> tuple[GameStore, Companion, HubPublisher]:
    store = GameStore(tmp_path / f"{name}.sqlite")
    c = Companion(store)
    names = topics("willughby", name)
    publisher = HubPublisher(store, HubSettings(broker="fake", board=name), broker.link(will=(names["status"], b"{}")),
                             state=c.state, version="test")
    publisher.link.start(publisher._connected)
    rng = random.Random(seed)
    c.new_game("backgammon", {}, PLAYERS, who="test")
    _finish(c, rng)
    while publisher.pump():
        pass
    return store, c, publisher


def test_two_boards_games_are_archived_whole_and_identical_to_their_stores(tmp_path):
    broker = FakeBroker()
    boards = [_board(tmp_path, name, seed, broker) for name, seed in (("table-1", 1), ("table-2", 2))]
    archive = HubArchive(tmp_path / "hub" / "hub.sqlite")
    for topic, payload in broker.messages:
        archive.take(topic, payload)
    for topic, payload in broker.messages:               # everything again: each kept once
        assert archive.take(topic, payload) in ("again", "kept")
    assert archive.settle() == len(archive.games())
    archived = _archived(archive)
    for store, _c, _p in boards:
        for game_id, log in _stored(store).items():
            assert archived[game_id] == log               # entry by entry
    assert archive.trouble() == [] and all(g["whole"] for g in archive.games())
    assert [b["board"] for b in archive.boards()] == ["table-1", "table-2"]
    exported = archive.export("table-1", next(iter(_stored(boards[0][0]))))
    assert exported["status"] == "over" and exported["record"]["actions"]   # what willughby import reads


def test_a_game_in_play_stays_live_until_its_end_and_a_gap_holds_it_back(tmp_path):
    broker = FakeBroker()
    store = GameStore(tmp_path / "board.sqlite")
    c = Companion(store)
    publisher = HubPublisher(store, HubSettings(broker="fake", board="t1"), broker.link(), state=c.state)
    publisher.link.start(publisher._connected)
    rng = random.Random(3)
    _play(c, rng, 20)
    _finish(c, rng)
    while publisher.pump():
        pass
    archive = HubArchive(tmp_path / "hub" / "hub.sqlite")
    logs = [(t, p) for t, p in broker.messages if "/log/" in t]
    others = [(t, p) for t, p in broker.messages if "/log/" not in t]
    held = logs[5]                                        # one entry comes late
    for topic, payload in others + logs[:5] + logs[6:]:
        archive.take(topic, payload)
    assert archive.settle() == 0
    [game] = archive.games()
    assert not game["whole"] and game["entries"] == len(logs) - 1
    with pytest.raises(ValueError, match="waits for its entry 5"):
        archive.export("t1", game["game_id"])
    archive.take(*held)
    assert archive.settle() == 1
    assert archive.games()[0]["whole"] and _archived(archive) == _stored(store)


@pytest.mark.parametrize("topic, payload, words", [
    ("willughby/t1/log/g-00000000000a", b"x" * (300 * 1024), "past the 256 KiB"),
    ("willughby/t1/log/g-00000000000a", b"not json", "not JSON"),
    ("willughby/t1/log/g-00000000000a", b"[" * 40 + b"]" * 40, "nests"),
    ("willughby/t1/log/g-00000000000a", json.dumps({"board": "t2", "game_id": "g-00000000000a"}).encode(),
     "board 't2''s, not 't1''s"),
    ("willughby/t1/log/g-00000000000a", json.dumps({"board": "t1", "game_id": "g-00000000000b", "n": 0}).encode(),
     "not g-00000000000a's"),
    ("willughby/t1/log/g-00000000000a", json.dumps({"board": "t1", "game_id": "g-00000000000a", "n": -1,
                                                    "kind": "action", "at": 1.7e9}).encode(), "n is 0 or more"),
    ("willughby/t1/log/g-00000000000a", json.dumps({"board": "t1", "game_id": "g-00000000000a", "n": 0,
                                                    "kind": "DROP TABLE", "at": 1.7e9}).encode(), "kind is 1 to 20"),
    ("willughby/t1/log/g-00000000000a", json.dumps({"board": "t1", "game_id": "g-00000000000a", "n": 0,
                                                    "kind": "action", "at": 1e13}).encode(), "seconds since the epoch"),
    ("willughby/t1/log/../../x", b"{}", "no board's topic"),
    ("willughby/t1/game/nonsense", b"{}", "no board's topic"),
    ("willughby/t1/game/g-00000000000a", json.dumps({"board": "t1", "game": {"id": "g-00000000000a",
                                                                             "status": "won"}}).encode(),
     "playing, over or abandoned"),
])
def test_what_is_no_boards_message_is_refused_in_one_line_and_changes_nothing(tmp_path, topic, payload, words):
    archive = HubArchive(tmp_path / "hub" / "hub.sqlite")
    with pytest.raises(Refused, match=words) as caught:
        archive.take(topic, payload)
    assert "\n" not in str(caught.value)
    assert archive.games() == []


def test_a_forged_end_that_its_log_does_not_replay_to_is_not_archived_and_says_why(tmp_path):
    broker = FakeBroker()
    store, c, publisher = _board(tmp_path, "t1", 4, broker)
    archive = HubArchive(tmp_path / "hub" / "hub.sqlite")
    for topic, payload in broker.messages:
        if "/game/" in topic:
            doc = json.loads(payload)
            if doc["game"]["status"] == "over":
                doc["game"]["result"] = dict(doc["game"]["result"], stake=64)
                payload = json.dumps(doc).encode()
        archive.take(topic, payload)
    assert archive.settle() == 0 and not archive.games()[0]["whole"]
    [trouble] = archive.trouble()
    assert "replays to" in trouble["trouble"] and trouble["board"] == "t1"


@needs_mosquitto
def test_through_mosquitto_the_hub_archives_two_boards_whole_even_when_it_was_away(tmp_path):
    broker = Broker(tmp_path).start()
    archive = HubArchive(tmp_path / "hub" / "hub.sqlite")
    hub = HubFollower(archive, FollowSettings(BrokerAccount("127.0.0.1", broker.port)))
    hub.start()
    boards = []
    try:
        assert wait_until(lambda: hub.client.is_connected(), 20)
        for name, seed in (("table-1", 5), ("table-2", 6)):
            store = GameStore(tmp_path / f"{name}.sqlite")
            c = Companion(store)
            settings = HubSettings(broker="127.0.0.1", board=name, port=broker.port)
            p = HubPublisher(store, settings, PahoLink(settings, will=(topics("willughby", name)["status"], b"{}")),
                             state=c.state)
            c.add_state_listener(p.wake)
            p.start()
            boards.append((store, c, p))
        rng = random.Random(7)
        for store, c, _p in boards:
            c.new_game("backgammon", {}, PLAYERS, who="test")
            _play(c, rng, 15)
        hub.close()                                         # the hub goes away for a while ...
        for store, c, _p in boards:
            _finish(c, rng)                                 # ... while the games end
        for store, _c, _p in boards:
            assert wait_until(lambda: store.waiting_to_publish() == 0, 20)
        hub = HubFollower(archive, FollowSettings(BrokerAccount("127.0.0.1", broker.port)))
        hub.start()                                         # ... and comes back: its session kept what came
        want = {gid: log for store, _c, _p in boards for gid, log in _stored(store).items()}
        assert wait_until(lambda: _archived(archive) == want, 60)
        assert wait_until(lambda: all(g["whole"] for g in archive.games()), 10) and archive.trouble() == []
        assert {b["board"] for b in archive.boards()} == {"table-1", "table-2"}
    finally:
        hub.close()
        for store, _c, p in boards:
            p.close()
            store.close()
        broker.stop()
