"""The camera's frame rate, exposure and white balance (hardware/camera_controls.py): what each backend
is asked, what a lock holds, and a source that cannot take a setting saying so without raising."""

from __future__ import annotations

import logging
import sys
import types

import cv2
import numpy as np
import pytest

from willughby.hardware import camera_controls
from willughby.hardware.camera import CameraError, PiCamera, open_source
from willughby.hardware.camera_controls import CameraControlError, CameraControls
from willughby.hardware.errors import HardwareError


@pytest.fixture(autouse=True)
def nothing_told_yet(monkeypatch):
    """Each test starts with a log that has said nothing (a setting not taken is told once per process)."""
    monkeypatch.setattr(camera_controls, "_told", set())


def grey(w: int = 32, h: int = 24) -> np.ndarray:
    return np.full((h, w, 3), 90, np.uint8)


def read(source, n: int) -> None:
    for _ in range(n):
        assert source.read() is not None


# --------------------------------------------------------------------- the request


@pytest.mark.parametrize("kwargs, words", [
    ({"fps": 500}, "fps must be 0 .* or frames a second from 1 to 120, not 500"),
    ({"fps": True}, "fps must be"),
    ({"exposure": "bright"}, "exposure must be auto, lock or an exposure time in microseconds"),
    ({"exposure": 0}, "exposure must be"),
    ({"exposure": 1.5}, "exposure must be"),
    ({"white_balance": "daylight"}, "white_balance must be auto, lock or a colour temperature in kelvin"),
    ({"white_balance": 200}, "white_balance must be"),
    ({"settle_frames": -1}, "settle_frames must be"),
])
def test_a_setting_that_cannot_stand_names_itself_and_what_it_may_be(kwargs, words):
    with pytest.raises(CameraControlError, match=words) as info:
        CameraControls(**kwargs)
    assert isinstance(info.value, (HardwareError, ValueError))


def test_the_default_asks_nothing():
    assert not CameraControls().asks_anything
    assert CameraControls(exposure="lock").asks_anything


# --------------------------------------------------------------------- picamera2


class FakePicamera2:
    """A stand-in for picamera2's camera: it records the controls it is sent, and its metadata says
    what its automatic exposure and white balance chose."""

    instances: list["FakePicamera2"] = []

    def __init__(self, num, controls=None, refuse=()):
        self.sent: list[dict] = []
        self.metadata = {"ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6),
                         "ColourTemperature": 4100}
        self.camera_controls = {name: (0, 1, 0) for name in controls or (
            "AeEnable", "AwbEnable", "ExposureTime", "AnalogueGain", "ColourGains", "FrameDurationLimits")}
        self.refuse = set(refuse)
        self.metadata_reads = 0
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main):
        return {"main": main}

    def configure(self, cfg):
        pass

    def start(self):
        pass

    def set_controls(self, controls):
        if self.refuse & set(controls):
            raise RuntimeError(f"control {sorted(self.refuse & set(controls))[0]} not advertised by camera")
        self.sent.append(dict(controls))

    def capture_metadata(self):
        self.metadata_reads += 1
        return dict(self.metadata)

    def capture_array(self, stream):
        return grey()

    def stop(self):
        pass

    def close(self):
        pass


@pytest.fixture
def picamera2(monkeypatch):
    """A fake picamera2 module; ``picamera2.options`` are handed to each camera it makes."""
    FakePicamera2.instances = []
    module = types.SimpleNamespace(options={})
    module.Picamera2 = lambda num: FakePicamera2(num, **module.options)
    monkeypatch.setitem(sys.modules, "picamera2", module)
    return module


def pi_camera(controls: CameraControls) -> tuple[PiCamera, FakePicamera2]:
    cam = open_source("picamera:0", controls=controls)
    assert isinstance(cam, PiCamera)
    return cam, FakePicamera2.instances[-1]


def test_a_pi_camera_asked_nothing_is_sent_no_control(picamera2):
    cam, fake = pi_camera(CameraControls())
    read(cam, 40)
    assert fake.sent == [] and fake.metadata_reads == 0
    assert cam.applied_controls() == {"fps": "the camera's own", "exposure": "automatic",
                                      "white_balance": "automatic"}


def test_a_pi_camera_locks_what_it_metered_once_it_has_settled(picamera2):
    cam, fake = pi_camera(CameraControls(exposure="lock", white_balance="lock", settle_frames=3))
    assert fake.sent == [{"AeEnable": True}, {"AwbEnable": True}]      # metering first
    assert cam.controls_settling and cam.applied_controls()["exposure"] == "metering: locks after 3 frames"
    read(cam, 2)
    assert len(fake.sent) == 2 and fake.metadata_reads == 0
    read(cam, 1)                                                      # the third frame: it holds what it found
    assert fake.sent[2] == {"AeEnable": False, "ExposureTime": 12345, "AnalogueGain": 2.5,
                            "AwbEnable": False, "ColourGains": (1.9, 1.6)}
    assert not cam.controls_settling
    applied = cam.applied_controls()
    assert applied["exposure"] == "locked at 12345 µs, gain 2.50"
    assert applied["white_balance"] == "locked at colour gains red 1.90, blue 1.60 (about 4100 K)"
    read(cam, 10)
    assert len(fake.sent) == 3                                        # held: nothing more is sent
    cam.close()


