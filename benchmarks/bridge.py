"""The dice box link, measured: decoder throughput, and the time from a
vanished port to a working link again (goal: under 2 s).

    python benchmarks/bridge.py [--megabytes 8] [--trials 20]

Throughput is measured on one stream fed whole and in the small chunks a
serial port hands over, with and without garbage, against a floor in the
same run: splitting the same bytes at the zeros and taking the CRC-32 of
each piece in C, the least any decoder of this framing must do.
Reconnection uses the fake box on a pseudo-terminal (the link's real
pySerial code path): the port vanishes, comes back after an outage, and the
clock stops when the box has said HELLO to the link again.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import zlib

from willughby.firmware_bridge.codec import Ack, Decoder, Heartbeat, Press, Throw, encode
from willughby.firmware_bridge.fake import FakeBox
from willughby.firmware_bridge.link import BoxLink


def _stream(megabytes: float, garbage: float, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    kinds = [lambda i: Throw(0x5EED, i & 0xFFFF, "box", (rng.randint(1, 6), rng.randint(1, 6))),
             lambda i: Press(0x5EED, i & 0xFFFF, "done"),
             lambda i: Heartbeat(0x5EED, i * 500 & 0xFFFFFFFF, i & 0xFFFF, 0),
             lambda i: Ack(0x5EED, i & 0xFFFF)]
    out = bytearray()
    i = 0
    target = int(megabytes * 1e6)
    while len(out) < target:
        if garbage and rng.random() < garbage:
            out += rng.randbytes(rng.randrange(1, 40))
        out += encode(kinds[i % 4](i))
        i += 1
    return bytes(out)


def _throughput(data: bytes, chunk: int) -> tuple[float, int]:
    d = Decoder()
    t = time.perf_counter()
    n = 0
    for i in range(0, len(data), chunk):
        n += len(d.feed(data[i:i + chunk]))
    d.close()
    return len(data) / (time.perf_counter() - t) / 1e6, n


def _floor(data: bytes) -> float:
    t = time.perf_counter()
    for part in data.split(b"\x00"):
        if part:
            zlib.crc32(part)
    return len(data) / (time.perf_counter() - t) / 1e6


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def _reconnect(trials: int, outage: float) -> tuple[list[float], list[float]]:
    """Seconds from vanish to connected again, and from reappearance to connected again."""
    total, after = [], []
    with FakeBox(seed=5) as box, BoxLink(box.port) as link:
        if not link.wait_connected(10):
            raise SystemExit("the link never connected to the fake box")
        for _ in range(trials):
            time.sleep(0.2)                       # a settled link, heartbeats flowing
            t0 = time.perf_counter()
            box.vanish()
            while link.connected:                 # the link notices the port has gone
                time.sleep(0.0005)
            if outage:
                time.sleep(outage)
            t1 = time.perf_counter()
            box.reappear()
            if not link.wait_connected(10):
                raise SystemExit("the link did not come back within 10 s")
            t2 = time.perf_counter()
            total.append(t2 - t0)
            after.append(t2 - t1)
    return total, after


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--megabytes", type=float, default=8.0, help="size of each decoded stream (default 8)")
    ap.add_argument("--trials", type=int, default=20, help="reconnections per outage (default 20)")
    args = ap.parse_args(argv)

    print("decoder throughput (MB/s, one thread)")
    print(f"{'stream':34} {'chunk':>7} {'decoder':>9} {'floor':>7} {'messages':>9}")
    for label, garbage in (("frames only", 0.0), ("frames, 10% with garbage", 0.1)):
        data = _stream(args.megabytes, garbage)
        floor = _floor(data)
        for chunk in (65536, 64):
            rate, n = _throughput(data, chunk)
            print(f"{label:34} {chunk:>7} {rate:9.2f} {floor:7.1f} {n:9d}")
    print("(floor: split at the zeros and CRC-32 each piece in C, no COBS or field checks)")
    print()
    print(f"vanished port to working link again (fake box on a pseudo-terminal, {args.trials} trials each)")
    print(f"{'outage':>8} {'median s':>9} {'p95 s':>7} {'max s':>7}   {'after return: median':>20} {'max':>7}")
    worst = 0.0
    for outage in (0.0, 0.5, 1.0):
        total, after = _reconnect(args.trials, outage)
        worst = max(worst, max(after))
        print(f"{outage:8.1f} {statistics.median(total):9.3f} {_percentile(total, 0.95):7.3f} {max(total):7.3f}"
              f"   {statistics.median(after):20.3f} {max(after):7.3f}")
    print(f"goal: back within 2 s of the port's return; worst measured {worst:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
