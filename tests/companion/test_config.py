"""The companion's TOML configuration: defaults that need no hardware, clear errors, the PIN."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from willughby.companion.config import CompanionConfig, ConfigError, ensure_pin, load_config
from willughby.hardware.camera_controls import CameraControls

ROOT = Path(__file__).resolve().parents[2]


def test_every_default_runs_without_hardware():
    c = load_config(None)
    assert (c.camera, c.dice, c.pins, c.speech) == ("none", "page", False, "auto")
    assert c.preset == "backgammon" and c.port == 8080
    assert (c.camera_fps, c.camera_exposure, c.camera_white_balance) == (0, "auto", "auto")
    assert not c.camera_controls.asks_anything       # a camera as it comes: nothing is asked of its device


def test_the_shipped_example_for_a_pi_loads():
    c = load_config(ROOT / "hardware" / "willughby.example.toml")
    assert (c.preset, c.camera, c.dice, c.pins) == ("irish", "picamera:0", "box", True)
    assert c.pin_numbers == {"roll": 17, "done": 27, "undo": 22}
    assert c.store_path == Path("/var/lib/willughby/games.sqlite")
    assert (c.camera_exposure, c.camera_white_balance) == ("lock", "lock")   # a Pi at the table holds its exposure


@pytest.mark.parametrize("text, words", [
    ("[cam]\nsource = 'x'\n", "unknown table [cam]"),
    ("[camera]\nsorce = 'x'\n", "unknown key camera.sorce"),
    ("[web]\nport = 'eighty'\n", "web.port must be a whole number"),
    ("[web]\nport = 70000\n", "web.port must be a port number"),
    ("[web]\npin = '12'\n", "web.pin must be 4 to 12 digits"),
    ("[web]\nhost = '256.0.0.1'\n", "web.host must be an address such as 0.0.0.0"),
    ("[web]\nhost = 'a host'\n", "web.host must be an address such as 0.0.0.0"),
    ("[web]\nhost = 8080\n", "web.host must be a string"),
    ("[web]\nmax_watchers = 0\n", "web.max_watchers must be a whole number from 1 to 10000, not 0"),
    ("[web]\nmax_watchers = 20000\n", "web.max_watchers must be a whole number from 1 to 10000"),
    ("[web]\nmax_watchers = true\n", "web.max_watchers must be a whole number"),
    ("[web]\npin = 'short phrase'\n", "web.pin must be 4 to 12 digits, or a passphrase of 16 to 128 characters"),
    ("[web]\ntrusted_hosts = [7]\n", "web.trusted_hosts must be a list of host names"),
    ("[web]\nheader_timeout_s = 0\n", "web.header_timeout_s must be a positive number of seconds"),
    ("[web]\nspare_connections = 2\n", "web.spare_connections must be a whole number from 16"),
    ("[web]\nwrong_pins_per_hour = 0\n", "web.wrong_pins_per_hour must be a whole number of at least 1"),
    ("[web]\nconnections_per_address = 2\n", "web.connections_per_address must be a whole number from 4"),
    ("[web]\nsecret_key = 'x'\n", "unknown key web.secret_key"),
    ("[dice]\nsource = 'cup'\n", "dice.source must be page, box, pi or camera"),
    ("[companion]\npreset = 'chess'\n", "companion.preset"),
    ("[hardware]\nenabled = 'yes'\n", "hardware.enabled must be true or false"),
    ("[web\n", "not valid TOML"),
    ("[match]\nlength = 65\n", "match.length is the points a match is played to, 1 to 64"),
    ("[hub]\nboard = 'table-3'\n", "hub.broker: the club's broker is needed"),
    ("[hub]\nbroker = 'mqtt.club'\n", "hub.board is 1 to 40 letters"),
    ("[hub]\nbroker = 'mqtt.club'\nboard = 'table/3'\n", "hub.board is 1 to 40 letters, digits, '-' and '_'"),
    ("[hub]\nbroker = 'mqtt.club'\nboard = 't3'\nroot = '#'\n", "hub.root is 1 to 40 letters"),
    ("[hub]\nbroker = 'a host'\nboard = 't3'\n", "hub.broker must be an address"),
    ("[hub]\nbroker = 'mqtt.club'\nboard = 't3'\nport = 0\n", "hub.port must be a port number"),
    ("[hub]\nbroker = 'mqtt.club'\nboard = 't3'\ntls = 'yes'\n", "hub.tls must be true or false"),
    ("[hub]\nbroker = 'mqtt.club'\nboard = 't3'\npassword = 'x'\n", "unknown key hub.password"),
    ("[match]\nlength = '5'\n", "match.length must be a whole number"),
    ("[companion]\npreset = 'doublets'\n[match]\nlength = 3\n", "a match is played with a race game, not doublets"),
    ("[match]\nclock_minutes = 10\n", "a clock is for a match: give match.length too"),
    ("[match]\nlength = 5\nclock_minutes = 10\nclock_mode = 'sand'\n", "a clock's mode is bronstein"),
    ("[match]\nlength = 5\nclock_minutes = 10\nclock_flag = 'shrug'\n", "a flag means lose-match or announce"),
    ("[match]\nlength = 5\nclock_minutes = 10\nclock_delay_s = 900\n", "a delay or increment is 0 to 600 s"),
    ("[match]\nlength = 5\nclock_minutes = 2000\n", "match.clock_minutes is each player's reserve"),
    ("[camera]\nwidth = 640\n", "camera.width and camera.height are given together"),
    ("[camera]\nwidth = 8\nheight = 8\n", "camera.width must be 0 .* or 16 to 10000 pixels, not 8"),
    ("[camera]\nheight = 'tall'\n", "camera.height must be a whole number"),
    ("[camera]\nloop = 'yes'\n", "camera.loop must be true or false"),
    ("[camera]\nfps = -5\n", "camera.fps must be 0 .*the camera's own.* or frames a second from 1 to 120, not -5"),
    ("[camera]\nfps = 'fast'\n", "camera.fps must be 0"),
    ("[camera]\nexposure = 'locked'\n",
     "camera.exposure must be auto, lock or an exposure time in microseconds from 1 to 1000000, not 'locked'"),
    ("[camera]\nexposure = 0\n", "camera.exposure must be auto, lock or an exposure time"),
    ("[camera]\nexposure = 0.01\n", "camera.exposure must be auto, lock or an exposure time"),
    ("[camera]\nwhite_balance = 'daylight'\n",
     "camera.white_balance must be auto, lock or a colour temperature in kelvin from 1500 to 15000, not 'daylight'"),
    ("[camera]\nwhite_balance = true\n", "camera.white_balance must be auto, lock or a colour temperature"),
])
def test_a_bad_file_is_one_clear_error_naming_the_key(tmp_path, text, words):
    path = tmp_path / "w.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=words.replace("[", r"\[").replace("]", r"\]")) as info:
        load_config(path)
    assert str(path) in str(info.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match="no configuration file at"):
        load_config(tmp_path / "nowhere.toml")


def test_a_pin_is_made_once_kept_private_and_reused(tmp_path):
    c = CompanionConfig(data_dir=tmp_path)
    made, new = ensure_pin(c)
    assert new and made.pin.isdigit() and len(made.pin) == 6
    assert stat.S_IMODE(os.stat(tmp_path / "pin").st_mode) == 0o600
    again, new2 = ensure_pin(c)
    assert not new2 and again.pin == made.pin
    given, new3 = ensure_pin(CompanionConfig(data_dir=tmp_path, pin="2468"))
    assert given.pin == "2468" and not new3


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "127.0.0.1", "::1", "192.168.1.20", "willughby.local", "pi"])
def test_every_way_of_naming_where_to_listen_is_taken(tmp_path, host):
    path = tmp_path / "w.toml"
    path.write_text(f"[web]\nhost = '{host}'\nport = 8081\nmax_watchers = 500\n")
    c = load_config(path)
    assert (c.host, c.port, c.max_watchers) == (host, 8081, 500)


def test_the_pages_network_settings_and_a_passphrase_reach_the_page(tmp_path):
    """trusted_hosts used to exist in the page's settings without a way to set it from the file."""
    path = tmp_path / "w.toml"
    path.write_text("[web]\npin = 'correct horse battery staple'\ntrusted_hosts = ['willughby.local', '192.168.1.20']\n"
                    "wrong_pins_per_hour = 6\nheader_timeout_s = 4.5\nspare_connections = 100\n"
                    "connections_per_address = 64\n")
    c = load_config(path)
    web = c.web_config(c.pin, b"a key of sixteen bytes")
    assert web.pin == "correct horse battery staple"
    assert web.trusted_hosts == ("willughby.local", "192.168.1.20")
    assert (web.wrong_pins_per_hour, web.header_timeout_s, web.spare_connections) == (6, 4.5, 100)
    assert web.connections_per_address == 64
    path.write_text("[web]\ntrusted_hosts = []\n")
    assert load_config(path).web_config("2468", b"a key of sixteen bytes").trusted_hosts is None


