"""What a referee publishes for the club's hub (companion/hub_publish.py, the store's cursor in
companion/store_publish.py): the game's row and every entry of its log, in order and as stored; the board's
state and status, retained; nothing lost when the broker is down, slow, or the referee restarts meanwhile.

First on the fake broker the package ships (companion/hub_fake.py), then on a real Eclipse Mosquitto
(tests/broker.py; skipped, with the reason, where it is not installed)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from willughby.companion.hub_fake import FakeBroker
from willughby.companion.hub_publish import HubPublisher, HubSettings, PahoLink, topics
from willughby.companion.service import Companion
from willughby.companion.store import GameStore

from ..broker import Broker, Subscriber, needs_mosquitto
from ..hardware.helpers import wait_until

PLAYERS = {"light": "Ann", "dark": "Bob"}
SETTINGS = HubSettings(broker="127.0.0.1", board="table-3")


def _play(c: Companion, rng: random.Random, steps: int) -> None:
    """Random dice and random legal boards, *steps* times (a new game once one is over)."""
    for _ in range(steps):
        state = c.state()
        if state["phase"] in ("none", "over"):
            c.new_game("backgammon", {}, PLAYERS, who="test")
        elif state["phase"] in ("start", "throw"):
            c.enter_dice([rng.randint(1, 6) for _ in range(state["dice_wanted"])], who="test")
        else:
            plays = c.legal_boards()
            c.on_reading(plays[rng.choice(sorted(plays))], None, who="test")


def _entries(messages: list[tuple[str, bytes]], root: str = "willughby/table-3") -> dict[str, list[dict[str, Any]]]:
    """The log entries published, by game, as they came (duplicates kept)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for topic, payload in messages:
        if topic.startswith(f"{root}/log/"):
            doc = json.loads(payload)
            out.setdefault(doc["game_id"], []).append({k: doc[k] for k in ("n", "kind", "who", "at", "data")})
    return out


