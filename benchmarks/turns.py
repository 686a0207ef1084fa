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
  against the picture; legal, illegal or unsure (asked);
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

    python benchmarks/turns.py                       # 1,000 turns, two worker processes
    python benchmarks/turns.py --turns 200 --workers 1 --style-set training
    python benchmarks/turns.py --turns 300 --workers 1 --style-set held-out-fit --model /tmp/candidate.onnx
    python benchmarks/turns.py --turns 300 --seed 777 --learn --no-memory   # every frame read afresh
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))          # run from a checkout without installing

from willughby.engine.position import Position  # noqa: E402
from willughby.engine.referee import turn_outcomes  # noqa: E402
from willughby.engine.rules import preset_rules, start_position  # noqa: E402

PRESET = "backgammon"
PRESENT_CONFIDENT = 0.9       # the companion's rule before the turn reader
BINS = 10
MODEL_ENV = "WILLUGHBY_BENCH_POINT_READER"   # --model, for the worker processes
FORGET_ENV = "WILLUGHBY_BENCH_NO_MEMORY"      # --no-memory, for the worker processes


@dataclass
class TurnCase:
    """One turn: the board before, the throw, the board on the table after."""

    before: Position
    dice: tuple[int, int]
    after: dict[str, Any]           # board document of what the players left on the table
    legal: bool
    play: str | None
    candidates: list[tuple[str, dict[str, Any]]]


def _mistake(rng: random.Random, pos: Position, legal_keys: set) -> dict[str, Any] | None:
    """A plausible wrong move: a legal result with one of the mover's men a pip too far."""
    mover = pos.turn
    for _ in range(12):
        doc = pos.to_board()
        pts = list(doc[mover])
        them = doc["dark" if mover == "light" else "light"]
        order = list(range(24))
        rng.shuffle(order)
        for i in order:
            j = i - 1 if mover == "light" else i + 1
            if pts[i] and 0 <= j < 24 and not them[j]:
                pts[i] -= 1
                pts[j] += 1
                doc[mover] = pts
                doc.pop("turn", None)
                try:
                    wrong = Position.from_board(doc)
                except ValueError:
                    break
                if wrong.physical_key() not in legal_keys:
                    return wrong.to_board()
                break
    return None


def play_games(seed: int, turns: int, wrong_share: float) -> list[list[TurnCase]]:
    """Games played by the engine until *turns* turns are made; each game a list of turns."""
    rng = random.Random(seed)
    rules = preset_rules(PRESET)
    games: list[list[TurnCase]] = []
    made = 0
    while made < turns:
        pos = start_position(rules, rng.choice(("light", "dark")))
        game: list[TurnCase] = []
        while made < turns and len(game) < 80:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            outcomes = turn_outcomes(rules, pos, dice)
            cands = [(o.play.notation or "(no play)", o.position.to_board()) for o in outcomes]
            keys = {o.position.physical_key() for o in outcomes}
            if rng.random() < wrong_share and any(o.play.steps for o in outcomes):
                first = rng.choice(outcomes)
                wrong = _mistake(rng, first.position.with_turn(pos.turn), keys)
                if wrong is not None:
                    game.append(TurnCase(pos, dice, wrong, False, None, cands))
                    made += 1
            o = rng.choice(outcomes)
            game.append(TurnCase(pos, dice, o.position.to_board(), True, o.play.notation or "(no play)", cands))
            made += 1
            if o.position.off[0] == 15 or o.position.off[1] == 15:
                break
            pos = o.position
        games.append(game)
    return games


@dataclass
class Tally:
    legal: Counter = field(default_factory=Counter)
    illegal: Counter = field(default_factory=Counter)

    def add(self, truth_legal: bool, outcome: str) -> None:
        (self.legal if truth_legal else self.illegal)[outcome] += 1


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


