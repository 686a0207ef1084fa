"""Whole games refereed with misreads injected: does the referee find its way back?

A single turn judged from a true board before says little of a game: one confident misread early on leaves
the referee holding a board that is not on the table, and every turn after it is judged from the wrong
board. This plays whole games of backgammon through the companion exactly as at the table (the box's throws
through ``enter_dice``; each settled frame through ``on_reading`` with the turn reader's evidence, so the
referee's own turn reader weighs the throw's legal boards against it; the players' answers through
``answer``, and their own board through ``submit_board`` where the referee rules a legal play illegal or
asks nothing they can answer), while a true game goes on beside it: the players' random legal plays, the
board truly on the table.

The evidence is drawn, not read from pixels: the point reader's probabilities sure (0.97) of the board
the frame shows, the men on the bar, and each point's changed picture since the frame before (a point
whose men changed, 0.6; one whose men did not, 0.02; the bar's, where the referee's reader measures it,
0.5 where a man came or went, 0.01 where none did). At random stills the camera is told to misread,
confidently:

- ``miss``: the point reader misses a play (its probabilities are those of the board before the play, as
  when a man entered from the bar onto a point of his own colour goes unseen), while the picture changed
  where the men moved;
- ``unseen``: no frame settled between two plays (the probabilities and the changes both those of the
  board before): the next frame shows the next play, two plays from the board the referee holds;
- ``swap``: two points' counts read swapped (the picture's changes are the true ones).

Printed, for the referee of this checkout and, with ``--baseline REV``, for the one of that revision
(built in a scratch folder, run in a subprocess, same games and misreads): per game, rulings made, ruled
wrongly (a legal play ruled illegal, or a play ruled that is not the one made), questions asked, throws the
referee refused, how often the players had to put the referee's board right, and after each misread how
many stills until the referee held the true board again (``never`` where the game ended first).

    python benchmarks/whole_games.py --games 100 --seed 7 --baseline b7fe5e9

This is the referee's side of the table: how often the point reader misreads real pixels, and how the
turn reader weighs them, is ``benchmarks/turns.py --learn``'s work.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MAX_STILLS = 400          # a game that runs longer than this (the referee lost for good) is stopped
KINDS = ("miss", "unseen", "swap")


def _board(position: Any) -> dict[str, Any]:
    doc = position.to_board()
    return {k: v for k, v in doc.items() if k != "turn"}


def _evidence(shown: dict[str, Any], before_frame: dict[str, Any], changed_from: dict[str, Any],
              changed_to: dict[str, Any]) -> Any:
    """The turn reader's evidence of a frame showing *shown*, the frame before having been read as
    *before_frame*; the picture changed where the men of *changed_from* and *changed_to* differ."""
    import numpy as np

    from willughby.vision.classes import CLASSES, board_classes
    from willughby.vision.turns_evidence import TurnEvidence

    probs = np.full((24, CLASSES), 0.03 / (CLASSES - 1))
    probs[np.arange(24), board_classes(shown)] = 0.97
    moved = (board_classes(changed_from) != board_classes(changed_to))
    changes = np.where(moved, 0.6, 0.02)
    evidence = TurnEvidence(probs, dict(shown["bar"]), True, changes, before_read=dict(before_frame))
    if "bar_change" in {f.name for f in dataclasses.fields(TurnEvidence)}:      # (not in older referees)
        evidence.bar_change = 0.5 if changed_from["bar"] != changed_to["bar"] else 0.01
    return evidence


def _swapped(doc: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """The board with two points' counts (both sides') swapped, where that makes another board."""
    light, dark = list(doc["light"]), list(doc["dark"])
    for _ in range(20):
        a, b = rng.sample(range(24), 2)
        if (light[a], dark[a]) != (light[b], dark[b]):
            light[a], light[b] = light[b], light[a]
            dark[a], dark[b] = dark[b], dark[a]
            return {**doc, "light": light, "dark": dark}
    return None


class Game:
    """One game: the companion refereeing it, and the true game on the table beside it."""

    def __init__(self, rng: random.Random, misread_rate: float, kinds: tuple[str, ...] = KINDS) -> None:
        from willughby.companion.service import Companion
        from willughby.companion.store import GameStore

        self.rng = rng                                          # the true game: dice and plays
        self.misreads = random.Random(rng.random())             # the camera's misreads, drawn every still
        self.misread_rate = misread_rate
        self.kinds = kinds
        self.c = Companion(GameStore(":memory:"))
        self.c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="bench")
        self.tally: Counter[str] = Counter()
        self.recover: list[int | None] = []    # stills to get back, per misread
        self._lost_since: int | None = None   # the still of the misread not yet recovered from
        start = _board(self.c.match.position)
        self._last_read: dict[str, Any] = start       # what the reader read of the frame before
        self._last_picture: dict[str, Any] = start    # what that frame truly showed
        #: the true plays, in order (player, dice, the board after), and how many of them the referee has ruled
        self.true_plays: list[tuple[str, tuple[int, ...], Any]] = []
        self.matched = 0
        self.stills = 0
        self.seen_rulings = 0
        #: each wrong ruling in a line: the still, the misread before it (if any), what was ruled and why
        self.wrongs: list[str] = []
        self._last_kind: tuple[str, int] | None = None

    # ------------------------------------------------------------- the referee's side
    @property
    def m(self) -> Any:
        return self.c.match

    def _do(self, call: Any, *args: Any, **kwargs: Any) -> bool:
        from willughby.companion.errors import CompanionError, NotNowError, UnknownError

        try:
            call(*args, **kwargs)
            return True
        except (CompanionError, NotNowError, UnknownError):       # what the page would show as refused
            return False

    def _check_rulings(self) -> None:
        """Each ruling the referee made since last looked: right where it rules a true play not yet ruled (the
        next, or a later one where the referee skipped one it could not see), legal, with its dice and board."""
        rulings = self.m.rulings
        for r in rulings[self.seen_rulings:]:
            self.tally["rulings"] += 1
            key = r.after.physical_key() if r.after is not None else None
            hit = next((i for i in range(self.matched, len(self.true_plays))
                        if r.verdict == "legal" and self.true_plays[i] == (r.player, tuple(r.dice), key)), None)
            if hit is None:
                self.tally["wrong"] += 1
                if r.verdict == "illegal":
                    self.tally["wrong_illegal"] += 1
                truth = self.true_plays[self.matched] if self.matched < len(self.true_plays) else None
                misread = (f"{self._last_kind[0]} {self.stills - self._last_kind[1]} stills before"
                           if self._last_kind is not None else "no misread before")
                self.wrongs.append(f"still {self.stills} ({misread}): {r.player}'s {'-'.join(map(str, r.dice))} "
                                   f"ruled {r.verdict} {r.play or ''} ({r.reason or ''}); the next true play "
                                   f"{'none' if truth is None else truth[0] + ' ' + '-'.join(map(str, truth[1]))}")
            else:
                self.matched = hit + 1
        self.seen_rulings = len(rulings)

    def _answer(self, truth_after: Any) -> None:
        """The players answer an open question with the board on the table, or put the board right."""
        for _ in range(3):
            q = self.c.state().get("question")
            if q is None:
                return
            self.tally["questions"] += 1
            want = _board(truth_after)
            fits = [ch for ch in q.get("choices", []) if ch.get("board") is not None
                    and all(ch["board"].get(k) == want[k] for k in ("light", "dark", "bar", "off"))]
            # the players know how many plays were made since the referee's last: of the choices showing the
            # board, the one that says so (one play, or two: a choice's ``turns``)
            behind = len(self.true_plays) - self.matched
            pick = next((ch for ch in fits if ch.get("turns", 1) == behind), fits[0] if fits else None)
            if pick is not None and self._do(self.c.answer, q["id"], pick["index"], who="bench"):
                continue
            self.tally["fixed_by_players"] += 1
            if not self._do(self.c.submit_board, want, who="bench"):
                self.tally["fix_refused"] += 1
                return

    def in_step(self, truth: Any) -> bool:
        m = self.m
        return m.position.physical_key() == truth.physical_key() and m.turn == truth.turn

    # ------------------------------------------------------------- one still
    def still(self, truth_before: Any, truth_after: Any, dice: tuple[int, ...], mover: str) -> None:
        """The camera's frame after the true play, misread now and then; the players answer."""
        self.stills += 1
        self.true_plays.append((mover, tuple(dice), truth_after.physical_key()))
        picture = _board(truth_after)
        reading = picture
        # drawn every still, whatever the referee did, so the same games meet the same misreads under any referee
        misread, kind, swapped = (self.misreads.random() < self.misread_rate, self.misreads.choice(self.kinds),
                                  _swapped(picture, self.misreads))
        if misread and self._lost_since is None:
            self.tally[f"misread_{kind}"] += 1
            self._lost_since = self.stills
            self._last_kind = (kind, self.stills)
            if kind == "unseen":
                return                       # no frame settled: the next one is two plays from the last
            reading = dict(self._last_read) if kind == "miss" else (swapped or picture)
        before_rulings = len(self.m.rulings)
        evidence = _evidence(reading, self._last_read, self._last_picture, picture)
        self._last_read, self._last_picture = reading, picture
        self._do(self.c.on_reading, reading, None, who="camera", evidence=evidence)
        self._check_rulings()
        self._answer(truth_after)
        self._check_rulings()
        last = self.m.rulings[-1] if len(self.m.rulings) > before_rulings else None
        if last is not None and not last.legal:
            # the referee ruled the (legal) play illegal: the players put the board right, as at the table
            self.tally["fixed_by_players"] += 1
            if not self._do(self.c.submit_board, picture, who="bench"):
                self.tally["fix_refused"] += 1
            self._check_rulings()
            self._answer(truth_after)
            self._check_rulings()
        if self._lost_since is not None and self.in_step(truth_after):
            self.recover.append(self.stills - self._lost_since)
            self._lost_since = None

    def play(self) -> None:
        from willughby.engine.referee import judge, turn_outcomes

        rng, m = self.rng, self.m
        while self._do(self.c.enter_dice, [rng.randint(1, 6), rng.randint(1, 6)], who="box") and m.phase == "start":
            pass
        truth = m.position
        dice = m.dice
        while self.stills < MAX_STILLS:
            mover = truth.turn
            if dice is None:
                dice = (rng.randint(1, 6), rng.randint(1, 6))
                if not self._do(self.c.enter_dice, list(dice), who="box"):
                    self.tally["throws_refused"] += 1
            o = rng.choice(turn_outcomes(m.rules, truth, dice))
            true_ruling = judge(m.rules, truth, dice, o.position)     # the true play: legal, the next turn set
            after = true_ruling.after
            if o.play.steps or o.opponent_play is not None:
                self.still(truth, after, dice, mover)
            else:
                # a throw that cannot be played: the referee passes it by itself where it holds that turn
                self.true_plays.append((mover, tuple(dice), after.physical_key()))
                self._check_rulings()
                if self._lost_since is not None and self.in_step(after):
                    self.recover.append(self.stills - self._lost_since)
                    self._lost_since = None
            truth, dice = after, None
            if true_ruling.game_over is not None:
                break
        if self._lost_since is not None:
            self.recover.append(None)


