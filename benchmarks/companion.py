"""The companion, measured over demo games: the time from a settled camera
frame to its announcement reaching a server-sent-events client (goal: under
250 ms), and the service's resident memory during a game (goal: under 200 MB).

    python benchmarks/companion.py [--games 1] [--speed 50]

Latency: the demo runs in this process (drawn table, fake box, automatic
players) behind waitress on a free port; one SSE client reads
``/api/events``. For each ruling made on a camera reading, the clock runs
from the moment the frame that settled the board was taken to the moment the
client has the state that carries the ruling. The reader's own time on the
same frames is printed beside it, the part of the delay that is the camera's.

Memory: ``willughby demo`` runs as its own process, exactly as a user starts
it, with an SSE client attached; its resident set (VmRSS) is sampled every
0.2 s until the games end, and its peak (VmHWM) read at the end; then again
with glibc's default malloc arenas (``WILLUGHBY_MALLOC_ARENAS=0``), the
baseline the service's limit of two is measured against.
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def _sse_states(host: str, port: int, stop: threading.Event, sink, conns: list | None = None) -> None:
    conn = http.client.HTTPConnection(host, port, timeout=120)
    if conns is not None:
        conns.append(conn)
    conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
    resp = conn.getresponse()
    data: list[str] = []
    while not stop.is_set():
        line = resp.fp.readline()
        if not line:
            return
        text = line.decode("utf-8").rstrip("\n")
        if text.startswith("data:"):
            data.append(text[5:].lstrip())
        elif text == "" and data:
            sink(json.loads("\n".join(data)), time.monotonic())
            data = []
    conn.close()


def latency(games: int, speed: float, seed: int) -> None:
    from waitress import create_server

    from willughby.companion.config import CompanionConfig
    from willughby.companion.runtime import build

    with tempfile.TemporaryDirectory() as tmp:
        rt = build(CompanionConfig(data_dir=Path(tmp), speech="off"), demo=True, speed=speed, seed=seed,
                   games=games, mistakes=0.05)
        server = create_server(rt.app, host="127.0.0.1", port=0, threads=8)
        threading.Thread(target=server.run, daemon=True).start()
        watcher = rt.parts["watcher"]
        samples: list[float] = []
        reads: list[float] = []
        seen = {"rulings": 0, "readings": 0}
        done = threading.Event()

        def on_state(state: dict, now: float) -> None:
            n = len(state.get("rulings") or [])
            turn = state["rulings"][-1]["seq"] if n else 0
            if turn > seen["rulings"]:
                seen["rulings"] = turn
                last = state["rulings"][-1]
                by_camera = watcher.readings > seen["readings"] and not any(
                    e["type"] == "pass" for e in last.get("events", []))
                if by_camera and watcher.last_settled_at is not None and now - watcher.last_settled_at < 5:
                    samples.append((now - watcher.last_settled_at) * 1000)
                    if watcher.last_read_ms is not None:
                        reads.append(watcher.last_read_ms)
                seen["readings"] = watcher.readings
            if state.get("phase") == "over" and rt.parts["players"].finished.is_set():
                done.set()

        stop = threading.Event()
        conns: list = []
        client = threading.Thread(target=_sse_states, args=("127.0.0.1", server.effective_port, stop, on_state,
                                                            conns), daemon=True)
        client.start()
        t0 = time.monotonic()
        while not rt.parts["players"].finished.is_set() and time.monotonic() - t0 < 900:
            time.sleep(0.2)
        elapsed = time.monotonic() - t0
        stop.set()
        for conn in conns:
            conn.close()                          # the client leaves first, so no stream is cut mid-write
        rt.close()
        time.sleep(0.5)
        # a stream thread still waiting for its keepalive finds the server gone: not a fault of the run
        logging.getLogger("waitress").setLevel(logging.CRITICAL)
        server.close()
    if not samples:
        raise SystemExit("no ruling was measured")
    print(f"settled frame -> announcement at an SSE client ({len(samples)} rulings made on camera readings, "
          f"{games} game(s), {elapsed:.0f} s)")
    print(f"  median {statistics.median(samples):6.1f} ms   p95 {_percentile(samples, 0.95):6.1f} ms   "
          f"max {max(samples):6.1f} ms")
    if reads:
        print(f"  of which reading the frame: median {statistics.median(reads):6.1f} ms   "
              f"p95 {_percentile(reads, 0.95):6.1f} ms")
    print("  goal: under 250 ms")


def _rss(pid: int) -> tuple[int, int]:
    rss = hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = int(line.split()[1])
    return rss, hwm


def memory(games: int, speed: float, seed: int, arenas: str | None = None) -> None:
    env = dict(os.environ)
    if arenas is not None:
        env["WILLUGHBY_MALLOC_ARENAS"] = arenas
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-m", "willughby.companion", "demo", "--port", "0",
                                 "--speed", str(speed), "--games", str(games), "--seed", str(seed),
                                 "--data-dir", tmp], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                env=env)
        try:
            first = proc.stdout.readline()
            port = int(first.rsplit(":", 1)[1].strip().strip("/"))
            stop = threading.Event()
            states: list[dict] = []
            threading.Thread(target=_sse_states, args=("127.0.0.1", port, stop, lambda s, t: states.append(s)),
                             daemon=True).start()
            peak = 0
            samples = []
            t0 = time.monotonic()
            over = 0
            while time.monotonic() - t0 < 900:
                rss, hwm = _rss(proc.pid)
                samples.append(rss)
                peak = max(peak, hwm)
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("GET", "/api/games")
                doc = json.loads(conn.getresponse().read())
                conn.close()
                over = sum(1 for g in doc["games"] if g["status"] == "over")
                if over >= games:
                    break
                time.sleep(0.2)
            rss, hwm = _rss(proc.pid)
            peak = max(peak, hwm)
            stop.set()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
    how = "as shipped (2 malloc arenas)" if arenas is None else "baseline: glibc's default malloc arenas"
    print(f"resident memory of 'willughby demo', {how}, over {over} game(s), {len(samples)} samples, "
          f"{len(states)} SSE states received")
    print(f"  median {statistics.median(samples) / 1024:6.1f} MB   peak (VmHWM) {peak / 1024:6.1f} MB   "
          f"at the end {rss / 1024:6.1f} MB")
    print("  goal: under 200 MB")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1, help="demo games per measurement (default 1)")
    ap.add_argument("--speed", type=float, default=50.0, help="the demo's pace (default 50)")
    ap.add_argument("--seed", type=int, default=11, help="the players' seed")
    args = ap.parse_args(argv)
    latency(args.games, args.speed, args.seed)
    print()
    memory(args.games, args.speed, args.seed)
    print()
    memory(args.games, args.speed, args.seed, arenas="0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
