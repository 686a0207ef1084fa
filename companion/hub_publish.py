"""The referee's part of a club's hub (``docs/hub.md``): its board, its games and every entry of their logs,
published to the club's MQTT broker.

What goes out, under ``<root>/<board>/`` (``root`` is ``willughby`` unless configured):

``status`` (retained, QoS 1)
    ``{"board", "online", "at", "version"}``: ``online`` true once connected; the broker's last will sets it
    false when the referee drops off, and a clean stop says so itself.
``state`` (retained, QoS 0)
    the board's state document (as the page gets it) each time it changes, so a new subscriber sees every
    board at once.
``game/<game id>`` (QoS 1)
    the game's row (``{"board", "game": {"id", "preset", "options", "players", "start", "started", "ended",
    "result", "status"}}``) when it starts, and again when it ends, is abandoned or its end is taken back.
``log/<game id>`` (QoS 1)
    each entry of the game's log exactly as stored (``{"board", "game_id", "n", "kind", "who", "at",
    "data"}``), in order of ``n``.

Publishing never holds up the referee: it runs in a thread of its own, and what it has not sent waits in
the referee's own store (``store_publish.py``'s cursor, moved on only once the broker has acknowledged), so
a broker down or slow, Wi-Fi lost for an hour or the Pi restarted meanwhile delays the hub and loses
nothing; entries go in order, and an entry sent twice (acknowledged, then cut off before the cursor moved)
is kept once by the hub, by its game and number. Nothing the hub sends is read: no control reaches the board
through the broker, and the PIN never leaves it.

The broker is behind a small interface (:class:`BrokerLink`): :class:`PahoLink` (the Eclipse Paho client,
MQTT 3.1.1) at the table, :class:`~willughby.companion.hub_fake.FakeBroker`'s links in tests.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

from .mqtt_client import BrokerAccount, mqtt_client
from .store import GameStore, StoreError

log = logging.getLogger(__name__)

__all__ = ["BrokerLink", "Delivery", "HubPublisher", "HubSettings", "PahoLink", "topics"]


@dataclass(frozen=True)
class HubSettings:
    """Where and as whom the referee publishes (``[hub]`` in the configuration)."""

    broker: str
    board: str
    port: int = 1883
    root: str = "willughby"
    username: str = ""
    password: str = ""
    tls: bool = False
    ca_file: str = ""

    @property
    def account(self) -> BrokerAccount:
        return BrokerAccount(self.broker, self.port, self.username, self.password, self.tls, self.ca_file)


def topics(root: str, board: str) -> dict[str, str]:
    """The board's topics (``game`` and ``log`` end with ``/<game id>``).

    >>> topics("willughby", "table-3")["log"]
    'willughby/table-3/log'
    """
    base = f"{root}/{board}"
    return {"status": f"{base}/status", "state": f"{base}/state", "game": f"{base}/game", "log": f"{base}/log"}


class Delivery(Protocol):
    """A message handed to the broker link: :meth:`wait` until the broker acknowledged it."""

    def wait(self, timeout: float) -> bool: ...


class BrokerLink(Protocol):
    """The connection to the broker, as the publisher uses it."""

    def start(self, on_connect: Callable[[], None]) -> None: ...

    def connected(self) -> bool: ...

    def publish(self, topic: str, payload: bytes, qos: int, retain: bool = False) -> Delivery: ...

    def stop(self, last: tuple[str, bytes] | None = None) -> None: ...


class HubPublisher:
    """Sends the store's games and logs, and the board's state, to the broker (see the module docstring)."""

    def __init__(self, store: GameStore, settings: HubSettings, link: BrokerLink,
                 state: Callable[[], Mapping[str, Any]], version: str = "", ack_timeout_s: float = 10.0,
                 batch: int = 200) -> None:
        self.store = store
        self.settings = settings
        self.link = link
        self._state = state
        self._version = version
        self.ack_timeout_s = ack_timeout_s
        self.batch = batch
        self.topics = topics(settings.root, settings.board)
        self._wake = threading.Event()
        self._quit = threading.Event()
        self._state_due = True
        self._thread = threading.Thread(target=self._run, name="willughby-hub", daemon=True)
        #: entries and rows the broker acknowledged since the start, and the last trouble met (None: none)
        self.sent = 0
        self.trouble: str | None = None
        #: told the trouble in words when it changes (None: all is sent) -- the page's devices line
        self.on_trouble: Callable[[str | None], None] = lambda text: None

    # ------------------------------------------------------------ running
    def start(self) -> None:
        self.link.start(self._connected)
        self._thread.start()

    def wake(self, *_: Any) -> None:
        """Something was stored or the state changed (a state listener): send what waits, soon."""
        self._state_due = True
        self._wake.set()

    def close(self) -> None:
        """Stop: the board said offline (retained), the connection closed; what was not sent waits in the store."""
        self._quit.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10.0)
        self.link.stop((self.topics["status"], self._status(False)))

    def _connected(self) -> None:
        self.link.publish(self.topics["status"], self._status(True), qos=1, retain=True)
        self.wake()

    def _status(self, online: bool) -> bytes:
        return _json({"board": self.settings.board, "online": online, "at": time.time(), "version": self._version})

    def _run(self) -> None:
        while not self._quit.is_set():
            self._wake.wait(1.0)
            self._wake.clear()
            try:
                while not self._quit.is_set() and self.pump():
                    pass
            except StoreError as exc:
                self._say(f"the store cannot be read for the hub: {exc}")
            except Exception as exc:  # noqa: the publisher must go on; the fault is logged with its traceback
                log.exception("publishing to the hub failed")
                self._say(f"publishing to the hub failed: {exc}")

    def _say(self, text: str | None) -> None:
        if text != self.trouble:
            if text is not None:
                log.warning("%s", text)
            self.trouble = text
            self.on_trouble(text)

    # ------------------------------------------------------------ sending
    def pump(self) -> bool:
        """Send one round of what waits (the state, then the oldest games' rows and entries), moving the cursor
        on as the broker acknowledges; True where more may wait, False where all is sent or the broker is
        not there."""
        if not self.link.connected():
            self._say(f"the hub's broker {self.settings.broker}:{self.settings.port} is not reachable: "
                      f"{self.store.waiting_to_publish()} entries wait in the store")
            return False
        if self._state_due:
            self._state_due = False
            self.link.publish(self.topics["state"], _json(self._state()), qos=0, retain=True)
        waiting = self.store.to_publish(limit=20)
        if not waiting:
            self._say(None)
            return False
        for item in waiting:
            if not self._send_game(item):
                return False
        return True

    def _send_game(self, item: Mapping[str, Any]) -> bool:
        """One game's row (where not sent as it stands) and its next entries; False where the broker did not
        acknowledge in time (the cursor stays where the acknowledgements reached)."""
        game = item["game"]
        gid = game["id"]
        board = self.settings.board
        row = None if item["row_sent"] else self.link.publish(f"{self.topics['game']}/{gid}",
                                                              _json({"board": board, "game": game}), qos=1)
        entries = self.store.log_after(gid, int(item["after"]), limit=self.batch)
        sent = [(e["n"], self.link.publish(f"{self.topics['log']}/{gid}",
                                           _json({"board": board, "game_id": gid, **e}), qos=1)) for e in entries]
        deadline = time.monotonic() + self.ack_timeout_s
        if row is not None:
            if not row.wait(max(0.0, deadline - time.monotonic())):
                self._say(f"the hub's broker did not acknowledge game {gid}'s row in {self.ack_timeout_s:g} s")
                return False
            self.store.mark_published(gid, row=game)
            self.sent += 1
        last = None
        for n, delivery in sent:
            if not delivery.wait(max(0.0, deadline - time.monotonic())):
                break
            last = n
        if last is not None:
            self.store.mark_published(gid, n=last)
            self.sent += sum(1 for n, _d in sent if n <= last)
        if sent and last != sent[-1][0]:
            self._say(f"the hub's broker did not acknowledge game {gid}'s entries in {self.ack_timeout_s:g} s")
            return False
        return True


def _json(doc: Any) -> bytes:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")


# ---------------------------------------------------------------- the Paho client
class _PahoDelivery:
    def __init__(self, info: Any) -> None:
        self._info = info

    def wait(self, timeout: float) -> bool:
        try:
            self._info.wait_for_publish(timeout=max(0.001, timeout))
        except (RuntimeError, ValueError):      # not queued (no connection) or the queue is full
            return False
        return bool(self._info.is_published())


class PahoLink:
    """:class:`BrokerLink` over the Eclipse Paho client (MQTT 3.1.1), its network in a thread of its own,
    reconnecting by itself (1 s, doubling to 30 s); the last will marks the board offline."""

    def __init__(self, settings: HubSettings, will: tuple[str, bytes]) -> None:
        self.client = mqtt_client(settings.account, f"willughby-{settings.board}", clean_session=True)
        self.client.will_set(will[0], will[1], qos=1, retain=True)
        self.client.max_inflight_messages_set(100)
        self.settings = settings
        self._on_connect: Callable[[], None] = lambda: None

    def start(self, on_connect: Callable[[], None]) -> None:
        self._on_connect = on_connect

        def connected(client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
            if not getattr(reason, "is_failure", False):
                on_connect()
            else:
                log.warning("the hub's broker refused the connection: %s", reason)

        self.client.on_connect = connected
        self.client.connect_async(self.settings.broker, self.settings.port, keepalive=30)
        self.client.loop_start()

    def connected(self) -> bool:
        return bool(self.client.is_connected())

    def publish(self, topic: str, payload: bytes, qos: int, retain: bool = False) -> Delivery:
        return _PahoDelivery(self.client.publish(topic, payload, qos=qos, retain=retain))

    def stop(self, last: tuple[str, bytes] | None = None) -> None:
        if last is not None and self.connected():
            self.publish(last[0], last[1], qos=1, retain=True).wait(2.0)
        self.client.disconnect()
        self.client.loop_stop()
