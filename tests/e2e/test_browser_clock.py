"""The match's clock on a phone (390 x 844 CSS px, headless Chromium): both reserves are on the first screen,
the running one counts down on the phone, the clock switches on the page when the referee ends a turn, and
a logged-in player holds it from the page.

Skipped without Chromium, chromedriver or selenium, as the other browser tests are, unless
WILLUGHBY_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import time

import pytest

from .serving import serving
from .test_browser_demo import MISSING, REQUIRED, _browser

pytestmark = pytest.mark.skipif(bool(MISSING) and not REQUIRED, reason=MISSING or "browser present")

PHONE = (390, 844)
PIN = "1357"
WAIT_S = 20


@pytest.fixture
def served(tmp_path):
    """A match to 5 with a clock of 2 minutes each and no delay, Ann's clock running after the opening roll,
    served on 127.0.0.1: (url, companion)."""
    from willughby.companion.service import Companion
    from willughby.companion.store import GameStore
    from willughby.web_ui import create_app

    store = GameStore(tmp_path / "games.sqlite")
    companion = Companion(store)
    companion.new_match(5, "backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test",
                        clock={"reserve_s": 120.0, "delay_s": 0.0, "mode": "none"})
    companion.enter_dice([3, 1], who="test")
    app = create_app({"pin": PIN, "secret_key": "a secret for the clock test only", "events_keepalive_s": 1.0},
                     companion)
    try:
        with serving(app, "clock-test-server") as url:
            yield url, companion
    finally:
        store.close()


def _seconds(text: str) -> int:
    minutes, seconds = text.split(":")
    return int(minutes) * 60 + int(seconds)


def test_the_clock_shows_counts_down_switches_and_is_held_on_a_phone(served, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, companion = served
    driver = _browser(tmp_path, phone=PHONE)
    try:
        driver.get(url)
        wait = WebDriverWait(driver, WAIT_S)
        clock = driver.find_element(By.ID, "clock")
        light = driver.find_element(By.ID, "clock-light")
        dark = driver.find_element(By.ID, "clock-dark")
        wait.until(lambda d: clock.is_displayed() and "running" in light.get_attribute("class"))
        bottom = clock.rect["y"] + clock.rect["height"]
        assert bottom <= PHONE[1], f"the clock is below the first screen ({bottom} px)"
        assert light.text.split() == ["Ann", light.text.split()[-1]] and dark.text.split() == ["Bob", "2:00"]
        first = _seconds(light.find_element(By.CLASS_NAME, "clock-time").text)
        time.sleep(2.5)                                  # the phone counts Ann's reserve down by itself
        later = _seconds(light.find_element(By.CLASS_NAME, "clock-time").text)
        assert 1 <= first - later <= 4, (first, later)

        companion.on_reading(companion.legal_boards()["8/5 6/5"], confidence=None, who="camera")
        wait.until(lambda d: "running" in dark.get_attribute("class")
                   and "running" not in light.get_attribute("class"))
        ann = _seconds(light.find_element(By.CLASS_NAME, "clock-time").text)
        assert abs(ann - companion.state()["clock"]["left"]["light"]) <= 1

        driver.find_element(By.ID, "login-pin").send_keys(PIN)
        driver.find_element(By.ID, "login-name").send_keys("Bob")
        driver.find_element(By.CSS_SELECTOR, "#login-form button[type=submit]").click()
        hold = driver.find_element(By.ID, "clock-hold")
        wait.until(lambda d: hold.is_enabled())
        hold.click()
        wait.until(lambda d: companion.state()["clock"]["held"])
        note = driver.find_element(By.ID, "clock-note")
        wait.until(lambda d: "held by a player" in note.text and hold.text == "Restart the clock")
        held = dark.find_element(By.CLASS_NAME, "clock-time").text
        time.sleep(1.5)                                  # held: the phone's count stands still
        assert dark.find_element(By.CLASS_NAME, "clock-time").text == held
    finally:
        driver.quit()
