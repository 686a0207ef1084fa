"""``willughby doctor``: each thing a configuration needs of the machine checked, in one line each, and the
exit status says whether anything needed is missing (companion/doctor.py)."""

from __future__ import annotations

import subprocess

import cv2
import numpy as np

from willughby.companion import doctor, speech
from willughby.companion.cli import main
from willughby.companion.config import CompanionConfig


def _lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_the_defaults_need_nothing_this_machine_lacks(tmp_path, capsys):
    cfg = tmp_path / "w.toml"
    cfg.write_text(f"[companion]\ndata_dir = '{tmp_path / 'data'}'\n[speech]\nenabled = 'off'\n")
    assert main(["doctor", "--config", str(cfg)]) == 0
    lines = _lines(capsys)
    assert lines[-1] == "nothing the configuration needs is missing"
    assert any(line.startswith("ok") and "the point reader is installed" in line for line in lines)


def test_what_a_configuration_needs_and_lacks_is_named_each_in_a_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(speech, "espeak_available", lambda: None)
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    cfg = tmp_path / "w.toml"
    cfg.write_text(f"[companion]\ndata_dir = '{blocked / 'data'}'\n[camera]\nsource = 'folder:{tmp_path / 'none'}'\n"
                   f"[speech]\nenabled = 'on'\n[dice]\nsource = 'box'\nbox_port = '{tmp_path / 'ttyACM9'}'\n")
    assert main(["doctor", "--config", str(cfg)]) == 1
    lines = _lines(capsys)
    assert lines[-1] == "missing: data, camera, box, speech"
    by_name = {line.split()[1]: line for line in lines[:-1]}
    assert "no such folder" in by_name["camera"] and by_name["camera"].startswith("MISSING")
    assert "does not exist (is the box plugged in?)" in by_name["box"]
    assert "apt-get install espeak-ng" in by_name["speech"]
    assert "is not a folder" in by_name["data"]


def test_a_folder_camera_gives_a_frame(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((30, 40, 3), np.uint8))
    check = doctor._camera(CompanionConfig(data_dir=tmp_path, camera=f"folder:{tmp_path}"))
    assert check.ok and "a frame of 40x30" in check.line


def test_the_doctor_says_what_the_camera_took_of_its_settings(tmp_path, monkeypatch):
    """A USB camera whose driver reports its automatic exposure: the lock is taken before the line is written."""
    class Capture:
        def __init__(self, target):
            self.props = {cv2.CAP_PROP_AUTO_EXPOSURE: 3.0, cv2.CAP_PROP_EXPOSURE: 250.0, cv2.CAP_PROP_GAIN: -1.0}

        def isOpened(self):
            return True

        def set(self, prop, value):
            if prop not in self.props:
                return False              # no frame-rate control, no white balance
            self.props[prop] = float(round(value))
            return True

        def get(self, prop):
            return self.props.get(prop, -1.0)

        def read(self):
            return True, np.zeros((30, 40, 3), np.uint8)

        def release(self):
            pass

    monkeypatch.setattr(cv2, "VideoCapture", Capture)
    check = doctor._camera(CompanionConfig(data_dir=tmp_path, camera="camera:0", camera_fps=30,
                                           camera_exposure="lock"))
    assert check.ok
    assert check.line.endswith("camera 'camera:0': a frame of 40x30; fps not applied: the camera's driver refuses "
                               "30 frames a second (CAP_PROP_FPS); exposure locked at 25000 µs; "
                               "white balance automatic")


def test_picamera2_clashing_with_numpy_2_is_told_with_the_pin_to_apply():
    def clash(*args, **kwargs):
        return subprocess.CompletedProcess(args, 1, "", "Traceback ...\nValueError: numpy.dtype size changed, may "
                                           "indicate binary incompatibility. Expected 96 from C header, got 88")

    pi = doctor._imports(CompanionConfig(camera="picamera:0"), run=clash)[-1]
    assert pi.name == "picamera2" and not pi.ok and pi.needed
    assert doctor.PICAMERA_CLASH_FIX in pi.line and "size changed" in pi.line
    usb = doctor._imports(CompanionConfig(camera="camera:0"), run=clash)[-1]
    assert not usb.ok and not usb.needed                       # a USB camera does not need picamera2

    def fine(*args, **kwargs):
        return subprocess.CompletedProcess(args, 0, "1.24.2\n", "")

    assert doctor._imports(CompanionConfig(camera="picamera:0"), run=fine)[-1].ok


def test_the_pins_without_a_pin_library_are_missing_with_what_to_install():
    check = doctor._pins(CompanionConfig(pins=True))
    assert not check.ok and "lgpio" in check.line