def _game_spec(rng: np.random.Generator, style_set: str) -> dict[str, Any]:
    """One board, camera and light for a whole game."""
    from willughby.vision import synth

    fields: dict[str, Any] = {}
    for key in synth.STYLE_FIELDS:        # one board, one set of men, one light for the whole game
        names, weights = synth.style_choices(style_set, key)
        w = np.asarray(weights, float)
        fields[key] = str(names[int(rng.choice(len(names), p=w / w.sum()))])
    fields.update(image_size=(1280, 720), tilt_deg=float(rng.uniform(0, 22)),
                  board_yaw_deg=float(rng.choice([0.0, 180.0]) + rng.uniform(-8, 8)),
                  cam_az_deg=float(rng.uniform(0, 360)), cam_roll_deg=float(rng.uniform(-3, 3)),
                  mirror=bool(rng.random() < 0.3), focal_mm=float(rng.uniform(28, 50)),
                  fill=float(rng.uniform(0.75, 0.92)), row_max=5, men_thick_mm=float(rng.uniform(7, 12)),
                  occluded=False)
    return fields


@dataclass
class Seen:
    """What the camera gave for one turn: enough to judge it again under any
    setting of the turn reader without drawing or reading the frame again."""

    case: TurnCase
    count_probs: np.ndarray
    bar: dict[str, int]
    settled: bool
    changes: np.ndarray | None
    read: np.ndarray                 # the reader's own board, as classes
    location_confidence: dict[str, float]
    read_ms: float
    style: dict[str, Any]
    pile_probs: np.ndarray | None = None
    profiles: np.ndarray | None = None     # each point's change along its strip (``point_change_profiles``)
    faint_profiles: np.ndarray | None = None   # the same at a fainter colour difference (``FAINT_DELTA_E``)
    game: int = 0                              # which game, and which turn of it (0 the first)
    turn: int = 0
    features: np.ndarray | None = None         # the point reader's features of each point (``board_head``)
    start_features: np.ndarray | None = None   # ... and of the game's start frame, with its probabilities
    start_probs: np.ndarray | None = None
    #: with --covered: the frame after with something over a man (``covers.cover_photo``), refused or not,
    #: read with the surface the frame settled last showed (as the camera over the table reads) and without
    covered_refused: tuple[bool, bool] | None = None
    #: the points the reader read from this frame's picture (``Reading.points_read``): the others' features
    #: are those of an earlier frame's same picture, not learnt again
    points_read: np.ndarray | None = None


def game_scene(seed: int, style_set: str) -> tuple[Any, np.random.Generator]:
    """One game's table, camera and light (``synth.Scene``), drawn from *seed* (``seed * 7919 + index``
    for the index-th game of a run), and the generator it was drawn from, to draw on from. Frame *n* of the
    game is ``scene.render(board, np.random.default_rng(seed * 1000 + n))``; its start, ``seed * 1000 - 1``."""
    from willughby.vision.synth import Scene, SceneSpec

    rng = np.random.default_rng(seed)
    scene = Scene(rng, SceneSpec(n_dice=2, **_game_spec(rng, style_set)))
    return scene, rng