def test_a_pi_camera_with_libcameras_newer_modes_sets_them_to_manual_when_it_locks(picamera2):
    picamera2.options = {"controls": ("AeEnable", "AwbEnable", "ExposureTime", "AnalogueGain", "ColourGains",
                                      "ExposureTimeMode", "AnalogueGainMode")}
    cam, fake = pi_camera(CameraControls(exposure="lock", settle_frames=1))
    assert fake.sent[0] == {"AeEnable": True, "ExposureTimeMode": 0, "AnalogueGainMode": 0}
    read(cam, 1)
    assert fake.sent[-1] == {"AeEnable": False, "ExposureTimeMode": 1, "AnalogueGainMode": 1,
                             "ExposureTime": 12345, "AnalogueGain": 2.5}


def test_a_pi_camera_asked_a_frame_rate_gets_equal_frame_duration_limits(picamera2):
    cam, fake = pi_camera(CameraControls(fps=25))
    assert fake.sent == [{"FrameDurationLimits": (40000, 40000)}]
    assert cam.applied_controls()["fps"] == "25 frames a second (a frame every 40000 µs)"


def test_a_pi_cameras_fixed_exposure_keeps_its_time_and_holds_the_metered_gain(picamera2):
    cam, fake = pi_camera(CameraControls(exposure=8000, settle_frames=2))
    assert fake.sent == [{"AeEnable": True, "ExposureTime": 8000}]
    read(cam, 2)
    assert fake.sent[-1] == {"AeEnable": False, "ExposureTime": 8000, "AnalogueGain": 2.5}
    assert cam.applied_controls()["exposure"] == "fixed at 8000 µs, gain 2.50"


def test_a_fixed_colour_temperature_is_set_where_libcamera_takes_one(picamera2):
    picamera2.options = {"controls": ("AwbEnable", "ColourGains", "ColourTemperature")}
    cam, fake = pi_camera(CameraControls(white_balance=5000))
    assert fake.sent == [{"AwbEnable": False, "ColourTemperature": 5000}]
    assert cam.applied_controls()["white_balance"] == "fixed at 5000 K"


def test_a_fixed_colour_temperature_a_camera_cannot_take_is_told_once_and_changes_nothing(picamera2, caplog):
    caplog.set_level(logging.WARNING, "willughby.hardware.camera")
    for _ in range(2):                                   # opened twice (a camera taken up again): told once
        cam, fake = pi_camera(CameraControls(white_balance=5000))
        read(cam, 3)
        assert fake.sent == []
        note = cam.applied_controls()["white_balance"]
        assert note.startswith("not applied: ") and "takes no colour temperature" in note
        cam.close()
    told = [r.getMessage() for r in caplog.records if "white_balance" in r.getMessage()]
    assert len(told) == 1 and "picamera 0: camera.white_balance not applied" in told[0]


def test_a_pi_camera_that_refuses_a_control_goes_on_without_it(picamera2):
    picamera2.options = {"refuse": {"FrameDurationLimits"}}
    cam, fake = pi_camera(CameraControls(fps=90, exposure="lock", settle_frames=1))
    assert cam.applied_controls()["fps"].startswith("not applied: the camera refuses FrameDurationLimits")
    read(cam, 1)
    assert cam.applied_controls()["exposure"] == "locked at 12345 µs, gain 2.50"


def test_lock_exposure_meters_again_and_holds_what_the_camera_finds_then(picamera2):
    """Called once the board is calibrated: the camera meters the scene as it now is, then holds it."""
    cam, fake = pi_camera(CameraControls(exposure="lock", white_balance="lock", settle_frames=2))
    read(cam, 2)
    fake.metadata.update(ExposureTime=20000, AnalogueGain=1.25, ColourGains=(2.0, 1.5))
    sent = len(fake.sent)
    notes = cam.lock_exposure()
    assert len(fake.sent) == sent                          # nothing is sent from the caller's thread
    assert cam.controls_settling and notes["exposure"].startswith("locked at 12345")
    read(cam, 1)
    assert fake.sent[sent:] == [{"AeEnable": True}, {"AwbEnable": True}]
    read(cam, 2)
    assert fake.sent[-1] == {"AeEnable": False, "ExposureTime": 20000, "AnalogueGain": 1.25,
                             "AwbEnable": False, "ColourGains": (2.0, 1.5)}
    assert cam.applied_controls()["exposure"] == "locked at 20000 µs, gain 1.25"