def _archived(entries: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """As the hub keeps them: each entry once, by its game and number, in order of number."""
    return {gid: sorted({e["n"]: e for e in got}.values(), key=lambda e: e["n"]) for gid, got in entries.items()}


def _stored(store: GameStore) -> dict[str, list[dict[str, Any]]]:
    return {g["id"]: store.game(g["id"])["log"] for g in store.games()}


def _publisher(store: GameStore, c: Companion, link: Any, **kw: Any) -> HubPublisher:
    p = HubPublisher(store, SETTINGS, link, state=c.state, version="test", **kw)
    c.add_state_listener(p.wake)
    return p


# ---------------------------------------------------------------- on the fake broker
def test_every_entry_goes_out_as_stored_in_order_after_its_games_row(tmp_path):
    store = GameStore(tmp_path / "games.sqlite")
    c = Companion(store)
    broker = FakeBroker()
    names = topics("willughby", "table-3")
    publisher = _publisher(store, c, broker.link(will=(names["status"], b"{}")))
    publisher.link.start(publisher._connected)
    _play(c, random.Random(1), 60)
    while publisher.pump():
        pass
    assert _entries(broker.messages) == _stored(store)                   # every entry once, in order, as stored
    first_row = next(i for i, (t, _p) in enumerate(broker.messages) if t.startswith(names["game"]))
    first_entry = next(i for i, (t, _p) in enumerate(broker.messages) if t.startswith(names["log"]))
    assert first_row < first_entry
    row = json.loads(broker.messages[first_row][1])
    assert row["board"] == "table-3" and row["game"]["players"] == PLAYERS and row["game"]["status"] == "playing"
    assert json.loads(broker.retained[names["status"]])["online"] is True
    assert json.loads(broker.retained[names["state"]])["game_id"] == c.state()["game_id"]
    assert store.waiting_to_publish() == 0
    publisher.close()
    assert json.loads(broker.retained[names["status"]])["online"] is False


def test_a_games_row_goes_again_when_it_ends_and_when_its_end_is_taken_back(tmp_path):
    store = GameStore(tmp_path / "games.sqlite")
    c = Companion(store)
    broker = FakeBroker()
    publisher = _publisher(store, c, broker.link())
    publisher.link.start(publisher._connected)
    def pumped() -> None:
        while publisher.pump():
            pass

    c.new_game("backgammon", {}, PLAYERS, who="test")
    c.enter_dice([3, 1])
    c.on_reading(c.legal_boards()["8/5 6/5"], None, who="camera")
    pumped()
    c.cube("double", who="Bob")
    c.cube("drop", who="Ann")                               # over
    pumped()
    c.undo(who="Ann")                                       # playing again
    pumped()
    c.cube("drop", who="Ann")                               # over again
    pumped()
    rows = [json.loads(p)["game"] for t, p in broker.messages if "/game/" in t]
    assert [r["status"] for r in rows] == ["playing", "over", "playing", "over"]
    assert rows[-1]["status"] == "over" and rows[-1]["result"]["winner"] == "dark"


def test_while_the_broker_is_down_entries_wait_in_the_store_and_go_in_order_when_it_is_back(tmp_path):
    """The referee never waits on the broker; what it could not send waits in its store, across a restart of
    the referee too, and goes out in order, none lost."""
    path = tmp_path / "games.sqlite"
    store = GameStore(path)
    c = Companion(store)
    broker = FakeBroker()
    publisher = _publisher(store, c, broker.link())
    publisher.link.start(publisher._connected)
    rng = random.Random(2)
    _play(c, rng, 20)
    while publisher.pump():
        pass
    broker.down()
    _play(c, rng, 40)                                       # the game goes on: nothing waits on the broker
    assert publisher.pump() is False and store.waiting_to_publish() > 0
    assert "not reachable" in (publisher.trouble or "") and "entries wait in the store" in publisher.trouble
    store.close()                                           # the Pi restarted meanwhile
    store = GameStore(path)
    c = Companion(store)
    _play(c, rng, 10)
    again = _publisher(store, c, broker.link())
    again.link.start(again._connected)
    broker.up()
    while again.pump():
        pass
    assert _archived(_entries(broker.messages)) == _stored(store) and store.waiting_to_publish() == 0


class _Unacknowledging:
    """A link whose broker takes every message but acknowledges only the first *acks*."""

    def __init__(self, broker: FakeBroker, acks: int) -> None:
        self.inner, self.acks = broker.link(), acks

    def start(self, on_connect: Any) -> None:
        self.inner.start(on_connect)

    def connected(self) -> bool:
        return self.inner.connected()

    def publish(self, topic: str, payload: bytes, qos: int, retain: bool = False) -> Any:
        delivery = self.inner.publish(topic, payload, qos, retain)
        if qos and topic.split("/")[2] == "log":
            self.acks -= 1
            if self.acks < 0:
                class Lost:
                    def wait(self, timeout: float) -> bool:
                        return False
                return Lost()
        return delivery

    def stop(self, last: Any = None) -> None:
        self.inner.stop(last)


def test_what_the_broker_did_not_acknowledge_is_sent_again_and_the_hub_keeps_it_once(tmp_path):
    store = GameStore(tmp_path / "games.sqlite")
    c = Companion(store)
    broker = FakeBroker()
    _play(c, random.Random(3), 40)
    slow = _publisher(store, c, _Unacknowledging(broker, acks=10), ack_timeout_s=0.01)
    slow.link.start(slow._connected)
    assert slow.pump() is False                              # ten acknowledged, the rest not: the cursor stops
    assert "did not acknowledge" in (slow.trouble or "")
    assert store.waiting_to_publish() > 0
    fine = _publisher(store, c, broker.link())
    fine.link.start(fine._connected)
    while fine.pump():
        pass
    sent = _entries(broker.messages)
    assert any(len(got) > len({e["n"] for e in got}) for got in sent.values())    # some went twice ...
    assert _archived(sent) == _stored(store)                                      # ... and are kept once


# ---------------------------------------------------------------- on a real Mosquitto
def _real_publisher(store: GameStore, c: Companion, port: int) -> HubPublisher:
    settings = HubSettings(broker="127.0.0.1", board="table-3", port=port)
    names = topics("willughby", "table-3")
    p = HubPublisher(store, settings, PahoLink(settings, will=(names["status"], b'{"online": false}')),
                     state=c.state, version="test")
    c.add_state_listener(p.wake)
    p.start()
    return p


@needs_mosquitto
def test_through_mosquitto_every_entry_arrives_and_a_broker_down_for_a_while_loses_none(tmp_path):
    broker = Broker(tmp_path).start()
    sub = Subscriber(broker.port)
    store = GameStore(tmp_path / "games.sqlite")
    c = Companion(store)
    publisher = _real_publisher(store, c, broker.port)
    rng = random.Random(4)
    try:
        _play(c, rng, 40)
        assert wait_until(lambda: store.waiting_to_publish() == 0, 20)
        broker.stop()                                        # the broker goes away mid-game ...
        _play(c, rng, 40)                                    # ... the referee goes on, storing what waits
        assert store.waiting_to_publish() > 0
        time.sleep(1.0)
        broker.start()                                       # ... and comes back on the same port
        assert wait_until(lambda: store.waiting_to_publish() == 0, 40)
        stored = _stored(store)
        assert wait_until(lambda: _archived(_entries([(t, p) for t, p, _r in sub.got()])) == stored, 20)
        late = Subscriber(broker.port, client_id="late")      # a new watcher sees the board at once (retained)
        assert wait_until(lambda: {t for t, _p, r in late.got() if r} >= {"willughby/table-3/state",
                                                                      "willughby/table-3/status"}, 20)
        late.close()
    finally:
        publisher.close()
        sub.close()
        store.close()
        broker.stop()


@needs_mosquitto
def test_a_referee_killed_while_the_broker_is_away_loses_nothing_once_both_are_back(tmp_path):
    """A referee killed with -9 while the broker is down, started again: the hub's archive (each entry kept
    once, by game and number) ends identical to the referee's store, entry by entry."""
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    broker = Broker(tmp_path).start()
    sub = Subscriber(broker.port)
    path = tmp_path / "games.sqlite"

    started: list[subprocess.Popen[str]] = []

    def referee(seed: int, steps: int) -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-m", "tests.companion.hub_referee", str(path), str(broker.port),
                                 str(seed), str(steps)], cwd=root, stdout=subprocess.PIPE, text=True)
        started.append(proc)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "played"
        return proc

    try:
        first = referee(5, 30)
        with GameStore(path, read_only=True) as store:
            assert wait_until(lambda: store.waiting_to_publish() == 0, 20)
        broker.stop()                                        # the broker goes ...
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        away = referee(7, 30)                                # ... the referee plays on meanwhile ...
        away.send_signal(signal.SIGKILL)                     # ... and the Pi loses its power
        away.wait(timeout=10)
        with GameStore(path, read_only=True) as store:
            assert store.waiting_to_publish() > 0            # what it played waits in its store
        broker.start()
        second = referee(6, 30)                              # the referee starts again and plays on
        with GameStore(path, read_only=True) as store:
            assert wait_until(lambda: store.waiting_to_publish() == 0, 40)
            stored = _stored(store)
        assert wait_until(lambda: _archived(_entries([(t, p) for t, p, _r in sub.got()])) == stored, 20)
        second.send_signal(signal.SIGKILL)
        second.wait(timeout=10)
        assert wait_until(lambda: any(t == "willughby/table-3/status" and not json.loads(p)["online"]
                                  for t, p, _r in sub.got()), 30)          # the last will: the board is offline
    finally:
        for proc in started:                                 # none left behind, whatever failed
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
        sub.close()
        broker.stop()