def extract(job: tuple[int, list[TurnCase], str, int, float, bool, bool, bool]) -> list[Seen]:
    """Draw and read one game's turns (in a worker process, one core): each
    frame after, and how each point's picture changed since the frame before
    (the first turn's frame before shows the game's start, as the camera saw
    it settled before the first throw). The corners the frames are read with
    are the table's true ones, each moved once for the game by up to *jitter*
    pixels, as a player marking them with a finger on a phone would; with
    *refine*, they are refined once, on the start frame
    (``vision.refine.refine_corners``), as calibration does.  With *look*,
    the start frame is the calibration photo: what the reader learns of the
    board there (``reader.learn_look``: its colours, and its frame's picture,
    which keeps the check for a hand from taking the board's own look for
    one) is used for every frame of the game, as the companion does."""
    import cv2

    from willughby.vision.config import VisionConfig
    from willughby.vision.reader import board_config, learn_look, read_board
    from willughby.vision.refine import refine_corners
    from willughby.vision.turns import CHANGE_DELTA_E, FAINT_DELTA_E, point_change_profiles, rectified

    cv2.setNumThreads(1)
    from willughby.vision.memory import keep_frame_memory

    keep_frame_memory(VisionConfig.default().reader.keep_memory_mb)   # as serve does: a read's memory kept
    model = os.environ.get(MODEL_ENV)
    if model:                           # --model: a candidate point reader instead of the shipped one
        from willughby.vision import pointnet
        pointnet.probabilities.__defaults__ = (Path(model), pointnet.SECOND_LOOK)
        pointnet.probabilities_and_features.__defaults__ = (Path(model),)
        pointnet.read_frame.__defaults__ = (Path(model), None, None)     # read whole: no parts beside it
    index, game, style_set, seed, jitter, refine, calibrate, covered = job
    scene, rng = game_scene(seed, style_set)
    angle = rng.uniform(0, 2 * np.pi, 4)
    radius = jitter * np.sqrt(rng.uniform(0, 1, 4))
    offset = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    out: list[Seen] = []
    start = game[0].before.to_board()
    image, label = scene.render(start, np.random.default_rng(seed * 1000 - 1), n_dice=0)
    corners = (np.asarray(label["corners"], float) + offset).tolist()
    if refine:
        corners = refine_corners(VisionConfig(), image, corners).corners.tolist()
    look = learn_look(image, corners) if calibrate else None
    # the start frame rectified as the reads will be: with the board's layout (calibrated, or found)
    before_frame = rectified(image, corners, board_config(image, corners, VisionConfig(), look)[0])
    at_start = read_board(image, corners, look=look)       # what the reader learns the board from (--learn)
    recent = at_start.surface_seen                          # the surface as the frame settled last showed it
    # the points as the frame read last showed them (--no-memory: nothing kept)
    memory = at_start.point_memory if not os.environ.get(FORGET_ENV) else None
    for n, case in enumerate(game):
        image, label = scene.render(case.after, np.random.default_rng(seed * 1000 + n), dice_values=case.dice)
        t0 = time.perf_counter()
        # the board before the turn, which the referee holds (the last turn's ruled, or answered, or put right)
        reading = read_board(image, corners, look=look, recent=recent, dice=True, earlier=memory,
                             known=case.before.to_board())
        memory = reading.point_memory if not os.environ.get(FORGET_ENV) else None
        here = rectified(image, corners, reading=reading)     # kept: the next turn compares with it
        profiles = faint = changes = None
        if before_frame is not None:
            profiles, faint = point_change_profiles(before_frame, here, corners, delta_e=(CHANGE_DELTA_E, FAINT_DELTA_E))
            changes = profiles.mean(axis=1)
        ms = (time.perf_counter() - t0) * 1000
        covered_refused = None
        if covered:
            import random

            from covers import KINDS, cover_photo

            cover_rng = random.Random(seed * 1000 + n)
            try:
                hidden, _, _ = cover_photo(image, label, VisionConfig(), KINDS[n % len(KINDS)], cover_rng)
            except ValueError:                   # no man on a point to cover
                hidden = None
            if hidden is not None:
                covered_refused = (not read_board(hidden, corners, look=look, recent=recent).settled,
                                   not read_board(hidden, corners, look=look).settled)
        read = np.array([reading.light[i] or (15 + reading.dark[i] if reading.dark[i] else 0) for i in range(24)])
        out.append(Seen(case, np.asarray(reading.count_probs), dict(reading.bar), bool(reading.settled), changes,
                        read, dict(reading.location_confidence), ms,
                        {k: label["style"].get(k) for k in ("wood", "men", "points", "field", "lighting")},
                        np.asarray(reading.pile_probs), profiles, faint, index, n, reading.point_features,
                        at_start.point_features, at_start.net_count_probs, covered_refused, reading.points_read))
        if case.legal:
            before_frame = here           # a wrong move is put right: the next turn starts from the legal board
            if reading.settled:
                recent = reading.surface_seen
    return out


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


