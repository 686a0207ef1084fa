"""The page on a hostile network: everyone on the club's Wi-Fi reaches the
server, and none of them without the PIN may deny the players service
(web_ui/connections.py, web_ui/bodies.py). Each test is bounded in
connections and time, on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from .test_server import Served, Stream

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _enough_files() -> None:
    """Hundreds of client sockets and the server's own ends in one process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096
    if soft != resource.RLIM_INFINITY and soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            pytest.skip(f"the open-files limit ({hard}) is too low for hundreds of connections")
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def _silent(port: int, count: int) -> list[socket.socket]:
    return [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(count)]


def _half_headers(port: int, count: int) -> list[socket.socket]:
    socks = _silent(port, count)
    for s in socks:
        s.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    return socks


def _closed_by_server(sock: socket.socket, within_s: float) -> bool:
    """Whether the server closes *sock* within *within_s* (what it still sends before closing is read)."""
    end = time.monotonic() + within_s
    while (left := end - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            if sock.recv(65536) == b"":
                return True
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
    return False


def _read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return answer


def _players_answered(served: Served) -> float:
    """The state read, a login and a control: all answered; how long they took together."""
    start = time.monotonic()
    status, _, content = served.request("GET", "/api/state")
    assert status == 200, content
    auth = served.log_in()
    status, _, content = served.request("POST", "/api/dice", {"dice": [6, 1]}, auth)
    assert status == 200, content
    return time.monotonic() - start


def test_silent_connections_never_lock_the_players_out() -> None:
    """560 connections that never send a byte used to make every request, control included, a 503;
    700 now, past the server's limit of connections: the oldest silent ones go, the players are answered."""
    served = Served(header_timeout_s=60)          # long: the silent ones are all still held when the players ask
    socks: list[socket.socket] = []
    try:
        socks = _silent(served.port, 700)
        time.sleep(0.3)
        assert _players_answered(served) < 1.0
        assert served.server.guard.shed >= 100      # 700 + the players' past 600: silent ones made room
        assert len(served.server.guard) <= 601
    finally:
        for s in socks:
            s.close()
        served.stop()


def test_watchers_and_connections_that_never_finish_their_headers_leave_room_for_control() -> None:
    """300 watchers (the limit) and 260 connections that never finish their headers: the players are answered."""
    served = Served(header_timeout_s=60)
    streams: list[Stream] = []
    socks: list[socket.socket] = []
    try:
        streams = [Stream(served.port) for _ in range(300)]
        assert all(s.status == 200 for s in streams)
        socks = _half_headers(served.port, 260)
        time.sleep(0.3)
        assert _players_answered(served) < 1.0
        refused = Stream(served.port)                 # watchers beyond the limit are still refused politely
        assert refused.status == 503
        refused.close()
    finally:
        for s in socks:
            s.close()
        for st in streams:
            st.close()
        served.stop()


def test_a_connection_must_complete_its_headers_in_time_however_it_dribbles() -> None:
    served = Served(header_timeout_s=0.5)
    try:
        silent = _silent(served.port, 1)[0]
        assert _closed_by_server(silent, 3.0)
        dribbling = _silent(served.port, 1)[0]
        dribbling.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        start, closed = time.monotonic(), False
        while time.monotonic() - start < 3.0 and not closed:
            try:
                dribbling.sendall(b"X-A: b\r\n")        # a header line every 0.1 s, never the end
            except OSError:
                closed = True
            time.sleep(0.1)
        assert closed or _closed_by_server(dribbling, 0.5)
        assert time.monotonic() - start < 2.5
        assert served.server.guard.timed_out >= 2
        # a kept-alive connection idle past the limit is closed too; one that asks in time is answered
        kept = _silent(served.port, 1)[0]
        kept.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert kept.recv(65536).startswith(b"HTTP/1.1 200")
        assert _closed_by_server(kept, 3.0)
        for s in (silent, dribbling, kept):
            s.close()
    finally:
        served.stop()


def test_one_address_holds_at_most_its_share_of_connections_still_sending() -> None:
    """Past ``connections_per_address`` connections from one address that have not sent their request, its
    oldest goes; one that asks in time is answered."""
    served = Served(header_timeout_s=60, connections_per_address=8)
    socks: list[socket.socket] = []
    try:
        socks = _silent(served.port, 12)
        time.sleep(0.3)
        assert sum(_closed_by_server(s, 0.5) for s in socks[:4]) == 4       # the four oldest went
        assert not any(_closed_by_server(s, 0.2) for s in socks[4:])
        assert served.server.guard.shed == 4
        assert _players_answered(served) < 1.0
    finally:
        for s in socks:
            s.close()
        served.stop()


def test_a_body_that_does_not_come_in_time_is_answered_408() -> None:
    served = Served(body_timeout_s=0.5)
    try:
        auth = served.log_in()
        sock = _silent(served.port, 1)[0]
        head = "".join(f"{k}: {v}\r\n" for k, v in auth.items())
        sock.sendall(f"POST /api/dice HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n{head}"
                     f"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"dice\"".encode())
        sock.settimeout(5)
        start = time.monotonic()
        answer = _read_all(sock)
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"did not come in time" in answer
        assert time.monotonic() - start < 3.0
        sock.close()
    finally:
        served.stop()


def test_a_body_is_not_read_before_the_login_is_checked() -> None:
    """A control POST without the login is answered on its headers: the body is never read."""
    served = Served()
    try:
        sock = _silent(served.port, 1)[0]
        sock.sendall(f"POST /api/board HTTP/1.1\r\nHost: 127.0.0.1:{served.port}\r\n"
                     f"Content-Type: application/json\r\nContent-Length: 200000\r\n\r\n".encode())
        sock.settimeout(5)
        answer = _read_all(sock)                     # no byte of the body sent: answered, then closed
        assert answer.startswith(b"HTTP/1.1 403"), answer
        assert b"log in with the PIN first" in answer and b"connection: close" in answer.lower()
        sock.close()
    finally:
        served.stop()


_SERVE_FAKE = """
import sys, threading
from willughby.web_ui import WebConfig, create_app
from willughby.web_ui.server import PageServer
from tests.web_ui.fakes import FakeCompanion
companion = FakeCompanion()
companion.max_photo_bytes = 20 * 1024 * 1024
app = create_app(WebConfig(pin="2468", secret_key=b"a test secret of thirty-two byte"), companion)
server = PageServer(app, "127.0.0.1", 0, workers=2)
print(server.port, flush=True)
threading.Thread(target=lambda: (sys.stdin.read(), server.stop()), daemon=True).start()
server.serve(handle_signals=False)
"""


def _memory_kib(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


def _upload_without_login(port: int, size: int, chunk: memoryview) -> bytes:
    """A 20 MB photo POSTed with no login; whatever the server answers (or b"" if it closed first)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    try:
        sock.sendall(f"POST /api/dispute/1/photo HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {size}\r\n\r\n".encode())
        sent = 0
        try:
            while sent < size:
                sock.sendall(chunk[:min(len(chunk), size - sent)])
                sent += len(chunk)
        except OSError:        # the server answered and closed without reading it: as it should
            pass
        try:
            return sock.recv(4096)
        except OSError:
            return b""
    finally:
        sock.close()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's memory from /proc")
def test_uploads_without_the_pin_cost_the_server_no_memory() -> None:
    """20 connections each sending a 20 MB photo without the PIN: the server's peak memory grows by
    less than 100 MB (it used to buffer each whole before checking the login: +526 MB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", _SERVE_FAKE], cwd=ROOT, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        before = _memory_kib(proc.pid)
        chunk = memoryview(bytes(1024 * 1024))
        answers: list[bytes] = []
        threads = [threading.Thread(target=lambda: answers.append(_upload_without_login(port, 20 * 1024 * 1024, chunk)))
                   for _ in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        after = _memory_kib(proc.pid)
        grown_mb = (after["VmHWM"] - before["VmRSS"]) / 1024
        assert grown_mb < 100, f"the server's peak memory grew by {grown_mb:.0f} MB"
        assert sum(a.startswith(b"HTTP/1.1 403") for a in answers) >= 15, answers
    finally:
        if proc.stdin:
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _login_from(port: int, address: str, pin: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(address, 0))
    try:
        conn.request("POST", "/api/login", body=json.dumps({"pin": pin}),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_a_pin_guessed_from_thirty_addresses_is_refused_long_before_144_tries() -> None:
    """From 30 source addresses, 150 guesses used to go through in 0.3 s with no 429."""
    served = Served()
    try:
        auth = served.log_in()
        answers = [_login_from(served.port, f"127.0.0.{n}", f"{1000 + 5 * n + k}")
                   for n in range(2, 32) for k in range(5)]
        assert answers.count(403) == 10 and answers.count(429) == 140
        state = json.loads(served.request("GET", "/api/state")[2])
        assert "Someone is guessing the PIN" in state["devices"]["logins"]["alert"]
        status, _, _ = served.request("POST", "/api/dice", {"dice": [5, 5]}, auth)   # the player goes on
        assert status == 200
    finally:
        served.stop()
