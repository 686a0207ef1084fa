"""A match on a phone (390 x 844 CSS px, headless Chromium): the match's score and state are in view at the
top of the page in place of the running score, and between games a logged-in player begins the next game of
the match with one button, which the page then hides until that game ends.

Skipped without Chromium, chromedriver or selenium, as the other browser tests are, unless
WILLUGHBY_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import pytest

from .serving import serving
from .test_browser_demo import MISSING, REQUIRED, _browser

pytestmark = pytest.mark.skipif(bool(MISSING) and not REQUIRED, reason=MISSING or "browser present")

PHONE = (390, 844)
PIN = "2468"
WAIT_S = 20


@pytest.fixture
def served(tmp_path):
    """A match to 3 whose first game Bob has just won by a drop, served on 127.0.0.1: (url, companion)."""
    from willughby.companion.service import Companion
    from willughby.companion.store import GameStore
    from willughby.web_ui import create_app

    store = GameStore(tmp_path / "games.sqlite")
    companion = Companion(store)
    companion.new_match(3, "backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    companion.enter_dice([3, 1], who="test")
    companion.on_reading(companion.legal_boards()["8/5 6/5"], confidence=None, who="camera")
    companion.cube("double", who="test")
    companion.cube("drop", who="test")
    app = create_app({"pin": PIN, "secret_key": "a secret for the match test only", "events_keepalive_s": 1.0},
                     companion)
    try:
        with serving(app, "match-test-server") as url:
            yield url, companion
    finally:
        store.close()


def test_the_match_is_in_view_on_a_phone_and_the_next_game_begins_from_the_page(served, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, companion = served
    driver = _browser(tmp_path, phone=PHONE)
    try:
        driver.get(url)
        wait = WebDriverWait(driver, WAIT_S)
        line = driver.find_element(By.ID, "match-line")
        wait.until(lambda d: line.is_displayed() and "Bob needs 2" in line.text)
        assert line.text.startswith("Match to 3, game 1: Ann needs 3, Bob needs 2")
        top = line.rect["y"] + line.rect["height"]
        assert top <= PHONE[1], f"the match's line is below the first screen ({top} px)"
        assert not driver.find_element(By.ID, "stakes-line").text.startswith("Score:")

        pin = driver.find_element(By.ID, "login-pin")
        pin.send_keys(PIN)
        driver.find_element(By.ID, "login-name").send_keys("Ann")
        driver.find_element(By.CSS_SELECTOR, "#login-form button[type=submit]").click()
        button = driver.find_element(By.ID, "next-game")
        wait.until(lambda d: button.is_displayed() and button.is_enabled())
        driver.execute_script("arguments[0].scrollIntoView()", button)
        button.click()
        wait.until(lambda d: companion.state()["match"]["game"] == 2)
        wait.until(lambda d: "game 2" in line.text and not button.is_displayed())
        assert companion.state()["phase"] == "start"
    finally:
        driver.quit()
