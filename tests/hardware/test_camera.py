"""Camera sources (hardware/camera.py): the folder and video fakes, the lifecycle, open_source."""

from __future__ import annotations

import builtins
import logging

import cv2
import numpy as np
import pytest

from willughby.hardware.camera import (CameraAbsentError, CameraClosedError, CameraControls, CameraError,
                                      CameraFrameError, FolderSource, FrameSource, OpenCVCamera, PiCamera,
                                      VideoFileSource, as_bgr, open_source)
from willughby.hardware.errors import DeviceClosedError, HardwareError


def grey(value: int, w: int = 64, h: int = 48) -> np.ndarray:
    return np.full((h, w, 3), value, np.uint8)


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "frames"
    d.mkdir()
    # written out of order; read back sorted by name
    cv2.imwrite(str(d / "002.png"), grey(20))
    cv2.imwrite(str(d / "001.jpg"), grey(10))
    cv2.imwrite(str(d / "003.PNG"), grey(30))
    (d / "notes.txt").write_text("not an image")
    return d


@pytest.fixture
def video(tmp_path):
    path = tmp_path / "clip.avi"
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert w.isOpened()
    for v in (0, 60, 120, 180, 240):
        w.write(grey(v))
    w.release()
    return path


def levels(frames):
    return [int(round(f.mean())) for f in frames]


# --------------------------------------------------------------------- folder


def test_a_folder_gives_its_images_sorted_by_name_then_none(folder):
    with FolderSource(folder) as src:
        frames = [src.read(), src.read(), src.read()]
        assert src.read() is None
        assert src.read() is None
    assert [f.shape for f in frames] == [(48, 64, 3)] * 3
    assert levels(frames) == [10, 20, 30]


def test_a_folder_is_iterable(folder):
    with FolderSource(folder) as src:
        assert levels(src) == [10, 20, 30]


def test_a_looping_folder_starts_again(folder):
    with FolderSource(folder, loop=True) as src:
        assert levels(src.read() for _ in range(7)) == [10, 20, 30, 10, 20, 30, 10]


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_folder_with_a_frame_rate_shows_each_still_for_its_time(folder):
    """camera.fps paces a folder: at 2 a second each still stands half a second, however often it is read."""
    clock = _Clock()
    with FolderSource(folder, controls=CameraControls(fps=2), clock=clock) as src:
        seen = []
        for _ in range(3):
            seen.append(levels([src.read(), src.read(), src.read()]))
            clock.now += 0.5
        assert src.read() is None            # played once: the end comes once the last still has stood its time
    assert seen == [[10, 10, 10], [20, 20, 20], [30, 30, 30]]
    assert FolderSource(folder, controls=CameraControls(fps=2)).applied_controls()["fps"] == "each still stands 0.5 s"


def test_a_folder_holding_its_last_still_keeps_giving_it(folder):
    with FolderSource(folder, hold_last=True) as src:
        assert levels(src.read() for _ in range(6)) == [10, 20, 30, 30, 30, 30]


def test_a_folder_without_a_frame_rate_or_hold_still_ends_at_its_last_still(folder):
    """What ``willughby watch`` relies on: the stills one by one, then the end."""
    with FolderSource(folder) as src:
        assert levels(src) == [10, 20, 30]
        assert src.read() is None


def test_open_source_passes_hold_last_to_a_folder(folder):
    with open_source(f"folder:{folder}", hold_last=True) as src:
        assert levels(src.read() for _ in range(4)) == [10, 20, 30, 30]


def test_an_unreadable_image_is_skipped_and_counted(folder, caplog):
    (folder / "0015.png").write_bytes(b"\x89PNG but not really")
    (folder / "0025.jpg").write_bytes(b"")
    with caplog.at_level(logging.WARNING), FolderSource(folder) as src:
        assert levels(src) == [10, 20, 30]
        assert src.skipped == 2
    assert "skipped 0015.png" in caplog.text and "skipped 0025.jpg" in caplog.text


def test_a_looping_folder_warns_once_per_bad_file(folder, caplog):
    (folder / "0015.png").write_bytes(b"junk")
    with caplog.at_level(logging.WARNING), FolderSource(folder, loop=True) as src:
        assert levels(src.read() for _ in range(6)) == [10, 20, 30, 10, 20, 30]
        assert src.skipped == 1
    assert caplog.text.count("skipped 0015.png") == 1


