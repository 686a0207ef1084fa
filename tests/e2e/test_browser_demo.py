"""The demo, end to end, in a real browser: Debian's Chromium, headless, driven
by Selenium through Debian's chromedriver, watches `willughby demo` play a
short race to its end and shows the rulings and the winner.

Nothing is downloaded: the browser is /usr/bin/chromium and the driver
/usr/bin/chromedriver (both from apt: ``chromium chromium-driver``), and
Selenium Manager is never consulted because both paths are given.  Without
them (or without the ``selenium`` package) the test is skipped, unless
WILLUGHBY_REQUIRE_BROWSER=1 is set (as CI should), in which case it fails.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RACE_END = ROOT / "docs" / "examples" / "race-end.json"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
REQUIRED = os.environ.get("WILLUGHBY_REQUIRE_BROWSER", "") not in ("", "0")

GAME_TIMEOUT_S = 90        # the race ends in a few seconds at --speed 50
START_TIMEOUT_S = 60       # the demo prints its address once the page listens


def _missing() -> str:
    """Why the browser test cannot run here, or "" when it can."""
    lacking = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.is_file()]
    if lacking:
        return (f"{' and '.join(lacking)} missing: apt-get install chromium chromium-driver "
                "(the browser test never downloads a browser)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is missing: pip install selenium"
    return ""


MISSING = _missing()

pytestmark = pytest.mark.skipif(bool(MISSING) and not REQUIRED, reason=MISSING or "browser present")

# Chromium as root in a container with no network beyond the loopback: no
# sandbox, no GPU, and none of the background connections it would try.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,2400",
)

# The page (web_ui/templates/board.html, static/live.js, static/board.js).
GAME_OVER = "game-over"                              # id: "<player> wins: <kind>, stake <n>"
ANNOUNCEMENTS = "#announcements > li"                # live.js announcementItem
RULINGS = "#rulings > li"                            # live.js rulingItem
POINT_TRIANGLES = "svg#board g.point > polygon.tri"  # board.js drawPoint: 24 once a board is drawn
MEN_ON_BOARD = "svg#board g.point circle.man, svg#board g.bar-men circle.man"
WINS = re.compile(r"\b(light|dark)\)? wins: (single|gammon|backgammon)(?:, stake (\d+))?")
PLAYS = re.compile(r"^(?:.+ \()?(light|dark)\)? plays ")     # "light plays" or "Ann (light) plays"


def _start_demo(tmp_path: Path) -> tuple[subprocess.Popen, str, Path, Path]:
    """Start the demo; its address comes from the first line it prints."""
    out, err = tmp_path / "demo.out", tmp_path / "demo.err"
    data = tmp_path / "data"
    data.mkdir()
    command = [sys.executable, "-m", "willughby.companion", "demo", "--port", "0", "--speed", "50",
               "--games", "1", "--seed", "3", "--data-dir", str(data), "--start", f"@{RACE_END}"]
    # Files, not pipes: nobody has to keep draining them while the browser runs.
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                cwd=ROOT)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        text = out.read_text(errors="replace")
        if "\n" in text:
            first = text.splitlines()[0]
            m = re.fullmatch(r"Willughby demo on (http://[^/\s]+/)", first.strip())
            assert m, f"unexpected first line from the demo: {first!r}"
            return proc, m.group(1), out, err
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    _stop(proc)
    pytest.fail(f"the demo printed no address (exit {proc.poll()}):\n"
                f"stdout: {out.read_text(errors='replace')}\nstderr: {err.read_text(errors='replace')[-3000:]}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _browser(tmp_path: Path, phone: tuple[int, int] | None = None):
    """Headless Chromium; with *phone* (width, height in CSS px) it emulates a
    phone's screen of that size (device pixel ratio 3, a touch screen)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        if phone and flag.startswith("--window-size="):
            flag = f"--window-size={phone[0]},{phone[1]}"
        options.add_argument(flag)
    if phone:
        options.add_experimental_option("mobileEmulation", {
            "deviceMetrics": {"width": phone[0], "height": phone[1], "pixelRatio": 3.0, "touch": True}})
    profile = tmp_path / "chromium-profile"
    profile.mkdir()
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # Chromium's crash database and dconf cache go under $XDG_CONFIG_HOME and
    # $XDG_CACHE_HOME whatever --user-data-dir says: keep them in tmp_path too.
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
           "XDG_CACHE_HOME": str(tmp_path / "xdg-cache")}
    # Both paths given: Selenium Manager is not run, so nothing is downloaded.
    service = Service(executable_path=str(CHROMEDRIVER), log_output=str(tmp_path / "chromedriver.log"),
                      env=env)
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(30)
    return driver


