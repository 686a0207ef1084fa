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

Its thresholds and the shipped calibration are ``vision/turns_config.py``;
what it weighs and what it decides (the candidates, the camera's evidence,
the judgement) are ``vision/turns_evidence.py``.  Both are importable from
here.

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

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .changes import (CHANGE_DELTA_E, FAINT_DELTA_E, SAME_PLACE_PX, Rectified, bar_change, point_change_profiles,
                      point_changes, rectified)
from .classes import (CLASS_COLOUR, CLASS_MEN, CLASSES, MEN_PER_SIDE, MOST_MEN, PILES, POINTS, board_classes,
                      dark_men, has_piles, light_men, pile_classes)
from .footprints import flat_log_likelihoods, still_rows
from .turns_config import CALIBRATION_PATH, TurnConfig, default_config, load_calibration, load_temperature
from .turns_evidence import OTHER, Candidate, TurnEvidence, TurnJudgement
from .turns_piles import PileWeighing
from .turns_race import MenWeights, describe_difference, men_weights, mover_of

__all__ = ["TurnConfig", "Candidate", "TurnEvidence", "TurnJudgement", "TurnReader", "board_classes", "pile_classes", "has_piles",
           "point_changes", "point_change_profiles", "Rectified", "rectified", "SAME_PLACE_PX", "CHANGE_DELTA_E", "FAINT_DELTA_E", "load_temperature", "load_calibration", "default_config", "CALIBRATION_PATH", "OTHER",
           "MenWeights", "men_weights", "race_still_points", "same_board", "bar_change"]


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
        the board before or a candidate has a pile.

        "Nothing moved" is a claim about the picture like any other: where the
        picture changed clearly where men stood before the turn
        (:meth:`moved_where_men_stood`), a candidate that leaves the board as
        it was (a pass, or the referee's "not moved yet") is never ruled
        legal, and the judgement names those places (``moved_at``)."""
        if piles is None:
            piles = has_piles(before) or any(has_piles(c.board) for c in candidates)
        found = self._judge(candidates, evidence, before, men, piles)
        moved = self.moved_where_men_stood(evidence, before, piles) if found.settled else ()
        if not self.config.unmoved_check:
            moved = ()
        if not moved:
            return found
        if found.verdict == "legal" and found.board is not None and same_board(found.board, before):
            note = (f"{found.play} leaves the board as it was, but the picture changed where men stood "
                    f"({_places(moved)})")
            return replace(found, verdict="unsure", play=None, board=None, notes=[*found.notes, note],
                           moved_at=moved)
        return replace(found, moved_at=moved)

    def moved_where_men_stood(self, evidence: TurnEvidence, before: Mapping[str, Any] | None,
                              piles: bool = False) -> tuple[str, ...]:
        """Where men stood before the turn and the picture changed clearly since the frame before: the bar
        (where it held men, and a man's worth of it changed: ``bar_moved_share``), and, in a race game, each
        point that held men whose picture changed by more than ``unmoved_point_share`` along its row of men,
        not only farther along it (where a die may lie: :func:`race_still_points`).  Empty where the frame
        before is not at hand."""
        cfg = self.config
        if before is None or evidence.changes is None:
            return ()
        out: list[str] = []
        bar = before.get("bar") or {}
        if evidence.bar_change is not None and evidence.bar_change > cfg.bar_moved_share \
                and any(int(bar.get(k, 0)) for k in ("light", "dark")):
            out.append("bar")
        if not piles:
            held = CLASS_MEN[board_classes(before)] > 0
            big = np.asarray(evidence.changes, np.float64) > cfg.unmoved_point_share
            still = race_still_points(cfg, evidence, before)
            out.extend(str(q + 1) for q in np.flatnonzero(held & big & ~still))
        return tuple(out)

    def _judge(self, candidates: Sequence[Candidate], evidence: TurnEvidence, before: Mapping[str, Any] | None,
               men: int, piles: bool) -> TurnJudgement:
        """:meth:`judge`, less the check of "nothing moved" against the picture."""
        cfg = self.config
        if not candidates:
            raise ValueError("a turn has at least one legal result (a pass leaves the board as it was)")
        if not evidence.settled:
            ranked: list[dict[str, Any]] = [{"play": c.play, "board": dict(c.board), "p": 1.0 / len(candidates)}
                                            for c in candidates]
            return TurnJudgement("unsure", False, None, None, ranked[:cfg.show], 0.0, None,
                                 [evidence.why_unsettled or "the frame cannot be read"])
        # a game of piles (the unstacking games): a play changes piles, not counts, so each point is
        # weighed over its count and its pile together
        pile_game = evidence.pile_probs is not None and piles
        weighing = PileWeighing(cfg)
        # the board before, where the frame before is at hand too (its changes): None where it is not
        framed = before if evidence.changes is not None else None
        changed = (np.asarray(evidence.changes, np.float64) > cfg.unchanged_share if framed is not None
                   else np.ones(POINTS, bool))
        still = race_still_points(cfg, evidence, framed) if framed is not None and not pile_game else ~changed
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
        if framed is not None:
            keep = ~changed
            if pile_game:
                keep, unseen = weighing.kept(keep, evidence, framed, cand_classes)
            known = board_classes(framed)
            held = np.full((POINTS, CLASSES), math.log(max((1 - cfg.unchanged_keep) / (CLASSES - 1), cfg.floor)))
            held[np.arange(POINTS), known] = math.log(cfg.unchanged_keep)
            if not pile_game and cfg.tall_row is not None:
                held = _tall_held(held, logp, known, cfg)
            logp = np.where((keep if pile_game else keep | still)[:, None], held, logp)
            notes.append(f"{int(keep.sum())} of 24 points unchanged since the frame before")
        if pile_game:
            logp = weighing.joint(logp, evidence, keep, before, unseen)
        elif framed is not None:
            logp = self._weigh_changes(logp, np.asarray(evidence.changes, np.float64), keep, board_classes(framed))
            if cfg.race_places_weight > 0 and evidence.profiles is not None:
                flat = flat_log_likelihoods(evidence.profiles, framed, weighing.model(), evidence.faint_profiles)
                logp = np.where(keep[:, None], logp, logp + cfg.race_places_weight * flat)
                logp -= np.logaddexp.reduce(logp, axis=1, keepdims=True)
        rows = np.arange(POINTS)
        bar_seen = {k: int(evidence.bar.get(k, 0)) for k in ("light", "dark")}
        # where the frame before is at hand, whether the bar's picture changed by a man's worth: a board whose
        # bar holds other men than the board before's shows that mostly, one whose bar holds the same rarely
        bar_moved = (None if framed is None or evidence.bar_change is None
                     else bool(evidence.bar_change > cfg.bar_moved_share))
        bar_before = {k: int((framed or {}).get("bar", {}).get(k, 0)) for k in ("light", "dark")}

        def bar_term(board: Mapping[str, Any]) -> float:
            b = board.get("bar") or {}
            miss = sum(abs(int(b.get(k, 0)) - bar_seen[k]) for k in ("light", "dark"))
            term = miss * math.log(cfg.bar_mismatch)
            if bar_moved is not None:
                seen = cfg.bar_moved_seen if any(int(b.get(k, 0)) != bar_before[k] for k in bar_before) \
                    else cfg.bar_still_seen
                term += math.log(seen if bar_moved else 1.0 - seen)
            return term

        if not pile_game:
            stack = np.array(cand_classes)
            bar_terms = [bar_term(c.board) for c in candidates]
            return self._weigh_men(candidates, stack, logp[rows, stack].sum(axis=1) + np.array(bar_terms), logp, keep,
                                   bar_terms, bar_seen, before, men, notes, reader_probs, alone=framed is None)
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
                   reader_probs: np.ndarray | None = None, alone: bool = False) -> TurnJudgement:
        """A race game's turn (no piles): each legal result, an illegal turn and a misread weighed
        (:class:`MenWeights`); ruled legal, illegal, or asked (see the module). *alone*: without the frame
        before (a photo judged alone), where a legal ruling must also tell its board from a man more or fewer
        (``alone_one_man``)."""
        cfg = self.config
        weights = men_weights(logp, keep, cand_classes, cand_ll, bar_terms, mover_of(before, candidates), before,
                              reader_probs)
        post, p_illegal, p_misread = weights.posterior(cfg)
        p_other = p_illegal + p_misread
        best = int(np.argmax(post))
        legal = post[best] >= cfg.legal_min and weights.holds(logp, cand_classes[best], cfg.legal_point_min)
        one_man = ""
        if legal and alone and cfg.alone_one_man is not None:
            ratio, where = weights.one_man_off(cand_classes[best])
            if ratio > -math.log(cfg.alone_one_man):
                legal, one_man = False, where
        if not legal or p_other >= 1e-3:
            weights.find_seen(logp, cand_classes, cand_ll, cfg.illegal_window)
        order = np.argsort(-post, kind="stable")[:cfg.show]
        ranked = [{"play": candidates[i].play, "board": dict(candidates[i].board), "p": float(post[i])} for i in order]
        seen_board: dict[str, Any] | None = None
        other_board: dict[str, Any] | None
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
        elif one_man:
            notes.append(f"{candidates[best].play} is the likeliest play, but the picture does not tell it from "
                         f"{one_man} (a wrong turn)")
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


def same_board(board: Mapping[str, Any], before: Mapping[str, Any] | None) -> bool:
    """Whether a board document has *before*'s men on every point and the bar (piles aside)."""
    if before is None:
        return False
    try:
        return ([int(x) for x in board["light"]] == [int(x) for x in before["light"]]
                and [int(x) for x in board["dark"]] == [int(x) for x in before["dark"]]
                and all(int((board.get("bar") or {}).get(k, 0)) == int((before.get("bar") or {}).get(k, 0))
                        for k in ("light", "dark")))
    except (KeyError, TypeError, ValueError):
        return False


def _places(moved: Sequence[str]) -> str:
    """Places named in words: "the bar, points 3 and 7"."""
    points = [q for q in moved if q != "bar"]
    words = ["the bar"] if "bar" in moved else []
    if points:
        words.append(f"point {points[0]}" if len(points) == 1
                     else f"points {', '.join(points[:-1])} and {points[-1]}")
    return ", ".join(words)


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
    light: np.ndarray | None
    dark: np.ndarray | None
    try:
        light = np.array([b["light"] for b in boards], np.int64)
        dark = np.array([b["dark"] for b in boards], np.int64)
    except (KeyError, TypeError, ValueError):
        light = dark = None
    if light is None or dark is None or light.shape != (len(boards), POINTS) or dark.shape != light.shape \
            or ((light > 0) & (dark > 0)).any() or (light > MOST_MEN).any() or (dark > MOST_MEN).any() \
            or (light < 0).any() or (dark < 0).any():
        return np.array([board_classes(b) for b in boards]).reshape(-1, POINTS)    # (its errors name the point)
    return np.where(light > 0, light, np.where(dark > 0, MOST_MEN + dark, 0))
