"""The service put together on the Pi's own pins (gpiozero's mock pins) and
with the voice: presses reach the referee, the lights follow the game."""

from __future__ import annotations

import os
import stat
import time

from gpiozero.pins.mock import MockFactory

from willughby.companion.config import CompanionConfig
from willughby.companion.runtime import build
from willughby.companion.speech import Speaker
from willughby.hardware.config import PinConfig


def _press(factory, pin):
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def test_the_pis_roll_button_throws_and_the_turn_lights_follow(tmp_path):
    factory = MockFactory()
    pins = PinConfig()
    rt = build(CompanionConfig(data_dir=tmp_path, pins=True, dice="pi", speech="off"), pin_factory=factory)
    try:
        c = rt.companion
        assert c.state()["phase"] == "start" and c.state()["preset"] == "backgammon"   # the configured game
        c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"})
        for _ in range(10):                              # the roll for start: until the dice differ
            _press(factory, pins.roll)
            time.sleep(0.05)                             # past the panel's debounce
            if c.state()["phase"] != "start":
                break
        s = c.state()
        assert s["phase"] == "move" and len(s["dice"]) == 2
        light_on = factory.pin(pins.light_led).state
        dark_on = factory.pin(pins.dark_led).state
        assert (light_on, dark_on) == ((True, False) if s["board"]["turn"] == "light" else (False, True))
        assert factory.pin(pins.illegal_led).state is False
        # an illegal board lights the illegal lamp until it is put right
        board = dict(s["board"])
        mover = board.pop("turn")
        men = list(board[mover])
        far = 12 if mover == "light" else 11              # the mover's 13 point
        men[far] -= 2
        men[far - 5 if mover == "light" else far + 5] += 2  # two men 13/8: far off any play of two dice
        board[mover] = men
        c.submit_board(board, who="test")
        assert c.state()["rulings"][-1]["verdict"] == "illegal"
        assert factory.pin(pins.illegal_led).state is True
        # UNDO on the pins (no pips being entered) takes the wrong move back: recorded, and the lamp goes out
        _press(factory, pins.undo)
        s = c.state()
        assert s["phase"] == "move" and s["rulings"] == []
        assert factory.pin(pins.illegal_led).state is False
        log = c.store.game(s["game_id"])["log"]
        assert [e["who"] for e in log if e["kind"] == "undo"] == ["pins"]
    finally:
        rt.close()


def test_the_voice_says_each_announcement_in_order(tmp_path):
    said = tmp_path / "said.txt"
    program = tmp_path / "espeak-ng"
    program.write_text(f"#!/bin/sh\nshift 2\n[ \"$1\" = -- ] && shift\nprintf '%s\\n' \"$*\" >> {said}\n")
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    speaker = Speaker(str(program))
    speaker.say("light hits the blot on dark's 5 point")
    speaker.say("dark enters a man from the bar")
    speaker.close()
    assert said.read_text().splitlines() == ["light hits the blot on dark's 5 point", "dark enters a man from the bar"]
    assert speaker.spoken == 2


def test_speech_asked_for_without_espeak_is_warned_of_not_silent(monkeypatch, caplog):
    # ``demo --speak`` (speech "on") on a machine without espeak-ng says so; "auto" stays quiet about it
    import logging
    from types import SimpleNamespace

    from willughby.companion import runtime, speech

    monkeypatch.setattr(speech, "espeak_available", lambda: None)
    with caplog.at_level(logging.WARNING, logger=runtime.log.name):
        runtime._voice(SimpleNamespace(config=SimpleNamespace(speech="auto"), companion=None))
        assert "espeak-ng is not installed" not in caplog.text
        runtime._voice(SimpleNamespace(config=SimpleNamespace(speech="on"), companion=None))
    assert "espeak-ng is not installed" in caplog.text


