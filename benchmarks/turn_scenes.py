"""The games and their frames for ``benchmarks/turns.py``: whole games of
backgammon played by the engine (random legal plays, and now and then a
wrong move on purpose, one man a pip too far), each drawn at one table (the
painter's ``Scene``: one board, set of men, camera and light for the whole
game) from a style set, and every turn's frame after read as the companion
reads it, with how each point's picture changed since the frame before (in
worker processes, one core each; kept in a cache where asked).

What is read of a turn is a :class:`Seen`, enough to judge it again under any
setting of the turn reader; ``benchmarks/turns.py`` judges, tallies and
prints, and re-exports the names here (``tools/fit_turn_reader.py`` and
``benchmarks/turns_unstacking.py`` take them from it).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from willughby.engine.position import Position
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position

__all__ = ["PRESET", "MODEL_ENV", "FORGET_ENV", "TurnCase", "play_games", "Seen", "game_scene", "extract", "see",
           "companion_candidates", "evidence_of"]

PRESET = "backgammon"
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


def companion_candidates(case: TurnCase) -> list[Any]:
    """The boards the companion hands the turn reader (``companion/judging.py``): each legal result, and,
    where no legal play leaves the board as it was, the board before as "not moved yet" (dice thrown on the
    board, the men not moved): the claim a turn's frame is checked against too (issue 44)."""
    from willughby.companion.judging import NOT_MOVED
    from willughby.vision.turns import Candidate

    out = [Candidate(p, b) for p, b in case.candidates]
    before = case.before.to_board()
    if not any(b["light"] == before["light"] and b["dark"] == before["dark"] and b["bar"] == before["bar"]
               for _, b in case.candidates):
        out.append(Candidate(NOT_MOVED, before))
    return out


def evidence_of(s: "Seen", count_probs: Any = None, changes: bool | str = True, bar: bool = True,
                **extra: Any) -> Any:
    """The turn reader's evidence of a turn read (*count_probs*: the point reader's, or a board's own
    adapted ones); *changes* false: without the frame before, ``"strips"``: only each strip's share of
    change; *bar* false: without the bar's change (the reader before issue 44)."""
    from willughby.vision.turns import TurnEvidence

    along = changes is True
    return TurnEvidence(s.count_probs if count_probs is None else count_probs, s.bar, s.settled,
                        s.changes if changes else None, pile_probs=s.pile_probs,
                        profiles=s.profiles if along else None, faint_profiles=s.faint_profiles if along else None,
                        bar_change=s.bar_change if changes and bar else None, **extra)


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
    #: how clearly a man came to or left the bar since the frame before (``changes.bar_change``)
    bar_change: float | None = None


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
    from willughby.vision.turns import CHANGE_DELTA_E, FAINT_DELTA_E, bar_change, point_change_profiles, rectified

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
        profiles = faint = changes = bar = None
        if before_frame is not None:
            profiles, faint = point_change_profiles(before_frame, here, corners, delta_e=(CHANGE_DELTA_E, FAINT_DELTA_E))
            changes = profiles.mean(axis=1)
            bar = bar_change(before_frame, here)
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
                        at_start.point_features, at_start.net_count_probs, covered_refused, reading.points_read,
                        bar))
        if case.legal:
            before_frame = here           # a wrong move is put right: the next turn starts from the legal board
            if reading.settled:
                recent = reading.surface_seen
    return out


def see(games: list[list[TurnCase]], style_set: str, seed: int, workers: int,
        cache: Path | None = None, jitter: float = 0.0, refine: bool = False, look: bool = True,
        covered: bool = False) -> list[Seen]:
    """Every turn of *games* drawn in *style_set* and read, with progress on
    standard error; kept in *cache* (a pickle) and taken from it when it holds
    the same games, so the judging can be tried again under other settings."""
    import pickle

    key = ("features", "recent", "dice", "bar", covered, style_set, seed, jitter, refine, look, [[(c.before.id(), c.dice, c.legal) for c in g] for g in games])
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