def _text(element) -> str:
    return (element.get_attribute("textContent") or "").strip()


def _api_state(url: str) -> dict:
    with urllib.request.urlopen(url + "api/state", timeout=10) as response:
        return json.load(response)


def test_the_board_page_shows_a_demo_game_its_rulings_and_its_winner(tmp_path):
    if MISSING:
        pytest.fail(f"WILLUGHBY_REQUIRE_BROWSER is set but {MISSING}")
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = None
    proc = None
    timings = {}
    t0 = time.monotonic()
    try:
        driver = _browser(tmp_path)                    # first, so the browser sees the game from its start
        timings["browser"] = time.monotonic() - t0
        proc, url, out, err = _start_demo(tmp_path)
        timings["demo"] = time.monotonic() - t0
        driver.get(url)

        seen = {"men": 0, "triangles": 0}

        def game_over_shown(d):
            # Every poll also notes the most men and triangles drawn so far.
            seen["men"] = max(seen["men"], len(d.find_elements(By.CSS_SELECTOR, MEN_ON_BOARD)))
            seen["triangles"] = max(seen["triangles"], len(d.find_elements(By.CSS_SELECTOR, POINT_TRIANGLES)))
            banner = d.find_element(By.ID, GAME_OVER)
            text = banner.text if banner.is_displayed() else ""
            return text if WINS.search(text) else False

        try:
            banner_text = WebDriverWait(driver, GAME_TIMEOUT_S, poll_frequency=0.2).until(game_over_shown)
        except TimeoutException:
            driver.save_screenshot(str(tmp_path / "timeout.png"))
            pytest.fail(f"no winner shown within {GAME_TIMEOUT_S} s; the page says "
                        f"{driver.find_element(By.ID, 'turn-line').text!r}; the server says "
                        f"{_api_state(url).get('phase')!r}; stderr: {err.read_text(errors='replace')[-2000:]}")
        timings["game over shown"] = time.monotonic() - t0

        # The winner, the kind and the stake, as the server has them.
        state = _api_state(url)
        over = state["game_over"]
        assert state["phase"] == "over" and over, state["phase"]
        winner, kind, stake = WINS.search(banner_text).groups()
        assert winner == over["winner"], (banner_text, over)
        assert kind == over["kind"], (banner_text, over)
        assert stake is not None and int(stake) == over["stake"], (banner_text, over)
        name = state["players"].get(winner)
        expected = f"{name} ({winner})" if name else winner
        assert banner_text.startswith(f"{expected} wins: "), (banner_text, expected)

        # The announcements: the plays the referee allowed, and the result.
        # textContent, not .text: the list scrolls, and its lower items may be out of view.
        announcements = [_text(li) for li in driver.find_elements(By.CSS_SELECTOR, ANNOUNCEMENTS)]
        assert any(PLAYS.match(t) for t in announcements), announcements
        assert any(f"{expected} wins: {kind}" in t for t in announcements), announcements
        server_texts = {a["text"] for a in state["announcements"]}
        assert set(announcements) <= server_texts, set(announcements) - server_texts

        # The rulings list and the last ruling panel.
        rulings = [_text(li) for li in driver.find_elements(By.CSS_SELECTOR, RULINGS)]
        assert len(rulings) == len(state["rulings"]) >= 1, (rulings, state["rulings"])
        assert driver.find_element(By.ID, "ruling").is_displayed()
        assert driver.find_element(By.ID, "ruling-text").text.strip()
        turn_line = driver.find_element(By.ID, "turn-line").text      # "game over", "Game over after 9 turns", ...
        assert re.search(r"\bgame over\b", turn_line, re.I), turn_line

        # The SVG board: 24 points, and men drawn (the loser keeps at least one on the board).
        assert seen["triangles"] == 24, seen
        assert seen["men"] > 0, seen
        assert len(driver.find_elements(By.CSS_SELECTOR, MEN_ON_BOARD)) > 0

        # No script failed in the page.
        errors = [e for e in driver.get_log("browser")
                  if e.get("level") == "SEVERE" and "favicon" not in e.get("message", "")]
        assert not errors, errors

        shot = tmp_path / "board.png"
        assert driver.save_screenshot(str(shot))
        data = shot.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 1000, len(data)
        timings["done"] = time.monotonic() - t0
        print("timings (s from start): " + ", ".join(f"{k} {v:.1f}" for k, v in timings.items()))
    finally:
        try:
            if driver is not None:
                driver.quit()
        finally:
            if proc is not None:
                _stop(proc)

