"""The tournament clock against the monotonic timer over a long match: does it drift?

A match of ``--moves`` moves (default 400) is played on the real ``time.monotonic``: each move sleeps a
random time (``--move-ms``, up to 40 ms by default), and now and then a question pauses the clock. Each
move's true length is measured independently, from ``time.perf_counter`` at its two ends; at the end each
player's reserve used by :class:`~willughby.companion.clock.MatchClock` (mode ``none``: every second
counts) is compared with the sum of his moves' true lengths (pauses left out), each end taken as the middle of
two ``perf_counter`` readings around the clock's step.

Beside it, in the same run, the baseline a clock that counts ticks would be: a thread waking every
``--tick-ms`` (default 10 ms) and taking one tick from the running player's reserve, as a naive countdown
does. Its error grows with the match (each wake-up is late by the scheduler's delay); the clock's should
stay at the timer's own resolution.

    python benchmarks/clock_drift.py [--moves 400] [--move-ms 40] [--tick-ms 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from willughby.companion.clock import ClockTerms, MatchClock  # noqa: E402


class TickClock:
    """The baseline: a thread takes one tick from the running player's reserve at each wake-up."""

    def __init__(self, reserve_s: float, tick_s: float) -> None:
        self.reserve = {"light": reserve_s, "dark": reserve_s}
        self.running: str | None = None
        self.tick_s = tick_s
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.tick_s):
            with self._lock:
                if self.running is not None:
                    self.reserve[self.running] -= self.tick_s

    def set_running(self, colour: str | None) -> None:
        with self._lock:
            self.running = colour

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=400)
    ap.add_argument("--move-ms", type=float, default=40.0, help="the longest move (each is random up to it)")
    ap.add_argument("--tick-ms", type=float, default=10.0, help="the baseline's tick")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    if args.moves < 2 or args.move_ms <= 0 or args.tick_ms <= 0:
        print("clock_drift: --moves must be 2 or more, --move-ms and --tick-ms above 0", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    reserve = 3600.0
    clock = MatchClock(ClockTerms(reserve_s=reserve, delay_s=0.0, mode="none"), now=time.monotonic)
    ticks = TickClock(reserve, args.tick_ms / 1000.0)
    true_used = {"light": 0.0, "dark": 0.0}
    colour = "light"

    def at(step: Callable[[], object]) -> float:
        """When *step* read the timer, as nearly as can be told: the middle of the two readings around it."""
        before = time.perf_counter()
        step()
        return (before + time.perf_counter()) / 2

    started = time.perf_counter()
    begun = at(lambda: clock.start(colour))
    ticks.set_running(colour)
    pauses = 0
    try:
        for n in range(args.moves):
            time.sleep(rng.uniform(0.0, args.move_ms) / 1000.0)
            if rng.random() < 0.1:                  # a question: the clocks held, the time not counted
                true_used[colour] += at(clock.pause) - begun
                ticks.set_running(None)
                time.sleep(rng.uniform(0.0, args.move_ms) / 1000.0)
                begun = at(clock.resume)
                ticks.set_running(colour)
                pauses += 1
                time.sleep(rng.uniform(0.0, args.move_ms) / 2000.0)
            mover = colour
            now = at(clock.switch)
            true_used[mover] += now - begun
            colour = "dark" if mover == "light" else "light"
            ticks.set_running(colour)
            begun = now
        true_used[colour] += at(clock.stop) - begun
        ticks.set_running(None)
    finally:
        ticks.close()
    wall = time.perf_counter() - started
    print(f"clock drift over a match of {args.moves} moves ({pauses} paused by a question), {wall:.1f} s of play; "
          f"moves up to {args.move_ms:g} ms, the baseline's tick {args.tick_ms:g} ms")
    print("| clock | light used (true) | light used (clock) | error | dark used (true) | dark used (clock) | "
          "error | error per hour of play |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, used in (("MatchClock (monotonic, charged at each move's ends)",
                        {c: reserve - clock.left(c) for c in true_used}),
                       ("baseline: a tick taken at each wake-up", {c: reserve - ticks.reserve[c] for c in true_used})):
        errors = {c: used[c] - true_used[c] for c in true_used}
        per_hour = (abs(errors["light"]) + abs(errors["dark"])) / max(wall, 1e-9) * 3600.0
        print(f"| {name} | {true_used['light']:.4f} | {used['light']:.4f} | {errors['light'] * 1000:+.2f} ms | "
              f"{true_used['dark']:.4f} | {used['dark']:.4f} | {errors['dark'] * 1000:+.2f} ms | "
              f"{per_hour:.2f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
