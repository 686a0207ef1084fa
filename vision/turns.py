"""The turn reader: the boards a throw allows, weighed against the picture.

The referee knows the board before the turn and the throw, so only a
handful of boards can follow it: the results of the throw's legal plays
(the engine lists them; this module never learns the rules). The point reader gives, for every point, a probability for
each thing it may hold (empty, 1..15 light men, 1..15 dark men). A board's
*likelihood* is the product over the points of the probability of what that
board has there.

In a race game (backgammon and its kin: ``turns_race``, :class:`MenWeights`)
the turn reader weighs

- every legal result of the throw (each *candidate*);
- an *illegal turn*: every board no legal play leads to that leaves each
  side as many men on the points as some legal play does (men are neither
  made nor lost; a man a pip too far or short, a blot left standing, moves
  no man off the board that a legal play keeps on it), by the picture's
  whole weight on them (a sum over boards by the number of men, point by
  point); and
- a *misread*: where the legal plays differ, the best board with other
  numbers of men (a man hidden in a stack or under a die, a die read as
  men): no player makes it, a reading does;

and decides, as a referee players trust would:

- ``legal``: one candidate is overwhelmingly the most likely (its posterior
  at least ``legal_min``) and the picture gives it at least
  ``legal_point_min`` at every point whose picture changed;
- ``illegal``: the boards a wrong move of the mover's men may leave are
  overwhelmingly likelier than the legal plays (``wrong_move_min``); the
  likeliest of them, the board *seen*, moves the mover's men where no legal
  play puts them; every legal play is refuted at some point the picture
  reads surely (``illegal_refute``), and not only where the picture did not
  change.  The judgement gives the board seen and says, point by point, how
  it differs from the nearest legal play; the engine says which rule it
  breaks;
- ``unsure``: anything else, with the candidates ranked by probability; the
  referee then asks the players. A frame that cannot be read (a hand over
  the board) is always ``unsure``, with ``settled`` false.

In the games of piles (``turns_piles``) each point is weighed over its
count and its pile together, and the picture's best board no play leads to
is "another board" (an illegal turn): ruled at ``illegal_min`` with every
point read at ``illegal_point_min``.

The point reader's probabilities are sharpened or softened by a
*temperature* fitted on generated frames of styles the network never learnt
from and that the measurement never uses (``tools/fit_turn_reader.py``,
written with its provenance to ``vision/data/turn_calibration.json``).

Where the settled frame before the turn is at hand (same camera, same
light), :func:`point_changes` (``vision.changes``) tells which points' pictures did not change;
those keep the counts the referee already knows, and only what changed needs
reading; and in a race game how much a point's picture changed says whether
men came or went there (``moved_share``, ``moved_seen``, ``still_seen``),
and where along it it changed says how many (``race_places_weight``: the
men lie in a row from the edge, so a man more or fewer is a man's worth of
change at the row's end, ``vision.footprints``).  A point whose row of men
did not change holds them, whatever changed farther along it, where a die
was thrown (``still_row_faint_share``).

>>> import numpy as np
>>> probs = np.full((24, 31), 1e-4); probs[:, 0] = 1.0        # every point empty ...
>>> probs[0, 0], probs[0, 2] = 1e-4, 1.0                       # ... but two light men on point 1
>>> empty = {"light": [0] * 24, "dark": [0] * 24}
>>> two = {"light": [2] + [0] * 23, "dark": [0] * 24}
>>> reader = TurnReader(TurnConfig(temperature=1.0))
>>> found = reader.judge([Candidate("1/off 1/off", empty), Candidate("(no play)", two)],
...                      TurnEvidence(probs / probs.sum(axis=1, keepdims=True)))
>>> found.verdict, found.play
('legal', '(no play)')
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from .changes import (CHANGE_BLUR_MM, CHANGE_CORE, CHANGE_DELTA_E, FAINT_DELTA_E, SAME_PLACE_PX, Rectified,
                      point_change_profiles, point_changes, rectified)
from .classes import (CLASS_COLOUR, CLASS_MEN, CLASSES, MEN_PER_SIDE, MOST_MEN, PILES, POINTS, board_classes,
                      dark_men, has_piles, light_men, pile_classes)
from .footprints import PLACES, flat_log_likelihoods, still_rows
from .turns_piles import PileWeighing
from .turns_race import MenWeights, describe_difference, men_weights, mover_of

__all__ = ["TurnConfig", "Candidate", "TurnEvidence", "TurnJudgement", "TurnReader", "board_classes", "pile_classes", "has_piles",
           "point_changes", "point_change_profiles", "Rectified", "rectified", "SAME_PLACE_PX", "CHANGE_DELTA_E", "FAINT_DELTA_E", "load_temperature", "load_calibration", "default_config", "CALIBRATION_PATH", "OTHER",
           "MenWeights", "men_weights", "race_still_points"]

OTHER = "another board"       # the hypothesis of an illegal turn, as candidates list it
CALIBRATION_PATH = Path(__file__).with_name("data") / "turn_calibration.json"


@lru_cache(maxsize=4)
def load_calibration(path: Path = CALIBRATION_PATH) -> dict[str, Any]:
    """The shipped calibration of the turn reader (``tools/fit_turn_reader.py``):
    ``{"temperature", "config": {threshold: value}, "fitted_on", "command", ...}``,
    or ``{}`` where none ships (the network's probabilities are then taken as
    they are, with :class:`TurnConfig`'s defaults)."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def load_temperature(path: Path = CALIBRATION_PATH) -> float:
    """The fitted temperature of the point reader's probabilities, or 1.0 without a calibration."""
    try:
        value = float(load_calibration(path).get("temperature", 1.0))
    except (TypeError, ValueError):
        return 1.0
    return value if 0.05 <= value <= 20.0 else 1.0


def default_config(path: Path = CALIBRATION_PATH) -> "TurnConfig":
    """:class:`TurnConfig` with the shipped calibration's temperature and the
    thresholds it chose on generated frames."""
    chosen = load_calibration(path).get("config") or {}
    known = {f for f in TurnConfig.__dataclass_fields__}
    values = {k: float(v) if k != "show" else int(v) for k, v in chosen.items()
              if k in known and isinstance(v, (int, float)) and not isinstance(v, bool)}
    return replace(TurnConfig(), **values, temperature=load_temperature(path))


@dataclass(frozen=True)
class TurnConfig:
    """Every threshold of the turn reader, in one record. The
    defaults were chosen on generated frames (``benchmarks/turns.py``,
    styles held out from the network's training), never on the frames the
    measurement reports."""

    #: the point reader's probabilities are raised to 1/temperature and renormalised; None: the fitted one
    temperature: float | None = None
    #: ... but once the reader has learnt this many frames of this board beyond its start (``board_head``),
    #: this one: the fitted temperature softens a cold network on boards it never saw, and a reader fitted
    #: to this board's own frames (by their cross-entropy) needs no softening. Chosen on the held-out-fit
    #: styles (``benchmarks/turns.py --style-set held-out-fit --seed 101 --learn``, 300 turns, learning:
    #: 1.0 asked 8, 1.2 10, 1.4 9, the fitted 1.652 10; none wrong)
    learnt_temperature: float = 1.0
    learnt_after: int = 1
    #: a probability below this is taken as this (one freak pixel must not veto a board outright)
    floor: float = 1e-7
    #: how likely an illegal turn is before the picture is looked at ...
    prior_illegal: float = 0.05
    #: ... spread over about this many boards no play leads to (those a man or two from a legal one): "another
    #: board" is the best of many, so each one of them is that much less likely before the picture is seen
    other_boards: float = 300.0
    #: the posterior a play needs to be ruled legal without asking
    legal_min: float = 0.995
    #: the posterior "another board" needs to be ruled illegal ...
    illegal_min: float = 0.999
    #: ... and the probability each point of that board needs
    illegal_point_min: float = 0.99
    #: per man on the bar the picture disagrees with, the factor on a board's likelihood
    bar_mismatch: float = 1e-3
    #: a point's picture counts as unchanged when at most this share of its strip changed colour
    unchanged_share: float = 0.004
    #: ... where "changed colour" is a Lab distance above this, between the two frames each smoothed
    #: (Gaussian, this sigma in mm of the board) so that the sensor's own noise does not count ...
    change_delta_e: float = CHANGE_DELTA_E
    change_blur_mm: float = CHANGE_BLUR_MM
    #: ... counted over this middle share of the strip's width (a strip is wider than its point, and a man
    #: moved on the point beside must not make this one look changed)
    change_core: float = CHANGE_CORE
    #: the probability an unchanged point still holds what it held before
    unchanged_keep: float = 0.9999
    #: a pile read at least this surely, on a point where neither the board before nor any legal
    #: result has one, means the picture shows what no board of the turn can be: ask
    pile_alarm: float = 0.95
    #: in a game of piles, the probability the pile of each point of two men or more whose picture changed
    #: needs, in the play ruled legal
    pile_point_min: float = 0.99
    #: ... and a point the play leaves as it was must not have changed its picture by this share or more
    pile_change_min: float = 0.02
    #: where the frame before is at hand, how often a place of a man along a point that changed does not
    #: look changed, and one that did not change looks it (``vision.footprints``): the places' changes
    #: weigh each point's count and pile, and then every point whose picture changed must be read as the
    #: play's (count and pile together) at ``pile_point_min``
    #: where the places' changes weigh the points, the probability each point whose picture changed needs,
    #: count and pile together, for the play ruled legal (chosen on held-out-fit turns,
    #: ``benchmarks/turns_unstacking.py --style-set held-out-fit``: no wrong ruling from 0.5 up)
    placed_point_min: float = 0.95
    footprint_miss: float = 0.02
    footprint_stray: float = 0.04
    #: in a game of piles no man moves from point to point (he is played down beside his pile, put back on
    #: it, or borne off): each man more on a point than before the turn, and men of the other colour there,
    #: are this much less likely before the picture is looked at (a man put back from off, a mistake)
    pile_new_man: float = 1e-3
    #: how many candidates an "unsure" lists
    show: int = 4
    #: in a race game an illegal turn leaves each side as many men on the points as some legal play does (men
    #: are neither made nor lost, and a wrong move hits, enters or bears off no more than a legal one): before the
    #: picture is seen, each legal result is this many times as likely as any one such board (the prior of an
    #: illegal turn, ``prior_illegal``, spread over about this many boards a legal play), and the picture's whole
    #: weight on them, not its best one alone, is weighed against the legal plays'
    illegal_boards: float = 100.0
    #: the posterior a race game's illegal turn needs to be ruled (among the boards a wrong move of the mover's
    #: men may leave, against the legal plays: ``MenWeights.p_ruled``) ...
    wrong_move_min: float = 0.99
    #: ... and it is ruled only where every legal play is given at most this probability at some point whose
    #: picture changed where it differs from the board seen (each is refuted somewhere, not by many doubts, nor
    #: by the absence of a change alone)
    illegal_refute: float = 0.01
    #: a race game's play is ruled legal only where the picture gives it at least this probability at every
    #: point whose picture changed
    legal_point_min: float = 0.01
    #: the board seen is looked for among each point's readings within this many nats of its best one
    illegal_window: float = 7.0
    #: a race game's turn is ruled illegal only where the point reader reads what the referee knows: each
    #: point whose picture did not change since the frame before (or, without it, each point where the board
    #: before, every legal play and the board seen have the same men) read as what it holds at this or more ...
    known_point_min: float = 0.05
    #: ... and its doubts there summed (the negative log of each such point's probability) at most this
    known_doubt_max: float = 8.0
    #: ... and only where a misread count (men made or lost where the legal plays differ) is less likely than this
    misread_max: float = 0.5
    #: without the frame before, nothing is known to check the reader on: the board seen must be read at this
    #: or more at every point
    alone_point_min: float = 0.9
    #: in a race game, where the frame before is at hand: a point whose picture changed by more than this share
    #: had men come or go (``moved_seen`` of those that did, of the points whose picture changed at all) or
    #: not (``still_seen`` of those where none did: a die thrown there, a shadow, a man moved beside it)
    moved_share: float = 0.1
    moved_seen: float = 0.9
    still_seen: float = 0.2
    #: in a race game, where the frame before is at hand: each point whose picture changed is also weighed by
    #: where along it the picture changed (its men lie in a row from the edge, so one man more or fewer is a
    #: man's worth of change just beyond or at the row's end: ``vision.footprints``), learnt from nothing; its
    #: log-likelihood ratios are weighed by this (0: not at all).  Chosen on held-out-fit turns
    #: (``benchmarks/turns.py --style-set held-out-fit --seed 101 --learn``, 300 turns, asked cold / learning:
    #: 0 gave 19 / 8, 0.3 11 / 6, 0.5 11 / 4, 0.7 14 / 3, 1.0 12 / 4; none wrong)
    race_places_weight: float = 0.5
    #: ... and a point whose row of men, and the place beyond it, did not change (``footprints.still_rows``:
    #: as strict as an unchanged strip, at the fainter colour difference at most this share) holds what it
    #: held, whatever changed farther along it (a die thrown onto its far end): its reading is the referee's,
    #: and a pile read there is the reader's, not a question (``pile_alarm``). It is not counted among the
    #: points whose picture did not change where an illegal turn is weighed (refuting a legal play, checking
    #: the reader): that stays with the whole strip.  None: not used
    still_row_faint_share: float | None = 0.05
    #: in a race game, a point that held this many men or more before the turn (its row from the edge is full:
    #: ``footprints.PLACES``) is not held to exactly what it had by an unchanged picture: a man laid on, or
    #: taken from, the layer above may change it too little to show (over the four benchmark runs, 5 of 139
    #: such moves showed no change, and each made the referee ask). There a man more or fewer of its colour
    #: is each ``tall_unseen`` likely before the picture is weighed, and the point reader's reading weighs
    #: them; any other count stays as unlikely as at any unchanged point, and the point still counts among
    #: those whose men the referee knows (checking the reader before an illegal turn is ruled). ``tall_unseen``
    #: near that rate: 0.01 to 0.15 asked the same within one turn (held-out-fit seed 101 has no such move).
    #: And where such a point's picture changed by less than ``moved_share``, that says nothing either way
    #: (``_weigh_changes``): at seed 2718 a dark man moved a pip too far between rows of seven and five
    #: changed them by 3% each, and weighing that as "likely nothing moved there" had the turn ruled legal.
    #: None: every unchanged point is held to what it had, and every change weighed alike
    tall_row: int | None = PLACES
    tall_unseen: float = 0.05




@dataclass(frozen=True)
class Candidate:
    """A board the throw allows: the play (notation) and its board document."""

    play: str
    board: Mapping[str, Any]


@dataclass
class TurnEvidence:
    """What the camera gives the turn reader: the point reader's probabilities
    of the frame after ((24, 31), point p at row p-1), the men it found on the
    bar, whether the frame could be read at all, and, where the frame before
    was at hand, each point's share of changed picture (:func:`point_changes`)."""

    count_probs: np.ndarray
    bar: Mapping[str, int] = field(default_factory=lambda: {"light": 0, "dark": 0})
    settled: bool = True
    changes: np.ndarray | None = None
    why_unsettled: str = ""
    #: the board read from the frame the changes are measured against (the
    #: referee uses the changes only where that was the board before the turn)
    before_read: Mapping[str, Any] | None = None
    #: whether ``before_read`` is the board the referee said that frame showed, not the camera's own reading
    before_known: bool = False
    #: the point reader's (24, 3) probabilities of the men at a point's edge lying flat, in a pile of
    #: 2, of 3 (a pile seen where no board of the turn has one makes the turn reader ask)
    pile_probs: np.ndarray | None = None
    #: where the frame before was at hand, each point's changed share row by row along its strip (24, length):
    #: :func:`~willughby.vision.changes.point_change_profiles`, whose means are ``changes``
    profiles: np.ndarray | None = None
    #: the same at a fainter colour difference (``FAINT_DELTA_E``): where men of nearly the board's colour
    #: came or went, which the profiles miss
    faint_profiles: np.ndarray | None = None
    #: set by the referee once it has judged this frame: the board the frame shows (the play it ruled legal
    #: from it, or the board before where nothing had moved yet), for comparing the next frame with it
    shown: Mapping[str, Any] | None = None
    #: how many frames of this board, beyond its start, the point reader has learnt (``board_head``): the
    #: probabilities of a reader adapted to this board are its own, not the cold network's to be softened
    learnt_frames: int = 0
    #: the fainter limit of a still row learnt on this board (``board_noise.RowNoise``), where it is above the
    #: house's ``still_row_faint_share``; None: the house's
    still_faint_share: float | None = None

    @classmethod
    def from_reading(cls, reading: Any, changes: np.ndarray | None = None,
                     profiles: np.ndarray | None = None, faint_profiles: np.ndarray | None = None) -> "TurnEvidence":
        """The evidence of a :class:`~willughby.vision.reader.Reading` (which
        must come from the point reader: it has ``count_probs``); *profiles*
        and *faint_profiles* (and the profiles' means, the *changes*, where
        those are not given) from comparing the frame with the one before
        (:func:`~willughby.vision.changes.point_change_profiles`)."""
        if profiles is not None and changes is None:
            changes = np.asarray(profiles, np.float64).mean(axis=1)
        if getattr(reading, "count_probs", None) is None:
            raise ValueError("the reading has no point probabilities (read with the point reader)")
        why = "" if reading.settled else ((getattr(reading, "occluded_why", None) or "something lies across the board")
                                          if reading.occluded else "the frame is not settled")
        piles = getattr(reading, "pile_probs", None)
        return cls(np.asarray(reading.count_probs, np.float64), dict(reading.bar), bool(reading.settled),
                   changes, why, pile_probs=None if piles is None else np.asarray(piles, np.float64),
                   profiles=profiles, faint_profiles=faint_profiles,
                   learnt_frames=int(getattr(reading, "learnt_frames", 0) or 0))


@dataclass(frozen=True)
class TurnJudgement:
    """The turn reader's decision. ``play`` and ``board`` are the settled
    candidate's (legal) or the board as read (illegal), else None;
    ``ranked`` lists ``{"play", "board", "p"}`` most likely first, "another
    board" (:data:`OTHER`) among them where it has any weight."""

    verdict: str
    settled: bool
    play: str | None
    board: dict[str, Any] | None
    ranked: list[dict[str, Any]]
    p_other: float
    other_board: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "settled": self.settled, "play": self.play, "board": self.board,
                "candidates": [{"play": r["play"], "board": r["board"], "p": round(r["p"], 6)} for r in self.ranked],
                "p_other": round(self.p_other, 6), "notes": list(self.notes)}


