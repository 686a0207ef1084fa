"""A turn judged from one photo of the board after it.

The same judgement serves ``willughby judge --after-image`` and a photo
taken or uploaded on the page's dispute view: the board before and the
throw are known; the photo is read by the point reader, and the turn
reader weighs every legal play of the throw against the picture (a turn
is judged, not a frame: ``docs/turn-reader.md``, "The turn reader and
its figures"). It rules only what the photo settles; otherwise the
verdict is ``unsure`` and the players are asked.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

import numpy as np

from willughby.engine.errors import EngineError
from willughby.engine.families import family_of
from willughby.engine.position import Position
from willughby.engine.referee import judge, turn_outcomes
from willughby.engine.rules import Rules

from .point_question import point_question

__all__ = ["judge_photo", "point_question", "possible_position", "read_throw", "unsure_of_throw"]


def _read_photo(rules: Rules, image: np.ndarray, corners: Sequence[Sequence[float]], *, marked_by_hand: bool,
                look: Any, earlier: np.ndarray | None) -> tuple[Any, Any, np.ndarray | None]:
    """The photo read: (the corners read with, the reading, the photo before where it is of the same camera)."""
    from willughby.vision.reader import learn_look, read_board

    if marked_by_hand:
        from willughby.vision.config import VisionConfig
        from willughby.vision.refine import refine_corners

        corners = refine_corners(VisionConfig.default(), image, corners).corners.tolist()
    if earlier is not None and earlier.shape != image.shape:
        earlier = None
    if earlier is not None:
        # the photo before, from the same camera, shows this board as it is: what it learns of the board
        # (its colours, and its frame's picture, so only what changed since can be a hand) is used to read
        learnt = learn_look(earlier, corners)
        look = learnt if look is None else replace(look, rails=learnt.rails)
    return corners, read_board(image, corners, look=look, men_per_side=rules.men), earlier


def _reading_doc(reading: Any, rules: Rules) -> dict[str, Any]:
    """The board as the camera read it, with its confidence per location (the document's ``reading``)."""
    doc: dict[str, Any] = reading.to_board(men_per_side=rules.men)
    doc["confidence"] = {k: round(v, 3) for k, v in reading.location_confidence.items()}
    return doc


def judge_photo(rules: Rules, before: Position, dice: Sequence[int], image: np.ndarray,
                corners: Sequence[Sequence[float]], *, marked_by_hand: bool, look: Any = None,
                earlier: np.ndarray | None = None, throw_read: bool = False) -> dict[str, Any]:
    """The ruling document of the turn from *before* with *dice* whose board
    after is shown in *image*, the board's corners C1..C4 at *corners*.

    *marked_by_hand*: corners a person marked (a few pixels off), moved along
    the board to the points' edges first; a saved calibration's were refined
    when it was made. *look*: what a calibration learnt of this board.
    *earlier*: a photo of the board before the turn from the same camera,
    which shows what changed. *throw_read*: *dice* were read by the camera
    from the photo, not given: a board no play of them leads to is then
    ``unsure`` (asked), never ruled illegal on the camera's dice alone (the
    dice may have been misread; the referee at the table does the same).
    Returns the document ``judge --after-image --json`` prints
    (``docs/command-line.md``), with ``corners``, the corners read with."""
    from willughby.vision.turns import (CHANGE_DELTA_E, FAINT_DELTA_E, Candidate, TurnEvidence, TurnReader,
                                        bar_change, point_change_profiles, rectified)

    corners, reading, earlier = _read_photo(rules, image, corners, marked_by_hand=marked_by_hand, look=look,
                                            earlier=earlier)
    profiles = faint = bar = None
    if earlier is not None:
        # both photos rectified once, as the comparison rectifies them (the board's layout found in the photo
        # before), for the points and the bar alike
        then = rectified(earlier, corners)
        now = rectified(image, corners, then.config)
        # where along each point the picture changed: in the games of piles, what a play did there
        profiles, faint = point_change_profiles(then, now, corners, delta_e=(CHANGE_DELTA_E, FAINT_DELTA_E))
        # and whether a man left the bar or came to it (as the watcher compares two settled frames): a man
        # entered onto a point of his own colour may change that point too little to show, but not the bar
        # (docs/house-conventions.md, convention 18)
        bar = bar_change(then, now)
    outcomes = turn_outcomes(rules, before, dice)
    by_play = {(o.play.notation or "(no play)"): o for o in outcomes}
    evidence = TurnEvidence.from_reading(reading, profiles=profiles, faint_profiles=faint)
    evidence.bar_change = bar
    found = TurnReader().judge([Candidate(p, o.position.to_board()) for p, o in by_play.items()], evidence,
                               before=before.to_board(), men=rules.men, piles=family_of(rules).board == "piles")
    candidates = [{"play": r["play"], "board": r["board"], "p": round(r["p"], 4)} for r in found.ranked]
    notes = list(found.notes)
    settled_on: Position | None = None
    if found.verdict == "legal":
        settled_on = by_play[found.play].position
    elif found.verdict == "illegal" and throw_read:
        notes.append(f"no play of the throw read from the photo ({'-'.join(map(str, dice))}) leads to the board "
                     "seen: the dice may have been misread, so the players are asked")
    elif found.verdict == "illegal":
        settled_on = possible_position(found.board, rules)     # an illegal turn: the board as read
    if settled_on is not None:
        doc = judge(rules, before, dice, settled_on).to_json()
        # docs/command-line.md: `after` is the board the referee settled on; `board` beside it (the key the page
        # and the store read), as the ruling wrote it where it did
        doc.setdefault("board", settled_on.to_board())
        doc["after"] = dict(doc["board"])
    else:
        doc = {"verdict": "unsure", "play": None, "after": None, "events": [], "reason": None, "citation": None,
               "game_over": None}
    doc.update(reading=_reading_doc(reading, rules), candidates=candidates, settled=found.settled, notes=notes,
               corners=[[round(float(x), 1), round(float(y), 1)] for x, y in np.asarray(corners, float).tolist()])
    if doc["verdict"] == "unsure" and found.settled:
        ask = point_question(found.ranked, doc["reading"], before.turn or "light")
        if ask is not None:
            doc["ask"] = ask
            notes.append(f"only {ask['point']} is in doubt: " +
                         " or ".join(f"{c['men']} ({c['play']})" for c in ask["choices"]))
    return doc


def possible_position(board: Any, rules: Rules) -> Position | None:
    """The position of a board read from a photo, or None where no position can be it."""
    try:
        return Position.from_board({k: board[k] for k in ("format", "light", "dark", "bar", "off")}, men=rules.men)
    except (EngineError, KeyError, TypeError):
        return None


def read_throw(rules: Rules, image: np.ndarray, corners: Sequence[Sequence[float]]
               ) -> tuple[tuple[int, ...] | None, list[dict[str, Any]], str]:
    """The throw read from the dice lying on the board in *image*
    (``willughby.vision.dice_reader``): the dice (None where they do not
    make a throw of this game surely), what was read of each die
    (``{"value", "center", "p"}``), and why not, in words."""
    from willughby.engine.moves import validate_dice
    from willughby.vision.dice_reader import DiceReader

    seen = DiceReader().read(image, corners)
    read = [d.to_json() for d in seen]
    wanted = rules.dice_thrown
    if len(seen) != wanted:
        many = f"{len(seen)} {'die' if len(seen) == 1 else 'dice'}"
        return None, read, (f"{many} seen on the board, not the {wanted} dice of a throw" if seen
                            else "no dice seen on the board: give the throw with --dice")
    unread = [d for d in seen if d.value is None]
    if unread:
        return None, read, f"{len(unread)} of the dice cannot be read surely (cocked, covered or blurred)"
    try:
        return tuple(validate_dice(rules, [int(d.value) for d in seen if d.value is not None])), read, ""
    except EngineError as exc:
        return None, read, f"the dice read are no throw of this game ({exc})"


def unsure_of_throw(rules: Rules, image: np.ndarray, corners: Sequence[Sequence[float]], *, marked_by_hand: bool,
                    look: Any = None, earlier: np.ndarray | None = None, dice_read: list[dict[str, Any]],
                    why: str) -> dict[str, Any]:
    """The ruling document of a turn whose throw the photo does not settle: ``unsure``, with what was read of
    the dice (*dice_read*; *why* not a throw, in words) and of the board (``reading``; ``settled`` false where
    the photo cannot be read at all, a hand over the board, as :func:`judge_photo` says it)."""
    from willughby.vision.turns import TurnEvidence

    corners, reading, _ = _read_photo(rules, image, corners, marked_by_hand=marked_by_hand, look=look,
                                      earlier=earlier)
    evidence = TurnEvidence.from_reading(reading)
    return {"verdict": "unsure", "play": None, "after": None, "events": [], "reason": None, "citation": None,
            "game_over": None, "reading": _reading_doc(reading, rules), "candidates": [],
            "settled": evidence.settled, "notes": [why] + ([] if evidence.settled else [evidence.why_unsettled]),
            "dice": None, "dice_read": dice_read}