@needs_mosquitto
def test_the_shipped_access_list_lets_a_board_write_only_under_its_own_name(tmp_path):
    """hardware/club-broker: every board logs in as itself and may write only under its own name; the hub
    reads. A board's messages under another board's name never reach the hub; a wrong password or none is
    refused."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from ..broker import passwords

    root = Path(__file__).resolve().parents[2] / "hardware" / "club-broker"
    acl = tmp_path / "willughby.acl"
    acl.write_text((root / "willughby.acl").read_text())
    users = passwords(tmp_path / "willughby.passwd", {"hub": "h-secret", "table-3": "t3-secret", "table-4": "t4"})
    broker = Broker(tmp_path, extra=f"password_file {users}\nacl_file {acl}\n", anonymous=False).start()
    hub = Subscriber(broker.port, client_id="hub", username="hub", password="h-secret")
    store = GameStore(tmp_path / "games.sqlite")
    c = Companion(store)
    settings = HubSettings(broker="127.0.0.1", board="table-3", port=broker.port, username="table-3",
                           password="t3-secret")
    names = topics("willughby", "table-3")
    publisher = HubPublisher(store, settings, PahoLink(settings, will=(names["status"], b'{"online": false}')),
                             state=c.state, version="test")
    c.add_state_listener(publisher.wake)
    publisher.start()
    forger = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="forger")
    forger.username_pw_set("table-3", "t3-secret")
    try:
        _play(c, random.Random(8), 20)
        assert wait_until(lambda: store.waiting_to_publish() == 0, 20)
        assert wait_until(lambda: _archived(_entries([(t, p) for t, p, _r in hub.got()])) == _stored(store), 20)
        forger.connect("127.0.0.1", broker.port)
        forger.loop_start()
        forged = {"board": "table-4", "game_id": "g-00000000000f", "n": 0, "kind": "action", "who": "x", "at": 0,
                  "data": {}}
        forger.publish("willughby/table-4/log/g-00000000000f", json.dumps(forged), qos=1).wait_for_publish(5)
        forger.publish("willughby/table-3/log/ok", b"{}", qos=1).wait_for_publish(5)
        assert wait_until(lambda: any(t == "willughby/table-3/log/ok" for t, _p, _r in hub.got()), 20)
        assert not any(t.startswith("willughby/table-4/") for t, _p, _r in hub.got())   # dropped by the broker

        wrong = HubSettings(broker="127.0.0.1", board="table-4", port=broker.port, username="table-4",
                            password="not it")
        refused = PahoLink(wrong, will=("willughby/table-4/status", b"{}"))
        refused.start(lambda: None)
        time.sleep(1.5)
        assert not refused.connected()
        refused.stop()
    finally:
        forger.loop_stop()
        publisher.close()
        hub.close()
        store.close()
        broker.stop()


@needs_mosquitto
def test_over_tls_with_the_clubs_own_authority_a_board_publishes_and_a_stranger_certificate_is_refused(tmp_path):
    """hardware/club-broker/make-club-ca.sh makes the club's authority and the broker's certificate; a board
    with the club's authority ([hub] tls, ca_file) publishes over TLS; one that trusts another authority does
    not connect."""
    import subprocess

    script = Path(__file__).resolve().parents[2] / "hardware" / "club-broker" / "make-club-ca.sh"
    subprocess.run(["sh", str(script), str(tmp_path / "club"), "localhost", "127.0.0.1"], check=True,
                   capture_output=True)
    subprocess.run(["sh", str(script), str(tmp_path / "other"), "localhost", "127.0.0.1"], check=True,
                   capture_output=True)
    club = tmp_path / "club"
    broker = Broker(tmp_path, extra=f"cafile {club / 'club-ca.crt'}\ncertfile {club / 'broker.crt'}\n"
                                    f"keyfile {club / 'broker.key'}\n").start()
    store = GameStore(tmp_path / "games.sqlite")
    c = Companion(store)
    good = HubSettings(broker="127.0.0.1", board="table-3", port=broker.port, tls=True,
                       ca_file=str(club / "club-ca.crt"))
    publisher = HubPublisher(store, good, PahoLink(good, will=("willughby/table-3/status", b"{}")), state=c.state)
    c.add_state_listener(publisher.wake)
    publisher.start()
    stranger = HubSettings(broker="127.0.0.1", board="table-9", port=broker.port, tls=True,
                           ca_file=str(tmp_path / "other" / "club-ca.crt"))
    other = PahoLink(stranger, will=("willughby/table-9/status", b"{}"))
    try:
        _play(c, random.Random(9), 10)
        assert wait_until(lambda: store.waiting_to_publish() == 0, 20)
        other.start(lambda: None)
        time.sleep(1.5)
        assert not other.connected()
    finally:
        other.stop()
        publisher.close()
        store.close()
        broker.stop()