def test_the_page_is_for_phones_at_the_table_by_default():
    c = load_config(None)
    assert c.host == "0.0.0.0" and c.max_watchers == 300


def test_the_cameras_picture_and_a_recordings_loop_reach_the_source(tmp_path, monkeypatch):
    from willughby.companion.runtime import build
    from willughby.hardware import camera

    asked = []

    def open_source(text, **kwargs):
        asked.append((text, kwargs))
        raise camera.CameraError("not here")

    monkeypatch.setattr(camera, "open_source", open_source)
    path = tmp_path / "w.toml"
    path.write_text(f"[companion]\ndata_dir = '{tmp_path}'\n[camera]\nsource = 'camera:0'\nwidth = 1640\n"
                    "height = 1232\nloop = true\n[speech]\nenabled = 'off'\n")
    config = load_config(path)
    assert (config.camera_width, config.camera_height, config.camera_loop) == (1640, 1232, True)
    with pytest.raises(ConfigError, match="not here"):
        build(config)
    # (serve's folder of stills keeps its last still standing: hold_last)
    assert asked == [("camera:0", {"width": 1640, "height": 1232, "loop": True, "hold_last": True,
                                   "controls": CameraControls()})]


def test_the_cameras_frame_rate_exposure_and_white_balance_reach_the_source(tmp_path, monkeypatch):
    from willughby.companion.runtime import build
    from willughby.hardware import camera

    asked = []

    def open_source(text, **kwargs):
        asked.append(kwargs["controls"])
        raise camera.CameraError("not here")

    monkeypatch.setattr(camera, "open_source", open_source)
    path = tmp_path / "w.toml"
    path.write_text(f"[companion]\ndata_dir = '{tmp_path}'\n[camera]\nsource = 'picamera:'\nfps = 7.5\n"
                    "exposure = 12000\nwhite_balance = 'lock'\n[speech]\nenabled = 'off'\n")
    config = load_config(path)
    with pytest.raises(ConfigError, match="not here"):
        build(config)
    assert asked == [CameraControls(fps=7.5, exposure=12000, white_balance="lock")]


