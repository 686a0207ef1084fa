"""Where frames come from: a small interface, real cameras, and fakes that ship
in the package (docs/house-conventions.md, conventions 7 and 9).  The camera is one of the
Pi's devices, so it lives here; ``willughby.vision`` reads the frames and
never imports this module (the companion hands frames from here to it).

Every source is a :class:`FrameSource`: ``read()`` gives the next frame as a
numpy BGR image (``uint8``, height x width x 3) or ``None`` at the end;
``close()`` releases the device (twice is harmless); it is a context manager
and an iterator of frames; a source used after ``close()`` raises
:class:`CameraClosedError`.  A source that cannot be opened raises
:class:`CameraError`, a frame that is not an image :class:`CameraFrameError`;
a camera that is not there (or not yet: a USB camera found late at boot) the
kind of it :class:`CameraAbsentError`, which another try may mend; all are :class:`~willughby.hardware.errors.HardwareError` and
``ValueError`` (the closed one also ``RuntimeError``).

Backends:

- :class:`OpenCVCamera` -- a USB/V4L2 camera (or anything ``cv2.VideoCapture``
  opens) by index or device path;
- :class:`PiCamera` -- the Raspberry Pi camera through ``picamera2``, used only
  where that module is installed (it comes from the Pi's own packages);
- :class:`FolderSource` -- the images of a folder (jpg/png), sorted by name;
  a fake for tests and demos;
- :class:`VideoFileSource` -- the frames of a video file; also a fake.

The two cameras take a :class:`~willughby.hardware.camera_controls.CameraControls`
(``controls=``): the frame rate, and an exposure and white balance that are
automatic, locked after the camera settles, or fixed. A source reports what it
made of each in :meth:`FrameSource.applied_controls`, and
:meth:`FrameSource.lock_exposure` meters the scene again and holds it (after
the board is calibrated, say). A folder or a video file takes none of them and
says so, once, in the log; nothing raises for a setting a camera does not take.

:func:`open_source` picks one from a string, as a configuration file gives it::

    camera:0            OpenCVCamera(0)
    camera:/dev/video2  OpenCVCamera("/dev/video2")
    picamera:           PiCamera(0)        picamera:1 -> PiCamera(1)
    folder:/path        FolderSource("/path")      (or just a directory)
    video:/path.mp4     VideoFileSource(...)       (or just a video file)

>>> import tempfile, cv2, numpy as np, os
>>> d = tempfile.mkdtemp()
>>> _ = cv2.imwrite(os.path.join(d, "a.png"), np.zeros((4, 6, 3), np.uint8))
>>> with open_source(d) as src:
...     [f.shape for f in src]
[(4, 6, 3)]
"""

from __future__ import annotations

import logging
import os
import time
from abc import ABC, abstractmethod
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Iterator

import numpy as np

from .camera_controls import CameraControls, ControlKeeper, OpenCVControls, PiControls, tell_once
from .errors import DeviceClosedError, HardwareError

__all__ = [
    "CameraError",
    "CameraAbsentError",
    "CameraClosedError",
    "CameraFrameError",
    "as_bgr",
    "FrameSource",
    "OpenCVCamera",
    "PiCamera",
    "FolderSource",
    "VideoFileSource",
    "open_source",
    "CameraControls",
    "IMAGE_SUFFIXES",
    "VIDEO_SUFFIXES",
]

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mkv", ".mov", ".m4v", ".webm", ".mjpeg", ".mjpg", ".h264"})


class CameraError(HardwareError, ValueError):
    """A frame source that cannot be opened: a missing folder or file, a
    camera that does not answer, a missing module (``picamera2``), an unknown
    source string (names it)."""


class CameraAbsentError(CameraError):
    """A camera that cannot be opened or started: not plugged in, not found yet
    (a USB camera can take seconds to appear after boot), or busy. Unlike a
    wrong source string or a missing module, another try may find it."""


class CameraClosedError(DeviceClosedError, CameraError):
    """A frame source was used after :meth:`FrameSource.close` (misuse of the
    API, so also a :class:`RuntimeError`)."""


class CameraFrameError(CameraError):
    """A frame that is not an image (wrong type, shape or depth)."""


