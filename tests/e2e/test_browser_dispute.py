"""Settling a dispute with a photo, and marking the board's corners, on a
phone (390 x 844 CSS px, headless Chromium): the Pi owner's journey, items
3 and 4.

* The dispute view of a turn: log in, choose a photo of the board after the
  turn, see the corners the page proposes, nudge one, judge: the ruling and
  the candidates' chances are shown, and the photo and its ruling are kept
  with the game under the data directory. A file that is not a picture is
  refused with its reason on the page, and nothing is kept.
* The calibration page: the camera's picture with the corners the board
  finder proposes, saved as they stand with one tap.

A companion runs in this process (served on 127.0.0.1 by werkzeug's
threaded server); the photos are drawn by the project's painter. Skipped
without Chromium, chromedriver or selenium, as the other browser tests
are, unless WILLUGHBY_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet

from .test_browser_demo import MISSING, REQUIRED, _browser

pytestmark = [pytest.mark.skipif(bool(MISSING) and not REQUIRED, reason=MISSING or "browser present"),
              pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")]

PHONE = (390, 844)
PIN = "2468"
WAIT_S = 60
RULES = preset_rules("backgammon")
START = start_position(RULES, "light")
AFTER = next(o for o in turn_outcomes(RULES, START, (3, 1)) if o.play.notation == "8/5 6/5").position
SPEC = dict(image_size=(1280, 720), tilt_deg=8.0, board_yaw_deg=2.0, cam_az_deg=0.0, cam_roll_deg=0.5, mirror=False,
            focal_mm=35.0, fill=0.85, n_dice=0, wood="walnut", men="white_black", points="red_cream",
            field="felt_green", table="light_table", lighting="overhead", row_max=5, men_thick_mm=9.0)


def _drawn(board: dict[str, Any]) -> tuple[np.ndarray, list[list[float]]]:
    from willughby.vision.synth import SceneSpec, render

    image, label = render(np.random.default_rng(5), SceneSpec(position=board, occluded=False, occluded_share=0.3,
                                                              **SPEC))
    return image, [[float(x), float(y)] for x, y in label["corners"]]


class PictureCamera:
    """A camera that always shows one picture; it proposes and saves corners
    as the camera loop does (``companion/watch.py``)."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image
        self.saved: list[list[float]] | None = None

    def snapshot(self, known: Any = None) -> tuple[bytes, dict[str, Any]]:
        from willughby.vision.board_finder import propose_corners

        found = propose_corners(self.image, known=known)
        h, w = self.image.shape[:2]
        return cv2.imencode(".jpg", self.image)[1].tobytes(), {
            "corners": self.saved, "proposed": None if found is None else found.corners,
            "found_by": None if found is None else found.found_by, "size": [w, h]}

    def calibrate(self, corners: list[list[float]], known: Any = None, c1_confirmed: bool | None = None,
                  ) -> dict[str, Any]:
        from willughby.vision.errors import CornerOrderUnknown

        if known is None and not c1_confirmed:      # as the camera loop: no board tells the order, nobody said it
            raise CornerOrderUnknown("nothing in the picture tells which corner is C1")
        self.saved = corners
        return {"corners": corners, "saved": "calibration.json", "moved_px": None, "learnt_start": False,
                "order": "board" if known is not None else "players"}


@pytest.fixture
def served(tmp_path):
    """A game with one turn ruled (Ann, light, 3-1: 8/5 6/5), served; yields
    (url, companion, the photos' folder)."""
    from werkzeug.serving import make_server

    from willughby.companion.service import Companion
    from willughby.companion.store import GameStore
    from willughby.web_ui import create_app

    store = GameStore(tmp_path / "games.sqlite")
    companion = Companion(store, photo_dir=tmp_path / "photos")
    companion.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    companion.enter_dice([3, 1], who="test")
    assert companion.on_reading(AFTER.to_board(), confidence=None, who="test")["verdict"] == "legal"
    app = create_app({"pin": PIN, "secret_key": "a secret for the dispute test only", "events_keepalive_s": 1.0},
                     companion)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="dispute-test-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", companion, tmp_path / "photos"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        store.close()


