"""Faults that say what to do: a setting or a device that cannot be used ends
``willughby`` with exit status 2 (75 for a camera not there yet) and one line
on standard error naming what is wrong and what to do, never a traceback
(docs/command-line.md)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from willughby.companion.cli import main
from willughby.companion.service import Companion
from willughby.companion.store import GameStore

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "tests" / "vision" / "golden" / "img_0001.jpg"


def fails(capfd, *argv: str, status: int = 2) -> str:
    """Run ``willughby`` *argv*; assert it failed as a user's fault should (with *status*: 75 for a device
    not there yet), and return its one line (what the process wrote on its standard error, OpenCV's and
    gpiozero's own included)."""
    code = main(list(argv))
    out, err = capfd.readouterr()
    assert code == status, (out, err)
    assert "Traceback" not in err and err.count("\n") == 1 and err.endswith("\n"), err
    return err


def test_four_corners_in_one_place_are_named_and_the_order_given(capfd):
    line = fails(capfd, "vision", "read", str(PHOTO), "--corners", "10,10 10,10 10,10 10,10")
    assert "C1 and C2 are the same point (10,10)" in line
    assert "C1 touching point 1" in line and "C4 point 24" in line


# --------------------------------------------------------------- willughby serve


def config_file(tmp_path: Path, body: str, data: Path | None = None) -> Path:
    """A configuration whose data directory is under *tmp_path*, with *body* after the [companion] table."""
    data = data if data is not None else tmp_path / "data"
    path = tmp_path / "w.toml"
    path.write_text(f"[companion]\ndata_dir = '{data}'\n{body}")
    return path


def fails_at_start(capfd, config: Path, status: int = 2) -> str:
    """``willughby serve --config`` *config* refused at start; its one line. Every thread it started ended."""
    before = set(threading.enumerate())
    line = fails(capfd, "serve", "--config", str(config), status=status)
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not set(threading.enumerate()) - before, "something it opened was left running"
    return line


def test_the_shipped_example_without_picamera2_says_what_the_pi_needs_and_which_sources_exist(
        capfd, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)          # a machine without the Pi's camera module
    example = (ROOT / "hardware" / "willughby.example.toml").read_text()
    config = tmp_path / "w.toml"
    config.write_text(example.replace("/var/lib/willughby", str(tmp_path / "data")))
    line = fails_at_start(capfd, config)
    assert line.startswith("willughby: camera.source 'picamera:0': ")
    assert "picamera2" in line and "sudo apt install python3-picamera2" in line
    assert "--system-site-packages" in line
    assert "camera:N" in line and "folder:PATH" in line and "video:PATH" in line and "or none" in line
    assert "rpicam-hello --list-cameras" in line and "v4l2-ctl --list-devices" in line


def test_a_usb_camera_that_is_not_there_names_it_and_how_to_list_cameras(capfd, tmp_path, monkeypatch):
    import cv2

    class NoCamera:                          # what OpenCV gives for an index with no camera behind it
        def __init__(self, target):
            self.target = target

        def isOpened(self):
            return False

        def release(self):
            pass

    monkeypatch.setattr(cv2, "VideoCapture", NoCamera)
    line = fails_at_start(capfd, config_file(tmp_path, "[camera]\nsource = 'camera:0'\n"), status=75)
    assert "camera.source 'camera:0': cannot open camera 0: no such camera" in line
    assert "'video' group" in line
    assert "camera:N" in line and "v4l2-ctl --list-devices" in line and "picamera:N" in line


def test_a_camera_device_that_does_not_exist_is_one_line_without_opencvs_own_warnings(tmp_path):
    config = config_file(tmp_path, "[camera]\nsource = 'camera:/dev/willughby-no-such-camera'\n")
    done = subprocess.run([sys.executable, "-m", "willughby.companion", "serve", "--config", str(config)],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 75 and done.stdout == ""       # not there yet: systemd tries again
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "cannot open camera /dev/willughby-no-such-camera" in done.stderr


def test_the_pis_pins_without_a_pin_library_name_the_package_and_the_gpio_group(capfd, tmp_path, monkeypatch):
    import warnings

    from gpiozero import Device
    from gpiozero.exc import BadPinFactory, PinFactoryFallback

    def no_pin_library():                    # gpiozero on a machine with none of its pin libraries
        for name, why in (("lgpio", "No module named 'lgpio'"), ("rpigpio", "No module named 'RPi'")):
            warnings.warn(PinFactoryFallback(f"Falling back from {name}: {why}"))
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_pin_library))
    line = fails_at_start(capfd, config_file(tmp_path, "[hardware]\nenabled = true\n"))
    assert line.startswith("willughby: hardware.enabled = true: cannot open roll on GPIO17: ")
    assert "Unable to load any default pin factory!" in line
    assert "tried lgpio: No module named 'lgpio'; rpigpio: No module named 'RPi'" in line
    assert "sudo apt install python3-lgpio" in line and "--system-site-packages" in line
    assert "gpio group" in line and "enabled = false" in line