def test_a_folder_of_nothing_but_bad_images_ends_even_when_looping(tmp_path):
    (tmp_path / "a.png").write_bytes(b"junk")
    with FolderSource(tmp_path, loop=True) as src:
        assert src.read() is None
        assert src.skipped == 1


def test_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(CameraError, match="no such folder: .*nowhere"):
        FolderSource(tmp_path / "nowhere")


def test_a_folder_without_images_is_a_clear_error(tmp_path):
    (tmp_path / "readme.txt").write_text("hello")
    with pytest.raises(CameraError, match="holds no images"):
        FolderSource(tmp_path)


def test_a_file_is_not_a_folder(folder):
    with pytest.raises(CameraError, match="is not a folder"):
        FolderSource(folder / "001.jpg")


# --------------------------------------------------------------------- video


def test_a_video_gives_its_frames_then_none(video):
    with VideoFileSource(video) as src:
        got = levels(src)
        assert src.read() is None
    assert len(got) == 5
    assert got == pytest.approx([0, 60, 120, 180, 240], abs=3)  # MJPG is lossy


def test_a_looping_video_starts_again(video):
    with VideoFileSource(video, loop=True) as src:
        assert len([src.read() for _ in range(12)]) == 12
        assert src.read() is not None


def test_a_missing_video_is_a_clear_error(tmp_path):
    with pytest.raises(CameraError, match="no such video file"):
        VideoFileSource(tmp_path / "none.mp4")


def test_a_file_that_is_not_a_video_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"this is not a video")
    with pytest.raises(CameraError, match="cannot open video"):
        VideoFileSource(bad)


# --------------------------------------------------------------------- lifecycle


@pytest.mark.parametrize("make", ["folder", "video"])
def test_close_twice_is_harmless_and_use_after_close_raises(make, folder, video):
    src = FolderSource(folder) if make == "folder" else VideoFileSource(video)
    assert not src.closed
    src.read()
    src.close()
    src.close()
    assert src.closed
    with pytest.raises(CameraClosedError, match="closed"):
        src.read()
    with pytest.raises(CameraClosedError):
        iter(src).__next__()
    with pytest.raises(CameraClosedError):
        with src:
            pass


def test_the_context_manager_closes_even_on_error(folder):
    with pytest.raises(ZeroDivisionError):
        with FolderSource(folder) as src:
            1 / 0
    assert src.closed


def test_use_after_close_is_a_hardware_device_closed_error_and_a_runtime_error(folder):
    src = FolderSource(folder)
    src.close()
    for kind in (RuntimeError, DeviceClosedError, HardwareError, ValueError):
        with pytest.raises(kind):
            src.read()


def test_a_source_is_a_small_interface_to_implement():
    class Counter(FrameSource):
        name = "counter"

        def __init__(self):
            super().__init__()
            self.n = 0
            self.released = 0

        def _read(self):
            self.n += 1
            return grey(self.n) if self.n <= 2 else None

        def _close(self):
            self.released += 1

    with Counter() as c:
        assert levels(c) == [1, 2]
    c.close()
    assert c.released == 1
    assert repr(c) == "<Counter counter (closed)>"


# --------------------------------------------------------------------- cameras


def test_a_camera_that_is_not_there_is_a_clear_error():
    with pytest.raises(CameraError, match="cannot open camera /dev/no-such-camera"):
        OpenCVCamera("/dev/no-such-camera")


def test_a_camera_that_is_not_there_may_be_there_later_unlike_a_wrong_source():
    """A camera that cannot be opened is absent (a USB camera not found yet at boot: another try may find
    it); a source string or a file that is wrong stays wrong, and is not."""
    with pytest.raises(CameraAbsentError):
        open_source("camera:/dev/no-such-camera")
    for wrong in ("nonsense:0", "folder:/nonexistent", "picamera:x"):
        with pytest.raises(CameraError) as info:
            open_source(wrong)
        assert not isinstance(info.value, CameraAbsentError), wrong


@pytest.mark.parametrize("size", [(0, 480), (-1, 480), (640.5, 480), (True, 480)])
def test_a_camera_size_must_be_positive_whole_numbers(size):
    with pytest.raises(CameraError, match="width"):
        OpenCVCamera(0, width=size[0], height=size[1])


