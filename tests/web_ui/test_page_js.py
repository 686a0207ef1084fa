"""The page scripts' words and controls (static/live.js, static/calibrate.js),
run under node where node is installed (page_harness.js stands in for the
DOM): what the players read on the board page and the calibration view.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .fakes import FakeCompanion

HARNESS = Path(__file__).with_name("page_harness.js")
NODE = shutil.which("node")

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def run_page(script: str, *, page_data: Any = None, logged_in: bool = True, answers: dict[str, Any] | None = None,
             clicks: list[str] | None = None, report: list[str] | None = None) -> dict[str, Any]:
    """What *script* shows after the page has loaded and *clicks* were made."""
    assert NODE is not None
    payload = json.dumps({"script": script, "page_data": page_data, "logged_in": logged_in,
                          "answers": answers or {}, "clicks": clicks or [], "report": report or []})
    done = subprocess.run([NODE, str(HARNESS)], input=payload, capture_output=True, text=True, timeout=30,
                          check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _state(**changes: Any) -> dict[str, Any]:
    state = copy.deepcopy(FakeCompanion().state())
    state.update(changes)
    return state


@needs_node
def test_the_roll_for_the_start_says_whose_die_is_whose_and_offers_no_cube() -> None:
    shown = run_page("live.js", page_data=_state(phase="start"), report=["turn-line", "cube-buttons"])
    assert shown["elements"]["turn-line"]["text"] == "the roll for the start: Ann (light)'s die first, then Bob (dark)'s"
    assert shown["elements"]["cube-buttons"]["hidden"] is True


@needs_node
def test_the_cube_buttons_come_back_once_the_start_is_thrown() -> None:
    board = _state()["board"]
    shown = run_page("live.js", page_data=_state(phase="throw", turn_number=2, board={**board, "turn": "dark"}),
                     report=["turn-line", "cube-buttons"])
    assert shown["elements"]["cube-buttons"]["hidden"] is False
    assert [b["disabled"] for b in shown["selected"]["[data-cube]"]] == [False, False, False]
    assert shown["elements"]["turn-line"]["text"] == "Turn 2 · Bob (dark) to throw"


CAMERA = {"corners": None, "proposed": [[10, 10], [90, 10], [90, 90], [10, 90]], "found_by": "board",
          "size": [100, 100]}


@needs_node
def test_saving_the_corners_says_on_the_status_line_that_they_are_saved() -> None:
    shown = run_page("calibrate.js", answers={"GET /api/camera": CAMERA, "POST /api/calibrate":
                                              {"ok": True, "corners": CAMERA["proposed"]}},
                     report=["camera-status"])
    assert shown["elements"]["camera-status"]["text"].startswith("The corners are proposed from the picture")
    shown = run_page("calibrate.js", answers={"GET /api/camera": CAMERA, "POST /api/calibrate":
                                              {"ok": True, "corners": CAMERA["proposed"]}},
                     clicks=["save-corners"], report=["camera-status"])
    assert shown["requests"][-1] == {"key": "POST /api/calibrate",
                                     "body": {"corners": CAMERA["proposed"], "c1_confirmed": False}}
    assert shown["elements"]["camera-status"]["text"] == "The corners are saved: the camera reads the board with them."


@needs_node
def test_corners_the_page_cannot_save_are_not_said_saved() -> None:
    shown = run_page("calibrate.js", answers={"GET /api/camera": CAMERA}, clicks=["save-corners"],
                     report=["camera-status", "message"])
    assert "saved" not in shown["elements"]["camera-status"]["text"]
    assert shown["elements"]["message"]["text"] == "no answer"


# ------------------------------------------- a board the players placed (issue 44)
_BEFORE = {"format": "board/1", "light": [0] * 5 + [5] + [0] * 18, "dark": [0] * 18 + [5] + [0] * 5,
           "turn": "dark"}
_AFTER = {"format": "board/1", "light": [0] * 4 + [1, 4] + [0] * 18, "dark": [0] * 17 + [1, 4] + [0] * 5,
          "turn": "dark"}


@needs_node
def test_the_replay_says_a_board_was_placed_by_the_players() -> None:
    game = {"players": {"light": "Ann", "dark": "Bob"}, "turns_played": 3, "turns": [
        {"turn": 1, "attempt": 1, "seq": 1, "player": "light", "dice": [3, 1], "play": "8/5 6/5",
         "verdict": "legal", "before": _BEFORE, "after": _BEFORE, "ruling": {"verdict": "legal"}},
        {"turn": 2, "turns": 2, "attempt": 1, "seq": None, "player": "dark", "dice": [6, 4], "play": None,
         "verdict": "placed", "before": _BEFORE, "after": _AFTER, "ruling": None}]}
    shown = run_page("replay.js", page_data=game, clicks=["last"], report=["step-label", "step-ruling"])
    assert shown["elements"]["step-label"]["text"] == ("Turn 2 of 3: board placed by the players "
                                                       "(Bob (dark)'s 6-4 turn and the next not seen)")
    assert shown["elements"]["step-ruling"]["text"] == ("placed: the game goes on from the board on the table, "
                                                        "Bob (dark) to throw")


@needs_node
def test_the_question_of_the_turn_shows_the_board_placed() -> None:
    question = {"id": "q-9", "kind": "turn", "text": "Whose turn is it?", "about": "Turn 2: Bob (dark) threw 6-4",
                "turn": 2, "player": "dark", "dice": [6, 4], "asked_at": 0.0, "reading": _AFTER,
                "choices": [{"index": 0, "play": "Ann (light) throws next", "board": dict(_AFTER, turn="light")},
                            {"index": 1, "play": "Bob (dark) throws next", "board": _AFTER}]}
    shown = run_page("live.js", page_data=_state(phase="move", question=question),
                     report=["question-caption", "question-text"])
    assert shown["elements"]["question-caption"]["text"] == "The board placed by the players"


@needs_node
def test_an_alert_is_shown_above_the_board_and_the_devices_line_keeps_the_rest() -> None:
    """The store that cannot be written, someone guessing the PIN: told where no one misses them."""
    devices = {"camera": "ok", "dice": "by hand", "speech": False,
               "store": {"alert": "Moves are NOT being kept: the disk holding the game store is full"},
               "logins": {"alert": "Someone is guessing the PIN: 12 wrong in the last hour"}}
    shown = run_page("live.js", page_data=_state(devices=devices), report=["alerts", "devices"])
    assert shown["elements"]["alerts"]["hidden"] is False
    assert shown["elements"]["alerts"]["text"] == ("Moves are NOT being kept: the disk holding the game store is full"
                                                   "Someone is guessing the PIN: 12 wrong in the last hour")
    assert shown["elements"]["devices"]["text"] == "camera: ok · dice: by hand · speech: off"
    quiet = run_page("live.js", page_data=_state(), report=["alerts"])
    assert quiet["elements"]["alerts"]["hidden"] is True
