"""Watchers against players: do open pages starve the controls?

Starts ``willughby serve`` in a subprocess (a temporary data directory, no
hardware, a known PIN, on a free port of 127.0.0.1), opens 50, 200 and 500
live-event streams, and beside them logs in and plays control requests (a
new game, the dice of the roll for the start) and ``GET /api/state``
requests for a few seconds. Prints, for each count: the streams served and
refused, the events each served stream received (min/median, against the
state changes made), the latency of state and control requests (p50/p99;
an unanswered request counts as the timeout) and the server's memory (peak
RSS of its process).

With ``--baseline`` (the default) it first measures the old setup -- the same
app under waitress with 16 threads, as ``serve`` ran it before the asyncio
front -- at 50 streams.

Loopback only; bounded in count and time (about a minute in all); stops by
itself. A report, never a pass/fail test (figures only)::

    python benchmarks/watchers.py
    python benchmarks/watchers.py --counts 50,200 --seconds 5 --no-baseline
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PIN = "2468"
TIMEOUT_S = 5.0          # a request not answered in this long counts as unanswered (and as this long)
CONNECT_WAIT_S = 10.0    # how long the streams may take to open before the measurement starts


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _write_config(tmp: Path, port: int, max_watchers: int) -> Path:
    path = tmp / "willughby.toml"
    path.write_text(f"""