def as_bgr(frame: Any, what: str = "frame") -> np.ndarray:
    """Check a frame and return it as a uint8 BGR image (a grey image gets
    three channels, BGRA loses its alpha).  Anything else is a
    :class:`CameraFrameError`.  (``willughby.vision.sources.as_bgr`` is the
    same check for the reader's stages, raising vision's own ``FrameError``.)"""
    import cv2

    if not isinstance(frame, np.ndarray):
        raise CameraFrameError(f"{what} must be a numpy image, not {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise CameraFrameError(f"{what} must be 8-bit (uint8), not {frame.dtype}")
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    elif frame.ndim == 3 and frame.shape[2] == 4:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    elif frame.ndim == 3 and frame.shape[2] == 1:
        frame = cv2.cvtColor(frame[:, :, 0], cv2.COLOR_GRAY2BGR)
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.shape[0] < 1 or frame.shape[1] < 1:
        raise CameraFrameError(f"{what} must be height x width x 3 (BGR), not shape {frame.shape}")
    bgr: np.ndarray = frame
    return bgr


class FrameSource(ABC):
    """A stream of camera frames.

    Subclasses implement :meth:`_read` and :meth:`_close`; this class gives
    them the lifecycle (``closed``, close twice harmless, use after close
    raises), the context manager and iteration.
    """

    name: str = "source"
    #: a device that may go away and come back (a camera unplugged): worth opening again;
    #: a folder or a file is not
    live: bool = False
    #: the frame rate, exposure and white balance asked of it (every one the camera's own by default)
    controls: CameraControls = CameraControls()
    _keeper: ControlKeeper | None = None

    def __init__(self) -> None:
        self._closed = False

    # --- the interface
    def read(self) -> np.ndarray | None:
        """The next frame (BGR, uint8, H x W x 3), or ``None`` at the end."""
        self._check_open()
        frame = self._read()
        if frame is not None and self._keeper is not None:
            self._keeper.frame_read()       # a lock waiting for the camera to settle counts its frames here
        return frame

    def applied_controls(self) -> dict[str, str]:
        """What this source made of each setting asked of it (``fps``, ``exposure``,
        ``white_balance``), in words to show: what the camera took, ``metering: ...`` while a
        lock waits for the camera to settle, or ``not applied: ...`` and why."""
        if self._keeper is not None:
            return self._keeper.notes()
        return {setting: f"not applied: {self.name} is not a camera" if words not in ("the camera's own", "automatic")
                else "not applicable" for setting, words in self.controls.asked().items()}

    def lock_exposure(self) -> dict[str, str]:
        """Meter the scene again and hold what the camera finds, for each setting configured
        ``"lock"`` (a setting left ``"auto"`` stays automatic, a fixed one stays fixed); for
        instance once the board is calibrated, with nothing over it. The frames read next carry it
        out (no device call is made from the calling thread). A source that is not a camera says so
        in the log, once, and changes nothing. Returns :meth:`applied_controls`."""
        self._check_open()
        if self._keeper is not None:
            self._keeper.relock()
        else:
            tell_once(self.name, "exposure", f"not applied: {self.name} is not a camera: nothing to lock")
        return self.applied_controls()

    @property
    def controls_settling(self) -> bool:
        """Whether a lock is still waiting for the camera to settle (frames still to be read)."""
        return self._keeper is not None and self._keeper.pending

    def _take_controls(self, controls: CameraControls | None, adapter: Any = None) -> None:
        """Keep the settings asked, and carry them out through *adapter* (None: not a camera)."""
        self.controls = controls if controls is not None else CameraControls()
        if adapter is None:
            for setting, note in self.applied_controls().items():
                if note.startswith("not applied"):
                    tell_once(self.name, setting, note)
            return
        self._keeper = ControlKeeper(adapter, self.controls, self.name)
        self._keeper.start()

    def close(self) -> None:
        """Release the device or file.  Closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        self._close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._closed

    # --- lifecycle sugar
    def __enter__(self) -> "FrameSource":
        self._check_open()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __iter__(self) -> Iterator[np.ndarray]:
        """Frames until the end (a live camera has none)."""
        self._check_open()
        while True:
            frame = self.read()
            if frame is None:
                return
            yield frame

    def __del__(self) -> None:  # a forgotten source still lets go of its device
        try:
            if not getattr(self, "_closed", True):
                self.close()
        except Exception:  # noqa: BLE001 -- nothing may escape a finaliser
            pass

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<{type(self).__name__} {self.name} ({state})>"

    # --- for subclasses
    def _check_open(self) -> None:
        if self._closed:
            raise CameraClosedError(f"{self.name} is closed")

    @abstractmethod
    def _read(self) -> np.ndarray | None: ...

    @abstractmethod
    def _close(self) -> None: ...


@contextmanager
def _opencv_quiet() -> Iterator[None]:
    """OpenCV's own warnings off (trying each backend on a camera that is not
    there writes a line of its own to standard error for each)."""
    import cv2

    logging_ = getattr(getattr(cv2, "utils", None), "logging", None)
    if logging_ is None:
        yield
        return
    before = logging_.getLogLevel()
    logging_.setLogLevel(logging_.LOG_LEVEL_ERROR)
    try:
        yield
    finally:
        logging_.setLogLevel(before)


class _CaptureSource(FrameSource):
    """A source over ``cv2.VideoCapture``."""

    def __init__(self, target: int | str, name: str) -> None:
        import cv2

        super().__init__()
        self.name = name
        self._cap = None
        with _opencv_quiet():       # a camera that is not there is our one-line error, not OpenCV's warnings
            cap = cv2.VideoCapture(target)
        if not cap.isOpened():
            cap.release()
            self._closed = True
            raise self._open_error(self._open_failure())
        self._cap = cap

    def _open_failure(self) -> str:
        return f"cannot open {self.name}"

    #: what a capture that does not open raises: a file stays unreadable; a camera may be there later
    _open_error: type[CameraError] = CameraError

    def _grab(self) -> np.ndarray | None:
        import cv2

        assert self._cap is not None
        try:
            ok, frame = self._cap.read()
        except cv2.error as exc:
            raise CameraError(f"{self.name} stopped giving frames: {exc}") from None
        if not ok or frame is None:
            return None
        return as_bgr(frame, self.name)

    def _read(self) -> np.ndarray | None:
        return self._grab()

    def _close(self) -> None:
        if self._cap is not None:
            try:
                if self._keeper is not None:
                    self._keeper.close()     # a USB camera keeps held controls after it is closed
            finally:
                self._cap.release()
                self._cap = None


class OpenCVCamera(_CaptureSource):
    """A camera opened by ``cv2.VideoCapture``: an index (``0``) or a device
    path (``"/dev/video2"``), optionally asking for a frame size.

    ``read()`` returns ``None`` when the camera stops giving frames (it was
    unplugged, say); a caller that wants to carry on opens it again.
    ``controls`` asks a frame rate, exposure and white balance
    (:class:`~willughby.hardware.camera_controls.OpenCVControls` says how).
    """

    live = True

    def __init__(self, index_or_path: int | str = 0, width: int | None = None,
                 height: int | None = None, controls: CameraControls | None = None) -> None:
        import cv2

        target: int | str = index_or_path
        if isinstance(target, str) and target.strip().isdigit():
            target = int(target)
        if isinstance(target, bool) or not isinstance(target, (int, str)):
            raise CameraError(f"a camera is an index or a device path, not {index_or_path!r}")
        _check_size(width, height)
        super().__init__(target, f"camera {target}")
        assert self._cap is not None
        if width is not None:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, float(width))
        if height is not None:
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, float(height))
        self._take_controls(controls, OpenCVControls(self._cap))     # after the size: a new size restarts the stream

    _open_error = CameraAbsentError

    def _open_failure(self) -> str:
        return (f"cannot open {self.name}: no such camera, or it is busy "
                f"(is another program using it? is the user in the 'video' group?)")


class VideoFileSource(_CaptureSource):
    """The frames of a video file, one by one; ``loop=True`` starts again at
    the end instead of returning ``None`` (for demos)."""

    def __init__(self, path: str | os.PathLike[str], loop: bool = False,
                 controls: CameraControls | None = None) -> None:
        p = Path(path)
        if not p.exists():
            raise CameraError(f"no such video file: {p}")
        if p.is_dir():
            raise CameraError(f"{p} is a folder, not a video file (use FolderSource or folder:{p})")
        self.path = p
        self.loop = loop
        super().__init__(str(p), f"video {p}")
        self._take_controls(controls)        # a file: it says what it cannot take

    def _open_failure(self) -> str:
        return f"cannot open {self.name}: not a video OpenCV can read"

    def _read(self) -> np.ndarray | None:
        frame = self._grab()
        if frame is None and self.loop:
            import cv2

            assert self._cap is not None
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            frame = self._grab()
        return frame


class FolderSource(FrameSource):
    """The images (``.jpg``, ``.jpeg``, ``.png``) of a folder, sorted by name:
    a stand-in camera for tests and demos.

    A file that cannot be read as an image is skipped with a logged warning
    and counted in :attr:`skipped`; it never stops the stream.  With
    ``loop=True`` the folder plays again from the start at the end (and
    ``read()`` returns ``None`` only when no file in it can be read; iterating
    over a looping folder does not end).  With ``hold_last=True`` (and no
    loop) the last still stands: ``read()`` gives it again and again instead
    of ``None``, as a camera goes on showing a board nobody touches.

    Its pace: without ``controls.fps`` every ``read()`` gives the next still
    (as fast as the reader reads: ``willughby watch`` one still per turn, the
    service's camera loop about 10 a second); with ``controls.fps`` F, each
    still stands for 1/F seconds (every ``read()`` meanwhile gives it again),
    so ``fps = 1`` shows each for a second.  *clock* (seconds, monotonic)
    is for tests.

    Raises :class:`CameraError` for a missing folder or one with no images.
    """

    def __init__(self, path: str | os.PathLike[str], loop: bool = False,
                 controls: CameraControls | None = None, *, hold_last: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        p = Path(path)
        self.name = f"folder {p}"
        self.path = p
        self.loop = loop
        self.hold_last = hold_last
        self._clock = clock
        self._shown: np.ndarray | None = None      # the still shown last, and since when
        self._shown_at = 0.0
        if not p.exists():
            self._closed = True
            raise CameraError(f"no such folder: {p}")
        if not p.is_dir():
            self._closed = True
            raise CameraError(f"{p} is not a folder")
        self.files: list[Path] = sorted((f for f in p.iterdir()
                                         if f.suffix.lower() in IMAGE_SUFFIXES and f.is_file()),
                                        key=lambda f: f.name)
        if not self.files:
            self._closed = True
            raise CameraError(f"folder {p} holds no images (.jpg, .jpeg, .png)")
        self._next = 0
        self._bad: set[Path] = set()
        self._take_controls(controls)        # stills: it says what it cannot take

    @property
    def skipped(self) -> int:
        """How many files were skipped because they could not be read."""
        return len(self._bad)

    def _load(self, f: Path) -> np.ndarray | None:
        import cv2

        try:
            data = np.fromfile(str(f), dtype=np.uint8)
        except OSError as exc:
            reason = exc.strerror or str(exc)
        else:
            image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
            if image is not None:
                return as_bgr(image, str(f))
            reason = "not an image OpenCV can decode"
        self._bad.add(f)
        log.warning("%s: skipped %s (%s); %d file(s) skipped so far", self.name, f.name, reason,
                    len(self._bad))
        return None

    def applied_controls(self) -> dict[str, str]:
        """As :meth:`FrameSource.applied_controls`; a frame rate paces the stills (see the class)."""
        notes = super().applied_controls()
        if self.controls.fps:
            notes["fps"] = f"each still stands {1.0 / self.controls.fps:g} s"
        return notes

    def _read(self) -> np.ndarray | None:
        fps = self.controls.fps
        if fps and self._shown is not None and self._clock() - self._shown_at < 1.0 / fps:
            return self._shown.copy()
        image = self._next_still()
        if image is None:
            return self._shown.copy() if self.hold_last and self._shown is not None else None
        self._shown, self._shown_at = image, self._clock()
        return image.copy() if fps or self.hold_last else image

    def _next_still(self) -> np.ndarray | None:
        while len(self._bad) < len(self.files):
            if self._next >= len(self.files):
                if not self.loop:
                    return None
                self._next = 0
            f = self.files[self._next]
            self._next += 1
            if f not in self._bad:
                image = self._load(f)
                if image is not None:
                    return image
        return None  # every file is unreadable

    def _close(self) -> None:
        self.files = []
        self._shown = None


class PiCamera(FrameSource):
    """The Raspberry Pi camera through ``picamera2`` (from the Pi's own
    packages: ``sudo apt install python3-picamera2``).

    Raises :class:`CameraError` naming the missing module where ``picamera2``
    is not installed, and :class:`CameraAbsentError` where the camera cannot
    be opened or started. ``controls``
    asks a frame rate, exposure and white balance
    (:class:`~willughby.hardware.camera_controls.PiControls` says how).
    """

    live = True

    def __init__(self, camera_num: int = 0, width: int | None = None,
                 height: int | None = None, controls: CameraControls | None = None) -> None:
        super().__init__()
        self.name = f"picamera {camera_num}"
        self._cam: Any = None
        _check_size(width, height)
        try:
            from picamera2 import Picamera2
        except ImportError:
            self._closed = True
            raise CameraError("picamera: the module 'picamera2' is not installed "
                              "(on Raspberry Pi OS: sudo apt install python3-picamera2, with the venv made by "
                              "python3 -m venv --system-site-packages)") from None
        main: dict[str, Any] = {"format": "RGB888"}  # RGB888 is laid out B, G, R: OpenCV's order
        if width is not None and height is not None:
            main["size"] = (int(width), int(height))
        try:
            cam = Picamera2(camera_num)
        except (RuntimeError, IndexError, OSError) as exc:
            self._closed = True
            raise CameraAbsentError(f"cannot open {self.name}: {exc}") from None
        try:
            cam.configure(cam.create_video_configuration(main=main))
            cam.start()
        except (RuntimeError, OSError, ValueError) as exc:
            cam.close()
            self._closed = True
            raise CameraAbsentError(f"cannot start {self.name}: {exc}") from None
        self._cam = cam
        self._take_controls(controls, PiControls(cam))

    def _read(self) -> np.ndarray | None:
        try:
            frame = self._cam.capture_array("main")
        except (RuntimeError, OSError) as exc:    # the camera went away under picamera2
            raise CameraError(f"{self.name} stopped giving frames: {exc}") from None
        if frame is None:
            return None
        return as_bgr(np.ascontiguousarray(frame), self.name)

    def _close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()
            finally:
                cam.close()


def _check_size(width: int | None, height: int | None) -> None:
    for label, v in (("width", width), ("height", height)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v <= 0):
            raise CameraError(f"camera {label} must be a positive whole number, not {v!r}")


_SCHEMES = ("camera", "picamera", "folder", "video")


def open_source(url_or_path: str | os.PathLike[str], *, width: int | None = None,
                height: int | None = None, loop: bool = False, hold_last: bool = False,
                controls: CameraControls | None = None) -> FrameSource:
    """Open the frame source a string names (see the module's docstring).

    ``width``/``height`` and ``controls`` go to the cameras, ``loop`` to the
    folder and video fakes (which say in the log that they take no
    ``controls``, but the frame rate that paces a folder's stills), and
    ``hold_last`` to a folder (its last still stands: :class:`FolderSource`).
    An unknown scheme, a missing path or a file that is
    neither a folder nor a video raises :class:`CameraError`.
    """
    text = os.fspath(url_or_path)
    if not isinstance(text, str) or not text.strip():
        raise CameraError(f"a frame source is a string like 'camera:0' or a path, not {url_or_path!r}")
    text = text.strip()
    scheme, sep, rest = text.partition(":")
    if sep and scheme.lower() in _SCHEMES:
        scheme = scheme.lower()
        rest = rest[2:] if rest.startswith("//") else rest
        if scheme == "camera":
            return OpenCVCamera(rest or 0, width=width, height=height, controls=controls)
        if scheme == "picamera":
            if rest and not rest.isdigit():
                raise CameraError(f"picamera: takes a camera number (picamera:0), not {text!r}")
            return PiCamera(int(rest or 0), width=width, height=height, controls=controls)
        if not rest:
            raise CameraError(f"{scheme}: needs a path, as in {scheme}:/some/where")
        if scheme == "folder":
            return FolderSource(rest, loop=loop, controls=controls, hold_last=hold_last)
        return VideoFileSource(rest, loop=loop, controls=controls)
    if sep and len(scheme) > 1 and scheme.isalpha() and not Path(text).exists():
        raise CameraError(f"unknown frame source {text!r}: use camera:N, picamera:, folder:PATH, "
                          f"video:PATH, a folder or a video file")
    p = Path(text)
    if p.is_dir():
        return FolderSource(p, loop=loop, controls=controls, hold_last=hold_last)
    if not p.exists():
        raise CameraError(f"no such folder or video file: {p}")
    if p.suffix.lower() in VIDEO_SUFFIXES:
        return VideoFileSource(p, loop=loop, controls=controls)
    if p.suffix.lower() in IMAGE_SUFFIXES:
        raise CameraError(f"{p} is a single image: put it in a folder and use folder:PATH")
    raise CameraError(f"{p} is neither a folder nor a video file ({', '.join(sorted(VIDEO_SUFFIXES))})")
