"""Move-generation speed: how long listing the legal plays takes, and how
many random self-play games run per second.

    python benchmarks/movegen.py [--pairs 10000] [--games 200] [--seed 1]

Prints, for random (position, throw) pairs of the ``backgammon`` preset (a
mix of contact, bar, prime, bear-off and race positions), the median and
99th-percentile time of ``legal_plays``, split into doublets and other
throws, and random self-play games per second.  Goals (issue 2): median at
most 0.3 ms, p99 at most 5 ms, at least 50 games per second.  A report, not
a pass/fail test: shared machines are noisy.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time

from willughby.engine.moves import legal_plays
from willughby.engine.rules import preset_rules
from willughby.engine.sampling import KINDS, random_dice, random_game, random_position


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rules = preset_rules("backgammon")
    rng = random.Random(args.seed)
    pairs = [(random_position(rng, KINDS[i % len(KINDS)], turn=rng.choice(("light", "dark"))),
              random_dice(rng, rules)) for i in range(args.pairs)]
    times: list[float] = []
    doublet_times: list[float] = []
    plain_times: list[float] = []
    plays = 0
    clock = time.perf_counter
    for n, (pos, dice) in enumerate(pairs):
        t0 = clock()
        result = legal_plays(rules, pos, dice)
        dt = (clock() - t0) * 1000
        plays += len(result)
        times.append(dt)
        (doublet_times if dice[0] == dice[1] else plain_times).append(dt)
        if (n + 1) % 2000 == 0:
            print(f"  ... {n + 1}/{len(pairs)} pairs", file=sys.stderr)
    print(f"machine: {platform.python_implementation()} {platform.python_version()} on {platform.machine()}")
    print(f"legal_plays over {len(pairs)} random (position, throw) pairs of backgammon "
          f"({plays} plays listed, {plays / len(pairs):.1f} per pair):")
    print(f"  all throws: median {statistics.median(times):.3f} ms, p99 {percentile(times, 99):.3f} ms, "
          f"max {max(times):.3f} ms   (goal: median <= 0.3 ms, p99 <= 5 ms)")
    print(f"  non-doublets: median {statistics.median(plain_times):.3f} ms, p99 {percentile(plain_times, 99):.3f} ms")
    print(f"  doublets:     median {statistics.median(doublet_times):.3f} ms, p99 {percentile(doublet_times, 99):.3f} ms")
    grng = random.Random(args.seed)
    t0 = clock()
    turns = 0
    for _ in range(args.games):
        n, _winner = random_game(grng, rules)
        turns += n
    elapsed = clock() - t0
    print(f"random self-play: {args.games} games, {turns} turns in {elapsed:.2f} s: "
          f"{args.games / elapsed:.1f} games/s, {turns / elapsed:.0f} turns/s   (goal: >= 50 games/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