[companion]
data_dir = "{tmp / 'data'}"
[web]
host = "127.0.0.1"
port = {port}
pin = "{PIN}"
max_watchers = {max_watchers}
[camera]
source = "none"
[dice]
source = "page"
[speech]
enabled = "off"
""", encoding="utf-8")
    return path


# -- the server under test, in a subprocess -------------------------------------------------

class Server:
    """``willughby serve`` (or the old waitress setup) in a subprocess."""

    def __init__(self, config: Path, port: int, old: bool) -> None:
        if old:
            argv = [sys.executable, __file__, "--waitress-server", str(config)]
        else:
            argv = [sys.executable, "-m", "willughby.companion", "serve", "--config", str(config)]
        self.port = port
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.banner: list[str] = []
        deadline = time.monotonic() + 30
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit(f"the server did not start: {self.proc.stderr.read() if self.proc.stderr else ''}")
            self.banner.append(line.rstrip())
            if line.startswith("games are kept"):
                break
        self._peak = 0
        self._sampling = False
        self._sampler: threading.Thread | None = None

    def rss_mb(self) -> float:
        return _status_kb(self.proc.pid, "VmRSS") / 1024

    def start_sampling(self) -> None:
        self._peak = 0
        self._sampling = True
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def stop_sampling(self) -> float:
        """The peak RSS (MB) since :meth:`start_sampling`."""
        self._sampling = False
        if self._sampler is not None:
            self._sampler.join()
        return self._peak / 1024

    def _sample(self) -> None:
        while self._sampling:
            self._peak = max(self._peak, _status_kb(self.proc.pid, "VmRSS"))
            time.sleep(0.05)

    def stop(self) -> tuple[float, int, str]:
        """SIGTERM; the seconds it took to exit, its status and its stderr."""
        start = time.monotonic()
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return time.monotonic() - start, self.proc.returncode, err


def _status_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0


def _run_waitress(config_path: str) -> None:
    """The old setup: the same runtime under waitress, 16 threads (before the asyncio front)."""
    import logging
    import signal

    from waitress import create_server

    from willughby.companion.config import load_config
    from willughby.companion.runtime import build

    logging.getLogger("waitress").setLevel(logging.CRITICAL)
    config = load_config(config_path)
    runtime = build(config)
    server = create_server(runtime.app, host=config.host, port=config.port, threads=16, channel_timeout=60,
                           clear_untrusted_proxy_headers=True, ident="willughby")
    print("games are kept (waitress)", flush=True)

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        runtime.close()
        os._exit(0)  # waitress's threads are still in their streams: the baseline need not wait for them


# -- the clients, in asyncio -------------------------------------------------------------------

@dataclass
class Round:
    streams: int
    served: int = 0
    refused: dict[int, int] = field(default_factory=dict)
    unanswered_streams: int = 0
    events: list[int] = field(default_factory=list)
    state_ms: list[float] = field(default_factory=list)
    control_ms: list[float] = field(default_factory=list)
    state_unanswered: int = 0
    control_unanswered: int = 0
    control_status: dict[int, int] = field(default_factory=dict)
    changes: int = 0


async def _request(port: int, method: str, path: str, body: Any = None,
                   headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        data = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close",
                f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        head += [f"{k}: {v}" for k, v in (headers or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        status = int((await reader.readline()).split()[1])
        got: dict[str, str] = {}
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            got[name.strip().lower()] = value.strip()
        content = await reader.read()
        return status, got, content
    finally:
        writer.close()


async def _log_in(port: int) -> dict[str, str]:
    status, headers, content = await _request(port, "POST", "/api/login", {"pin": PIN, "name": "bench"})
    if status != 200:
        raise SystemExit(f"log in failed: {status} {content[:200]!r}")
    cookie = headers["set-cookie"].split(";", 1)[0]
    return {"Cookie": cookie, "X-CSRF-Token": json.loads(content)["csrf"]}


async def _stream(port: int, result: Round, opened: asyncio.Event, counts: list[int], index: int,
                  ready: list[int]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     f"Accept: text/event-stream\r\n\r\n".encode())
        line = await reader.readline()
        status = int(line.split()[1])
        if status != 200:
            result.refused[status] = result.refused.get(status, 0) + 1
            _ready(ready, opened, result)
            return
        result.served += 1
        tail = b""
        first = True
        while data := await reader.read(65536):
            chunk = tail + data
            found = chunk.count(b"event: state")
            counts[index] += found
            if found and first:
                first = False
                _ready(ready, opened, result)
            tail = chunk[-16:]
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


def _ready(ready: list[int], opened: asyncio.Event, result: Round) -> None:
    ready[0] += 1
    if ready[0] >= result.streams:
        opened.set()


async def _timed(port: int, method: str, path: str, body: Any, headers: dict[str, str]) -> tuple[float, int | None]:
    start = time.perf_counter()
    try:
        status, _, _ = await asyncio.wait_for(_request(port, method, path, body, headers), TIMEOUT_S)
    except (asyncio.TimeoutError, ConnectionError):
        return TIMEOUT_S * 1000, None
    return (time.perf_counter() - start) * 1000, status


async def _players(port: int, result: Round, seconds: float) -> None:
    try:
        auth = await asyncio.wait_for(_log_in(port), TIMEOUT_S)
    except asyncio.TimeoutError:
        result.control_unanswered += 1
        return
    steps = [("/api/game", {"preset": "backgammon", "players": {"light": "Ann", "dark": "Bob"}}),
             ("/api/dice", {"dice": [3, 5]}), ("/api/undo", {})]
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        path, body = steps[i % len(steps)]
        i += 1
        ms, status = await _timed(port, "POST", path, body, auth)
        if status is None:
            result.control_unanswered += 1
        else:
            result.control_status[status] = result.control_status.get(status, 0) + 1
            result.changes += status == 200
        result.control_ms.append(ms)
        await asyncio.sleep(0.1)


async def _readers(port: int, result: Round, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ms, status = await _timed(port, "GET", "/api/state", None, {})
        result.state_unanswered += status is None
        result.state_ms.append(ms)
        await asyncio.sleep(0.05)


async def _round(port: int, streams: int, seconds: float) -> Round:
    result = Round(streams)
    opened = asyncio.Event()
    counts = [0] * streams
    ready = [0]
    tasks = [asyncio.create_task(_stream(port, result, opened, counts, i, ready)) for i in range(streams)]
    try:
        await asyncio.wait_for(opened.wait(), CONNECT_WAIT_S)
    except asyncio.TimeoutError:
        pass  # some streams got no answer at all: measured as they are
    await asyncio.gather(_players(port, result, seconds), _readers(port, result, seconds))
    await asyncio.sleep(0.5)  # the last events on their way
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    result.unanswered_streams = streams - result.served - sum(result.refused.values())
    result.events = [c for c in counts if c] + [0] * (result.served - len([c for c in counts if c]))
    return result


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _report(label: str, r: Round, peak_mb: float) -> None:
    refused = ", ".join(f"{n} with {code}" for code, n in sorted(r.refused.items())) or "none"
    print(f"{label}: {r.streams} streams opened -> {r.served} served, refused {refused}, "
          f"{r.unanswered_streams} never answered")
    if r.events:
        print(f"  events per served stream: min {min(r.events)}, median {statistics.median(r.events):g} "
              f"(state changes made: {r.changes}, +1 for the state on connect)")
    print(f"  GET /api/state: {len(r.state_ms)} requests, p50 {_pct(r.state_ms, .5):.1f} ms, "
          f"p99 {_pct(r.state_ms, .99):.1f} ms, unanswered in {TIMEOUT_S:g} s: {r.state_unanswered}")
    statuses = ", ".join(f"{code}: {n}" for code, n in sorted(r.control_status.items()))
    print(f"  control POSTs:  {len(r.control_ms)} requests, p50 {_pct(r.control_ms, .5):.1f} ms, "
          f"p99 {_pct(r.control_ms, .99):.1f} ms, unanswered in {TIMEOUT_S:g} s: {r.control_unanswered} "
          f"(statuses {statuses or 'none'})")
    print(f"  server RSS: peak {peak_mb:.0f} MB", flush=True)


def _measure(server: Server, label: str, counts: list[int], seconds: float) -> None:
    print(f"{label}: idle RSS {server.rss_mb():.0f} MB", flush=True)
    for n in counts:
        server.start_sampling()
        result = asyncio.run(_round(server.port, n, seconds))
        peak = server.stop_sampling()
        _report(f"{label}, {n} streams", result, peak)
        time.sleep(1.0)  # the closed streams leave the server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--counts", default="50,200,500", help="event streams per round (default 50,200,500)")
    parser.add_argument("--seconds", type=float, default=8.0, help="how long each round plays (default 8)")
    parser.add_argument("--max-watchers", type=int, default=300, help="the server's watcher limit (default 300)")
    parser.add_argument("--no-baseline", dest="baseline", action="store_false",
                        help="skip the old waitress setup at 50 streams")
    parser.add_argument("--waitress-server", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.waitress_server:
        _run_waitress(args.waitress_server)
        return 0
    counts = [int(c) for c in args.counts.split(",") if c]
    if any(not 1 <= c <= 1000 for c in counts) or not 0 < args.seconds <= 30:
        parser.error("counts must be 1 to 1000 streams and --seconds at most 30")
    print(f"{os.cpu_count()} CPUs; control every 0.1 s and /api/state every 0.05 s for {args.seconds:g} s "
          f"beside the streams; the clients run in this process", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.baseline:
            port = _free_port()
            base = Path(tmp) / "old"
            base.mkdir()
            server = Server(_write_config(base, port, args.max_watchers), port, old=True)
            try:
                _measure(server, "old: waitress, 16 threads", [50], args.seconds)
            finally:
                server.stop()
        port = _free_port()
        new = Path(tmp) / "new"
        new.mkdir()
        server = Server(_write_config(new, port, args.max_watchers), port, old=False)
        try:
            _measure(server, f"new: asyncio front (limit {args.max_watchers} watchers)", counts, args.seconds)
        finally:
            # a few streams open when the SIGTERM comes, as when players leave pages open
            async def hold() -> list[asyncio.StreamWriter]:
                writers = []
                for _ in range(5):
                    _, w = await asyncio.open_connection("127.0.0.1", port)
                    w.write(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
                    writers.append(w)
                await asyncio.sleep(0.3)
                return writers

            loop = asyncio.new_event_loop()
            writers = loop.run_until_complete(hold())
            took, status, err = server.stop()
            for w in writers:
                w.close()
            loop.close()
            tracebacks = err.count("Traceback")
            print(f"stop (SIGTERM, 5 streams open): exited in {took:.2f} s with status {status}, "
                  f"{tracebacks} tracebacks on stderr", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
