"""What the camera watcher (``companion/watch.py``) learns of the board it
watches, from a frame settled before whose board the referee has since said
it showed: the board head's examples of this board's points
(``willughby.vision.board_head``) and this board's own noise in the
comparison with the frame before (``willughby.vision.board_noise``), from the
points where that turn moved no man; both learnt on copies of the look, so
that a calibration made meanwhile keeps its own untouched. A board told that
the camera contradicts is not learnt: its frame and the board are kept aside
to be looked at.

The watcher decides when to learn and keeps what was learnt; these are the
steps themselves.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from willughby.vision.errors import VisionError

__all__ = ["known_board", "learnt_look", "keep_aside"]

log = logging.getLogger(__name__)


def known_board(shown: Any) -> Any:
    """The board document *shown* (the referee's) as the board head's classes
    of each point; None (logged) where it cannot be learnt."""
    from willughby.vision.board_head import board_classes_of

    try:
        return board_classes_of(list(shown["light"]), list(shown["dark"]))
    except (KeyError, TypeError, VisionError) as exc:
        log.info("the board shown cannot be learnt: %s", exc)
        return None


def learnt_look(look: Any, known: Any, features: np.ndarray, net_probs: np.ndarray, points_read: Any,
                evidence: Any, shown: Any) -> Any:
    """*look* (``reader.Look``) with a settled frame learnt, on copies: its
    points' *features* and the network's own probabilities *net_probs* there,
    the board *known* (the classes of the board *shown*) and the points read
    from its picture, *points_read*; and where the frame was compared with
    the frame before, both boards the referee's (the turn *evidence*), this
    board's noise from the points where they hold the same men."""
    from willughby.vision.board_head import BoardHead
    from willughby.vision.board_noise import RowNoise
    from willughby.vision.turns import TurnConfig

    head = (replace(look.head, examples=replace(look.head.examples)) if look.head is not None
            else BoardHead.empty())
    head.learn(features, net_probs, known, points=points_read)
    noise = None if look.noise is None else replace(look.noise, faint=list(look.noise.faint))
    before = getattr(evidence, "before_read", None)
    if (before is not None and evidence.before_known and evidence.profiles is not None
            and evidence.faint_profiles is not None):
        # the points where the board before and the board shown (both the referee's) hold the same men:
        # this board's noise
        noise = noise if noise is not None else RowNoise()
        try:
            noise.observe(evidence.profiles, evidence.faint_profiles, before, shown, TurnConfig.unchanged_share)
        except (KeyError, TypeError, ValueError) as exc:
            log.info("this board's noise is not learnt from this turn: %s", exc)
    return replace(look, head=head, noise=noise)


def keep_aside(folder: Path, stamp: str, frame: np.ndarray, shown: Any, probs: np.ndarray,
               points: list[int]) -> None:
    """A board told (*shown*) that the camera contradicts at *points*: the
    *frame* and a document of the board told and what the camera read there
    (*probs*) kept in *folder* as *stamp*``.jpg`` and *stamp*``.json``; a
    failure to write them is logged."""
    read = probs.argmax(axis=1)
    doc = {"board_told": dict(shown), "points_contradicted": points,
           "camera_read": {str(p): {"class": int(read[p - 1]), "p": round(float(probs[p - 1].max()), 4)}
                           for p in points}}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(folder / f"{stamp}.jpg"), frame)
        (folder / f"{stamp}.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    except (OSError, cv2.error) as exc:
        log.warning("the contradicted board could not be kept: %s", exc)
