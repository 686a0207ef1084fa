"""Turns judged from the camera, as a player meets them: ruled right, asked, ruled wrong.

Whole games of backgammon are played by the engine (random legal plays,
and now and then a wrong move on purpose, as the demo's players make them:
one man a pip too far). Each game is drawn at one table (the painter's
``Scene``: one board, set of men, camera and light for the whole game, each
frame with its own sensor noise and dice), from a style set the point reader never
learnt from (``--style-set``, default ``held-out-test``; the temperature of
``vision/data/turn_calibration.json`` was fitted on the disjoint
``held-out-fit`` set). Every turn's frame after (and, for the turn reader,
the frame before) is read as the companion would, and judged:

- **turn reader** (``vision/turns.py``): the throw's legal boards weighed
  against the picture, with the board before as "not moved yet" where no
  play leaves it (as the companion hands them over); legal, illegal or
  unsure (asked); a turn the companion would take for the men not moved
  yet (``Judging.nothing_moved``) is a wrong ruling, counted apart ("read
  as not moved"), and the line "... bar, not-moved unchecked" judges the
  same readings as the reader before issue 44 did (the bar's change not
  weighed, "not moved yet" not checked against the picture);
- **present rule** (the baseline, the companion's rule before the turn
  reader): an exact match with every location at 0.9 or more is ruled; a
  doubtful reading, or one within one man of a legal play, is asked; any
  other confident reading is ruled illegal.

It prints, for each: legal and illegal turns ruled right, asked and ruled
wrong; the reader's per-location accuracy of single frames and its
calibration (a reliability table and the expected calibration error, with
the fitted temperature and without); and milliseconds per turn on one core
(reading the frame and judging; drawing the frame is not counted). Each
frame is read as the watcher reads it, with what was read of the frame
before (``vision/point_memory.py``: the network reads again only the points
whose picture changed, or that it read otherwise than the referee holds
them); ``--no-memory`` reads every frame afresh, the baseline, and the
quiet timing reads the first turns both ways in the same run.

The games are played, drawn and read in ``benchmarks/turn_scenes.py``
(whose names this script re-exports); this script judges what was read,
tallies it and prints.

    python benchmarks/turns.py                       # 1,000 turns, two worker processes
    python benchmarks/turns.py --turns 200 --workers 1 --style-set training
    python benchmarks/turns.py --turns 300 --workers 1 --style-set held-out-fit --model /tmp/candidate.onnx
    python benchmarks/turns.py --turns 300 --seed 777 --learn --no-memory   # every frame read afresh
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))          # run from a checkout without installing
sys.path.insert(0, str(HERE))                 # the games and their frames: turn_scenes.py, beside this

# the games and their frames, also taken from here by those that import this script (tools/fit_turn_reader.py,
# turns_unstacking.py, the tests: game_scene, play_games, see, Seen, TurnCase)
from turn_scenes import (FORGET_ENV, MODEL_ENV, PRESET, Seen, TurnCase, companion_candidates,  # noqa: E402, F401
                         evidence_of, extract, game_scene, play_games, see)

PRESENT_CONFIDENT = 0.9       # the companion's rule before the turn reader
BINS = 10


@dataclass
class Tally:
    legal: Counter = field(default_factory=Counter)
    illegal: Counter = field(default_factory=Counter)

    def add(self, truth_legal: bool, outcome: str) -> None:
        c = self.legal if truth_legal else self.illegal
        if outcome == "not moved":          # the board held as it was: a wrong ruling, counted apart too
            c["not moved"] += 1
            outcome = "wrong"
        c[outcome] += 1


def _present_rule(reading: Any, case: TurnCase) -> tuple[str, str | None]:
    """The companion's rule before the turn reader: ('legal', play) | ('illegal', None) | ('asked', None)."""
    seen = {"light": list(reading.light), "dark": list(reading.dark)}
    bar = dict(reading.bar)
    doubtful = any(v < PRESENT_CONFIDENT for v in reading.location_confidence.values())

    def same(board: dict[str, Any]) -> bool:
        return (board["light"] == seen["light"] and board["dark"] == seen["dark"]
                and board["bar"]["light"] == bar["light"] and board["bar"]["dark"] == bar["dark"])

    exact = [p for p, b in case.candidates if same(b)]
    if exact and not doubtful:
        return "legal", exact[0]
    if doubtful or not reading.settled:
        return "asked", None

    def distance(board: dict[str, Any]) -> int:
        d = sum(abs(a - b) for a, b in zip(board["light"], seen["light"]))
        d += sum(abs(a - b) for a, b in zip(board["dark"], seen["dark"]))
        return d + abs(board["bar"]["light"] - bar["light"]) + abs(board["bar"]["dark"] - bar["dark"])

    if any(distance(b) <= 2 for _, b in case.candidates):
        return "asked", None
    return "illegal", None


