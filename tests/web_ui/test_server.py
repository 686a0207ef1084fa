"""The page served for real (web_ui/server.py), on 127.0.0.1: open event
streams cost no thread, so the players' requests are answered whatever the
watchers do; the watcher limit refuses politely; a stop ends the streams."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from willughby.web_ui import WebConfig, create_app
from willughby.web_ui.server import PageServer, listens_on_all, page_url

from .conftest import PIN, SECRET
from .fakes import FakeCompanion


class Served:
    """A PageServer in a thread, with the fake companion behind it."""

    def __init__(self, companion: FakeCompanion | None = None, **settings: Any) -> None:
        self.companion = companion or FakeCompanion()
        settings.setdefault("events_keepalive_s", 0.2)
        self.app = create_app(WebConfig(pin=PIN, secret_key=SECRET, **settings), self.companion)
        self.server = PageServer(self.app, "127.0.0.1", 0, workers=2)
        self.port = self.server.port
        self.thread = threading.Thread(target=self.server.serve, kwargs={"handle_signals": False})
        self.thread.start()

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            data = None if body is None else json.dumps(body)
            sent = dict(headers or {})
            if data is not None:
                sent["Content-Type"] = "application/json"
            conn.request(method, path, body=data, headers=sent)
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def log_in(self) -> dict[str, str]:
        status, headers, content = self.request("POST", "/api/login", {"pin": PIN, "name": "Ann"})
        assert status == 200, content
        return {"Cookie": headers["set-cookie"].split(";", 1)[0], "X-CSRF-Token": json.loads(content)["csrf"]}

    def stop(self) -> float:
        start = time.monotonic()
        self.server.stop()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()
        return time.monotonic() - start


class Stream:
    """One events client on a raw socket: the status, the headers, then events."""

    def __init__(self, port: int, host_header: str | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: {host_header or f'127.0.0.1:{port}'}\r\n"
                          f"Accept: text/event-stream\r\n\r\n".encode())
        self.file = self.sock.makefile("rb")
        self.status = int(self.file.readline().split()[1])
        self.headers: dict[str, str] = {}
        while (line := self.file.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            self.headers[name.strip().lower()] = value.strip()
        self.chunked = self.headers.get("transfer-encoding") == "chunked"

    def body(self) -> bytes:
        length = int(self.headers.get("content-length", "0"))
        return self.file.read(length)

    def _chunk(self) -> bytes:
        if not self.chunked:
            return self.file.read1(65536)
        size = int(self.file.readline().strip(), 16)
        data = self.file.read(size)
        self.file.readline()  # the CRLF after the chunk
        return data

    def blocks(self) -> Iterator[str]:
        """The stream's blocks (events and keepalives), each ending in a blank line."""
        pending = ""
        while True:
            chunk = self._chunk()
            if not chunk:
                return
            pending += chunk.decode("utf-8")
            while "\n\n" in pending:
                block, pending = pending.split("\n\n", 1)
                yield block + "\n\n"

    def next_event(self) -> dict[str, str]:
        for block in self.blocks():
            if not block.startswith(":"):
                fields = dict(line.split(": ", 1) for line in block.strip("\n").split("\n"))
                return fields
        raise AssertionError("the stream ended")

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@pytest.fixture
def served() -> Iterator[Served]:
    s = Served()
    try:
        yield s
    finally:
        s.stop()


def test_many_open_streams_do_not_hold_up_state_and_control(served: Served) -> None:
    """Forty watchers -- more than the sixteen threads that used to serve every
    request -- and the players are still answered at once."""
    streams = [Stream(served.port) for _ in range(40)]
    try:
        assert all(s.status == 200 for s in streams)
        firsts = [s.next_event() for s in streams]
        assert all(json.loads(f["data"]) == served.companion.state() for f in firsts)
        for _ in range(5):
            start = time.monotonic()
            status, _, content = served.request("GET", "/api/state")
            assert status == 200 and json.loads(content)["game_id"] == "g-1"
            assert time.monotonic() - start < 2.0
        auth = served.log_in()
        start = time.monotonic()
        status, _, content = served.request("POST", "/api/dice", {"dice": [4, 2]}, auth)
        assert status == 200, content
        assert time.monotonic() - start < 2.0
        for s in streams:  # the control reached every watcher
            assert json.loads(s.next_event()["data"])["dice"] == [4, 2]
        assert served.server.front.watchers == 40
    finally:
        for s in streams:
            s.close()


