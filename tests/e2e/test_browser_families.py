"""The new families end to end in a real browser: headless Chromium watches
`willughby demo --preset doublets` and `--preset sice-ace` play a whole game
at high speed, and the page is checked against /api/state: the piles drawn
as piles with their heights, each side's phase, the winner; the tally of
Sice-Ace's players, who is out, the pool and who pays.

The harness (Chromium, chromedriver, skipped without them unless
WILLUGHBY_REQUIRE_BROWSER=1) is test_browser_demo.py's.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .test_browser_demo import MISSING, ROOT, _api_state, _browser, _stop, _text, pytestmark  # noqa: F401

GAME_TIMEOUT_S = 150
START_TIMEOUT_S = 60


def _start(tmp_path: Path, preset: str, seed: int) -> tuple[subprocess.Popen, str, Path]:
    out, err = tmp_path / "demo.out", tmp_path / "demo.err"
    data = tmp_path / "data"
    data.mkdir()
    command = [sys.executable, "-m", "willughby.companion", "demo", "--port", "0", "--speed", "200",
               "--games", "1", "--seed", str(seed), "--data-dir", str(data), "--preset", preset]
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(command, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL, cwd=ROOT)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        text = out.read_text(errors="replace")
        if "\n" in text:
            m = re.fullmatch(r"Willughby demo on (http://[^/\s]+/)", text.splitlines()[0].strip())
            assert m, text
            return proc, m.group(1), err
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    _stop(proc)
    pytest.fail(f"the demo printed no address: {err.read_text(errors='replace')[-3000:]}")


def _watch(tmp_path: Path, preset: str, seed: int, over_shown, each_poll=None):
    """Start the demo and a browser on it; wait for *over_shown*; return (driver, proc, url, banner)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    if MISSING:
        pytest.fail(f"WILLUGHBY_REQUIRE_BROWSER is set but {MISSING}")
    driver = _browser(tmp_path)
    proc, url, err = _start(tmp_path, preset, seed)
    driver.get(url)

    def done(d):
        if each_poll is not None:
            each_poll(d)
        banner = d.find_element(By.ID, "game-over")
        text = banner.text if banner.is_displayed() else ""
        return text if over_shown.search(text) else False

    try:
        banner = WebDriverWait(driver, GAME_TIMEOUT_S, poll_frequency=0.2).until(done)
    except TimeoutException:
        driver.save_screenshot(str(tmp_path / "timeout.png"))
        state = _api_state(url)
        driver.quit()
        _stop(proc)
        pytest.fail(f"no end shown within {GAME_TIMEOUT_S} s; the server is at {state.get('phase')!r} "
                    f"turn {state.get('turn_number')}; stderr: {err.read_text(errors='replace')[-2000:]}")
    return driver, proc, url, banner


def _no_script_errors(driver) -> None:
    errors = [e for e in driver.get_log("browser")
              if e.get("level") == "SEVERE" and "favicon" not in e.get("message", "")]
    assert not errors, errors


