"""The turn reader in the games of piles (Doublets and its kin).

In these games a play changes piles, not how many men stand on a point, so
``TurnReader`` weighs each point over its count and its pile together (a
*joint* class, ``count_class * 3 + pile_class``), with what it knows before
the picture is looked at:

- what the point reader gives, its counts (``count_probs``) and piles
  (``pile_probs``);
- where along each point the picture changed since the frame before, which
  showed the board before (``vision.footprints``: a man laid flat beside a
  pile is a man's worth of change one place beyond the men there);
- that no man moves from point to point in these games (he is played down
  beside his pile, put back on it, or borne off);
- and, to rule a play, that every point whose picture changed is read as the
  play's, count and pile, at ``placed_point_min``, where what no legal play
  leaves on a point counts as an illegal turn's (``prior_illegal``).

A pile's height alone is what the camera sees worst (from above, a man more
or fewer on a pile moves its top by a pixel or two): a picture that differs
from a legal play only there is asked, never ruled illegal.

Vision never learns the rules: the candidates (the legal results of the
throw) come from the engine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .classes import CLASS_COLOUR, CLASS_MEN, CLASSES, PILES, POINTS, board_classes, pile_classes
from .footprints import (FootprintModel, faintly_changed, footprint_log_likelihoods, joint_footprints,
                         quiet_points)

__all__ = ["PileWeighing"]


class PileWeighing:
    """The pile games' part of the turn reader, with its thresholds
    (``TurnConfig``)."""

    def __init__(self, config: Any) -> None:
        self.config = config

    def model(self) -> FootprintModel:
        """How the places' changes are read (``TurnConfig.footprint_*``)."""
        return FootprintModel(miss=self.config.footprint_miss, stray=self.config.footprint_stray)

    def unexpected(self, evidence: Any, candidates: Sequence[Any], before: Mapping[str, Any] | None) -> list[int]:
        """The points (1..24) the point reader sees men piled on, surely
        (``pile_alarm``), that hold men in the reading and a pile in no
        board of the turn (a race game's boards never have one)."""
        if evidence.pile_probs is None:
            return []
        piles = np.asarray(evidence.pile_probs, np.float64)
        if piles.shape != (POINTS, PILES):
            raise ValueError(f"pile probabilities must be (24, 3), not {piles.shape}")
        allowed = np.zeros(POINTS, bool)
        for board in [c.board for c in candidates] + ([before] if before is not None else []):
            stacked = board.get("stacked") or {}
            for side in ("light", "dark"):
                allowed |= np.asarray(stacked.get(side) or [0] * POINTS) > 0
        occupied = np.argmax(np.asarray(evidence.count_probs), axis=1) > 0
        sure = piles[:, 1:].sum(axis=1) >= self.config.pile_alarm
        return [int(i) + 1 for i in np.flatnonzero(sure & occupied & ~allowed)]

    def kept(self, keep: np.ndarray, evidence: Any, before: Mapping[str, Any],
             cand_classes: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The points that keep what they held (*keep*: their pictures did
        not change), widened to those whose men's places did not change
        (``footprints.quiet_points``), less those where men of nearly the
        board's colour may have been moved (``footprints.faintly_changed``),
        and narrowed by the *unseen* ones: a
        man borne off a pile (or put back on one) leaves its men's places as
        they were, so where a legal play does that, an unchanged picture
        says only that the places did not change.  Returns (keep, unseen)."""
        keep = np.asarray(keep, bool).copy()
        if evidence.profiles is not None:
            keep |= quiet_points(evidence.profiles, before, self.model(), faint=evidence.faint_profiles)
        if evidence.faint_profiles is not None:
            keep &= ~faintly_changed(evidence.faint_profiles, before, self.model())
        had = board_classes(before) * PILES + pile_classes(before)
        fp, colour = joint_footprints()
        unseen = np.zeros(POINTS, bool)
        for cls in cand_classes:
            unseen |= (cls != had) & (fp[cls] == fp[had]) & (colour[cls] == colour[had])
        unseen &= keep
        return keep & ~unseen, unseen

    def joint(self, logp: np.ndarray, evidence: Any, keep: np.ndarray, before: Mapping[str, Any] | None,
              unseen: np.ndarray | None = None) -> np.ndarray:
        """Each point's log-probability over (count, pile) together, as a
        (24, 31 * 3) array indexed ``count_class * 3 + pile_class``, from
        *logp*, the counts' (kept points already held at what they had): a
        pile needs two men or more; a point unchanged since the frame before
        keeps the pile it had, as it keeps its men; a point that changed is
        weighed by where along it the picture changed (where the frame
        before, which showed *before*, is at hand), and by what can follow
        in these games (no man comes to a point); an *unseen* point may have
        changed its pile's height, nothing more."""
        cfg = self.config
        piles = np.asarray(evidence.pile_probs, np.float64)
        if piles.shape != (POINTS, PILES):
            raise ValueError(f"pile probabilities must be (24, 3), not {piles.shape}")
        pile_logp = np.log(np.maximum(piles / piles.sum(axis=1, keepdims=True), cfg.floor))
        if keep.any() and before is not None:
            held = np.full((POINTS, PILES), math.log(max((1 - cfg.unchanged_keep) / (PILES - 1), cfg.floor)))
            held[np.arange(POINTS), pile_classes(before)] = math.log(cfg.unchanged_keep)
            pile_logp = np.where(keep[:, None], held, pile_logp)
        joint: np.ndarray = logp[:, :, None] + pile_logp[:, None, :]
        impossible = math.log(cfg.floor) * 4
        joint[:, CLASS_MEN < 2, 1:] = impossible              # a pile of fewer than two men: no such board
        # two men can stand in a pile of 2 only: what the pile reader gives a pile of 3 there is theirs too
        two = CLASS_MEN == 2
        joint[:, two, 1] = logp[:, two] + np.logaddexp(pile_logp[:, 1], pile_logp[:, 2])[:, None]
        joint[:, two, 2] = impossible
        joint[:, CLASS_MEN < 2, 0] = logp[:, CLASS_MEN < 2]   # one man or none: no pile to weigh
        joint = joint.reshape(POINTS, CLASSES * PILES)
        if before is None:
            return joint
        if evidence.profiles is not None and evidence.changes is not None:
            places = footprint_log_likelihoods(evidence.profiles, before, self.model(),
                                               faint=evidence.faint_profiles)
            joint = np.where(keep[:, None], joint, joint + places)
        had = board_classes(before)
        had_men = CLASS_MEN[had]
        had_colour = CLASS_COLOUR[had]
        extra = np.maximum(CLASS_MEN[None, :] - had_men[:, None], 0) + (
            (CLASS_COLOUR[None, :] != had_colour[:, None]) & (CLASS_COLOUR[None, :] >= 0) & (had_colour[:, None] >= 0))
        prior = np.repeat(extra * math.log(cfg.pile_new_man), PILES, axis=1)
        joint = np.where(keep[:, None], joint, joint + prior)
        if unseen is not None and unseen.any():
            fp, colour = joint_footprints()
            had_joint = had * PILES + pile_classes(before)
            moved = (fp[None, :] != fp[had_joint][:, None]) | (colour[None, :] != colour[had_joint][:, None])
            low = math.log(max((1 - cfg.unchanged_keep) / (CLASSES - 1), cfg.floor))
            joint = np.where(unseen[:, None] & moved, low, joint)
        return joint

    @staticmethod
    def heights_only(other: np.ndarray, cand_classes: Sequence[np.ndarray]) -> bool:
        """Whether the joint classes *other* differ from some candidate's
        only in the heights of piles: every point covers the same places of a
        man, with men of the same colour (``vision.footprints``)."""
        fp, colour = joint_footprints()
        return any(bool(((fp[other] == fp[cls]) & (colour[other] == colour[cls])).all()) for cls in cand_classes)

    @staticmethod
    def unmoved_only(other: np.ndarray, cand_classes: Sequence[np.ndarray], keep: np.ndarray) -> bool:
        """Whether *other* differs from some candidate only at points whose
        picture did not change (*keep*): where that candidate moves men, the
        picture shows nothing moved."""
        return any(bool(keep[other != cls].all()) for cls in cand_classes)

    def doubt(self, board: Mapping[str, Any], evidence: Any, keep: np.ndarray, before: Mapping[str, Any] | None,
              joint: np.ndarray, classes: np.ndarray, cand_classes: Sequence[np.ndarray]) -> str | None:
        """Why the piles of *board*, the most likely play, are not shown
        surely enough to rule on, or None.  Where the places' changes
        weighed the points (the frame before at hand), every point whose
        picture changed must be read as the play's, count and pile (*classes*,
        its joint classes), at ``placed_point_min``, what no legal play
        leaves there counting as an illegal turn's.  Else (the point reader
        alone) every point of two men or more whose picture changed must
        show the play's pile at ``pile_point_min``, and a point whose
        picture did not change must keep the pile it had."""
        cfg = self.config
        if evidence.profiles is not None and evidence.changes is not None and before is not None:
            allowed = np.zeros(joint.shape, bool)
            for cls in cand_classes:
                allowed[np.arange(POINTS), cls] = True
            weighed = joint + np.where(allowed, 0.0, math.log(cfg.prior_illegal))
            post = np.exp(weighed - weighed.max(axis=1, keepdims=True))
            post /= post.sum(axis=1, keepdims=True)
            sure = post[np.arange(POINTS), classes]
            weak = [int(i) + 1 for i in np.flatnonzero(~keep & (sure < cfg.placed_point_min))]
            if not weak:
                return None
            return (f"the men on point{'s' if len(weak) > 1 else ''} {', '.join(map(str, weak[:6]))} "
                    "are not read surely enough to rule")
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
