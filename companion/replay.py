"""Referee a recorded game: ``willughby watch``.

The companion's own judging, learning included, run over a game someone
recorded: a folder of stills (each one settled view of the board, in name
order: the opening position, then the board after each attempt, so an
illegal attempt is followed by the board put right, and a turn with no play
by a still of the same board) or a video (settled as the live camera
settles it), with the throws in the order thrown. Everything goes through
the same doors as at the table: the camera watcher (``watch.py``: the
settler, the check for a hand, the turn evidence, the board learnt as the
game goes), the companion (``service.py``: dice, rulings, questions), the
store. Nothing of the user's is written: the game's record and the
calibration learnt live in a folder of their own (``--data-dir``, else a
temporary one, removed at the end); a calibration given is copied there.

A still that shows no play while one is awaited (and is not the board put
right after an illegal attempt) is a play the camera missed: the next throw
is entered early, held for the next player as at the table, so that the
still two plays on is ruled or asked about, never ruled illegal against him.

Where the live referee would turn to the players (a question), the board
``--answers`` gives for that still stands for their answer, so the game goes
on as it would at the table; without one the game cannot go on, and the
referee says so and stops.

Each still after the first (each settled frame after the first, for a
video) gives one ruling line (:meth:`RecordedReferee.lines`): ``still``
(which still of the recording, from 1, or which settled frame), ``turn``,
``attempt``, ``player``, ``dice``, ``verdict`` (``legal``, ``illegal`` or
``unsure``), ``play``, ``after`` (the board the referee holds after it),
``reason``, ``citation``, ``candidates`` (what the turn reader weighed), and,
for a question answered, ``answer`` (the ruling the answer made).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np

from willughby.engine.errors import EngineError
from willughby.engine.position import Position
from willughby.engine.rules import preset_rules, start_position

from .errors import CompanionError

__all__ = ["RecordedReferee", "read_answers", "read_throws", "ReplayError"]

SIDES = ("light", "dark")


class ReplayError(CompanionError):
    """A recorded game that cannot be refereed as given (bad throws or answers, too few throws, no corners)."""


def read_throws(path: str | Path) -> list[tuple[int, ...]]:
    """The throws of a file, one a line (``5,2``; blank lines and ``#`` comments skipped)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"cannot read the throws {path}: {exc}") from None
    throws: list[tuple[int, ...]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            dice = tuple(int(d) for d in line.replace(" ", "").split(","))
        except ValueError:
            raise ReplayError(f"{path}, line {n}: a throw is two dice 1-6, as 5,2: not {line!r}") from None
        if len(dice) != 2 or any(not 1 <= d <= 6 for d in dice):
            raise ReplayError(f"{path}, line {n}: a throw is two dice 1-6, as 5,2: not {line!r}")
        throws.append(dice)
    if not throws:
        raise ReplayError(f"{path} holds no throw")
    return throws


def read_answers(path: str | Path) -> list[dict[str, Any] | None]:
    """The boards the stills after the first truly show, one board document
    a line (a blank line or ``null``: none given for that still)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"cannot read the answers {path}: {exc}") from None
    out: list[dict[str, Any] | None] = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line == "null":
            out.append(None)
            continue
        try:
            doc = json.loads(line)
            Position.from_board(doc)
        except (ValueError, EngineError, TypeError, KeyError) as exc:
            raise ReplayError(f"{path}, line {n}: not a board document: {exc}") from None
        out.append(doc)
    return out


class _NoCamera:
    """The watcher's source: the recorded frames are handed to it one by one (``CameraWatcher.step``)."""

    name = "a recorded game"
    closed = False

    def read(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True


class RecordedReferee:
    """The companion, its camera watcher and a store of their own, for one
    recorded game of *variant* (a preset id, with *options*), whose first
    throw is *first*'s. The board is found by *corners* (C1..C4, pixels of
    the recording; the first still, the opening position, is then the
    calibration photo) or a saved *calibration* file."""

    def __init__(self, variant: str, first: str, throws: Sequence[tuple[int, ...]], *,
                 options: Mapping[str, str] | None = None, corners: Any = None,
                 calibration: str | Path | None = None, answers: Sequence[dict[str, Any] | None] | None = None,
                 data_dir: str | Path | None = None) -> None:
        from willughby.companion.service import Companion
        from willughby.companion.store import GameStore
        from willughby.companion.watch import CameraWatcher
        from willughby.vision.calibration import load_calibration

        if first not in SIDES:
            raise ReplayError(f"--first must be light or dark, not {first!r}")
        if (corners is None) == (calibration is None):
            raise ReplayError("give the board's corners (--corners) or a calibration (--calibration), one of them")
        try:
            rules = preset_rules(variant, dict(options or {}))
            self.start = start_position(rules, first)
        except (EngineError, KeyError, ValueError) as exc:
            raise ReplayError(f"cannot set up {variant!r}: {exc}") from None
        self._tmp = None if data_dir is not None else tempfile.TemporaryDirectory(prefix="willughby-watch-")
        self.data_dir = Path(data_dir if data_dir is not None else self._tmp.name)    # type: ignore[union-attr]
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.calibration_path = self.data_dir / "calibration.json"
        if calibration is not None:
            load_calibration(calibration)            # a clear error for a bad one, before anything is written
            shutil.copyfile(calibration, self.calibration_path)
        elif self.calibration_path.exists():
            self.calibration_path.unlink()           # a calibration left from an earlier run: not this recording's
        self.corners = corners
        self.throws = list(throws)
        self.answers = list(answers) if answers is not None else None
        self.store = GameStore(self.data_dir / "games.sqlite")
        self.companion = Companion(self.store)
        self.companion.new_game(variant, dict(options or {}), None, who="watch", start=self.start.to_board())
        c = self.companion
        self.watcher = CameraWatcher(_NoCamera(), lambda b, conf, ev=None: c.on_reading(b, conf, who="camera",
                                                                                        evidence=ev),
                                     calibration_path=self.calibration_path, turn_evidence=True)
        c.camera = self.watcher
        self._thrown = 0
        self._missed = False           # the still before showed a play missed (_line): throw the next early
        self._stills = True            # stills, one an attempt (a video's settled frames may show dice alone)

    def close(self) -> None:
        self.watcher.flush()            # what was learnt of the board, saved with the calibration
        self.store.close()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> "RecordedReferee":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------------
    def _settle(self, frame: np.ndarray, still: bool) -> str:
        """Hand *frame* to the watcher: a still is shown until it settles (as if held before the camera, DONE
        pressed); a video's frame once. ``"settled"``, ``"refused"`` (a still that never settles: covered,
        unreadable) or ``"read"``."""
        if not still:
            return self.watcher.step(frame)
        self.watcher.settler.reset()
        for _ in range(self.watcher.settler.config.settle_frames + 2):
            if self.watcher.step(frame) == "settled":
                return "settled"
        return "refused"

    def _throw_if_awaited(self) -> bool:
        """Enter the next throw where the game awaits one, or where the still before showed a play missed
        (the throw then held for the next player, as at the table); False where it awaits one and none is
        left."""
        state = self.companion.state()
        missed, self._missed = self._missed, False
        if state.get("question") is not None:
            return True
        if state["phase"] in ("throw", "start") or missed and state["phase"] == "move":
            if self._thrown >= len(self.throws):
                return state["phase"] == "move"
            self.companion.enter_dice(list(self.throws[self._thrown]), who="watch")
            self._thrown += 1
        return True

    def lines(self, frames: Iterable[np.ndarray], stills: bool = True) -> Iterator[dict[str, Any]]:
        """One line (a dict) for each frame after the first that settles (each still after the first)."""
        self._stills = stills
        frames = iter(frames)
        first = next(frames, None)
        if first is None:
            raise ReplayError("the recording holds no frame")
        if self.corners is not None:
            self.watcher.step(first)                 # the frame the calibration is made on
            try:
                self.companion.calibrate(self.corners, who="watch")
            except CompanionError as exc:
                raise ReplayError(f"the corners given do not fit the first frame: {exc}") from None
        while self._settle(first, stills) != "settled":
            first = next(frames, None)
            if first is None:
                raise ReplayError("no frame of the recording settles: nothing can be refereed")
        shown = 0
        for frame in frames:
            thrown = self._throw_if_awaited()
            before = self.companion.state()
            seq0 = max((r["seq"] for r in before["rulings"]), default=0)
            self.companion.judging.last_camera = None
            outcome = self._settle(frame, stills)
            if outcome == "read":
                continue
            if not thrown:
                # a board settled after the last throw (a video's last frames of the same board do not settle
                # again): the game went on, and the file does not say with what throw
                raise ReplayError(f"the game awaits throw {self._thrown + 1}, and the throws file holds "
                                  f"{len(self.throws)}")
            shown += 1
            yield self._line(shown, before, seq0, outcome)

    def _line(self, shown: int, before: Mapping[str, Any], seq0: int, outcome: str) -> dict[str, Any]:
        c = self.companion
        state = c.state()
        camera: Mapping[str, Any] = c.last_camera or {}
        new = [r for r in state["rulings"] if r["seq"] > seq0]
        player = (before.get("board") or {}).get("turn")
        line: dict[str, Any] = {"still": shown + 1, "turn": before.get("turn_number"), "attempt": None,
                                "player": player, "dice": before.get("dice"), "verdict": "unsure",
                                "play": None, "after": state.get("board"), "reason": None, "citation": None,
                                "candidates": camera.get("candidates", [])}
        if outcome == "refused":
            refused = getattr(self.watcher.settler, "last_refused", None)
            line["reason"] = ("the frame cannot be read: " + (getattr(refused, "occluded_why", None)
                                                              or "the camera is not sure of it"))
            return line
        if new:
            return {**line, **_ruling_fields(new[-1])}
        question = state.get("question")
        if question is None:
            line["verdict"] = "legal"
            line["reason"] = "the board stands as the referee holds it: nothing moved, or the men put back"
            # a still after one attempt each (the recording's rule) that shows no play while one is awaited,
            # and is not the board put right after an illegal attempt: the camera missed the play, and the
            # next still is the next player's, with the next throw (entered early: held for him)
            rulings = state.get("rulings") or []
            put_right = bool(rulings) and rulings[-1].get("verdict") == "illegal" and rulings[-1].get("player") == player
            self._missed = self._stills and state.get("phase") == "move" and not put_right
            return line
        line["reason"] = question.get("text")
        line["candidates"] = camera.get("candidates") or [{"play": ch.get("play"), "p": None}
                                                          for ch in question.get("choices", [])]
        answer = self.answers[shown - 1] if self.answers is not None and shown - 1 < len(self.answers) else None
        if answer is None:
            raise ReplayError(f"frame {shown + 1}: the referee asks the players ({question.get('text')}), and "
                              f"--answers gives no board for it: the game cannot go on")
        line["answer"] = self._answer(question, answer, seq0)
        return line

    def _answer(self, question: Mapping[str, Any], answer: Mapping[str, Any], seq0: int) -> dict[str, Any]:
        """The players' answer: the choice whose board is the one given, else the board entered by hand."""
        c = self.companion
        key = Position.from_board(answer).physical_key()
        for choice in question.get("choices", []):
            board = choice.get("board")
            if board is not None and Position.from_board(board).physical_key() == key:
                c.answer(question["id"], choice["index"], who="watch")
                break
        else:
            c.submit_board(answer, who="watch")
        new = [r for r in c.state()["rulings"] if r["seq"] > seq0]
        return _ruling_fields(new[-1]) if new else {"verdict": "legal", "play": None,
                                                    "after": c.state().get("board")}


def _ruling_fields(r: Mapping[str, Any]) -> dict[str, Any]:
    source = r.get("source") or {}
    return {"turn": r.get("turn"), "attempt": r.get("attempt"), "player": r.get("player"), "dice": r.get("dice"),
            "verdict": r.get("verdict"), "play": r.get("play"), "after": r.get("board"), "reason": r.get("reason"),
            "citation": source.get("citation")}