def run_games(games: int, seed: int, misread_rate: float, kinds: tuple[str, ...] = KINDS) -> dict[str, Any]:
    """Play *games* games; the figures (JSON-ready)."""
    totals: Counter[str] = Counter()
    recover: list[int | None] = []
    wrongs: list[str] = []
    started = time.perf_counter()
    for g in range(games):
        game = Game(random.Random(seed * 1000 + g), misread_rate, kinds)
        game.play()
        totals.update(game.tally)
        totals["stills"] += game.stills
        totals["games"] += 1
        recover.extend(game.recover)
        wrongs.extend(f"game {g + 1}, {w}" for w in game.wrongs)
    return {"totals": dict(totals), "recover": recover, "seconds": time.perf_counter() - started, "wrongs": wrongs}


def _baseline(rev: str, games: int, seed: int, misread_rate: float, kinds: tuple[str, ...]) -> dict[str, Any]:
    """The same games under the referee of revision *rev*: built from ``git archive`` in a scratch folder,
    installed there (no dependencies: this environment's serve), run in a subprocess."""
    with tempfile.TemporaryDirectory(prefix="willughby-baseline-") as scratch:
        src, site = Path(scratch) / "src", Path(scratch) / "site"
        src.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                        "--disable-pip-version-check", "--target", str(site), str(src)], check=True,
                       capture_output=True)
        env = dict(os.environ, PYTHONPATH=str(site))
        done = subprocess.run([sys.executable, __file__, "--worker", "--games", str(games), "--seed", str(seed),
                               "--misread-rate", str(misread_rate), "--kinds", ",".join(kinds)], env=env, capture_output=True, text=True,
                              check=True)
    figures: dict[str, Any] = json.loads(done.stdout)
    return figures


