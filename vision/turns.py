"""The turn reader: the boards a throw allows, weighed against the picture.

The referee knows the board before the turn and the throw, so only a
handful of boards can follow it: the results of the throw's legal plays
(the engine lists them; this module never learns the rules, DESIGN.md
convention 15). The point reader gives, for every point, a probability for
each thing it may hold (empty, 1..15 light men, 1..15 dark men). A board's
*likelihood* is the product over the points of the probability of what that
board has there; the turn reader compares

- every legal result of the throw (each *candidate*), and
- "another board": the board the picture supports best among those no
  legal play leads to (an illegal turn),

and decides, as a referee players trust would:

- ``legal``: one candidate is overwhelmingly the most likely
  (its posterior at least ``legal_min``);
- ``illegal``: another board is overwhelmingly the most likely *and* is
  itself read with confidence (``illegal_point_min``) at every point (those
  unchanged since the frame before count as read), and it differs from
  every legal play on the points, not only on the bar;
- ``unsure``: anything else, with the candidates ranked by probability; the
  referee then asks the players. A frame that cannot be read (a hand over
  the board) is always ``unsure``, with ``settled`` false.

The point reader's probabilities are sharpened or softened by a
*temperature* fitted on generated frames of styles the network never learnt
from and that the measurement never uses (``tools/fit_turn_temperature.py``,
written with its provenance to ``vision/data/turn_calibration.json``).

Where the settled frame before the turn is at hand (same camera, same
light), :func:`point_changes` tells which points' pictures did not change;
those keep the counts the referee already knows, and only what changed needs
reading.

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

__all__ = ["TurnConfig", "Candidate", "TurnEvidence", "TurnJudgement", "TurnReader", "board_classes",
           "point_changes", "Rectified", "rectified", "load_temperature", "load_calibration", "default_config", "CALIBRATION_PATH", "OTHER"]

POINTS = 24
CLASSES = 31                  # empty, 1..15 light, 1..15 dark
OTHER = "another board"       # the hypothesis of an illegal turn, as candidates list it
CALIBRATION_PATH = Path(__file__).with_name("data") / "turn_calibration.json"
SAME_PLACE_PX = 1.0           # frames rectified with corners this close (px) show the board from the same place


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
    """Every threshold of the turn reader (DESIGN.md convention 10). The
    defaults were chosen on generated frames (``benchmarks/turns.py``,
    styles held out from the network's training), never on the frames the
    measurement reports."""

    #: the point reader's probabilities are raised to 1/temperature and renormalised; None: the fitted one
    temperature: float | None = None
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
    change_delta_e: float = 18.0
    change_blur_mm: float = 1.0
    #: ... counted over this middle share of the strip's width (a strip is wider than its point, and a man
    #: moved on the point beside must not make this one look changed)
    change_core: float = 0.6
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
    #: how many candidates an "unsure" lists
    show: int = 4


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
    #: the point reader's (24, 3) probabilities of the men at a point's edge lying flat, in a pile of
    #: 2, of 3 (a pile seen where no board of the turn has one makes the turn reader ask)
    pile_probs: np.ndarray | None = None

    @classmethod
    def from_reading(cls, reading: Any, changes: np.ndarray | None = None) -> "TurnEvidence":
        """The evidence of a :class:`~willughby.vision.reader.Reading` (which
        must come from the point reader: it has ``count_probs``)."""
        if getattr(reading, "count_probs", None) is None:
            raise ValueError("the reading has no point probabilities (read with the point reader)")
        why = "" if reading.settled else ("something lies across the board" if reading.occluded
                                          else "the frame is not settled")
        piles = getattr(reading, "pile_probs", None)
        return cls(np.asarray(reading.count_probs, np.float64), dict(reading.bar), bool(reading.settled),
                   changes, why, pile_probs=None if piles is None else np.asarray(piles, np.float64))


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


def board_classes(board: Mapping[str, Any]) -> np.ndarray:
    """The class of each point of a board document (0 empty, n light men,
    15 + n dark men): what the point reader's probabilities are indexed by.

    >>> board_classes({"light": [2] + [0] * 23, "dark": [0] * 23 + [3]})[[0, 1, 23]].tolist()
    [2, 0, 18]
    """
    light, dark = board["light"], board["dark"]
    out = np.zeros(POINTS, np.int64)
    for i in range(POINTS):
        n_l, n_d = int(light[i]), int(dark[i])
        if n_l and n_d:
            raise ValueError(f"point {i + 1} holds men of both colours")
        if n_l > 15 or n_d > 15:
            raise ValueError(f"point {i + 1} holds more than 15 men")
        out[i] = n_l if n_l else (15 + n_d if n_d else 0)
    return out


PILES = 3                     # the men at a point's edge: laid flat, a pile of 2, a pile of 3 or more


def pile_classes(board: Mapping[str, Any]) -> np.ndarray:
    """The pile class of each point of a board document (0 men laid flat,
    1 a pile of 2, 2 a pile of 3 or more): what the point reader's pile
    probabilities are indexed by.

    >>> pile_classes({"light": [3] + [0] * 23, "dark": [0] * 24,
    ...               "stacked": {"light": [2] + [0] * 23, "dark": [0] * 24}})[:2].tolist()
    [1, 0]
    """
    stacked = board.get("stacked") or {}
    out = np.zeros(POINTS, np.int64)
    for side in ("light", "dark"):
        for i, s in enumerate(stacked.get(side) or [0] * POINTS):
            if int(s) >= 2:
                out[i] = 1 if int(s) == 2 else 2
    return out


def has_piles(board: Mapping[str, Any] | None) -> bool:
    """Whether a board document has a man in a pile (the unstacking games)."""
    stacked = (board or {}).get("stacked") or {}
    return any(int(s) for side in ("light", "dark") for s in (stacked.get(side) or ()))


def _board_of(classes: np.ndarray, bar: Mapping[str, int], men: int = 15,
              piles: np.ndarray | None = None) -> dict[str, Any]:
    light = [int(k) if 1 <= k <= 15 else 0 for k in classes]
    dark = [int(k) - 15 if k > 15 else 0 for k in classes]
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

    def log_probs(self, count_probs: np.ndarray) -> np.ndarray:
        """The point reader's probabilities, tempered and floored, as logs."""
        p = np.asarray(count_probs, np.float64)
        if p.shape != (POINTS, CLASSES):
            raise ValueError(f"point probabilities must be (24, 31), not {p.shape}")
        t = float(self.config.temperature or 1.0)
        logp = np.log(np.maximum(p, 1e-30)) / t
        logp -= logp.max(axis=1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
        return np.log(np.maximum(np.exp(logp), self.config.floor))

    def judge(self, candidates: Sequence[Candidate], evidence: TurnEvidence,
              before: Mapping[str, Any] | None = None, men: int = 15) -> TurnJudgement:
        """Decide which of *candidates* (the legal results of the throw) the
        picture shows, if any; *before* (the board before the turn) is needed
        only where *evidence* says which points did not change."""
        cfg = self.config
        if not candidates:
            raise ValueError("a turn has at least one legal result (a pass leaves the board as it was)")
        if not evidence.settled:
            ranked = [{"play": c.play, "board": dict(c.board), "p": 1.0 / len(candidates)} for c in candidates]
            return TurnJudgement("unsure", False, None, None, ranked[:cfg.show], 0.0, None,
                                 [evidence.why_unsettled or "the frame cannot be read"])
        # a game of piles (the unstacking games): a play changes piles, not counts, so each point is
        # weighed over its count and its pile together
        pile_game = evidence.pile_probs is not None and (
            has_piles(before) or any(has_piles(c.board) for c in candidates))
        piled = [] if pile_game else self._unexpected_piles(evidence, candidates, before)
        if piled:
            ranked = [{"play": c.play, "board": dict(c.board), "p": 1.0 / len(candidates)} for c in candidates]
            return TurnJudgement("unsure", True, None, None, ranked[:cfg.show], 0.0, None,
                                 [f"men read piled on point{'s' if len(piled) > 1 else ''} "
                                  f"{', '.join(map(str, piled))}, where no board of this turn has a pile"])
        logp = self.log_probs(evidence.count_probs)
        notes: list[str] = []
        keep = np.zeros(POINTS, bool)
        if evidence.changes is not None and before is not None:
            keep = np.asarray(evidence.changes, np.float64) <= cfg.unchanged_share
            known = board_classes(before)
            held = np.full((POINTS, CLASSES), math.log(max((1 - cfg.unchanged_keep) / (CLASSES - 1), cfg.floor)))
            held[np.arange(POINTS), known] = math.log(cfg.unchanged_keep)
            logp = np.where(keep[:, None], held, logp)
            notes.append(f"{int(keep.sum())} of 24 points unchanged since the frame before")
        cand_classes = [board_classes(c.board) for c in candidates]
        if pile_game:
            logp = self._with_piles(logp, evidence.pile_probs, keep, before)
            cand_classes = [cls * PILES + pile_classes(c.board) for c, cls in zip(candidates, cand_classes)]
        rows = np.arange(POINTS)
        bar_seen = {k: int(evidence.bar.get(k, 0)) for k in ("light", "dark")}

        def bar_term(board: Mapping[str, Any]) -> float:
            b = board.get("bar") or {}
            miss = sum(abs(int(b.get(k, 0)) - bar_seen[k]) for k in ("light", "dark"))
            return miss * math.log(cfg.bar_mismatch)

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
            doubt = self._pile_doubt(c.board, evidence, keep, before) if pile_game else None
            if doubt is None:
                return TurnJudgement("legal", True, c.play, dict(c.board), ranked[:cfg.show], p_other,
                                     other_board, notes)
            notes.append(doubt)
            return TurnJudgement("unsure", True, None, None, ranked[:cfg.show], p_other, other_board, notes)
        bar_only = other is not None and any(bool((other == cls).all()) for cls in cand_classes)
        if bar_only and p_other >= cfg.illegal_min:
            # the men on the points are a legal play's; only the bar disagrees, and the bar's men are
            # counted by finding round tops, with no probabilities: never enough to rule on
            notes.append("the points show a legal play but the bar does not agree with it")
        elif other is not None and p_other >= cfg.illegal_min:
            # the board read must itself be sure at every point: a point misread with confidence
            # elsewhere would otherwise turn a legal play into "another board" (points unchanged since
            # the frame before are sure by then: they keep what the referee knows)
            sure = np.exp(logp[rows, other])
            if float(sure.min()) >= cfg.illegal_point_min:
                return TurnJudgement("illegal", True, None, other_board, ranked[:cfg.show], p_other, other_board,
                                     notes)
            weak = [str(i + 1) for i in np.flatnonzero(sure < cfg.illegal_point_min)]
            notes.append(f"no legal play fits, but points {', '.join(weak[:6])} are not read surely enough to rule")
        return TurnJudgement("unsure", True, None, None, ranked[:cfg.show], p_other, other_board, notes)

    def _with_piles(self, logp: np.ndarray, pile_probs: np.ndarray, keep: np.ndarray,
                    before: Mapping[str, Any] | None) -> np.ndarray:
        """Each point's log-probability over (count, pile) together, as a
        (24, 31 * 3) array indexed ``count_class * 3 + pile_class``: a pile
        needs two men or more; a point unchanged since the frame before keeps
        the pile it had, as it keeps its men."""
        piles = np.asarray(pile_probs, np.float64)
        if piles.shape != (POINTS, PILES):
            raise ValueError(f"pile probabilities must be (24, 3), not {piles.shape}")
        cfg = self.config
        pile_logp = np.log(np.maximum(piles / piles.sum(axis=1, keepdims=True), cfg.floor))
        if keep.any() and before is not None:
            held = np.full((POINTS, PILES), math.log(max((1 - cfg.unchanged_keep) / (PILES - 1), cfg.floor)))
            held[np.arange(POINTS), pile_classes(before)] = math.log(cfg.unchanged_keep)
            pile_logp = np.where(keep[:, None], held, pile_logp)
        joint = logp[:, :, None] + pile_logp[:, None, :]
        men = np.array([k if k <= 15 else k - 15 for k in range(CLASSES)])
        joint[:, men < 2, 1:] = math.log(cfg.floor) * 4      # a pile of fewer than two men: no such board
        joint[:, men < 2, 0] = logp[:, men < 2]               # one man or none: no pile to weigh
        return joint.reshape(POINTS, CLASSES * PILES)

    def _pile_doubt(self, board: Mapping[str, Any], evidence: TurnEvidence, keep: np.ndarray,
                    before: Mapping[str, Any] | None) -> str | None:
        """Why the piles of *board*, the most likely play of a game of piles,
        are not shown surely enough to rule on, or None.  The point reader's
        piles are less sure than its counts, and in these games a play
        changes piles, not counts: every point of two men or more whose
        picture changed must show the play's pile at ``pile_point_min``, and
        a point whose picture did not change must keep the pile it had."""
        cfg = self.config
        piles = np.asarray(evidence.pile_probs, np.float64)
        piles = piles / piles.sum(axis=1, keepdims=True)
        want = pile_classes(board)
        men = np.asarray(board["light"]) + np.asarray(board["dark"])
        had = pile_classes(before) if before is not None else None
        same = None
        if before is not None:
            same = (board_classes(board) == board_classes(before)) & (want == had)
        changes = None if evidence.changes is None else np.asarray(evidence.changes, np.float64)
        weak = []
        for i in range(POINTS):
            if keep[i] and had is not None:
                if want[i] != had[i]:
                    weak.append(i + 1)
            elif men[i] >= 2 and piles[i, want[i]] < cfg.pile_point_min:
                weak.append(i + 1)
            elif (same is not None and changes is not None and same[i] and men[i]
                  and changes[i] >= cfg.pile_change_min):
                weak.append(i + 1)      # the play leaves this point as it was, but its picture changed
        if not weak:
            return None
        return (f"the piles on point{'s' if len(weak) > 1 else ''} {', '.join(map(str, weak[:6]))} "
                "are not read surely enough to rule")

    def _unexpected_piles(self, evidence: TurnEvidence, candidates: Sequence[Candidate],
                          before: Mapping[str, Any] | None) -> list[int]:
        """The points (1..24) the point reader sees men piled on, surely
        (``pile_alarm``), that hold men in the reading and a pile in no
        board of the turn (a race game's boards never have one)."""
        if evidence.pile_probs is None:
            return []
        piles = np.asarray(evidence.pile_probs, np.float64)
        if piles.shape != (POINTS, 3):
            raise ValueError(f"pile probabilities must be (24, 3), not {piles.shape}")
        allowed = np.zeros(POINTS, bool)
        for board in [c.board for c in candidates] + ([before] if before is not None else []):
            stacked = board.get("stacked") or {}
            for side in ("light", "dark"):
                allowed |= np.asarray(stacked.get(side) or [0] * POINTS) > 0
        occupied = np.argmax(np.asarray(evidence.count_probs), axis=1) > 0
        sure = piles[:, 1:].sum(axis=1) >= self.config.pile_alarm
        return [int(i) + 1 for i in np.flatnonzero(sure & occupied & ~allowed)]

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


@dataclass(frozen=True)
class Rectified:
    """A frame's playing surface, rectified with *corners* and in 8-bit Lab:
    what :func:`point_changes` compares.  Make it once per frame
    (:func:`rectified`) and keep it for the next turn, so no frame is
    rectified twice."""

    lab: np.ndarray                    # uint8 Lab, the rectified surface and its margin
    corners: tuple[tuple[float, float], ...]
    frame_shape: tuple[int, ...]


def rectified(frame: np.ndarray, corners: Sequence[Sequence[float]], config: Any = None,
              reading: Any = None, blur_mm: float | None = None) -> Rectified:
    """*frame*'s playing surface, rectified for comparing (:class:`Rectified`)
    and smoothed (``TurnConfig.change_blur_mm``, or *blur_mm*); where
    *reading* is the reader's reading of this frame with these corners and
    configuration, the surface it rectified (and its Lab) is used, not
    warped (or converted) again."""
    import cv2

    from .config import VisionConfig
    from .reader import rectify

    config = config or VisionConfig.default()
    rect = getattr(reading, "rect", None)
    lab = getattr(reading, "rect_lab8", None) if rect is not None else None
    if rect is None:
        rect = rectify(config, frame, corners, config.margin)
    if lab is None:
        lab = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)
    sigma = (TurnConfig().change_blur_mm if blur_mm is None else blur_mm) * config.scale
    if sigma > 0:
        lab = cv2.GaussianBlur(lab, (0, 0), sigma)
    return Rectified(lab,
                     tuple((float(x), float(y)) for x, y in corners), tuple(frame.shape))


def point_changes(before: np.ndarray | Rectified, after: np.ndarray | Rectified, corners: Sequence[Sequence[float]],
                  config: Any = None, delta_e: float | None = None, core: float | None = None) -> np.ndarray:
    """For each point (index p-1), the share of the middle of its strip
    (*core* of its width) whose colour changed by more than *delta_e* (Lab)
    between two frames of the same camera: near 0 where nothing was moved
    there, a few hundredths where a man came or went."""
    import cv2

    from .config import VisionConfig
    from .geometry import BoardGeometry
    from .strips import STRIP_PX, _cut, cut_pixels, whole_pixel_strips

    config = config or VisionConfig.default()
    threshold = TurnConfig().change_delta_e if delta_e is None else delta_e
    core = TurnConfig().change_core if core is None else core
    if not 0.1 <= core <= 1.0:
        raise ValueError(f"the middle share of a strip must be 0.1 to 1, not {core!r}")
    key = np.asarray(corners, np.float64)
    frames = []
    for frame in (before, after):
        if isinstance(frame, Rectified):
            if np.abs(np.asarray(frame.corners) - key).max() >= SAME_PLACE_PX:
                raise ValueError("a frame rectified with other corners cannot be compared with these")
            frames.append(frame)
        else:
            frames.append(None)
    shapes = [f.frame_shape if isinstance(f, Rectified) else tuple(f.shape) for f in (before, after)]
    if shapes[0] != shapes[1]:
        raise ValueError(f"the frames before and after differ in size: {shapes[0]} and {shapes[1]}")
    labs = [(f if f is not None else rectified(frame, corners, config)).lab
            for f, frame in zip(frames, (before, after))]
    geometry = BoardGeometry(config)
    ones = np.ones((1, 3), np.float32)
    width = STRIP_PX[0]
    lo = int(round(width * (1 - core) / 2))
    hi = max(lo + 1, width - lo)
    if whole_pixel_strips(geometry, config.margin):
        # each pixel of a strip is one pixel of the board: compare the strips' pixels alone (a third of
        # the board's), the same numbers as comparing the whole board and cutting the strips after
        cuts = [cut_pixels(geometry, lab, config.margin) for lab in labs]
        d = cv2.absdiff(cuts[0], cuts[1]).reshape(-1, width, 3).astype(np.float32)
        distance2 = cv2.transform(cv2.multiply(d, d), ones)
        changed = (distance2 > threshold * threshold).astype(np.float32).reshape(POINTS, -1, width)
        return changed[:, :, lo:hi].reshape(POINTS, -1).mean(axis=1)
    # the colour distance between the two frames, pixel by pixel, against the threshold (in OpenCV:
    # a tenth of the time numpy takes over a whole frame)
    d = cv2.absdiff(labs[0], labs[1]).astype(np.float32)
    distance2 = cv2.transform(cv2.multiply(d, d), ones)
    changed = (distance2 > threshold * threshold).astype(np.float32)
    strips = _cut(geometry, None, changed[:, :, None], config.margin)
    return strips.maps[:, 0, :, lo:hi].reshape(POINTS, -1).mean(axis=1)
