"""The players' controls with a hostile crowd on the network, beside the same without it.

Starts ``willughby serve`` in a subprocess (a temporary data directory, no
hardware, a known PIN, on a free port of 127.0.0.1) and measures the
players' requests (a login, then control POSTs every 0.1 s and ``GET
/api/state`` every 0.05 s) twice in one run:

1. **quiet**: nothing else on the network;
2. **hostile**: at once, 300 live-event watchers (the limit), 300
   connections that never send a byte, 100 that never finish their
   headers, and 20 uploads of 20 MB each sent without the PIN.

Prints for each: the control and state latencies (p50/p99; an unanswered
request counts as the timeout), the statuses, what became of the hostile
connections (answered, closed by the server), and the server's memory (its
peak RSS). Loopback only, bounded in count and time (about half a minute).
A report, never a pass/fail test::

    python benchmarks/hostile_network.py
    python benchmarks/hostile_network.py --seconds 5 --header-timeout 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from watchers import (TIMEOUT_S, Round, Server, _free_port, _pct, _players, _readers,  # noqa: E402
                      _write_config)

UPLOAD_BYTES = 20 * 1024 * 1024


def _address(group: int, k: int, per: int) -> str:
    """The loopback address of client *k* of a group, *per* clients an address (each phone, or each of the
    crowd's machines, has its own address: the server's limits per address see them as they would)."""
    return f"127.0.{group}.{1 + k // per}"


async def _open(port: int, address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))


async def _watcher(port: int, address: str, answered: dict[str, int], stop: asyncio.Event) -> None:
    """A page following the live events until *stop*."""
    reader, writer = await _open(port, address)
    try:
        writer.write(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n"
                     .encode())
        line = await asyncio.wait_for(reader.readline(), TIMEOUT_S * 2)
        key = line.split()[1].decode() if line else "closed"
        answered[key] = answered.get(key, 0) + 1
        while not stop.is_set() and await reader.read(65536):
            pass
    except (ConnectionError, asyncio.TimeoutError, IndexError):
        answered["unanswered"] = answered.get("unanswered", 0) + 1
    finally:
        writer.close()


async def _silent(port: int, address: str, closed: list[int], hold_s: float) -> None:
    """A connection that never sends a byte; counted in *closed* if the server closes it within *hold_s*."""
    reader, writer = await _open(port, address)
    try:
        if await asyncio.wait_for(reader.read(1), hold_s) == b"":
            closed[0] += 1
    except (asyncio.TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()


async def _half_headers(port: int, address: str, closed: list[int], hold_s: float) -> None:
    """A request whose headers never end (a line every second)."""
    reader, writer = await _open(port, address)
    try:
        writer.write(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        end = time.monotonic() + hold_s
        while time.monotonic() < end:
            writer.write(b"X-Slow: 1\r\n")
            await writer.drain()
            try:
                if await asyncio.wait_for(reader.read(1), 1.0) == b"":
                    closed[0] += 1
                    return
            except asyncio.TimeoutError:
                continue
    except ConnectionError:
        closed[0] += 1
    finally:
        writer.close()


async def _upload(port: int, address: str, statuses: dict[str, int]) -> None:
    """A 20 MB dispute photo sent without the PIN."""
    reader, writer = await _open(port, address)
    chunk = bytes(1024 * 1024)
    try:
        writer.write(f"POST /api/dispute/1/photo HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: "
                     f"multipart/form-data; boundary=b\r\nContent-Length: {UPLOAD_BYTES}\r\n\r\n".encode())
        for _ in range(UPLOAD_BYTES // len(chunk)):
            writer.write(chunk)
            await writer.drain()
        line = await asyncio.wait_for(reader.readline(), TIMEOUT_S)
        key = line.split()[1].decode() if line else "closed"
    except (ConnectionError, asyncio.TimeoutError, IndexError):
        key = "answered and closed before the 20 MB were sent"
    finally:
        writer.close()
    statuses[key] = statuses.get(key, 0) + 1


async def _hostile_round(port: int, seconds: float, quiet: bool) -> tuple[Round, dict[str, object]]:
    result = Round(0 if quiet else 300)
    tasks: list[asyncio.Task[None]] = []
    silent_closed, slow_closed = [0], [0]
    uploads: dict[str, int] = {}
    watchers: dict[str, int] = {}
    stop = asyncio.Event()
    if not quiet:
        hold = seconds + 2.0
        # 300 phones following the game (ten to an address), the crowd: 300 silent connections and 100 that
        # never finish their headers (30 to an address), 20 uploads without the PIN (from one)
        tasks += [asyncio.create_task(_watcher(port, _address(1, k, 10), watchers, stop)) for k in range(300)]
        tasks += [asyncio.create_task(_silent(port, _address(2, k, 30), silent_closed, hold)) for k in range(300)]
        tasks += [asyncio.create_task(_half_headers(port, _address(3, k, 30), slow_closed, hold))
                  for k in range(100)]
        tasks += [asyncio.create_task(_upload(port, _address(4, k, 20), uploads)) for k in range(20)]
        await asyncio.sleep(1.0)
    await asyncio.gather(_players(port, result, seconds), _readers(port, result, seconds))
    if not quiet:
        await asyncio.sleep(2.5)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return result, {"silent_closed": silent_closed[0], "slow_closed": slow_closed[0], "uploads": uploads,
                    "watchers": watchers}


def _report(label: str, r: Round, extra: dict[str, object], peak_mb: float) -> None:
    statuses = ", ".join(f"{code}: {n}" for code, n in sorted(r.control_status.items()))
    print(f"{label}:")
    print(f"  control POSTs:  {len(r.control_ms)}, p50 {_pct(r.control_ms, .5):.1f} ms, "
          f"p99 {_pct(r.control_ms, .99):.1f} ms, unanswered in {TIMEOUT_S:g} s: {r.control_unanswered} "
          f"(statuses {statuses or 'none'})")
    print(f"  GET /api/state: {len(r.state_ms)}, p50 {_pct(r.state_ms, .5):.1f} ms, "
          f"p99 {_pct(r.state_ms, .99):.1f} ms, unanswered: {r.state_unanswered}")
    if r.streams:
        print(f"  watchers (300) answered: {extra['watchers']}; silent connections closed by the server: "
              f"{extra['silent_closed']} of 300; never-ending headers closed: {extra['slow_closed']} of 100; "
              f"uploads without the PIN: {extra['uploads']}")
    print(f"  server RSS: peak {peak_mb:.0f} MB", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="how long the players play each round")
    parser.add_argument("--header-timeout", type=float, default=5.0,
                        help="the server's header_timeout_s (default 5: the silent ones are closed in the round)")
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= 30:
        parser.error("--seconds must be above 0 and at most 30")
    print(f"{os.cpu_count()} CPUs; control every 0.1 s and /api/state every 0.05 s for {args.seconds:g} s; the "
          "clients run in this process", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        port = _free_port()
        config = _write_config(Path(tmp), port, 300)
        text = config.read_text(encoding="utf-8").replace(
            "max_watchers = 300", f"max_watchers = 300\nheader_timeout_s = {args.header_timeout}")
        config.write_text(text, encoding="utf-8")
        server = Server(config, port, old=False)
        try:
            print(f"idle RSS {server.rss_mb():.0f} MB", flush=True)
            for label, quiet in (("quiet network", True), ("hostile network", False)):
                server.start_sampling()
                result, extra = asyncio.run(_hostile_round(port, args.seconds, quiet))
                _report(label, result, extra, server.stop_sampling())
                time.sleep(1.0)
        finally:
            took, status, err = server.stop()
            print(f"stop: exited in {took:.2f} s with status {status}, {err.count('Traceback')} tracebacks on stderr",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
