"""Chi-square fairness of every dice source that can roll.

    python benchmarks/dice_fairness.py [--throws 60000]

Sources: the dice box's own dice (the firmware's ``Box`` rolling through
``fair_die`` on ``os.urandom``, as on the Pico) and the Pi's own roll
(``PiDice`` on ``secrets.SystemRandom``). Hand entry does not roll. A
baseline in the same run, a die taken as a random byte mod 6 without the
firmware's rejection of bytes 252-255 (faces 1-4 then come up 43 times in
256, faces 5-6 42), shows what the test can see at this many throws: over
120,000 dice that bias adds about 14.6 to the faces' statistic on average
(non-centrality n x sum((p - 1/6)^2 / (1/6))), so its p-value is usually,
not always, below 0.05.

For each: the faces of every die (5 degrees of freedom), the ordered pairs
of the two dice of a throw (35), and each throw's first die against the
next throw's (35). A fair source gives p-values spread evenly over 0..1;
below 0.001 would be cause for alarm.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from typing import Callable

from willughby.firmware_bridge.codec import Ack, encode
from willughby.firmware_bridge.firmware.box import Box
from willughby.hardware.dice import PiDice
from willughby.hardware.fairness import chi_square


def box_thrower() -> Callable[[], tuple[int, ...]]:
    """Throws of the firmware's own ROLL, each acknowledged as the Pi would."""
    frames: list[bytes] = []
    box = Box(frames.append, lambda: 0, os.urandom)

    def throw() -> tuple[int, ...]:
        box.press("roll")
        seq, _ = box.outbox[-1]
        dice = box.shown
        box.receive(encode(Ack(box.session, seq)))
        return dice

    return throw


def pi_thrower() -> Callable[[], tuple[int, ...]]:
    dice = PiDice(dice_count=2)
    return lambda: dice.roll().dice


def modulo_thrower() -> Callable[[], tuple[int, ...]]:
    return lambda: tuple(b % 6 + 1 for b in os.urandom(2))


def measure(name: str, throw: Callable[[], tuple[int, ...]], n: int) -> None:
    t = time.perf_counter()
    throws = [throw() for _ in range(n)]
    secs = time.perf_counter() - t
    faces = Counter(d for th in throws for d in th)
    pairs = Counter((th[0], th[1]) for th in throws)
    serial = Counter((a[0], b[0]) for a, b in zip(throws, throws[1:]))
    f = chi_square([faces[k] for k in range(1, 7)])
    p = chi_square([pairs[(a, b)] for a in range(1, 7) for b in range(1, 7)])
    s = chi_square([serial[(a, b)] for a in range(1, 7) for b in range(1, 7)])
    share = " ".join(f"{faces[k] / (2 * n):.4f}" for k in range(1, 7))
    print(f"{name:34} {n:>7} {f[0]:8.2f} {f[2]:7.3f} {p[0]:8.2f} {p[2]:7.3f} {s[0]:8.2f} {s[2]:7.3f} "
          f"{n / secs:9.0f}   {share}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--throws", type=int, default=60_000, help="throws of two dice per source (default 60000)")
    args = ap.parse_args(argv)
    if args.throws < 1000:
        ap.error("--throws: at least 1000 for the test to mean anything")
    print(f"{'source':34} {'throws':>7} {'faces':>8} {'p':>7} {'pairs':>8} {'p':>7} {'serial':>8} {'p':>7} "
          f"{'throws/s':>9}   share of each face 1..6")
    measure("box: firmware ROLL (fair_die)", box_thrower(), args.throws)
    measure("pi: PiDice (SystemRandom)", pi_thrower(), args.throws)
    measure("baseline: byte mod 6, no rejection", modulo_thrower(), args.throws)
    print("(chi-square statistics; faces df 5, pairs and serial df 35; p the chance of so large a value "
          "from a fair source)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
