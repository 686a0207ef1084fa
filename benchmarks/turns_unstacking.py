"""The unstacking games' turns judged from the camera: ruled right, asked, ruled wrong.

Doublets and its kin are played by the engine (random legal outcomes, and
now and then a wrong turn on purpose: a man played down on a point the
throw did not name, or a pile left standing that the throw played down),
drawn at one table a game in styles the point reader never learnt from
(``--style-set``, default ``held-out-test``), and each turn is read and
judged as the companion would, with the frame before. In these games a play
changes piles, not how many men stand on a point, so the turn reader weighs
each point's count and pile together, with where along the point the
picture changed since the frame before (``judge(..., piles=True)``,
``vision/turns_piles.py``, ``vision/footprints.py``). The baseline in the
same run is the turn reader weighing counts alone.

A turn is right when the ruling's board has the true men *and* piles.

    python benchmarks/turns_unstacking.py                   # 400 turns, two worker processes
    python benchmarks/turns_unstacking.py --turns 100 --workers 1 --presets doublets
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))          # run from a checkout without installing
sys.path.insert(0, str(HERE))

import turns as race_turns  # noqa: E402  (the drawing and reading of benchmarks/turns.py)

from willughby.engine.position import Position  # noqa: E402
from willughby.engine.referee import turn_outcomes  # noqa: E402
from willughby.engine.rules import preset_rules, start_position  # noqa: E402

PRESETS = ("doublets", "doublets-cotton", "dames-rabattues", "doblet", "ofanfelling")


def _mistake(rng: random.Random, rules: Any, pos: Position, outcome: Any, keys: set) -> dict[str, Any] | None:
    """A wrong turn the players might make: the outcome with one pile more or
    one less played down on a point of the mover's (a pile of 3 becomes 2 or
    2 becomes 0; a pile of 2 left standing where the throw played it down)."""
    board = outcome.position.to_board()
    mover = pos.turn
    stacked = list(board["stacked"][mover]) if "stacked" in board else [0] * 24
    men = board[mover]
    order = [i for i in range(24) if men[i] >= 2]
    rng.shuffle(order)
    for i in order:
        s = stacked[i]
        choices = []
        if s >= 2:
            choices.append(s - 1 if s - 1 >= 2 else 0)        # one more man played down
        if s < men[i]:
            choices.append(2 if s == 0 else s + 1)            # one man fewer played down
        for new in choices:
            trial = dict(board)
            st = {k: list(v) for k, v in (board.get("stacked") or {"light": [0] * 24, "dark": [0] * 24}).items()}
            st[mover][i] = new
            trial["stacked"] = st
            trial.pop("turn", None)
            trial.pop("phase", None)
            try:
                wrong = Position.from_board(trial, men=rules.men)
            except ValueError:
                continue
            if wrong.physical_key() not in keys:
                return wrong.to_board()
    return None


def play_games(seed: int, turns: int, wrong_share: float, presets: tuple[str, ...]) -> list[list[race_turns.TurnCase]]:
    """Games of *presets* (in turn) until *turns* turns are made."""
    rng = random.Random(seed)
    games: list[list[race_turns.TurnCase]] = []
    made = 0
    k = 0
    while made < turns:
        rules = preset_rules(presets[k % len(presets)])
        k += 1
        pos = start_position(rules, rng.choice(("light", "dark")))
        game: list[race_turns.TurnCase] = []
        while made < turns and len(game) < 60:
            dice = tuple(rng.randint(1, 6) for _ in range(rules.dice_thrown))
            outcomes = turn_outcomes(rules, pos, dice)
            cands = [(o.play.notation or "(no play)", o.position.to_board()) for o in outcomes]
            keys = {o.position.physical_key() for o in outcomes}
            o = rng.choice(outcomes)
            drawn = dice[:2]      # the painter draws two dice on the table (Doblet's third is not drawn)
            if rng.random() < wrong_share:
                wrong = _mistake(rng, rules, pos, o, keys)
                if wrong is not None:
                    game.append(race_turns.TurnCase(pos, drawn, wrong, False, None, cands))
                    made += 1
            game.append(race_turns.TurnCase(pos, drawn, o.position.to_board(), True,
                                            o.play.notation or "(no play)", cands))
            made += 1
            if any(e for e in (o.position.off[0] == rules.men, o.position.off[1] == rules.men)):
                break
            pos = o.position
        games.append(game)
    return games


def _same(board: dict[str, Any] | None, truth: dict[str, Any]) -> bool:
    if board is None:
        return False
    zeros = {"light": [0] * 24, "dark": [0] * 24}
    return (board["light"] == truth["light"] and board["dark"] == truth["dark"]
            and (board.get("stacked") or zeros) == (truth.get("stacked") or zeros))


def judge_all(seen: list[Any], reader: Any, piles: bool) -> tuple[race_turns.Tally, list[dict[str, Any]]]:
    from willughby.vision.turns import Candidate, TurnEvidence

    tally = race_turns.Tally()
    wrong = []
    for k, s in enumerate(seen):
        case = s.case
        ev = TurnEvidence(s.count_probs, s.bar, s.settled, s.changes, pile_probs=s.pile_probs if piles else None,
                          profiles=s.profiles if piles else None, faint_profiles=s.faint_profiles if piles else None)
        men = 12 if sum(case.before.light) + case.before.off[0] == 12 else 15
        found = reader.judge([Candidate(p, b) for p, b in case.candidates], ev,
                             before=case.before.to_board(), men=men, piles=piles)
        if found.verdict == "unsure":
            got = "asked"
        elif case.legal:
            got = "right" if found.verdict == "legal" and _same(found.board, case.after) else "wrong"
        else:
            got = "right" if found.verdict == "illegal" else "wrong"
        tally.add(case.legal, got)
        if got == "wrong":
            wrong.append({"turn": k, "truth": "legal" if case.legal else "illegal", "verdict": found.verdict,
                          "play": found.play, "truth_play": case.play, "style": s.style})
    return tally, wrong


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=400, help="turns to judge (default 400)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes, one core each (default 2)")
    ap.add_argument("--style-set", default="held-out-test", help="the styles the games are drawn in")
    ap.add_argument("--wrong", type=float, default=0.1, help="share of turns with a wrong turn first (0.1)")
    ap.add_argument("--seed", type=int, default=17, help="seed of the games and their drawing")
    ap.add_argument("--presets", default=",".join(PRESETS), help="comma-separated presets (default: all five)")
    ap.add_argument("--cache", type=Path, help="keep the frames' readings in this file, and reuse them")
    args = ap.parse_args(argv)
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip())
    for p in presets:
        if preset_rules(p).family != "unstacking":
            ap.error(f"{p} is not an unstacking game")
    if args.turns < 1 or args.workers < 1:
        ap.error("--turns and --workers must be at least 1")
    from willughby.vision.turns import TurnReader

    games = play_games(args.seed, args.turns, args.wrong, presets)
    n = sum(len(g) for g in games)
    print(f"{n} turns in {len(games)} games of {', '.join(presets)}, styles {args.style_set!r}", flush=True)
    t0 = time.perf_counter()
    seen = race_turns.see(games, args.style_set, args.seed, args.workers, args.cache)
    reader = TurnReader()
    print("\nturns (right = ruled as it was, men and piles; asked = a question; wrong = a wrong ruling)")
    with_piles, wrong = judge_all(seen, reader, piles=True)
    race_turns._print_tally("turn reader, counts, piles and places", with_piles)
    race_turns._print_tally("turn reader, counts alone (baseline)", judge_all(seen, reader, piles=False)[0])
    piles_right = sum(int((s.pile_probs.argmax(axis=1) == _pile_truth(s.case.after)).sum()) for s in seen
                      if s.pile_probs is not None)
    print(f"\nsingle frames: piles read right at {piles_right}/{24 * len(seen)} points "
          f"({100 * piles_right / max(24 * len(seen), 1):.2f}%); men counts right at "
          f"{sum(int((s.read == race_turns.truth_classes(s.case)).sum()) for s in seen)}/{24 * len(seen)}")
    ms = sorted(s.read_ms for s in seen)
    print(f"ms per turn on one core: reading the frame median {ms[len(ms) // 2]:.1f}")
    for w in wrong[:20]:
        print(f"  wrong: {w}")
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 0


def _pile_truth(board: dict[str, Any]) -> Any:
    from willughby.vision.turns import pile_classes
    return pile_classes(board)


if __name__ == "__main__":
    raise SystemExit(main())
