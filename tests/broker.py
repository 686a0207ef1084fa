"""A real Eclipse Mosquitto for the tests that need a broker (installed by the README's set-up: Debian's
``mosquitto``): started on a free port of 127.0.0.1 with a configuration of the test's own, stopped and
started again on the same port, and a subscriber that keeps every message it gets.

Tests that need it are skipped, with the reason, where Mosquitto is not installed.
"""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

MOSQUITTO = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")
needs_mosquitto = pytest.mark.skipif(MOSQUITTO is None, reason="Eclipse Mosquitto is not installed "
                                                              "(README: apt-get install mosquitto)")


def passwords(path: Path, users: dict[str, str]) -> Path:
    """A Mosquitto password file at *path* for *users* (name: password), made by mosquitto_passwd."""
    tool = shutil.which("mosquitto_passwd") or shutil.which("mosquitto_passwd", path="/usr/sbin:/usr/local/sbin")
    assert tool is not None, "mosquitto_passwd comes with Mosquitto"
    path.touch()
    for user, password in users.items():
        subprocess.run([tool, "-b", str(path), user, password], check=True, capture_output=True)
    path.chmod(0o600)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    """Mosquitto on 127.0.0.1:*port*, with *extra* lines of configuration (an access list, passwords)."""

    def __init__(self, folder: Path, extra: str = "", anonymous: bool = True) -> None:
        assert MOSQUITTO is not None
        self.port = free_port()
        self.folder = folder
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous {'true' if anonymous else 'false'}\n"
                             f"persistence true\npersistence_location {folder}/\nmax_queued_messages 100000\n"
                             # started by root, Mosquitto becomes the user "mosquitto", who may not write the
                             # test's folder: it stays the user who started it
                             f"user {getpass.getuser()}\n{extra}", encoding="utf-8")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> "Broker":
        self.proc = subprocess.Popen([str(MOSQUITTO), "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"mosquitto did not listen on {self.port}")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


class Subscriber:
    """A client of the broker that keeps every message on *topic* (a filter), reconnecting as it must; its
    session is kept by the broker (QoS 1, not clean), so what comes while it is away waits for it, as the
    hub's does."""

    def __init__(self, port: int, topic: str = "willughby/#", client_id: str = "test-subscriber",
                 username: str = "", password: str = "") -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.messages: list[tuple[str, bytes, bool]] = []
        self._lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False)
        self.client.reconnect_delay_set(0.2, 1)
        if username:
            self.client.username_pw_set(username, password)

        def connected(client: Any, userdata: Any, flags: Any, reason: Any, properties: Any = None) -> None:
            client.subscribe(topic, qos=1)

        def message(client: Any, userdata: Any, msg: Any) -> None:
            with self._lock:
                self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))

        self.client.on_connect = connected
        self.client.on_message = message
        self.client.connect_async("127.0.0.1", port, keepalive=5)
        self.client.loop_start()

    def got(self) -> list[tuple[str, bytes, bool]]:
        with self._lock:
            return list(self.messages)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
