"""A newcomer's path from the README to a refereed game, with a file camera
standing in for the Pi's (the Pi owner's journey, its proof).

What the README tells a newcomer, in its order: write a configuration
(``hardware/willughby.example.toml``, the camera a ``folder:`` of stills
that plays again and again, as the configuration's comments say), run
``willughby serve --config FILE``, open the page, log in with the PIN,
calibrate on the page's calibration view (the corners proposed, confirmed
as they stand), throw the dice on the page, play; the camera reads the
board and the referee rules the turn; ``willughby games`` lists the game.

The table is one still that the test changes as a player would change the
board: first the start, then the board after the play. Only the command
line and HTTP are used, so this holds whatever runs behind them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet

from ..web_ui.test_api_docs import Server, free_port

pytestmark = pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")

PIN = "1357"
RULES = preset_rules("backgammon")
START = start_position(RULES, "light")
AFTER = next(o for o in turn_outcomes(RULES, START, (3, 1)) if o.play.notation == "8/5 6/5").position
SPEC = dict(image_size=(1280, 720), tilt_deg=8.0, board_yaw_deg=2.0, cam_az_deg=0.0, cam_roll_deg=0.5, mirror=False,
            focal_mm=35.0, fill=0.85, n_dice=0, wood="walnut", men="white_black", points="red_cream",
            field="felt_green", table="light_table", lighting="overhead", row_max=5, men_thick_mm=9.0)
WAIT_S = 90.0


def _put_on_table(table: Path, board: dict[str, Any]) -> None:
    """Draw *board* and make it the still the camera sees (written aside, then renamed: a camera never
    sees half a picture)."""
    from willughby.vision.synth import SceneSpec, render

    image, _label = render(np.random.default_rng(5), SceneSpec(position=board, occluded=False, occluded_share=0.3,
                                                               **SPEC))
    aside = table / ".next.jpg"
    assert cv2.imwrite(str(aside), image)
    os.replace(aside, table / "board.jpg")


class Page:
    """The page's API as a phone uses it: a cookie, then the CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.token = ""

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("X-CSRF-Token", self.token)
        try:
            with self.opener.open(request, timeout=60) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as exc:
            return exc.code, json.load(exc)

    def until(self, what: str, test: Any, timeout: float = WAIT_S) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        state: dict[str, Any] = {}
        while time.monotonic() < deadline:
            _status, state = self.call("GET", "/api/state")
            if test(state):
                return state
            time.sleep(0.3)
        pytest.fail(f"{what}: not within {timeout:.0f} s; the state was {json.dumps(state)[:2000]}")


def test_from_the_readme_to_a_refereed_game_with_a_file_camera(tmp_path: Path) -> None:
    table = tmp_path / "table"
    table.mkdir()
    _put_on_table(table, START.to_board())
    data = tmp_path / "data"
    config = tmp_path / "willughby.toml"
    example = Path(__file__).resolve().parents[2] / "hardware" / "willughby.example.toml"
    assert "[camera]" in example.read_text(encoding="utf-8")      # the file the README points to
    config.write_text(
        "[companion]\n"
        f"data_dir = {str(data)!r}\n"
        'preset = "backgammon"\n'
        'players = { light = "Ann", dark = "Bob" }\n'
        "[web]\n"
        'host = "127.0.0.1"\n'
        f"port = {free_port()}\n"
        f'pin = "{PIN}"\n'
        "[camera]\n"
        f'source = "folder:{table}"\n'
        "loop = true\n"
        "[dice]\n"
        'source = "page"\n'
        "[speech]\n"
        'enabled = "off"\n', encoding="utf-8")

    server = Server(config)
    try:
        page = Page(server.wait())
        status, answer = page.call("POST", "/api/login", {"pin": PIN, "name": "Ann"})
        assert status == 200, answer
        page.token = answer["csrf"]
        page.until("the camera is seen", lambda s: s["devices"]["camera"] == "ok")

        # calibration: the page proposes the corners; the newcomer confirms them as they stand
        deadline = time.monotonic() + WAIT_S
        while True:
            status, found = page.call("GET", "/api/camera")
            if status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        assert status == 200 and found["corners"] is None, found
        assert found["proposed"] and found["found_by"] == "picture", found
        status, saved = page.call("POST", "/api/calibrate", {"corners": found["proposed"]})
        assert status == 200, saved
        assert saved["learnt_start"] is True, saved          # the start on the table taught it the board

        # the throw for the start, entered on the page: Ann 3, Bob 1, so Ann plays 3-1
        status, state = page.call("POST", "/api/dice", {"dice": [3, 1]})
        assert status == 200, state
        assert state["phase"] == "move" and state["dice"] == [3, 1]

        # Ann plays 8/5 6/5 on the table; the camera sees it and the referee rules it
        _put_on_table(table, AFTER.to_board())
        state = page.until("the camera's reading is ruled", lambda s: s["rulings"] or s["question"])
        assert not state["question"], state["question"]
        ruling = state["rulings"][-1]
        assert (ruling["verdict"], ruling["play"], ruling["turn"]) == ("legal", "8/5 6/5", 1), ruling
        assert state["board"]["turn"] == "dark" and state["turns_played"] == 1
    finally:
        server.stop()

    # and the game is in the record, as `willughby games` lists it
    listed = subprocess.run([sys.executable, "-m", "willughby.companion", "games", "--data-dir", str(data), "--json"],
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    games = json.loads(listed.stdout)
    games = games["games"] if isinstance(games, dict) else games
    assert [(g["preset"], g["turns"]) for g in games] == [("backgammon", 1)]
