"""Move-generation speed: how long listing the legal plays takes, and how
many random self-play games run per second.

    python benchmarks/movegen.py [--pairs 10000] [--games 200] [--seed 1]
                                [--unstack-pairs 2000] [--tallies 20000] [--judges 300]
                                [--only race,unstacking,sice-ace,judge]

Prints, for random (position, throw) pairs of the ``backgammon`` preset (a
mix of contact, bar, prime, bear-off and race positions), the median and
99th-percentile time of ``legal_plays``, split into doublets and other
throws, and random self-play games per second.  Goals (issue 2): median at
most 0.3 ms, p99 at most 5 ms, at least 50 games per second.

Then (issue 17): for each unstacking preset, the time to list the outcomes of
a throw (``referee.turn_outcomes``) on positions drawn from random games,
pip-total doublets apart from the other throws, and the time to judge a
turn (a legal board and an illegal one); for ``sice-ace``, the time of
``counting.count_throw`` on tallies from random games of 2 to 5 players; and
the time of ``referee.judge`` for a race game (``irish``) under
``doubles=pip-total`` on contact positions with doublets, a legal board
and an illegal one.  Goals: p99 under 5 ms for listing, judge under 20 ms.

A report, not a pass/fail test: shared machines are noisy.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time

from willughby.engine.counting import Tally, count_throw
from willughby.engine.moves import legal_plays
from willughby.engine.referee import game_over, judge, turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.engine.sampling import KINDS, random_dice, random_game, random_position

UNSTACKING = ("doublets", "doublets-cotton", "dames-rabattues", "doblet", "ofanfelling")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def figures(times: list[float]) -> str:
    if not times:
        return "(none)"
    return (f"median {statistics.median(times):.3f} ms, p99 {percentile(times, 99):.3f} ms, "
            f"max {max(times):.3f} ms  (n={len(times)})")


def timed(fn, *args) -> tuple[float, object]:
    t0 = time.perf_counter()
    result = fn(*args)
    return (time.perf_counter() - t0) * 1000, result


def game_pairs(rng: random.Random, rules, n: int) -> list:
    """(position, throw) pairs met along random games of an unstacking preset."""
    pairs: list = []
    while len(pairs) < n:
        pos = start_position(rules, rng.choice(("light", "dark")))
        for _ in range(400):
            dice = random_dice(rng, rules)
            pairs.append((pos, dice))
            o = rng.choice(turn_outcomes(rules, pos, dice))
            if game_over(rules, o.position, pos.turn, dice) is not None:
                break
            pos = o.position
    rng.shuffle(pairs)
    return pairs[:n]


def bench_unstacking(args: argparse.Namespace) -> None:
    print(f"turn_outcomes of the unstacking games, {args.unstack_pairs} (position, throw) pairs "
          "from random games each  (goal: p99 < 5 ms)")
    for preset in UNSTACKING:
        rules = preset_rules(preset)
        rng = random.Random(f"{args.seed}-{preset}")
        pairs = game_pairs(rng, rules, args.unstack_pairs)
        pip, plain, judged_legal, judged_illegal = [], [], [], []
        for k, (pos, dice) in enumerate(pairs):
            dt, found = timed(turn_outcomes, rules, pos, dice)
            doublet = len(set(dice)) < len(dice) and rules.doubles == "pip-total"
            (pip if doublet else plain).append(dt)
            if k < args.judges:
                legal = rng.choice(found).position
                judged_legal.append(timed(judge, rules, pos, dice, legal)[0])
                other = pairs[(k + 1) % len(pairs)][0].with_turn(legal.turn)
                judged_illegal.append(timed(judge, rules, pos, dice, other)[0])
        print(f"  {preset:16s} {'other throws' if pip else 'all throws':13s} {figures(plain)}")
        if pip:
            print(f"  {'':16s} {'pip-total dbl':13s} {figures(pip)}")
        print(f"  {'':16s} {'judge legal':13s} {figures(judged_legal)}")
        print(f"  {'':16s} {'judge other':13s} {figures(judged_illegal)}")


def bench_sice_ace(args: argparse.Namespace) -> None:
    rules_of = {n: preset_rules("sice-ace", {"players": str(n)}) for n in range(2, 6)}
    rng = random.Random(args.seed)
    times: list[float] = []
    tally, rules = None, None
    while len(times) < args.tallies:
        if tally is None or tally.over:
            n = rng.randint(2, 5)
            tally, rules = Tally.start(n), rules_of[n]
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        dt, outcome = timed(count_throw, rules, tally, dice)
        times.append(dt)
        tally = outcome.after
    print(f"count_throw of sice-ace (2-5 players, tallies from random games): {figures(times)}  "
          "(goal: p99 < 5 ms)")


def bench_race_judge(args: argparse.Namespace) -> None:
    rules = preset_rules("irish", {"doubles": "pip-total"})
    rng = random.Random(args.seed)
    legal_t, illegal_t, listing = [], [], []
    for _ in range(args.judges):
        pos = random_position(rng, "contact", turn=rng.choice(("light", "dark")))
        d = rng.randint(1, 6)
        dt, plays = timed(legal_plays, rules, pos, (d, d))
        listing.append(dt)
        legal_t.append(timed(judge, rules, pos, (d, d), rng.choice(plays).position)[0])
        other = random_position(rng, "contact", turn=pos.turn)
        illegal_t.append(timed(judge, rules, pos, (d, d), other)[0])
    print(f"race game (irish, doubles=pip-total) on contact positions, doublets  (goal: judge < 20 ms):")
    print(f"  legal_plays:        {figures(listing)}")
    print(f"  judge, legal board: {figures(legal_t)}")
    print(f"  judge, other board: {figures(illegal_t)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--unstack-pairs", type=int, default=2000)
    ap.add_argument("--tallies", type=int, default=20_000)
    ap.add_argument("--judges", type=int, default=300)
    ap.add_argument("--only", default="race,unstacking,sice-ace,judge",
                    help="the sections to run, comma-separated")
    args = ap.parse_args(argv)
    only = set(args.only.split(","))
    print(f"machine: {platform.python_implementation()} {platform.python_version()} on {platform.machine()}")
    if "race" in only:
        bench_race(args)
    if "unstacking" in only:
        bench_unstacking(args)
    if "sice-ace" in only:
        bench_sice_ace(args)
    if "judge" in only:
        bench_race_judge(args)
    return 0


def bench_race(args: argparse.Namespace) -> None:
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


if __name__ == "__main__":
    sys.exit(main())