def test_picamera_without_picamera2_names_the_missing_module(monkeypatch):
    real_import = builtins.__import__

    def no_picamera2(name, *args, **kwargs):
        if name == "picamera2" or name.startswith("picamera2."):
            raise ImportError("No module named 'picamera2'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_picamera2)
    with pytest.raises(CameraError, match="'picamera2' is not installed") as info:
        PiCamera()
    assert not isinstance(info.value, CameraAbsentError)         # installing it is for a person, not a retry


@pytest.mark.parametrize("fails_at", ["open", "start"])
def test_a_pi_camera_that_picamera2_cannot_open_or_start_is_absent(monkeypatch, fails_at):
    import sys
    import types

    class NoCamera:                   # picamera2 with no camera found (yet), or one it cannot start
        def __init__(self, num):
            if fails_at == "open":
                raise IndexError("list index out of range")

        def create_video_configuration(self, main):
            return {"main": main}

        def configure(self, cfg):
            pass

        def start(self):
            raise RuntimeError("Camera frontend has timed out!")

        def close(self):
            pass

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=NoCamera))
    with pytest.raises(CameraAbsentError, match=f"cannot {fails_at} picamera 0"):
        PiCamera()


def test_picamera_uses_picamera2_when_it_is_there(monkeypatch):
    """A stand-in picamera2 module: configured for BGR frames, stopped and closed on close."""
    import sys
    import types

    calls = []

    class FakePicamera2:
        def __init__(self, num):
            calls.append(("open", num))

        def create_video_configuration(self, main):
            return {"main": main}

        def configure(self, cfg):
            calls.append(("configure", cfg["main"]))

        def start(self):
            calls.append("start")

        def capture_array(self, stream):
            return grey(77, 32, 24)

        def stop(self):
            calls.append("stop")

        def close(self):
            calls.append("close")

    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    with open_source("picamera:1", width=640, height=480) as cam:
        assert isinstance(cam, PiCamera)
        assert cam.read().shape == (24, 32, 3)
    assert calls == [("open", 1), ("configure", {"format": "RGB888", "size": (640, 480)}), "start",
                     "stop", "close"]


# --------------------------------------------------------------------- open_source


def test_open_source_by_scheme_or_path(folder, video):
    for text, kind in [(f"folder:{folder}", FolderSource), (str(folder), FolderSource),
                       (f"video:{video}", VideoFileSource), (str(video), VideoFileSource)]:
        with open_source(text) as src:
            assert isinstance(src, kind), text
            assert src.read() is not None


def test_open_source_passes_loop_to_the_fakes(folder):
    with open_source(folder, loop=True) as src:
        assert len([src.read() for _ in range(5)]) == 5


def test_open_source_camera_scheme_opens_an_opencv_camera(monkeypatch):
    opened = []

    class Fake(OpenCVCamera):
        def __init__(self, target, width=None, height=None, controls=None):
            opened.append((target, width, height, controls))

    held = CameraControls(exposure="lock")
    monkeypatch.setattr("willughby.hardware.camera.OpenCVCamera", Fake)
    open_source("camera:0")
    open_source("camera:/dev/video2", width=1280, height=960, controls=held)
    open_source("camera:")
    assert opened == [("0", None, None, None), ("/dev/video2", 1280, 960, held), (0, None, None, None)]


@pytest.mark.parametrize("text, message", [
    ("webcam:0", "unknown frame source 'webcam:0'"),
    ("folder:", "needs a path"),
    ("picamera:front", "camera number"),
    ("", "a frame source"),
])
def test_open_source_refuses_bad_strings(text, message):
    with pytest.raises(CameraError, match=message):
        open_source(text)


def test_open_source_refuses_missing_and_odd_paths(tmp_path, folder):
    with pytest.raises(CameraError, match="no such folder or video file"):
        open_source(tmp_path / "gone")
    with pytest.raises(CameraError, match="single image"):
        open_source(folder / "001.jpg")
    with pytest.raises(CameraError, match="neither a folder nor a video"):
        open_source(folder / "notes.txt")


# --------------------------------------------------------------------- frames


def test_as_bgr_takes_grey_and_bgra_and_refuses_the_rest():
    assert as_bgr(np.zeros((4, 5), np.uint8)).shape == (4, 5, 3)
    assert as_bgr(np.zeros((4, 5, 4), np.uint8)).shape == (4, 5, 3)
    with pytest.raises(CameraFrameError, match="uint8"):
        as_bgr(np.zeros((4, 5, 3), np.float32))
    with pytest.raises(CameraFrameError, match="numpy image"):
        as_bgr([[0, 0]])
    with pytest.raises(CameraFrameError, match="shape"):
        as_bgr(np.zeros((4, 5, 2), np.uint8))