def _outcome(truth: TurnCase, verdict: str, play: str | None, board: dict[str, Any] | None) -> str:
    if verdict in ("unsure", "asked"):
        return "asked"
    if truth.legal:
        return "right" if verdict == "legal" and board is not None and \
            board["light"] == truth.after["light"] and board["dark"] == truth.after["dark"] else "wrong"
    return "right" if verdict == "illegal" else "wrong"


def judged(truth: TurnCase, found: Any) -> str:
    """How the companion meets the turn reader's judgement *found* of the turn *truth*: where it takes it
    for the men not moved yet (``Judging.nothing_moved``) it holds the board unchanged, a wrong ruling
    (``"not moved"``: every turn here moved men, or is a pass the legal plays list); else :func:`_outcome`."""
    from willughby.companion.judging import Judging

    if Judging.nothing_moved(found):
        return "not moved"
    return _outcome(truth, found.verdict, found.play, found.board)



def _time_quietly(turns: list[TurnCase], args: argparse.Namespace, passes: int = 4) -> None:
    """The reads of *turns* again, in this process alone once the workers are done: the time a core of its own
    gives. Each pass reads them twice, with what was read of the frame before (``vision/point_memory.py``) and
    without it (every frame afresh, the baseline), one after the other; the least median of the passes is
    given for each (a shared machine's other work only ever adds)."""
    job = (0, turns, args.style_set, args.seed * 7919, args.jitter, args.refine, not args.no_look, False)
    forget = os.environ.get(FORGET_ENV)
    times: dict[bool, list[list[float]]] = {True: [], False: []}
    try:
        for _ in range(passes):
            for remember in (True, False):
                if remember:
                    os.environ.pop(FORGET_ENV, None)
                else:
                    os.environ[FORGET_ENV] = "1"
                times[remember].append(sorted(x.read_ms for x in extract(job)))
    finally:
        if forget is None:
            os.environ.pop(FORGET_ENV, None)
        else:
            os.environ[FORGET_ENV] = forget
    for remember, name in ((True, "with the frame before's points"), (False, "every frame afresh (baseline)")):
        quiet = min(times[remember], key=lambda q: q[len(q) // 2])
        print(f"  reading the frame, the first {len(quiet)} turns again in this process alone, {name} (the "
              f"least of {passes} passes): median {quiet[len(quiet) // 2]:.1f} ms, "
              f"p95 {quiet[min(len(quiet) - 1, int(0.95 * len(quiet)))]:.1f}")


def truth_classes(case: TurnCase) -> np.ndarray:
    a = case.after
    return np.array([a["light"][i] or (15 + a["dark"][i] if a["dark"][i] else 0) for i in range(24)])


def points_kept(seen: list[Seen], cfg: Any) -> tuple[int, int, int, int, int, int]:
    """How the frame before tells the points no man moved on: (points where none did, of them those whose
    whole strip did not change, those whose strip or row of men did not change (``footprints.still_rows``);
    points where men did, and of them those wrongly taken as still by the strip, and by the strip or row)."""
    from willughby.vision.turns import TurnEvidence, race_still_points

    unmoved = strips = rows = moved = wrong_strips = wrongly = 0
    for s in seen:
        if s.changes is None or s.profiles is None:
            continue
        before = s.case.before.to_board()
        same = truth_classes(TurnCase(s.case.before, s.case.dice, before, True, None, [])) == truth_classes(s.case)
        whole = np.asarray(s.changes) <= cfg.unchanged_share
        ev = TurnEvidence(s.count_probs, changes=s.changes, profiles=s.profiles, faint_profiles=s.faint_profiles)
        row = race_still_points(cfg, ev, before)            # as the turn reader holds them
        unmoved += int(same.sum())
        strips += int((same & whole).sum())
        rows += int((same & row).sum())
        moved += int((~same).sum())
        wrong_strips += int((~same & whole).sum())
        wrongly += int((~same & row).sum())
    return unmoved, strips, rows, moved, wrong_strips, wrongly


def judge_all(seen: list[Seen], reader: Any, use_changes: bool | str = True,
              bar: bool = True) -> tuple[Tally, list[dict[str, Any]]]:
    """Each turn judged by *reader* (with the changes since the frame before, unless *use_changes* is false;
    ``"strips"``: only each strip's share of change, not where along it; without the bar's change where
    *bar* is false), with the candidates the companion gives it ("not moved yet" among them): the tally, and
    the turns ruled wrong."""
    tally = Tally()
    wrong = []
    for k, s in enumerate(seen):
        case = s.case
        ev = evidence_of(s, changes=use_changes, bar=bar)
        found = reader.judge(companion_candidates(case), ev, before=case.before.to_board())
        got = judged(case, found)
        tally.add(case.legal, got)
        if got == "right" and not case.legal and found.board is not None \
                and found.board["light"] == case.after["light"] and found.board["dark"] == case.after["dark"]:
            tally.illegal["board as it stands"] += 1      # ruled illegal with the board on the table named
        if got in ("wrong", "not moved"):
            wrong.append({"turn": k, "truth": "legal" if case.legal else "illegal", "verdict": found.verdict,
                          "play": found.play, "truth_play": case.play, "p_other": round(found.p_other, 4),
                          "style": s.style})
    return tally, wrong


def present_all(seen: list[Seen]) -> Tally:
    """Each turn judged by the companion's rule before the turn reader (the baseline)."""
    tally = Tally()
    for s in seen:
        r = _ReadingView(s)
        verdict, play = _present_rule(r, s.case)
        board = next((b for p, b in s.case.candidates if p == play), None) if play else None
        tally.add(s.case.legal, _outcome(s.case, verdict, play, board))
    return tally


@dataclass
class _ReadingView:
    """The parts of a reading the present rule looks at, from a :class:`Seen`."""

    seen: Seen

    @property
    def light(self) -> list[int]:
        return [int(k) if 1 <= k <= 15 else 0 for k in self.seen.read]

    @property
    def dark(self) -> list[int]:
        return [int(k) - 15 if k > 15 else 0 for k in self.seen.read]

    @property
    def bar(self) -> dict[str, int]:
        return self.seen.bar

    @property
    def settled(self) -> bool:
        return self.seen.settled

    @property
    def location_confidence(self) -> dict[str, float]:
        return self.seen.location_confidence


def _reliability(pairs: list[tuple[float, bool]]) -> tuple[float, list[str]]:
    """Expected calibration error and a reliability table (10 bins of confidence)."""
    if not pairs:
        return float("nan"), []
    conf = np.array([c for c, _ in pairs])
    right = np.array([r for _, r in pairs], float)
    edges = np.array([0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 0.9999, 1.0 + 1e-9])
    ece = 0.0
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (conf >= lo) & (conf < hi)
        if not sel.any():
            continue
        gap = abs(conf[sel].mean() - right[sel].mean())
        ece += sel.mean() * gap
        rows.append(f"    [{lo:.4f}, {min(hi, 1.0):.4f}): {int(sel.sum()):6d} locations, said {conf[sel].mean():.4f}, "
                    f"right {right[sel].mean():.4f}")
    return float(ece), rows


def _print_tally(name: str, t: Tally) -> None:
    for kind, c in (("legal", t.legal), ("illegal", t.illegal)):
        total = c["right"] + c["asked"] + c["wrong"]
        if total:
            exact = (f"  ({c['board as it stands']} with the board as it stands)"
                     if kind == "illegal" and c["board as it stands"] else "")
            unmoved = f" ({c['not moved']} read as not moved)" if c["not moved"] else ""
            print(f"  {name:<26} {kind:<8} {total:5d} turns: right {c['right']:5d}  asked {c['asked']:4d} "
                  f"({100 * c['asked'] / total:.1f}%)  wrong {c['wrong']:3d}{unmoved}{exact}")
    total = sum(c[k] for c in (t.legal, t.illegal) for k in ("right", "asked", "wrong"))
    asked = t.legal["asked"] + t.illegal["asked"]
    wrong = t.legal["wrong"] + t.illegal["wrong"]
    print(f"  {name:<26} all      {total:5d} turns: right {total - asked - wrong:5d}  asked {asked:4d} "
          f"({100 * asked / max(total, 1):.1f}%)  wrong {wrong:3d}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=1000, help="turns to judge (default 1000)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes, one core each (default 2)")
    ap.add_argument("--style-set", default="held-out-test", help="the styles the games are drawn in")
    ap.add_argument("--wrong", type=float, default=0.1, help="share of turns with a wrong move first (0.1)")
    ap.add_argument("--seed", type=int, default=16, help="seed of the games and their drawing")
    ap.add_argument("--covered", action="store_true",
                    help="also read each frame after with an arm, a sleeve, a hand or a cup over a man: refused?")
    ap.add_argument("--learn", action="store_true",
                    help="also judge each game in order while learning the board, by stretch of the game")
    ap.add_argument("--wrong-answers", type=int, default=0,
                    help="with --learn, also a run where the first N answers of each game are wrong on purpose")
    ap.add_argument("--cache", type=Path, help="keep the frames' readings in this file, and reuse them")
    ap.add_argument("--jitter", type=float, default=0.0,
                    help="move each corner, once a game, up to this many pixels (a finger on a phone)")
    ap.add_argument("--no-look", action="store_true",
                    help="read without what calibration learns from the start frame (the board's look and frame)")
    ap.add_argument("--refine", action="store_true",
                    help="refine the corners once a game, on its start frame (vision/refine.py), as calibration does")
    ap.add_argument("--quiet-reads", type=int, default=20, metavar="N",
                    help="time the first N turns' reads again in this process alone, after the workers (default 20)")
    ap.add_argument("--no-memory", action="store_true",
                    help="read every frame afresh, without what was read of the frame before (vision/point_memory.py):"
                         " the reader as it was, to compare")
    ap.add_argument("--model", type=Path, metavar="ONNX",
                    help="read the frames with this point reader instead of the shipped one (to compare networks)")
    args = ap.parse_args(argv)
    if args.model:
        if not args.model.is_file():
            ap.error(f"no point reader {args.model}")
        os.environ[MODEL_ENV] = str(args.model.resolve())     # the worker processes read it
        print(f"point reader: {args.model}")
    if args.no_memory:
        os.environ[FORGET_ENV] = "1"                          # the worker processes read it
        print("each frame read afresh (--no-memory)")
    if args.turns < 1 or args.workers < 1:
        ap.error("--turns and --workers must be at least 1")
    from willughby.vision.turns import TurnConfig, TurnReader, load_calibration

    games = play_games(args.seed, args.turns, args.wrong)
    calibration = load_calibration()
    print(f"{sum(len(g) for g in games)} turns in {len(games)} games of {PRESET}, styles {args.style_set!r}; "
          f"turn reader calibration: {calibration or 'none (the network as it is)'}", flush=True)
    t0 = time.perf_counter()
    seen = see(games, args.style_set, args.seed, args.workers, args.cache, args.jitter, args.refine,
               not args.no_look, args.covered)
    if args.jitter:
        print(f"corners moved once a game by up to {args.jitter:g} px"
              + (", then refined on the start frame (vision/refine.py)" if args.refine else ""))
    print("each game's start frame taken as its calibration photo (reader.learn_look)" if not args.no_look
          else "read without calibration (--no-look)")
    reader = TurnReader()
    untempered = TurnReader(TurnConfig(temperature=1.0))
    print("\nturns (right = ruled as it was; asked = a question to the players; wrong = a wrong ruling)")
    with_before, wrong = judge_all(seen, reader)
    _print_tally("turn reader, frame before", with_before)
    # the reader before issue 44: the bar's change not weighed, "not moved yet" not checked against the picture
    unchecked = TurnReader(replace(reader.config, unmoved_check=False))
    _print_tally("... bar, not-moved unchecked", judge_all(seen, unchecked, bar=False)[0])
    # the rule before 2026-12-07: an illegal turn ruled on the picture weighed with the frame before, not on
    # what the point reader itself reads surely where each legal play differs from the board seen
    unsure_ok = TurnReader(replace(reader.config, illegal_reader_error=None))
    _print_tally("... illegal, reader unchecked", judge_all(seen, unsure_ok)[0])
    _print_tally("... strips' shares alone", judge_all(seen, reader, use_changes="strips")[0])
    _print_tally("turn reader, frame alone", judge_all(seen, reader, use_changes=False)[0])
    _print_tally("present rule (baseline)", present_all(seen))
    if args.learn:
        from learning_turns import judge_learning, print_learning

        print("\nturns by stretch of the game, with the frame before; learning = the reader adapted to the board "
              "from its start frame and every turn settled since (vision/board_head.py)")
        runs = [(False, 0), (True, 0)] + ([(True, args.wrong_answers)] if args.wrong_answers > 0 else [])
        for learn, wrong_answers in runs:
            tally, learnt_wrong = judge_learning(seen, reader, judged, learn, wrong_answers)
            name = ("cold (no learning)" if not learn else "learning" if not wrong_answers
                    else f"learning, first {wrong_answers} answers wrong")
            print_learning(name, tally)
            wrong.extend(learnt_wrong)
        for learn in (False, True):            # the same, with the reader before issue 44
            tally, _ = judge_learning(seen, unchecked, judged, learn, 0, bar=False)
            print_learning(("learning" if learn else "cold") + ", bar/not-moved unchecked", tally)
        for learn in (False, True):            # the same, ruling illegal as before 2026-12-07
            tally, _ = judge_learning(seen, unsure_ok, judged, learn, 0)
            print_learning(("learning" if learn else "cold") + ", illegal reader-unchecked", tally)
    unmoved, strips, rows, moved, wrong_strips, wrongly = points_kept(seen, reader.config)
    if unmoved:
        print(f"\npoints no man moved on, kept from the frame before: {strips}/{unmoved} "
              f"({100 * strips / unmoved:.1f}%) by the whole strip unchanged, {rows}/{unmoved} "
              f"({100 * rows / unmoved:.1f}%) by the strip or the row of men unchanged; points where men came or "
              f"went taken as still: {wrong_strips} of {moved} by the strip, {wrongly} by the strip or the row")
    hidden = [s.covered_refused for s in seen if s.covered_refused is not None]
    if hidden:
        print(f"\ncovered frames (an arm, a sleeved hand, a sleeve or a cup over a man of the frame after) refused: "
              f"{sum(r[0] for r in hidden)}/{len(hidden)} with the frame settled last (the camera over the table), "
              f"{sum(r[1] for r in hidden)}/{len(hidden)} against the calibration photo alone")
    right = sum(int((s.read == truth_classes(s.case)).sum()) for s in seen)
    locs = 24 * len(seen)
    boards = sum(bool((s.read == truth_classes(s.case)).all()) for s in seen)
    print(f"\nsingle frames: {right}/{locs} locations read right ({100 * right / max(locs, 1):.2f}%), "
          f"{boards}/{len(seen)} boards exactly")
    for r, name in ((reader, "with the fitted temperature"), (untempered, "as the network gives them")):
        pairs = []
        for s in seen:
            p = np.exp(r.log_probs(s.count_probs))
            pairs.extend(zip(p.max(axis=1).tolist(), (p.argmax(axis=1) == truth_classes(s.case)).tolist()))
        ece, rows = _reliability(pairs)
        print(f"calibration {name} (temperature {r.config.temperature:.3f}): expected calibration error {ece:.4f}")
        for row in rows:
            print(row)
    ms = sorted(s.read_ms for s in seen)
    judge_ms = []
    for s in seen[:400]:
        t1 = time.perf_counter()
        reader.judge(companion_candidates(s.case), evidence_of(s), before=s.case.before.to_board())
        judge_ms.append((time.perf_counter() - t1) * 1000)
    judge_ms.sort()
    jm = judge_ms[len(judge_ms) // 2] if judge_ms else 0.0
    jp = judge_ms[min(len(judge_ms) - 1, int(0.95 * len(judge_ms)))] if judge_ms else 0.0
    read_afresh = [int(np.sum(x.points_read)) for x in seen if getattr(x, "points_read", None) is not None]
    if read_afresh:
        read_afresh.sort()
        print(f"\npoints the network read afresh in a turn's frame (the others' pictures unchanged since it read "
              f"them as the referee holds them: vision/point_memory.py): median {read_afresh[len(read_afresh) // 2]}"
              f" of 24, {100 * sum(read_afresh) / (24 * len(read_afresh)):.0f}% of all")
    print(f"\nms per turn on one core: reading the frame (and comparing it with the frame before) median "
          f"{ms[len(ms) // 2]:.1f}, p95 {ms[min(len(ms) - 1, int(0.95 * len(ms)))]:.1f} (in the worker "
          f"processes that read the frames, each core shared with what else ran: with --cache, when the cache "
          f"was made); weighing the boards "
          f"median {jm:.2f}, p95 {jp:.2f}; a turn in all median {ms[len(ms) // 2] + jm:.1f}")
    if args.quiet_reads > 0:
        _time_quietly(games[0][:args.quiet_reads], args)
    styles = Counter(tuple(sorted(s.style.items())) for s in seen)
    print(f"{len(styles)} board styles drawn")
    for w in wrong[:20]:
        print(f"  wrong: {w}")
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