def test_a_folder_of_frames_that_does_not_exist_is_named_with_the_sources(capfd, tmp_path):
    line = fails_at_start(capfd, config_file(tmp_path, "[camera]\nsource = 'folder:/nonexistent'\n"))
    assert "camera.source 'folder:/nonexistent': no such folder: /nonexistent" in line
    assert "camera:N" in line and "folder:PATH" in line


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_a_data_directory_that_cannot_be_made_is_named_with_what_to_give(capfd, tmp_path):
    line = fails_at_start(capfd, config_file(tmp_path, "", data=Path("/proc/nope")))
    assert "companion.data_dir '/proc/nope' cannot be made (No such file or directory)" in line
    assert "may write" in line


def test_a_data_directory_under_a_file_is_named(capfd, tmp_path):
    (tmp_path / "a-file").write_text("")
    line = fails_at_start(capfd, config_file(tmp_path, "", data=tmp_path / "a-file" / "data"))
    assert f"companion.data_dir '{tmp_path / 'a-file' / 'data'}' cannot be made" in line


def test_a_bad_option_on_a_fresh_data_directory_names_the_option_and_its_values(capfd, tmp_path):
    line = fails_at_start(capfd, config_file(tmp_path, "options = { bear_off = 'exactly' }\n"))
    assert "companion.options: option bear_off cannot be 'exactly' (it takes exact, over, modern)" in line
    assert not (tmp_path / "data").exists()          # refused before anything was made


def test_a_bad_option_is_refused_even_while_a_game_is_carried_on(capfd, tmp_path):
    game = in_progress(tmp_path / "data", "backgammon")
    line = fails_at_start(capfd, config_file(tmp_path, "options = { bear_off = 'exactly' }\n"))
    assert "companion.options: option bear_off cannot be 'exactly'" in line
    assert current(tmp_path / "data")["id"] == game           # and the game in progress is untouched


@pytest.mark.parametrize("body, words", [
    ("players = { light = 'Ann', white = 'Bob' }\n", "companion.players: "),
    ("[hardware.pins]\nroll = 99\n", "hardware.pins.roll = 99 is not a GPIO pin"),
])
def test_every_other_setting_is_checked_at_start_too(capfd, tmp_path, body, words):
    in_progress(tmp_path / "data", "backgammon")
    assert words in fails_at_start(capfd, config_file(tmp_path, body))


# ------------------------------------------------------- the game in progress


def in_progress(data: Path, preset: str, players: dict[str, str] | None = None) -> str:
    """A game of *preset* in progress in the store under *data*; its id."""
    data.mkdir(parents=True, exist_ok=True)
    with GameStore(data / "games.sqlite") as store:
        return Companion(store).new_game(preset, {}, players or {"light": "Ann", "dark": "Bob"})["game_id"]


def current(data: Path) -> dict | None:
    with GameStore(data / "games.sqlite") as store:
        return store.current()


def status(data: Path, game_id: str) -> str:
    with GameStore(data / "games.sqlite") as store:
        return store.game(game_id)["status"]


@pytest.fixture
def served_at_once(monkeypatch):
    """``serve`` and ``demo`` start everything, print their lines, and stop at once."""
    from willughby.web_ui.server import PageServer

    def serve(self, **_: object) -> None:
        self.front.close()
        self._socket.close()

    monkeypatch.setattr(PageServer, "serve", serve)