def test_the_services_folder_camera_keeps_its_last_still_standing(tmp_path):
    """A folder of two stills (camera.loop false) is not used up before the owner can log in: the last
    still stands, so the camera goes on seeing the board and never says it ended."""
    import cv2
    import numpy as np

    from .waiting import until

    stills = tmp_path / "stills"
    stills.mkdir()
    for i, level in enumerate((40, 200)):
        assert cv2.imwrite(str(stills / f"{i}.png"), np.full((48, 64, 3), level, np.uint8))
    rt = build(CompanionConfig(data_dir=tmp_path / "data", camera=f"folder:{stills}", speech="off"))
    try:
        watcher = rt.parts["watcher"]
        assert until(lambda: watcher._frames_taken >= 6, 10), watcher.status
        assert not watcher.status.startswith("ended"), watcher.status
        assert rt.companion.state()["devices"]["camera"] == "ok"
        assert int(watcher._last_frame.mean()) == 200           # the last still, standing
    finally:
        rt.close()


def test_the_session_key_is_private_from_its_first_byte_and_kept(tmp_path, monkeypatch):
    """It used to be written readable, then made private."""
    from willughby.companion import runtime

    opened: list[tuple[str, int]] = []
    real_open = os.open

    def watching_open(path, flags, mode=0o777, *args, **kwargs):
        opened.append((str(path), mode))
        return real_open(path, flags, mode, *args, **kwargs)

    monkeypatch.setattr(runtime.os, "open", watching_open)
    key = runtime._secret_key(tmp_path)
    assert opened and all(mode == 0o600 for _, mode in opened)
    assert stat.S_IMODE((tmp_path / "session.key").stat().st_mode) == 0o600
    assert runtime._secret_key(tmp_path) == key and not (tmp_path / "session.key.part").exists()


def test_a_configured_match_with_a_clock_begins_when_nothing_is_in_progress(tmp_path):
    """[match] in the configuration: the configured game is a match to its length, with its clock; it is
    carried on, not begun again, when the service starts again."""
    config = CompanionConfig(data_dir=tmp_path, speech="off", players={"light": "Ann", "dark": "Bob"},
                             match_length=5, clock_minutes=10, clock_delay_s=12)
    rt = build(config)
    try:
        s = rt.companion.state()
        assert s["match"]["length"] == 5 and s["match"]["text"] == "Ann needs 5, Bob needs 5"
        assert s["clock"]["left"] == {"light": 600.0, "dark": 600.0} and s["clock"]["delay_s"] == 12.0
        first = s["match"]["id"]
    finally:
        rt.close()
    rt = build(config)
    try:
        assert rt.companion.state()["match"]["id"] == first
    finally:
        rt.close()


def test_a_board_with_a_hub_publishes_and_keeps_its_password_private(tmp_path):
    """[hub] names the club's broker: the service publishes its board there (tests/broker.py's Mosquitto,
    where installed); a password file others may read stops the start in one line."""
    import json

    import pytest

    from willughby.companion.config import ConfigError

    from ..broker import MOSQUITTO, Broker, Subscriber

    config = CompanionConfig(data_dir=tmp_path, speech="off", hub_broker="127.0.0.1", hub_port=1, hub_board="t3")
    secret = tmp_path / "hub-password"
    secret.write_text("sesame\n")
    secret.chmod(0o644)
    with pytest.raises(ConfigError, match="must be its owner's alone: chmod 600"):
        build(config)
    secret.chmod(0o600)
    if MOSQUITTO is None:
        pytest.skip("Eclipse Mosquitto is not installed (README: apt-get install mosquitto)")
    broker = Broker(tmp_path).start()
    sub = Subscriber(broker.port, client_id="runtime-test")
    rt = build(CompanionConfig(data_dir=tmp_path, speech="off", hub_broker="127.0.0.1", hub_port=broker.port,
                               hub_board="t3"))
    try:
        game_id = rt.companion.state()["game_id"]
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(t == "willughby/t3/state" and json.loads(p)["game_id"] == game_id
                                                      for t, p, _r in sub.got()):
            time.sleep(0.05)
        got = {t: json.loads(p) for t, p, _r in sub.got()}           # the last of each topic
        assert got["willughby/t3/status"]["online"] is True
        assert got["willughby/t3/state"]["game_id"] == game_id
        assert rt.parts["hub"].settings.password == "sesame"
    finally:
        rt.close()
        sub.close()
        broker.stop()