def test_a_doublets_demo_shows_its_piles_its_phases_and_its_winner(tmp_path):
    from selenium.webdriver.common.by import By

    seen = {"piles": 0, "heights": set(), "phases": set()}

    def look(d):
        # read in one script: the page redraws under a poll made of several calls
        heights, phases = d.execute_script(
            "const piles = [...document.querySelectorAll('svg#board g.pile')].map((p) => p.dataset.height);"
            "const ph = document.getElementById('phases');"
            "return [piles, ph.hidden ? '' : ph.textContent];")
        seen["piles"] = max(seen["piles"], len(heights))
        seen["heights"].update(heights)
        if phases:
            seen["phases"].add(phases)

    wins = re.compile(r"\b(light|dark)\) wins: (single), stake (\d+)")
    driver, proc, url, banner = _watch(tmp_path, "doublets", 4, wins, look)
    try:
        state = _api_state(url)
        assert state["preset"] == "doublets" and state["phase"] == "over"
        winner, kind, stake = wins.search(banner).groups()
        assert {"winner": winner, "kind": kind, "stake": int(stake)} == state["game_over"]
        # the start's twelve piles were drawn as piles, with their heights (2 and 3) on them
        assert seen["piles"] >= 6 and {"2", "3"} <= seen["heights"], seen
        assert any("playing down" in t for t in seen["phases"]), seen
        assert any("bearing off" in t for t in seen["phases"]), seen
        # the final board on the page is the server's, man for man and pile for pile
        board = state["board"]
        stacked = board.get("stacked") or {"light": [0] * 24, "dark": [0] * 24}
        for group in driver.find_elements(By.CSS_SELECTOR, "svg#board g.point"):
            p = int(group.get_attribute("data-place"))
            assert int(group.get_attribute("data-light")) == board["light"][p - 1], p
            assert int(group.get_attribute("data-dark")) == board["dark"][p - 1], p
            for pile in group.find_elements(By.CSS_SELECTOR, "g.pile"):
                colour = pile.get_attribute("data-colour")
                assert int(pile.get_attribute("data-height")) == stacked[colour][p - 1], (p, colour)
        assert driver.find_element(By.ID, "phases").text == \
            " · ".join(f"{state['players'][c]} ({c}): "
                       + {"unstack": "playing down", "bear_off": "bearing off", "restack": "restacking"}[
                           state["phases"][c]] for c in ("light", "dark"))
        texts = {_text(li) for li in driver.find_elements(By.CSS_SELECTOR, "#announcements > li")}
        assert texts <= {a["text"] for a in state["announcements"]}
        assert any("wins: single" in t for t in texts)
        _no_script_errors(driver)
    finally:
        driver.quit()
        _stop(proc)


def test_a_sice_ace_demo_shows_the_tally_who_is_out_and_who_pays(tmp_path):
    from selenium.webdriver.common.by import By

    seen = {"out": 0, "pool": 0}

    def look(d):
        out, pool = d.execute_script(
            "const pool = document.querySelector('#tally [data-pool]');"
            "return [document.querySelectorAll('li.tally-player.out').length,"
            " pool ? Number(pool.dataset.pool) : 0];")
        seen["out"] = max(seen["out"], out)
        seen["pool"] = max(seen["pool"], pool)

    pays = re.compile(r"^(.+) pays for the drinks: (single), stake (\d+)$")
    driver, proc, url, banner = _watch(tmp_path, "sice-ace", 5, pays, look)
    try:
        state = _api_state(url)
        assert state["preset"] == "sice-ace" and state["phase"] == "over" and state["family"] == "counting"
        players = state["players"]
        assert 3 <= len(players) <= 5
        over = state["game_over"]
        name, kind, stake = pays.match(banner).groups()
        assert (name, kind, int(stake)) == (players[over["loser"]], over["kind"], over["stake"])
        # the tally on the page is the server's
        assert not driver.find_element(By.ID, "board-panel").is_displayed()
        items = driver.find_elements(By.CSS_SELECTOR, "#tally li.tally-player")
        assert len(items) == len(players)
        for k, item in enumerate(items):
            assert _text(item.find_element(By.CSS_SELECTOR, ".tally-name")) == players[k]
            assert int(item.get_attribute("data-men")) == state["board"]["men"][k]
            assert (item.get_attribute("data-out") == "true") == (k in state["tally"]["out"])
            assert (item.get_attribute("data-pays") == "true") == (k == over["loser"])
        pool = driver.find_element(By.CSS_SELECTOR, "#tally [data-pool]")
        assert int(pool.get_attribute("data-pool")) == state["board"]["pool"]
        # all but the loser are out at the end, and players went out while the game was watched
        assert len(driver.find_elements(By.CSS_SELECTOR, "#tally li.tally-player.out")) == len(players) - 1
        assert seen["out"] >= 1, seen
        texts = {_text(li) for li in driver.find_elements(By.CSS_SELECTOR, "#announcements > li")}
        assert texts <= {a["text"] for a in state["announcements"]}
        assert any("pays for the drinks" in t for t in texts)
        rulings = driver.find_elements(By.CSS_SELECTOR, "#rulings > li")
        assert len(rulings) == len(state["rulings"])
        _no_script_errors(driver)
    finally:
        driver.quit()
        _stop(proc)