def _board_of(classes: np.ndarray, bar: Mapping[str, int], men: int = MEN_PER_SIDE,
              piles: np.ndarray | None = None) -> dict[str, Any]:
    light = [int(n) for n in light_men(classes)]
    dark = [int(n) for n in dark_men(classes)]
    b = {"light": int(bar.get("light", 0)), "dark": int(bar.get("dark", 0))}
    doc: dict[str, Any] = {"format": "board/1", "light": light, "dark": dark, "bar": b,
                           "off": {"light": max(0, men - sum(light) - b["light"]),
                                   "dark": max(0, men - sum(dark) - b["dark"])}}
    if piles is not None:
        height = (0, 2, 3)
        doc["stacked"] = {side: [min(height[int(j)], n) if n >= 2 else 0 for n, j in zip(doc[side], piles)]
                          for side in ("light", "dark")}
    return doc


class TurnReader:
    """Weighs the boards a throw allows against the picture (see the module)."""

    def __init__(self, config: TurnConfig | None = None) -> None:
        config = config or default_config()
        if config.temperature is None:
            config = replace(config, temperature=load_temperature())
        self.config = config

    def log_probs(self, count_probs: np.ndarray, learnt_frames: int = 0) -> np.ndarray:
        """The point reader's probabilities, tempered and floored, as logs: with the fitted temperature, or,
        where the reader has learnt ``learnt_after`` frames of this board or more, ``learnt_temperature``."""
        p = np.asarray(count_probs, np.float64)
        if p.shape != (POINTS, CLASSES):
            raise ValueError(f"point probabilities must be (24, 31), not {p.shape}")
        cfg = self.config
        t = float((cfg.learnt_temperature if learnt_frames >= cfg.learnt_after else cfg.temperature) or 1.0)
        logp = np.log(np.maximum(p, 1e-30)) / t
        logp -= logp.max(axis=1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
        return np.log(np.maximum(np.exp(logp), self.config.floor))

    def judge(self, candidates: Sequence[Candidate], evidence: TurnEvidence,
              before: Mapping[str, Any] | None = None, men: int = MEN_PER_SIDE, piles: bool | None = None) -> TurnJudgement:
        """Decide which of *candidates* (the legal results of the throw) the
        picture shows, if any; *before* (the board before the turn) is needed
        only where *evidence* says which points did not change.  *piles*
        says whether the game is played in piles (the unstacking games: men
        may stand piled on any point, even where the board before and every
        legal result have none, as a wrong turn may pile them); None: where
        the board before or a candidate has a pile."""
        cfg = self.config
        if not candidates:
            raise ValueError("a turn has at least one legal result (a pass leaves the board as it was)")
        if not evidence.settled:
            ranked = [{"play": c.play, "board": dict(c.board), "p": 1.0 / len(candidates)} for c in candidates]
            return TurnJudgement("unsure", False, None, None, ranked[:cfg.show], 0.0, None,
                                 [evidence.why_unsettled or "the frame cannot be read"])
        # a game of piles (the unstacking games): a play changes piles, not counts, so each point is
        # weighed over its count and its pile together
        if piles is None:
            piles = has_piles(before) or any(has_piles(c.board) for c in candidates)
        pile_game = evidence.pile_probs is not None and piles
        weighing = PileWeighing(cfg)
        framed = evidence.changes is not None and before is not None
        changed = (np.asarray(evidence.changes, np.float64) > cfg.unchanged_share if framed
                   else np.ones(POINTS, bool))
        still = race_still_points(cfg, evidence, before) if framed and not pile_game else ~changed
        # a pile read on a point whose picture (or row of men) did not change since the frame before is the
        # reader's, not the table's: that point holds what the referee already knows
        piled = [] if pile_game else [q for q in weighing.unexpected(evidence, candidates, before) if not still[q - 1]]
        if piled:
            ranked = [{"play": c.play, "board": dict(c.board), "p": 1.0 / len(candidates)} for c in candidates]
            return TurnJudgement("unsure", True, None, None, ranked[:cfg.show], 0.0, None,
                                 [f"men read piled on point{'s' if len(piled) > 1 else ''} "
                                  f"{', '.join(map(str, piled))}, where no board of this turn has a pile"])
        logp = self.log_probs(evidence.count_probs, evidence.learnt_frames)
        reader_probs = np.exp(logp)
        notes: list[str] = []
        keep = np.zeros(POINTS, bool)
        unseen = np.zeros(POINTS, bool)
        cand_classes = list(_classes_of([c.board for c in candidates]))
        if pile_game:
            cand_classes = [cls * PILES + pile_classes(c.board) for c, cls in zip(candidates, cand_classes)]
        if framed:
            keep = ~changed
            if pile_game:
                keep, unseen = weighing.kept(keep, evidence, before, cand_classes)
            known = board_classes(before)
            held = np.full((POINTS, CLASSES), math.log(max((1 - cfg.unchanged_keep) / (CLASSES - 1), cfg.floor)))
            held[np.arange(POINTS), known] = math.log(cfg.unchanged_keep)
            if not pile_game and cfg.tall_row is not None:
                held = _tall_held(held, logp, known, cfg)
            logp = np.where((keep if pile_game else keep | still)[:, None], held, logp)
            notes.append(f"{int(keep.sum())} of 24 points unchanged since the frame before")
        if pile_game:
            logp = weighing.joint(logp, evidence, keep, before, unseen)
        elif framed:
            logp = self._weigh_changes(logp, np.asarray(evidence.changes, np.float64), keep, board_classes(before))
            if cfg.race_places_weight > 0 and evidence.profiles is not None:
                flat = flat_log_likelihoods(evidence.profiles, before, weighing.model(), evidence.faint_profiles)
                logp = np.where(keep[:, None], logp, logp + cfg.race_places_weight * flat)
                logp -= np.logaddexp.reduce(logp, axis=1, keepdims=True)
        rows = np.arange(POINTS)
        bar_seen = {k: int(evidence.bar.get(k, 0)) for k in ("light", "dark")}

        def bar_term(board: Mapping[str, Any]) -> float:
            b = board.get("bar") or {}
            miss = sum(abs(int(b.get(k, 0)) - bar_seen[k]) for k in ("light", "dark"))
            return miss * math.log(cfg.bar_mismatch)

        if not pile_game:
            stack = np.array(cand_classes)
            bar_terms = np.array([bar_term(c.board) for c in candidates])
            return self._weigh_men(candidates, stack, logp[rows, stack].sum(axis=1) + bar_terms, logp, keep,
                                   bar_terms, bar_seen, before, men, notes, reader_probs)
        cand_ll = np.array([float(logp[rows, cls].sum()) + bar_term(c.board)
                            for c, cls in zip(candidates, cand_classes)])
        # another board: the best the picture supports that no legal play leads to
        other, other_ll = self._best_other(logp, cand_classes, candidates, bar_seen)
        log_prior_c = math.log((1 - cfg.prior_illegal) / len(candidates))
        scores = np.append(cand_ll + log_prior_c, other_ll + math.log(cfg.prior_illegal / cfg.other_boards))
        post = np.exp(scores - scores.max())
        post /= post.sum()
        p_other = float(post[-1])
        order = np.argsort(-post[:-1], kind="stable")
        ranked = [{"play": candidates[i].play, "board": dict(candidates[i].board), "p": float(post[i])} for i in order]
        if other is None:
            other_board = None
        elif pile_game:
            other_board = _board_of(other // PILES, bar_seen, men, other % PILES)
        else:
            other_board = _board_of(other, bar_seen, men)
        if other_board is not None and p_other >= 1e-3:
            ranked.append({"play": OTHER, "board": other_board, "p": p_other})
            ranked.sort(key=lambda r: -r["p"])
        best = int(order[0])
        if post[best] >= cfg.legal_min:
            c = candidates[best]
            doubt = (weighing.doubt(c.board, evidence, keep, before, logp, cand_classes[best], cand_classes)
                     if pile_game else None)
            if doubt is None:
                return TurnJudgement("legal", True, c.play, dict(c.board), ranked[:cfg.show], p_other,
                                     other_board, notes)
            notes.append(doubt)
            return TurnJudgement("unsure", True, None, None, ranked[:cfg.show], p_other, other_board, notes)
        bar_only = other is not None and any(bool((other == cls).all()) for cls in cand_classes)
        heights_only = other is not None and pile_game and weighing.heights_only(other, cand_classes)
        unmoved_only = other is not None and pile_game and weighing.unmoved_only(other, cand_classes, keep)
        if heights_only and p_other >= cfg.illegal_min:
            # the men lie where a legal play leaves them, only a pile stands higher or lower than it does: from
            # above, a man more or fewer on a pile moves its top by a pixel or two, never enough to rule on
            notes.append("the men lie where a legal play leaves them; only the piles' heights may differ")
        elif unmoved_only and p_other >= cfg.illegal_min:
            # a legal play differs only where the picture did not change: men of nearly the board's colour moved
            # there may not show, so the absence of a change is no ground for ruling the turn illegal
            notes.append("a legal play moves men only where the picture did not change")
        elif bar_only and p_other >= cfg.illegal_min:
            # the men on the points are a legal play's; only the bar disagrees, and the bar's men are
            # counted by finding round tops, with no probabilities: never enough to rule on
            notes.append("the points show a legal play but the bar does not agree with it")
        elif other is not None and p_other >= cfg.illegal_min:
            # the board read must itself be sure at every point: a point misread with confidence
            # elsewhere would otherwise turn a legal play into "another board" (points unchanged since
            # the frame before are sure by then: they keep what the referee knows)
            point_logp = logp - np.logaddexp.reduce(logp, axis=1, keepdims=True) if pile_game else logp
            sure = np.exp(point_logp[rows, other])
            if float(sure.min()) >= cfg.illegal_point_min:
                return TurnJudgement("illegal", True, None, other_board, ranked[:cfg.show], p_other, other_board,
                                     notes)
            weak = [str(i + 1) for i in np.flatnonzero(sure < cfg.illegal_point_min)]
            notes.append(f"no legal play fits, but points {', '.join(weak[:6])} are not read surely enough to rule")
        return TurnJudgement("unsure", True, None, None, ranked[:cfg.show], p_other, other_board, notes)

    def _weigh_changes(self, logp: np.ndarray, changes: np.ndarray, keep: np.ndarray, known: np.ndarray) -> np.ndarray:
        """Each changed point's probabilities weighed with how much its picture changed: a point where men
        came or went mostly changes by ``moved_share`` or more, one where nothing did (a die, a shadow, a
        man moved beside it) mostly less.  But on a full row (``tall_row`` men or more before the turn) a
        man laid on the layer above, or taken from it, changes the picture less than that: there a small
        change says nothing either way.  Returns the points' log-probabilities, each row renormalised."""
        cfg = self.config
        big = changes > cfg.moved_share
        moved = np.where(big, math.log(cfg.moved_seen), math.log1p(-cfg.moved_seen))
        still = np.where(big, math.log(cfg.still_seen), math.log1p(-cfg.still_seen))
        term = np.where(np.arange(CLASSES)[None, :] == known[:, None], still[:, None], moved[:, None])
        if cfg.tall_row is not None:
            term = np.where(((CLASS_MEN[known] >= cfg.tall_row) & ~big)[:, None], 0.0, term)
        out = np.where(keep[:, None], logp, logp + term)
        out -= np.logaddexp.reduce(out, axis=1, keepdims=True)
        return out

    def _weigh_men(self, candidates: Sequence[Candidate], cand_classes: np.ndarray, cand_ll: np.ndarray,
                   logp: np.ndarray, keep: np.ndarray, bar_terms: list[float], bar_seen: Mapping[str, int],
                   before: Mapping[str, Any] | None, men: int, notes: list[str],
                   reader_probs: np.ndarray | None = None) -> TurnJudgement:
        """A race game's turn (no piles): each legal result, an illegal turn and a misread weighed
        (:class:`MenWeights`); ruled legal, illegal, or asked (see the module)."""
        cfg = self.config
        weights = men_weights(logp, keep, cand_classes, cand_ll, bar_terms, mover_of(before, candidates), before,
                              reader_probs)
        post, p_illegal, p_misread = weights.posterior(cfg)
        p_other = p_illegal + p_misread
        best = int(np.argmax(post))
        legal = post[best] >= cfg.legal_min and weights.holds(logp, cand_classes[best], cfg.legal_point_min)
        if not legal or p_other >= 1e-3:
            weights.find_seen(logp, cand_classes, cand_ll, cfg.illegal_window)
        order = np.argsort(-post, kind="stable")[:cfg.show]
        ranked = [{"play": candidates[i].play, "board": dict(candidates[i].board), "p": float(post[i])} for i in order]
        seen_board = None
        if weights.seen is not None:
            seen_board = _board_of(weights.seen, candidates[weights.like].board.get("bar") or {}, men)
        if (p_misread > p_illegal or seen_board is None) and weights.misread is not None:
            other_board = _board_of(weights.misread, bar_seen, men)
        else:
            other_board = seen_board
        if other_board is not None and p_other >= 1e-3:
            ranked.append({"play": OTHER, "board": other_board, "p": p_other})
            ranked.sort(key=lambda r: -r["p"])
        if legal:
            c = candidates[best]
            return TurnJudgement("legal", True, c.play, dict(c.board), ranked[:cfg.show], p_other, other_board, notes)
        why = weights.why_not_illegal(cfg)
        if why is None:
            assert weights.seen is not None and seen_board is not None
            notes.append(describe_difference(weights.seen, cand_classes[weights.near], candidates[weights.near].play))
            return TurnJudgement("illegal", True, None, seen_board, ranked[:cfg.show], p_other, other_board, notes)
        if why:
            which = weights.unmoved if weights.unmoved is not None else weights.same_mover
            notes.append(why.replace("{play}", candidates[which].play if which is not None else ""))
        elif post[best] >= cfg.legal_min:
            notes.append(f"{candidates[best].play} is the likeliest play, but the picture gives it under "
                         f"{cfg.legal_point_min:g} at a point whose picture changed")
        elif p_other >= 0.5:
            notes.append("the picture fits no legal play, but no board a wrong move of the mover's men leaves "
                         "fits it either: a point must be misread")
        return TurnJudgement("unsure", True, None, None, ranked[:cfg.show], p_other, other_board, notes)

    @staticmethod
    def _best_other(logp: np.ndarray, cand_classes: list[np.ndarray], candidates: Sequence[Candidate],
                    bar_seen: Mapping[str, int]) -> tuple[np.ndarray | None, float]:
        """The most likely board (point by point) that is not one of the
        candidates, and its log-likelihood: the picture's own best board, or,
        where that is a candidate, the best board one point away from it."""
        rows = np.arange(POINTS)
        best = np.argmax(logp, axis=1)
        taken = {tuple(int(k) for k in cls) for cls, c in zip(cand_classes, candidates)
                 if all(int((c.board.get("bar") or {}).get(s, 0)) == bar_seen[s] for s in ("light", "dark"))}
        base = float(logp[rows, best].sum())
        if tuple(int(k) for k in best) not in taken:
            return best, base
        found: tuple[np.ndarray | None, float] = (None, -math.inf)
        for p in range(POINTS):
            order = np.argsort(-logp[p])
            for k in order[1:4]:
                trial = best.copy()
                trial[p] = k
                if tuple(int(x) for x in trial) in taken:
                    continue
                ll = base - logp[p, best[p]] + logp[p, k]
                if ll > found[1]:
                    found = (trial, ll)
                break
        return found


# -- the boards with a legal play's men on the points ------------------------------------------------------------


def race_still_points(cfg: TurnConfig, evidence: TurnEvidence, before: Mapping[str, Any]) -> np.ndarray:
    """The points of a race game that hold what they held before the turn (*before*, which the frame before
    showed): those whose whole strip did not change (``unchanged_share``), and those whose row of men did
    not (``footprints.still_rows``, at ``still_row_faint_share`` or the board's learnt limit,
    ``TurnEvidence.still_faint_share``), whatever changed farther along (a die on the strip's far end)."""
    still = np.asarray(evidence.changes, np.float64) <= cfg.unchanged_share
    if cfg.still_row_faint_share is not None and evidence.profiles is not None:
        faint_share = max(cfg.still_row_faint_share, evidence.still_faint_share or 0.0)
        still |= still_rows(evidence.profiles, evidence.faint_profiles, before, cfg.unchanged_share, faint_share)
    return still


def _tall_held(held: np.ndarray, logp: np.ndarray, known: np.ndarray, cfg: TurnConfig) -> np.ndarray:
    """*held* (each point's log-probabilities where its picture did not change: what it held), but at a point
    whose row was full (``tall_row`` men or more): there a man more or fewer of its colour may not show, so
    each is ``tall_unseen`` likely before the picture is weighed, and the picture (*logp*) weighs them."""
    out = held.copy()
    for i in np.flatnonzero(CLASS_MEN[known] >= cfg.tall_row):
        k = int(known[i])
        prior = np.full(CLASSES, cfg.floor)
        prior[k] = 1.0 - 2 * cfg.tall_unseen
        for j in (k - 1, k + 1):
            if 0 <= j < CLASSES and CLASS_COLOUR[j] == CLASS_COLOUR[k] and CLASS_MEN[j] >= 1:
                prior[j] = cfg.tall_unseen
        row = np.log(prior) + logp[i]
        out[i] = row - np.logaddexp.reduce(row)
    return out


def _classes_of(boards: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """The classes of many board documents at once ((N, 24), as :func:`board_classes` gives each)."""
    try:
        light = np.array([b["light"] for b in boards], np.int64)
        dark = np.array([b["dark"] for b in boards], np.int64)
    except (KeyError, TypeError, ValueError):
        light = dark = None
    if light is None or light.shape != (len(boards), POINTS) or dark.shape != light.shape \
            or ((light > 0) & (dark > 0)).any() or (light > MOST_MEN).any() or (dark > MOST_MEN).any() \
            or (light < 0).any() or (dark < 0).any():
        return np.array([board_classes(b) for b in boards]).reshape(-1, POINTS)    # (its errors name the point)
    return np.where(light > 0, light, np.where(dark > 0, MOST_MEN + dark, 0))
