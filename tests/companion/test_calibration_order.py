"""The page's calibration never saves corners whose order nobody knows (issue 43): the same
quadrilateral marked from the opposite corner rectifies as cleanly, and the board is then read turned
round. The order is told by the board the referee holds to stand on the table (a game's start in the
picture), or else the players confirm which corner is C1; until then nothing is saved and the answer says
the order is unknown. Through the page's API (Flask's test client), the real companion and camera watcher,
the camera showing the docs' example photos."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import pytest

from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.companion.watch import CameraWatcher
from willughby.vision import pointnet
from willughby.web_ui import create_app

from .waiting import until

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
SECRET = b"c" * 32
PIN = "2468"
#: the examples' playing surface, C1 touching light's ace point (as the docs give --corners)
RIGHT = [[264, 64], [734, 83], [733, 491], [233, 471]]
#: the same corners from the opposite corner: the board turned round
UPSIDE_DOWN = RIGHT[2:] + RIGHT[:2]


class _Still:
    """A camera showing one picture for ever."""

    def __init__(self, image: Any) -> None:
        self.image = image

    def read(self) -> Any:
        return self.image.copy()

    def close(self) -> None:
        pass


@pytest.fixture()
def page(tmp_path):
    """``(post, companion, calibration path, show)``: the page logged in; *show* puts a photo before the
    camera."""
    store = GameStore(":memory:")
    c = Companion(store)
    path = tmp_path / "calibration.json"
    still = _Still(cv2.imread(str(EXAMPLES / "after-8-5-6-5.jpg")))
    watcher = CameraWatcher(still, lambda *a, **k: None, calibration_path=path, fps=30).start()
    c.camera = watcher
    client = create_app({"pin": PIN, "secret_key": SECRET}, c).test_client()
    token = client.post("/api/login", json={"pin": PIN, "name": "Ann"}).json["csrf"]

    def post(url: str, body: dict[str, Any]) -> Any:
        return client.post(url, json=body, headers={"X-CSRF-Token": token})

    def show(name: str) -> None:
        still.image = cv2.imread(str(EXAMPLES / name))
        taken = watcher._frames_taken
        assert until(lambda: watcher._frames_taken > taken + 1, 10)

    assert until(lambda: client.get("/api/camera").status_code == 200, 10)
    yield post, c, path, show
    watcher.close()
    store.close()


def test_without_a_game_corners_upside_down_are_not_saved_and_the_answer_says_the_order_is_unknown(page):
    post, _c, path, _show = page
    answer = post("/api/calibrate", {"corners": UPSIDE_DOWN})
    assert answer.status_code == 409, answer.json
    assert answer.json["order_known"] is False
    assert "order is unknown" in answer.json["error"] and "C1" in answer.json["error"]
    assert not path.exists()


def test_without_a_game_the_corners_are_saved_once_the_players_confirm_c1(page):
    post, _c, path, _show = page
    answer = post("/api/calibrate", {"corners": RIGHT, "c1_confirmed": True})
    assert answer.status_code == 200, answer.json
    assert answer.json["order"] == "players" and path.exists()


def test_a_confirmation_that_is_not_true_or_false_is_bad_input(page):
    post, _c, path, _show = page
    answer = post("/api/calibrate", {"corners": RIGHT, "c1_confirmed": "yes"})
    assert answer.status_code == 400 and "'c1_confirmed'" in answer.json["error"]
    assert not path.exists()


@pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")
def test_with_a_game_whose_board_the_picture_does_not_show_the_order_is_unknown_too(page):
    """The game's start held to stand on the table, the camera showing the board after a play: the picture
    does not say which corner is C1."""
    post, c, path, _show = page
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    answer = post("/api/calibrate", {"corners": UPSIDE_DOWN})
    assert answer.status_code == 409 and answer.json["order_known"] is False, answer.json
    assert not path.exists()


@pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")
def test_with_the_start_on_the_table_the_board_tells_the_order_and_a_wrong_one_is_refused_confirmed_or_not(page):
    post, c, path, show = page
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    show("start.jpg")
    for confirmed in (False, True):
        answer = post("/api/calibrate", {"corners": UPSIDE_DOWN, "c1_confirmed": confirmed})
        assert answer.status_code == 400 and "another order" in answer.json["error"], answer.json
        assert not path.exists()
    answer = post("/api/calibrate", {"corners": RIGHT})
    assert answer.status_code == 200, answer.json
    assert answer.json["order"] == "board" and path.exists()