def test_a_stream_through_the_server_is_the_apps_stream(served: Served) -> None:
    stream = Stream(served.port)
    try:
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert stream.headers["cache-control"] == "no-cache"
        assert stream.headers["x-accel-buffering"] == "no"
        # the app's security headers, as on every response
        assert stream.headers["x-frame-options"] == "DENY"
        assert "default-src 'self'" in stream.headers["content-security-policy"]
        blocks = stream.blocks()
        first = next(blocks)
        assert first.startswith("retry: 3000\nid: 1\nevent: state\ndata: ")
        assert next(blocks) == ": keepalive\n\n"  # nothing changed for 0.2 s
        served.companion.announce("dark enters", "enter")
        second = stream.next_event()
        assert "retry" not in second and second["id"] == "2"
    finally:
        stream.close()


def test_the_watcher_limit_refuses_one_more_politely() -> None:
    served = Served(max_watchers=3)
    streams: list[Stream] = []
    try:
        streams = [Stream(served.port) for _ in range(3)]
        assert [s.status for s in streams] == [200, 200, 200]
        for s in streams:
            s.next_event()
        extra = Stream(served.port)
        assert extra.status == 503
        assert extra.headers["retry-after"] == "30"
        assert extra.headers["content-type"] == "application/json"
        assert extra.headers["x-content-type-options"] == "nosniff"
        error = json.loads(extra.body())["error"]
        assert error.startswith("3 pages are following the game already")
        extra.close()
        # the players are not among the watchers: still answered
        assert served.request("GET", "/api/state")[0] == 200
        # one watcher leaves: its place is given back
        streams.pop().close()
        deadline = time.monotonic() + 5
        while served.server.front.gate.count > 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        again = Stream(served.port)
        streams.append(again)
        assert again.status == 200 and again.next_event()["event"] == "state"
    finally:
        for s in streams:
            s.close()
        served.stop()


def test_an_untrusted_host_gets_no_stream() -> None:
    served = Served(trusted_hosts=("willughby.local",))
    try:
        stream = Stream(served.port, host_header="evil.example")
        assert stream.status == 400
        stream.close()
        assert served.server.front.gate.count == 0
    finally:
        served.stop()


def test_a_body_too_large_is_refused(served: Served) -> None:
    auth = served.log_in()
    status, _, content = served.request("POST", "/api/board", {"board": "x" * 300_000}, auth)
    assert status == 413 and json.loads(content) == {"error": "the request body is larger than 256 KiB, the most taken"}


def test_a_dispute_photo_may_be_larger_than_any_other_body() -> None:
    """The upload's address alone takes a body past the usual cap, up to the
    companion's photo limit; the same body elsewhere is refused."""
    companion = FakeCompanion()
    companion.max_photo_bytes = 2 * 1024 * 1024
    served = Served(companion)
    try:
        auth = served.log_in()
        photo = b"\xff\xd8\xff" + bytes(1_000_000)
        boundary = "willughby-test-boundary"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"b.jpg\"\r\n"
                f"Content-Type: image/jpeg\r\n\r\n").encode() + photo + f"\r\n--{boundary}--\r\n".encode()
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        conn.request("POST", "/api/dispute/1/photo", body=body,
                      headers={**auth, "Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = conn.getresponse()
        assert response.status == 200, response.read()
        conn.close()
        assert served.companion.calls[-1] == ("add_dispute_photo", (1, None, len(photo), "Ann"))
        status, _, content = served.request("POST", "/api/board", {"board": "x" * 1_000_000}, auth)
        assert status == 413 and "256 KiB" in json.loads(content)["error"]
        big = b"\xff\xd8\xff" + bytes(2_300_000)           # past the photo's own cap: the photo's limit named
        conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        conn.request("POST", "/api/dispute/1/photo", body=(f"--{boundary}\r\nContent-Disposition: form-data; "
                     f"name=\"photo\"; filename=\"b.jpg\"\r\n\r\n").encode() + big + f"\r\n--{boundary}--\r\n".encode(),
                     headers={**auth, "Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = conn.getresponse()
        assert response.status == 413
        assert json.loads(response.read()) == {"error": "the photo is larger than 2 MB, the most taken"}
        conn.close()
    finally:
        served.stop()


def test_a_stop_ends_the_open_streams_at_once() -> None:
    served = Served(events_keepalive_s=30)
    streams = [Stream(served.port) for _ in range(10)]
    try:
        for s in streams:
            s.next_event()
        took = served.stop()
        assert took < 5.0  # a generous bound: it takes a fraction of a second
        for s in streams:  # each stream was ended properly: the last chunk, then the close
            assert list(s.blocks()) == []
        assert served.server.front.gate.count == 0
    finally:
        for s in streams:
            s.close()


def test_addresses() -> None:
    assert listens_on_all("0.0.0.0") and listens_on_all("::") and listens_on_all("")
    assert not listens_on_all("127.0.0.1") and not listens_on_all("willughby.local")
    assert page_url("::1", 8080) == "http://[::1]:8080/"