def runs(capsys, *argv: str) -> list[str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0 and err == "", err
    return out.splitlines()


def serve_config(tmp_path: Path, preset: str = "irish") -> Path:
    return config_file(tmp_path, f"preset = '{preset}'\n[web]\nhost = '127.0.0.1'\nport = {free_port()}\n"
                                 "pin = '2468'\n[speech]\nenabled = 'off'\n")


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_serve_says_which_game_it_carries_on_and_how_to_start_the_configured_one(capsys, tmp_path,
                                                                                  served_at_once):
    game = in_progress(tmp_path / "data", "backgammon")
    config = serve_config(tmp_path, "irish")
    said = [line for line in runs(capsys, "serve", "--config", str(config)) if "carrying on" in line]
    assert said == [f"carrying on game {game} of backgammon (Ann v Bob), turn 1: the players are to throw one die "
                    f"each for the start (Ann (light)'s die first, then Bob (dark)'s); willughby serve --config {config} --new-game starts a new game of the "
                    "configured irish instead, or New game on the page"]
    assert current(tmp_path / "data")["id"] == game


def test_serve_new_game_starts_the_configured_game_and_keeps_the_old_one_as_abandoned(capsys, tmp_path,
                                                                                     served_at_once):
    game = in_progress(tmp_path / "data", "backgammon")
    out = runs(capsys, "serve", "--config", str(serve_config(tmp_path, "irish")), "--new-game")
    assert (f"left game {game} of backgammon (Ann v Bob) unfinished at turn 1 (kept in the store as abandoned): "
            "a new game of irish starts") in out
    now = current(tmp_path / "data")
    assert now["preset"] == "irish" and now["players"] == {"light": "Light", "dark": "Dark"}
    assert status(tmp_path / "data", game) == "abandoned"


def test_serve_with_nothing_in_progress_says_nothing_of_a_game(capsys, tmp_path, served_at_once):
    out = runs(capsys, "serve", "--config", str(serve_config(tmp_path, "irish")))
    assert not [line for line in out if "carrying on" in line or "left game" in line]
    assert current(tmp_path / "data")["preset"] == "irish"


def test_the_demo_carries_on_the_game_in_progress_and_says_so(capsys, tmp_path, served_at_once):
    game = in_progress(tmp_path / "data", "doublets")
    out = runs(capsys, "demo", "--port", "0", "--data-dir", str(tmp_path / "data"))
    assert (f"carrying on game {game} of doublets (Ann v Bob), turn 1: the players are to throw one die each for "
            "the start (Ann (light)'s die first, then Bob (dark)'s); willughby demo --new-game starts afresh, --preset ID another game") in out
    assert current(tmp_path / "data")["id"] == game


@pytest.mark.parametrize("asked", [["--preset", "doublets"], ["--new-game"]])
def test_the_demo_asked_for_another_game_leaves_the_one_in_progress_and_says_so(capsys, tmp_path, served_at_once,
                                                                                 asked):
    game = in_progress(tmp_path / "data", "backgammon")
    out = runs(capsys, "demo", "--port", "0", "--data-dir", str(tmp_path / "data"), *asked)
    started = "doublets" if "doublets" in asked else "backgammon"
    assert (f"left game {game} of backgammon (Ann v Bob) unfinished at turn 1 (kept in the store as abandoned): "
            f"a new game of {started} starts") in out
    assert status(tmp_path / "data", game) == "abandoned"


def test_the_demo_asked_for_the_game_in_progress_carries_it_on(capsys, tmp_path, served_at_once):
    game = in_progress(tmp_path / "data", "backgammon")
    out = runs(capsys, "demo", "--port", "0", "--data-dir", str(tmp_path / "data"), "--preset", "backgammon")
    assert any(line.startswith(f"carrying on game {game} of backgammon") for line in out)


# ------------------------------------------------- a device lost while serving


def until(what, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if what():
            return True
        time.sleep(0.02)
    return False


def said(companion) -> list[str]:
    return [a["text"] for a in companion.state()["announcements"]]


def test_a_camera_unplugged_while_serving_is_shown_and_the_game_goes_on_until_it_is_back(tmp_path, monkeypatch,
                                                                                        capfd):
    import numpy as np

    from willughby.companion.config import CompanionConfig
    from willughby.companion.runtime import build
    from willughby.hardware import camera
    from willughby.hardware.camera import CameraError, FrameSource

    class Camera(FrameSource):
        """A camera that gives *frames* frames, then is unplugged."""

        live = True
        name = "camera 0"

        def __init__(self, frames: int) -> None:
            super().__init__()
            self.left = frames

        def _read(self):
            if self.left <= 0:
                raise CameraError("camera 0 stopped giving frames: unplugged")
            self.left -= 1
            return np.zeros((48, 64, 3), np.uint8)

        def _close(self) -> None:
            pass

    opened, tries = [], []
    plugged_in = threading.Event()

    def open_source(text, **_):
        tries.append(text)
        if opened and not plugged_in.is_set():
            raise CameraError("cannot open camera 0: no such camera")
        opened.append(Camera(5 if not opened else 10 ** 9))
        return opened[-1]

    monkeypatch.setattr(camera, "open_source", open_source)
    rt = build(CompanionConfig(data_dir=tmp_path, camera="camera:0", speech="off"))
    try:
        watcher, c = rt.parts["watcher"], rt.companion
        watcher.lost_after_s, watcher.retry_s = 0.3, (0.1, 0.2)
        assert until(lambda: str(c.state()["devices"]["camera"]).startswith("lost: "))
        assert c.state()["devices"]["camera"] == "lost: camera 0 stopped giving frames: unplugged"
        assert ("the camera is lost (camera 0 stopped giving frames: unplugged): enter the board on the page "
                "until it is back") in said(c)
        # the game goes on without it: the roll for start, then the board entered on the page
        c.enter_dice([3, 1], who="page")
        assert c.state()["phase"] == "move"
        board = c.state()["board"]
        light = list(board["light"])
        light[7] -= 1
        light[5] -= 1
        light[4] += 2                                     # 8/5 6/5
        c.submit_board({**board, "light": light}, who="page")
        assert c.state()["rulings"][-1]["verdict"] == "legal"
        assert until(lambda: len(tries) >= 3)                # opened again now and then, not there yet
        assert len(opened) == 1 and watcher.reopened == 0 and c.state()["devices"]["camera"].startswith("lost")
        plugged_in.set()                                  # plugged in again: opened again, and shown
        assert until(lambda: c.state()["devices"]["camera"] == "ok")
        assert "the camera is back" in said(c) and len(opened) == 2 and opened[0].closed
    finally:
        rt.close()
    assert opened[-1].closed
    assert "Traceback" not in capfd.readouterr().err


def test_the_dice_box_unplugged_while_serving_is_shown_and_back_when_plugged_in(tmp_path):
    from willughby.companion.config import CompanionConfig
    from willughby.companion.runtime import build
    from willughby.firmware_bridge.fake import FakeBox

    with FakeBox(seed=1) as box:
        rt = build(CompanionConfig(data_dir=tmp_path, dice="box", box_port=box.port, speech="off"))
        try:
            c = rt.companion
            assert until(lambda: c.state()["devices"]["dice"] == "box connected")
            box.vanish()
            assert until(lambda: c.state()["devices"]["dice"] == "box lost: reconnecting")
            assert ("the dice box is lost (its cable?): reconnecting; enter the dice on the page meanwhile"
                    in said(c))
            c.enter_dice([3, 1], who="page")                # the game goes on with the page's dice
            assert c.state()["phase"] == "move"
            box.reappear()
            assert until(lambda: c.state()["devices"]["dice"] == "box connected")
            assert "the dice box is back" in said(c)
        finally:
            rt.close()


def test_a_folder_of_stills_played_to_its_end_says_it_ended_not_ok_nor_lost(tmp_path):
    import cv2
    import numpy as np

    from willughby.companion.watch import CameraWatcher
    from willughby.hardware.camera import FolderSource

    for i in range(2):
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), np.full((40, 60, 3), 40 * i, np.uint8))
    told: list[str] = []
    w = CameraWatcher(FolderSource(tmp_path), lambda *a: None, fps=50, on_status=told.append,
                      lost_after_s=0.05).start()
    try:
        deadline = time.monotonic() + 10
        while not told and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)                                  # longer than the camera takes to be lost
    finally:
        w.close()
    assert told == [f"ended: folder {tmp_path} has shown all its frames"]     # once, and never "lost"
    assert w.status.startswith("ended") and w.lost is None