def test_lock_exposure_leaves_a_setting_the_owner_wants_automatic_alone(picamera2):
    cam, fake = pi_camera(CameraControls(exposure="auto", white_balance="lock", settle_frames=1))
    read(cam, 1)
    cam.lock_exposure()
    read(cam, 2)
    assert all("AeEnable" not in sent for sent in fake.sent)
    assert cam.applied_controls()["exposure"] == "automatic"


# --------------------------------------------------------------------- OpenCV (a USB camera)


class FakeV4L2Capture:
    """What ``cv2.VideoCapture`` gives for a USB camera through OpenCV's V4L2 backend: properties that
    round to whole numbers, an exposure-mode menu of 1 (manual) and 3 (automatic), and a driver that
    reports what its automatic exposure and white balance chose. ``ignores``: properties it says yes to
    and keeps unchanged; ``lacks``: properties it has not; ``scaled``: OpenCV told to scale to 0..1."""

    made: list["FakeV4L2Capture"] = []
    ignores: set[int] = set()
    lacks: set[int] = set()
    scaled = False

    def __init__(self, target):
        self.props = {cv2.CAP_PROP_FPS: 30.0, cv2.CAP_PROP_AUTO_EXPOSURE: 3.0, cv2.CAP_PROP_EXPOSURE: 156.0,
                      cv2.CAP_PROP_GAIN: 40.0, cv2.CAP_PROP_AUTO_WB: 1.0, cv2.CAP_PROP_WB_TEMPERATURE: 4600.0}
        if self.scaled:
            self.props[cv2.CAP_PROP_AUTO_EXPOSURE] = 0.75
        self.sets: list[tuple[int, float]] = []
        FakeV4L2Capture.made.append(self)

    def isOpened(self):
        return True

    def set(self, prop, value):
        self.sets.append((prop, value))
        if prop in self.lacks:
            return False
        if prop == cv2.CAP_PROP_AUTO_EXPOSURE:
            menu = round(value * 4) if self.scaled else round(value)
            if menu not in (1, 3):
                return False
            self.props[prop] = value if self.scaled else float(menu)
            return True
        if prop not in self.ignores:
            self.props[prop] = float(round(value))
        return True

    def get(self, prop):
        return -1.0 if prop in self.lacks else self.props.get(prop, -1.0)

    def read(self):
        return True, grey()

    def release(self):
        pass


@pytest.fixture
def usb(monkeypatch):
    FakeV4L2Capture.made = []
    monkeypatch.setattr(FakeV4L2Capture, "ignores", set())
    monkeypatch.setattr(FakeV4L2Capture, "lacks", set())
    monkeypatch.setattr(FakeV4L2Capture, "scaled", False)
    monkeypatch.setattr(cv2, "VideoCapture", FakeV4L2Capture)
    return FakeV4L2Capture


def test_a_usb_camera_asked_nothing_has_no_property_set(usb):
    with open_source("camera:0") as cam:
        read(cam, 40)
    assert usb.made[0].sets == []


def test_a_usb_camera_locks_the_exposure_and_white_balance_its_driver_reports(usb):
    cam = open_source("camera:0", controls=CameraControls(fps=15, exposure="lock", white_balance="lock",
                                                          settle_frames=2))
    capture = usb.made[0]
    assert capture.sets == [(cv2.CAP_PROP_FPS, 15.0), (cv2.CAP_PROP_AUTO_EXPOSURE, 3.0), (cv2.CAP_PROP_AUTO_WB, 1.0)]
    read(cam, 2)
    assert capture.sets[3:] == [(cv2.CAP_PROP_AUTO_EXPOSURE, 1.0), (cv2.CAP_PROP_EXPOSURE, 156.0),
                                (cv2.CAP_PROP_GAIN, 40.0), (cv2.CAP_PROP_AUTO_WB, 0.0),
                                (cv2.CAP_PROP_WB_TEMPERATURE, 4600.0)]
    assert cam.applied_controls() == {"fps": "15 frames a second", "exposure": "locked at 15600 µs, gain 40",
                                      "white_balance": "locked at 4600 K"}
    held = len(capture.sets)
    cam.close()                       # a USB camera keeps its controls: it is given its automatic ones back
    assert capture.sets[held:] == [(cv2.CAP_PROP_AUTO_EXPOSURE, 3.0), (cv2.CAP_PROP_AUTO_WB, 1.0)]