def test_the_vision_table_reaches_the_cameras_reader(tmp_path):
    """The whole configuration reaches the running service, [vision] included
    (before, it was refused as an unknown table and never reached `serve`)."""
    from willughby.companion.runtime import build

    stills = tmp_path / "stills"
    stills.mkdir()
    import cv2
    import numpy as np

    cv2.imwrite(str(stills / "a.png"), np.zeros((48, 64, 3), np.uint8))
    path = tmp_path / "w.toml"
    path.write_text(f"[companion]\ndata_dir = '{tmp_path}'\n[camera]\nsource = 'folder:{stills}'\n"
                    "[speech]\nenabled = 'off'\n[vision.dice]\nmin_score = 0.9\n[vision.reader]\nkeep_memory_mb = 0\n")
    config = load_config(path)
    rt = build(config)
    try:
        used = rt.parts["watcher"].settler.config
        assert (used.dice.min_score, used.reader.keep_memory_mb) == (0.9, 0)
    finally:
        rt.close()


@pytest.mark.parametrize("text, words", [
    ("[vision.dice]\nmin_scor = 0.9\n", "unknown vision dice setting 'min_scor'"),
    ("[vision.reader]\nkeep_memory_mb = -1\n", "vision.reader.keep_memory_mb must be zero or more"),
    ("vision = 3\n", "[vision] must be a table"),
])
def test_a_bad_vision_setting_is_one_clear_error(tmp_path, text, words):
    path = tmp_path / "w.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(words)):
        load_config(path)
