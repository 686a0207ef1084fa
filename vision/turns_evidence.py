"""What the turn reader weighs and what it decides.

A :class:`Candidate` is a board the throw allows (a legal play and its board
document); :class:`TurnEvidence` is what the camera gives the turn reader
(the point reader's probabilities of the frame after, the men on the bar,
and, where the frame before was at hand, how each point's picture changed);
:class:`TurnJudgement` is the turn reader's decision, with the boards ranked
and "another board" (:data:`OTHER`, an illegal turn) among them.  The turn
reader itself is ``vision/turns.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

OTHER = "another board"       # the hypothesis of an illegal turn, as candidates list it


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
    #: where the frame before was at hand, how clearly a man came to or left the bar since
    #: (:func:`~willughby.vision.changes.bar_change`); None: not measured
    bar_change: float | None = None

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
    #: where men stood before the turn ("bar", "1".."24") and the picture changed clearly since the frame
    #: before: there the board is not as it was, so "nothing moved" (a board the same as the board before)
    #: is never ruled, nor taken by the referee, while this is not empty
    moved_at: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "settled": self.settled, "play": self.play, "board": self.board,
                "candidates": [{"play": r["play"], "board": r["board"], "p": round(r["p"], 6)} for r in self.ranked],
                "p_other": round(self.p_other, 6), "notes": list(self.notes), "moved_at": list(self.moved_at)}