def test_a_usb_cameras_fixed_exposure_is_in_hundreds_of_microseconds_and_its_kelvin_as_given(usb):
    cam = open_source("camera:0", controls=CameraControls(exposure=10000, white_balance=5000))
    assert usb.made[0].sets == [(cv2.CAP_PROP_AUTO_EXPOSURE, 1.0), (cv2.CAP_PROP_EXPOSURE, 100.0),
                                (cv2.CAP_PROP_AUTO_WB, 0.0), (cv2.CAP_PROP_WB_TEMPERATURE, 5000.0)]
    assert cam.applied_controls()["exposure"] == "fixed at 10000 µs"
    assert cam.applied_controls()["white_balance"] == "fixed at 5000 K"
    assert not cam.controls_settling


def test_where_opencv_scales_ranges_the_exposure_mode_is_a_quarter_and_no_time_can_be_given(usb):
    usb.scaled = True
    cam = open_source("camera:0", controls=CameraControls(exposure=10000))
    assert (cv2.CAP_PROP_AUTO_EXPOSURE, 0.25) in usb.made[0].sets
    note = cam.applied_controls()["exposure"]
    assert note.startswith("not applied: ") and "use lock" in note
    assert usb.made[0].props[cv2.CAP_PROP_AUTO_EXPOSURE] == 0.75          # left automatic, as it was


def test_a_driver_that_ignores_the_exposure_asked_is_left_automatic_as_it_was(usb):
    usb.ignores = {cv2.CAP_PROP_EXPOSURE}
    cam = open_source("camera:0", controls=CameraControls(exposure=10000))
    assert cam.applied_controls()["exposure"] == ("not applied: the camera's driver ignores an exposure of 10000 µs "
                                                  "(CAP_PROP_EXPOSURE) (asked 100, it reads 156)")
    assert usb.made[0].props[cv2.CAP_PROP_AUTO_EXPOSURE] == 3.0


def test_a_driver_that_keeps_its_own_frame_rate_is_told_not_raised(usb, caplog):
    usb.ignores = {cv2.CAP_PROP_FPS}
    with open_source("camera:0", controls=CameraControls(fps=60)) as cam:
        read(cam, 2)
        assert cam.applied_controls()["fps"] == ("not applied: the camera's driver ignores 60 frames a second "
                                                 "(CAP_PROP_FPS) (asked 60, it reads 30)")
    assert any("camera.fps not applied" in r.getMessage() for r in caplog.records)


def test_a_camera_without_white_balance_controls_keeps_its_own_and_still_locks_its_exposure(usb):
    usb.lacks = {cv2.CAP_PROP_AUTO_WB, cv2.CAP_PROP_WB_TEMPERATURE}
    cam = open_source("camera:0", controls=CameraControls(exposure="lock", white_balance="lock", settle_frames=1))
    read(cam, 1)
    applied = cam.applied_controls()
    assert applied["white_balance"] == ("not applied: the camera's driver refuses automatic white balance "
                                        "(CAP_PROP_AUTO_WB)")
    assert applied["exposure"] == "locked at 15600 µs, gain 40"


# --------------------------------------------------------------------- sources that are not cameras


@pytest.fixture
def stills(tmp_path):
    for name in ("a.png", "b.png"):
        cv2.imwrite(str(tmp_path / name), grey())
    return tmp_path


def test_a_folder_asked_to_lock_says_it_is_not_a_camera_and_plays_on(stills, caplog):
    caplog.set_level(logging.WARNING, "willughby.hardware.camera")
    with open_source(stills, controls=CameraControls(exposure="lock")) as src:
        applied = src.applied_controls()
        assert applied["exposure"] == f"not applied: folder {stills} is not a camera"
        assert applied["fps"] == applied["white_balance"] == "not applicable"
        assert src.lock_exposure()["exposure"].startswith("not applied")     # nothing raised
        assert not src.controls_settling
        assert len(list(src)) == 2
    told = [r.getMessage() for r in caplog.records]
    assert told == [f"folder {stills}: camera.exposure not applied: folder {stills} is not a camera",
                    f"folder {stills}: camera.exposure not applied: folder {stills} is not a camera: nothing to lock"]


def test_a_video_asked_a_frame_rate_says_it_is_not_a_camera(tmp_path, caplog):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (32, 24))
    writer.write(grey())
    writer.release()
    with open_source(f"video:{path}", controls=CameraControls(fps=30, white_balance="lock")) as src:
        assert src.read() is not None
        applied = src.applied_controls()
    assert applied["fps"].startswith("not applied") and applied["white_balance"].startswith("not applied")
    assert applied["exposure"] == "not applicable"
    assert sum("not applied" in r.getMessage() for r in caplog.records) == 2


def test_a_closed_source_refuses_lock_exposure(stills):
    src = open_source(stills)
    src.close()
    with pytest.raises(CameraError, match="closed"):
        src.lock_exposure()