def _log_in(driver, By, WebDriverWait) -> None:
    driver.find_element(By.ID, "login-pin").send_keys(PIN)
    driver.find_element(By.ID, "login-name").send_keys("Ann")
    driver.find_element(By.CSS_SELECTOR, "#login-form button[type=submit]").click()
    WebDriverWait(driver, WAIT_S).until(lambda d: "logged-in" in d.find_element(By.TAG_NAME, "body").get_attribute("class"))


def _kept(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_a_dispute_photo_is_sent_its_corners_confirmed_and_ruled_on_the_page(served, tmp_path):
    if MISSING:
        pytest.fail(f"WILLUGHBY_REQUIRE_BROWSER is set but {MISSING}")
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, companion, folder = served
    image, _true_corners = _drawn(AFTER.to_board())
    photo = tmp_path / "after-turn-1.jpg"
    cv2.imwrite(str(photo), image)
    not_a_photo = tmp_path / "notes.jpg"
    not_a_photo.write_text("the board was 8/5 6/5, I am sure of it")
    bomb = tmp_path / "bomb.png"           # 10,000 x 10,000 grey pixels in under 100 KB
    bomb.write_bytes(cv2.imencode(".png", np.zeros((10000, 10000), np.uint8), [cv2.IMWRITE_PNG_COMPRESSION, 9])[1])

    driver = _browser(tmp_path, phone=PHONE)
    try:
        driver.get(url + "dispute/1")
        _log_in(driver, By, WebDriverWait)
        wait = WebDriverWait(driver, WAIT_S, poll_frequency=0.2)

        # a file that is not a picture, and a decompression bomb: refused with their reasons, nothing kept
        for path, why in ((not_a_photo, "not a JPEG, PNG or WebP"), (bomb, "megapixels")):
            driver.find_element(By.ID, "photo-file").clear()
            driver.find_element(By.ID, "photo-file").send_keys(str(path))
            driver.find_element(By.ID, "photo-send").click()
            wait.until(lambda d: why in d.find_element(By.ID, "message").text)
            assert _kept(folder) == []

        # the photo: sent, its corners proposed and drawn over it
        driver.find_element(By.ID, "photo-file").clear()
        driver.find_element(By.ID, "photo-file").send_keys(str(photo))
        driver.find_element(By.ID, "photo-send").click()
        wait.until(lambda d: d.find_element(By.ID, "photo-marking").is_displayed()
                   and d.execute_script("return document.getElementById('photo-image').naturalWidth") > 0)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#photo-overlay circle.corner.tapped")) == 4)
        assert "proposed" in driver.find_element(By.ID, "photo-status").text
        assert driver.find_element(By.ID, "photo-judge").is_enabled()
        shown = driver.find_element(By.ID, "photo-image")
        assert shown.size["width"] >= PHONE[0] * 0.85, "the photo should fill the phone's width"

        # nudge C1 a little (a drag shows the loupe while it lasts), then judge
        c1 = driver.find_elements(By.CSS_SELECTOR, "#photo-overlay circle.corner.tapped")[0]
        before = [float(c1.get_attribute("cx")), float(c1.get_attribute("cy"))]
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", c1)
        ActionChains(driver).click_and_hold(c1).move_by_offset(2, 1).release().perform()
        c1 = driver.find_elements(By.CSS_SELECTOR, "#photo-overlay circle.corner.tapped")[0]
        after = [float(c1.get_attribute("cx")), float(c1.get_attribute("cy"))]
        assert after != before and abs(after[0] - before[0]) < 40, (before, after)
        driver.find_element(By.ID, "photo-judge").click()
        wait.until(lambda d: d.find_element(By.ID, "photo-ruling").is_displayed())
        verdict = driver.find_element(By.ID, "photo-verdict").text
        assert "legal turn: 8/5 6/5" in verdict, verdict
        assert "The referee ruled the same" in driver.find_element(By.ID, "photo-compare").text
        chances = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#photo-candidates li")]
        assert chances and chances[0].startswith("8/5 6/5: ") and chances[0].endswith("%"), chances
        driver.save_screenshot(str(tmp_path / "dispute-photo.png"))
    finally:
        driver.quit()

    # kept with the game: the photo, its ruling beside it, and a photo entry in the log
    game_id = companion.state()["game_id"]
    kept = _kept(folder / game_id)
    assert [p.suffix for p in kept] == [".jpg", ".json"]
    assert json.loads(kept[1].read_text())["rulings"][-1]["play"] == "8/5 6/5"
    assert [e["data"]["verdict"] for e in companion.store.game(game_id)["log"] if e["kind"] == "photo"] == ["legal"]


def _calibration_page(served, tmp_path, on_table):
    """The calibration page of a camera showing the start, logged in, its four corners proposed: (driver,
    wait, By, camera, the true corners); *on_table* is the board the referee holds on the table, or None."""
    if MISSING:
        pytest.fail(f"WILLUGHBY_REQUIRE_BROWSER is set but {MISSING}")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, companion, _folder = served
    image, true_corners = _drawn(START.to_board())
    camera = PictureCamera(image)
    companion.camera = camera
    companion._board_on_table = lambda: on_table
    driver = _browser(tmp_path, phone=PHONE)
    try:
        driver.get(url + "calibrate")
        _log_in(driver, By, WebDriverWait)
        wait = WebDriverWait(driver, WAIT_S, poll_frequency=0.2)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#camera-overlay circle.corner.tapped")) == 4)
    except BaseException:
        driver.quit()
        raise
    return driver, wait, By, camera, true_corners


def test_the_calibration_page_proposes_the_corners_and_saves_them_confirmed(served, tmp_path):
    # the game's start stands on the table
    driver, wait, By, camera, true_corners = _calibration_page(served, tmp_path, START.to_board())
    try:
        assert "proposed from the picture" in driver.find_element(By.ID, "camera-status").text
        driver.find_element(By.ID, "save-corners").click()
        wait.until(lambda d: camera.saved is not None)
    finally:
        driver.quit()
    diagonal = float(np.hypot(*np.subtract(true_corners[0], true_corners[2])))
    errors = [float(np.hypot(*np.subtract(a, b))) for a, b in zip(camera.saved, true_corners)]
    assert max(errors) < 0.03 * diagonal, (camera.saved, true_corners)


def test_corners_whose_order_nothing_tells_are_saved_only_with_c1_as_the_players_say(served, tmp_path):
    """No board on the table tells the order: the page asks which marked corner is C1, and saves the corners
    turned so that the one chosen comes first, the long sides kept where they are."""
    driver, wait, By, camera, _true = _calibration_page(served, tmp_path, None)     # nothing known on the table
    try:
        driver.find_element(By.ID, "save-corners").click()
        wait.until(lambda d: d.find_element(By.ID, "confirm-c1").is_displayed())
        assert camera.saved is None                            # not saved on the first try
        assert "order of the corners is unknown" in driver.find_element(By.ID, "camera-status").text
        driver.find_element(By.CSS_SELECTOR, "#confirm-c1 button[data-c1='2']").click()
        wait.until(lambda d: camera.saved is not None)
        wait.until(lambda d: "saved" in d.find_element(By.ID, "camera-status").text)
    finally:
        driver.quit()
    proposed = camera.snapshot(None)[1]["proposed"]
    # C3 chosen as C1: the corners come C3, C4, C1, C2 (turned half round)
    assert [list(map(float, c)) for c in camera.saved] == [list(map(float, proposed[i])) for i in (2, 3, 0, 1)]
