"""A broker in memory, for tests of what a referee publishes (``hub_publish.py``) without Mosquitto.

:class:`FakeBroker` keeps every message it acknowledged, in order, and the retained one of each topic; it can
be taken down and brought back (:meth:`FakeBroker.down`, :meth:`FakeBroker.up`), and can hold its
acknowledgements (``slow``). Its links (:meth:`FakeBroker.link`) are :class:`~willughby.companion.hub_publish.
BrokerLink`\\ s; a link cut off (:meth:`FakeLink.drop`) sends its last will, as a broker does.

>>> broker = FakeBroker()
>>> link = broker.link(will=("b/status", b"offline"))
>>> link.start(lambda: None)
>>> link.publish("b/x", b"1", qos=1).wait(0.1)
True
>>> link.drop(); broker.retained["b/status"]           # cut off: the broker says its will
b'offline'
>>> broker.down(); other = broker.link(); other.start(lambda: None)
>>> other.publish("b/x", b"2", qos=1).wait(0.01)       # a broker down takes nothing
False
>>> [payload for _topic, payload in broker.messages]
[b'1', b'offline']
"""

from __future__ import annotations

import threading
from typing import Callable

__all__ = ["FakeBroker", "FakeLink"]


class _Delivery:
    def __init__(self, done: bool) -> None:
        self._done = done

    def wait(self, timeout: float) -> bool:
        return self._done


class FakeBroker:
    """An MQTT broker's part that a publisher sees: it is up or down, acknowledges, keeps what it took."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.is_up = True
        #: (topic, payload) of every message acknowledged, in order
        self.messages: list[tuple[str, bytes]] = []
        self.retained: dict[str, bytes] = {}
        self._links: list[FakeLink] = []

    def link(self, will: tuple[str, bytes] | None = None) -> "FakeLink":
        made = FakeLink(self, will)
        self._links.append(made)
        return made

    def down(self) -> None:
        """The broker stops: every link is cut off (their wills are lost with it) and nothing is taken."""
        with self._lock:
            self.is_up = False

    def up(self) -> None:
        """The broker is back: each link connects again (its on-connect called)."""
        with self._lock:
            self.is_up = True
        for link in self._links:
            if link.started and not link.stopped:
                link.on_connect()

    def take(self, topic: str, payload: bytes, retain: bool) -> bool:
        with self._lock:
            if not self.is_up:
                return False
            self.messages.append((topic, payload))
            if retain:
                self.retained[topic] = payload
            return True


class FakeLink:
    """One client's connection to a :class:`FakeBroker`."""

    def __init__(self, broker: FakeBroker, will: tuple[str, bytes] | None) -> None:
        self.broker = broker
        self.will = will
        self.started = self.stopped = False
        self.on_connect: Callable[[], None] = lambda: None

    def start(self, on_connect: Callable[[], None]) -> None:
        self.started, self.on_connect = True, on_connect
        if self.broker.is_up:
            on_connect()

    def connected(self) -> bool:
        return self.started and not self.stopped and self.broker.is_up

    def publish(self, topic: str, payload: bytes, qos: int, retain: bool = False) -> _Delivery:
        return _Delivery(self.connected() and self.broker.take(topic, payload, retain))

    def stop(self, last: tuple[str, bytes] | None = None) -> None:
        if last is not None and self.connected():
            self.broker.take(last[0], last[1], retain=True)
        self.stopped = True

    def drop(self) -> None:
        """Cut off without a word (the Pi's power gone): the broker sends the last will."""
        self.stopped = True
        if self.will is not None:
            self.broker.take(self.will[0], self.will[1], retain=True)