def see(games: list[list[TurnCase]], style_set: str, seed: int, workers: int,
        cache: Path | None = None, jitter: float = 0.0, refine: bool = False, look: bool = True,
        covered: bool = False) -> list[Seen]:
    """Every turn of *games* drawn in *style_set* and read, with progress on
    standard error; kept in *cache* (a pickle) and taken from it when it holds
    the same games, so the judging can be tried again under other settings."""
    import pickle

    key = ("features", "recent", "dice", covered, style_set, seed, jitter, refine, look, [[(c.before.id(), c.dice, c.legal) for c in g] for g in games])
    if os.environ.get(MODEL_ENV):
        key += (os.environ[MODEL_ENV],)
    if os.environ.get(FORGET_ENV):
        key += ("no memory",)
    if cache is not None and cache.is_file():
        with cache.open("rb") as f:
            kept_key, kept = pickle.load(f)
        if kept_key == key:
            print(f"  {len(kept)} turns from {cache}", file=sys.stderr)
            return kept
    jobs = [(i, g, style_set, seed * 7919 + i, jitter, refine, look, covered) for i, g in enumerate(games)]
    t0 = time.perf_counter()
    seen: list[Seen] = []
    with mp.get_context("spawn").Pool(workers) as pool:
        for k, r in enumerate(pool.imap_unordered(extract, jobs), start=1):
            seen.extend(r)
            print(f"  game {k}/{len(jobs)} read ({len(seen)} turns, {time.perf_counter() - t0:.0f} s)",
                  file=sys.stderr, flush=True)
    if cache is not None:
        with cache.open("wb") as f:
            pickle.dump((key, seen), f)
    return seen


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


def judge_all(seen: list[Seen], reader: Any, use_changes: bool | str = True) -> tuple[Tally, list[dict[str, Any]]]:
    """Each turn judged by *reader* (with the changes since the frame before, unless *use_changes* is false;
    ``"strips"``: only each strip's share of change, not where along it): the tally, and the turns ruled
    wrong."""
    from willughby.vision.turns import Candidate, TurnEvidence

    tally = Tally()
    wrong = []
    for k, s in enumerate(seen):
        case = s.case
        changes = s.changes if use_changes else None
        along = use_changes is True
        ev = TurnEvidence(s.count_probs, s.bar, s.settled, changes, pile_probs=s.pile_probs,
                          profiles=s.profiles if along else None, faint_profiles=s.faint_profiles if along else None)
        found = reader.judge([Candidate(p, b) for p, b in case.candidates], ev, before=case.before.to_board())
        got = _outcome(case, found.verdict, found.play, found.board)
        tally.add(case.legal, got)
        if got == "right" and not case.legal and found.board is not None \
                and found.board["light"] == case.after["light"] and found.board["dark"] == case.after["dark"]:
            tally.illegal["board as it stands"] += 1      # ruled illegal with the board on the table named
        if got == "wrong":
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
            print(f"  {name:<26} {kind:<8} {total:5d} turns: right {c['right']:5d}  asked {c['asked']:4d} "
                  f"({100 * c['asked'] / total:.1f}%)  wrong {c['wrong']:3d}{exact}")
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
    _print_tally("... strips' shares alone", judge_all(seen, reader, use_changes="strips")[0])
    _print_tally("turn reader, frame alone", judge_all(seen, reader, use_changes=False)[0])
    _print_tally("present rule (baseline)", present_all(seen))
    if args.learn:
        from learning_turns import judge_learning, print_learning

        print("\nturns by stretch of the game, with the frame before; learning = the reader adapted to the board "
              "from its start frame and every turn settled since (vision/board_head.py)")
        runs = [(False, 0), (True, 0)] + ([(True, args.wrong_answers)] if args.wrong_answers > 0 else [])
        for learn, wrong_answers in runs:
            tally, learnt_wrong = judge_learning(seen, reader, _outcome, learn, wrong_answers)
            name = ("cold (no learning)" if not learn else "learning" if not wrong_answers
                    else f"learning, first {wrong_answers} answers wrong")
            print_learning(name, tally)
            wrong.extend(learnt_wrong)
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
    from willughby.vision.turns import Candidate, TurnEvidence
    for s in seen[:400]:
        t1 = time.perf_counter()
        reader.judge([Candidate(p, b) for p, b in s.case.candidates],
                     TurnEvidence(s.count_probs, s.bar, s.settled, s.changes, pile_probs=s.pile_probs,
                                  profiles=s.profiles, faint_profiles=s.faint_profiles),
                     before=s.case.before.to_board())
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