def _report(name: str, figures: dict[str, Any]) -> None:
    t, rec = figures["totals"], figures["recover"]
    games = max(1, t.get("games", 0))
    back = [r for r in rec if r is not None]
    misreads = sum(t.get(f"misread_{k}", 0) for k in KINDS)
    print(f"{name}: {t.get('games', 0)} games, {t.get('stills', 0)} stills, {misreads} misreads "
          f"({t.get('misread_miss', 0)} missed by the reader, {t.get('misread_unseen', 0)} unseen, "
          f"{t.get('misread_swap', 0)} swaps) "
          f"[{figures['seconds']:.0f} s]")
    print(f"  rulings {t.get('rulings', 0)}; ruled wrongly {t.get('wrong', 0)} "
          f"({t.get('wrong_illegal', 0)} legal plays ruled illegal), {t.get('wrong', 0) / games:.2f} a game")
    print(f"  questions {t.get('questions', 0)} ({t.get('questions', 0) / games:.2f} a game); "
          f"throws refused {t.get('throws_refused', 0)}; boards put right by the players "
          f"{t.get('fixed_by_players', 0)}, refused by the referee {t.get('fix_refused', 0)}")
    if rec:
        print(f"  back on track after a misread: {len(back)} of {len(rec)}"
              + (f" (within the still misread {sum(1 for r in back if r == 0)}, at the next still "
                 f"{sum(1 for r in back if r == 1)}; stills to get back at most {max(back)}, "
                 f"median {statistics.median(back):.0f})" if back else "")
              + f"; never {len(rec) - len(back)}")
    wrongs = figures.get("wrongs", [])
    for w in wrongs[:6]:
        print(f"  wrong: {w}")
    if len(wrongs) > 6:
        print(f"  ... and {len(wrongs) - 6} more wrong rulings")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--misread-rate", type=float, default=0.02, help="the chance a still is misread")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"the misreads drawn, of {', '.join(KINDS)}")
    parser.add_argument("--baseline", metavar="REV", help="also run the referee of this git revision")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not kinds or any(k not in KINDS for k in kinds):
        parser.error(f"--kinds takes some of {', '.join(KINDS)}, not {args.kinds!r}")
    if args.worker:
        print(json.dumps(run_games(args.games, args.seed, args.misread_rate, kinds)))
        return 0
    print(f"whole games: {args.games} games of backgammon, seed {args.seed}, "
          f"a still misread at {100 * args.misread_rate:.1f}% ({', '.join(kinds)})")
    if args.baseline:
        _report(f"referee at {args.baseline}", _baseline(args.baseline, args.games, args.seed, args.misread_rate, kinds))
    _report("this checkout's referee", run_games(args.games, args.seed, args.misread_rate, kinds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
