"""What the Pi owner asks of a camera beyond its picture size: the frame rate,
the exposure and the white balance (``[camera]`` ``fps``, ``exposure`` and
``white_balance`` in the configuration).

Why it matters: the referee reads *change*. A camera left to meter the scene
by itself re-exposes when an arm passes over the board or a cloud crosses the
window, and then every point's picture changes at once, men or no men.
``"lock"`` lets the camera find its exposure and white balance by itself for
a moment after it opens (:attr:`CameraControls.settle_frames` frames, about a
second), then holds what it chose, so that only the men change the picture.

:class:`CameraControls` is the request, a frozen value checked as it is made;
:class:`ControlKeeper` carries it out on one open camera, through a small
adapter per backend (:class:`PiControls` for picamera2, :class:`OpenCVControls`
for ``cv2.VideoCapture``), and keeps a plain-English note per setting of what
the camera took (:meth:`ControlKeeper.notes`). A camera that cannot take a
setting (a driver that refuses it, or reads back another value) is told once
in the log and in its note, and goes on as it was: it never raises for that.

>>> CameraControls(fps=30, exposure="lock", white_balance=4500)
CameraControls(fps=30, exposure='lock', white_balance=4500, settle_frames=30)
>>> CameraControls(exposure="bright")
Traceback (most recent call last):
...
willughby.hardware.camera_controls.CameraControlError: exposure must be auto, lock or ..., not 'bright'
"""

from __future__ import annotations

import logging
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Protocol

from .errors import HardwareError

__all__ = [
    "CameraControls",
    "CameraControlError",
    "ControlNotTaken",
    "ControlKeeper",
    "CameraAdapter",
    "tell_once",
    "OpenCVControls",
    "PiControls",
    "fps_problem",
    "exposure_problem",
    "white_balance_problem",
    "MAX_FPS",
    "EXPOSURE_US",
    "WHITE_BALANCE_K",
]

log = logging.getLogger("willughby.hardware.camera")

MAX_FPS = 120
#: the fixed exposure times that may be asked, in microseconds (a millionth of a second)
EXPOSURE_US = (1, 1_000_000)
#: the fixed colour temperatures that may be asked, in kelvin
WHITE_BALANCE_K = (1500, 15000)
NOT_APPLIED = "not applied: "


class CameraControlError(HardwareError, ValueError):
    """A camera setting that cannot stand (the message names it and what it may be)."""


class ControlNotTaken(Exception):
    """Raised by an adapter when the camera does not take a setting; the message says why.
    :class:`ControlKeeper` turns it into a note and a line in the log, never an error."""


def fps_problem(value: object) -> str | None:
    """What is wrong with *value* as a frame rate to ask, or None.

    >>> fps_problem(30) is None, fps_problem(0) is None, fps_problem(7.5) is None
    (True, True, True)
    >>> fps_problem(-1)
    "must be 0 (the camera's own) or frames a second from 1 to 120, not -1"
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value == 0 or 1 <= value <= MAX_FPS):
        return f"must be 0 (the camera's own) or frames a second from 1 to {MAX_FPS}, not {value!r}"
    return None


def exposure_problem(value: object) -> str | None:
    """What is wrong with *value* as an exposure setting, or None: ``"auto"``,
    ``"lock"`` or a whole number of microseconds.

    >>> exposure_problem("lock") is None, exposure_problem(10000) is None
    (True, True)
    >>> exposure_problem(0.01)
    'must be auto, lock or an exposure time in microseconds from 1 to 1000000, not 0.01'
    """
    low, high = EXPOSURE_US
    if value in ("auto", "lock") and isinstance(value, str):
        return None
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return None
    return f"must be auto, lock or an exposure time in microseconds from {low} to {high}, not {value!r}"


def white_balance_problem(value: object) -> str | None:
    """What is wrong with *value* as a white balance setting, or None:
    ``"auto"``, ``"lock"`` or a colour temperature in kelvin.

    >>> white_balance_problem("auto") is None, white_balance_problem(5000) is None
    (True, True)
    >>> white_balance_problem("daylight")
    "must be auto, lock or a colour temperature in kelvin from 1500 to 15000, not 'daylight'"
    """
    low, high = WHITE_BALANCE_K
    if value in ("auto", "lock") and isinstance(value, str):
        return None
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return None
    return f"must be auto, lock or a colour temperature in kelvin from {low} to {high}, not {value!r}"


@dataclass(frozen=True)
class CameraControls:
    """The frame rate, exposure and white balance asked of a camera.

    - ``fps``: frames a second (0: the camera's own);
    - ``exposure``: ``"auto"`` (the camera meters all the time), ``"lock"``
      (meters for ``settle_frames`` frames, then holds its exposure time and
      gain), or a fixed exposure time in microseconds (the gain is then
      metered for ``settle_frames`` frames and held, where the camera meters
      gain apart from time);
    - ``white_balance``: ``"auto"``, ``"lock"`` (likewise held after
      ``settle_frames`` frames) or a fixed colour temperature in kelvin;
    - ``settle_frames``: how many frames a lock waits for (30: about a second
      at 30 frames a second).

    The default asks nothing: every camera as it comes.
    """

    fps: float = 0
    exposure: str | int = "auto"
    white_balance: str | int = "auto"
    settle_frames: int = 30

    def __post_init__(self) -> None:
        for name, problem in (("fps", fps_problem(self.fps)), ("exposure", exposure_problem(self.exposure)),
                              ("white_balance", white_balance_problem(self.white_balance))):
            if problem:
                raise CameraControlError(f"{name} {problem}")
        frames = self.settle_frames
        if isinstance(frames, bool) or not isinstance(frames, int) or not 0 <= frames <= 1000:
            raise CameraControlError(f"settle_frames must be a whole number of frames from 0 to 1000, not {frames!r}")

    @property
    def asks_anything(self) -> bool:
        """Whether any setting differs from the camera's own."""
        return self != CameraControls(settle_frames=self.settle_frames)

    def asked(self) -> dict[str, str]:
        """What each setting asks, in words (for a source that cannot take them to say what it left)."""
        return {"fps": f"{self.fps:g} frames a second" if self.fps else "the camera's own",
                "exposure": _asked_words(self.exposure, "µs"),
                "white_balance": _asked_words(self.white_balance, "K")}


def _asked_words(value: str | int, unit: str) -> str:
    if value == "auto":
        return "automatic"
    if value == "lock":
        return "locked after the camera settles"
    return f"fixed at {value} {unit}"


class CameraAdapter(Protocol):
    """What :class:`ControlKeeper` needs of one backend. Each method changes
    the camera and returns a note in words, or raises :class:`ControlNotTaken`."""

    #: whether a fixed exposure time still leaves the gain to be metered and held
    fixed_exposure_meters_gain: bool

    def set_fps(self, fps: float) -> str: ...
    def auto_exposure(self) -> None: ...
    def fixed_exposure(self, microseconds: int) -> str: ...
    def auto_white_balance(self) -> None: ...
    def fixed_white_balance(self, kelvin: int) -> str: ...
    def hold(self, exposure: bool, exposure_us: int | None, white_balance: bool) -> dict[str, str]: ...
    def restore(self) -> None: ...


_told: set[tuple[str, str, str]] = set()
_told_lock = threading.Lock()


def tell_once(source: str, setting: str, note: str) -> None:
    """Log a setting *source* did not take, once per source, setting and reason for this process
    (a camera opened again after it was unplugged does not say it again)."""
    with _told_lock:
        if (source, setting, note) in _told:
            return
        _told.add((source, setting, note))
    log.warning("%s: camera.%s %s", source, setting, note)


class ControlKeeper:
    """Carries out a :class:`CameraControls` on one open camera through its
    adapter, and remembers what the camera took.

    :meth:`start` applies what can be applied at once and starts a lock where
    one is asked; the source calls :meth:`frame_read` after each frame it
    gives, and the lock is taken when enough frames have passed. Every device
    call happens in the thread that reads frames: :meth:`relock` from another
    thread only asks for a new lock.
    """

    def __init__(self, adapter: CameraAdapter, controls: CameraControls, source: str) -> None:
        self.adapter = adapter
        self.controls = controls
        self.source = source
        self._notes: dict[str, str] = {"fps": "the camera's own", "exposure": "automatic",
                                       "white_balance": "automatic"}
        self._guard = threading.Lock()
        self._wait = -1                     # frames still to be read before the hold; -1: none asked
        self._hold_exposure = False
        self._hold_white_balance = False
        self._relock_asked = False

    # --- what the camera took
    def notes(self) -> dict[str, str]:
        """Each setting's note: what the camera took, or why it did not."""
        with self._guard:
            return dict(self._notes)

    @property
    def pending(self) -> bool:
        """Whether a lock is waiting for the camera to settle."""
        with self._guard:
            return self._wait > 0 or self._relock_asked

    def _note(self, setting: str, note: str, taken: bool = True) -> None:
        with self._guard:
            self._notes[setting] = note if taken else f"{NOT_APPLIED}{note}"
        if not taken:
            tell_once(self.source, setting, f"{NOT_APPLIED}{note}")

    def _apply(self, setting: str, action: Any, *args: Any, note: str = "") -> bool:
        """Run one adapter call and note what came of it; a camera that does not take it leaves
        a note, never an error. Whether it was taken."""
        try:
            said = action(*args)
        except ControlNotTaken as exc:
            self._note(setting, str(exc), taken=False)
            return False
        self._note(setting, said if isinstance(said, str) else note)
        return True

    # --- carrying it out
    def start(self) -> None:
        """Apply the frame rate and any fixed value now; start a lock where one is asked."""
        c = self.controls
        if c.fps:
            self._apply("fps", self.adapter.set_fps, c.fps)
        self._begin(exposure=c.exposure != "auto", white_balance=c.white_balance != "auto")

    def _begin(self, exposure: bool, white_balance: bool) -> None:
        """Set each asked part going: a fixed value now, a lock metered from here."""
        c = self.controls
        metering = f"metering: locks after {c.settle_frames} frames"
        hold_exposure = hold_white_balance = False
        if exposure and c.exposure == "lock":
            hold_exposure = self._apply("exposure", self.adapter.auto_exposure, note=metering)
        elif exposure:
            hold_exposure = (self._apply("exposure", self.adapter.fixed_exposure, int(c.exposure))
                             and self.adapter.fixed_exposure_meters_gain)
        if white_balance and c.white_balance == "lock":
            hold_white_balance = self._apply("white_balance", self.adapter.auto_white_balance, note=metering)
        elif white_balance:
            self._apply("white_balance", self.adapter.fixed_white_balance, int(c.white_balance))
        with self._guard:
            self._hold_exposure, self._hold_white_balance = hold_exposure, hold_white_balance
            self._wait = c.settle_frames if (hold_exposure or hold_white_balance) else -1
            due = self._wait == 0
        if due:
            self._take_hold()

    def relock(self) -> None:
        """Ask for the scene to be metered again and held, for each part set to ``"lock"`` (and,
        on a camera that meters its gain apart from its time, the gain of a fixed exposure). A part
        set to ``"auto"`` stays automatic and a fixed colour temperature stays fixed: the owner's
        configuration wins. Carried out by the thread that reads frames, over the next frames."""
        with self._guard:
            self._relock_asked = True

    def frame_read(self) -> None:
        """One more frame has been read: begin an asked relock, or take a lock that is due."""
        with self._guard:
            relock, self._relock_asked = self._relock_asked, False
        if relock:
            c = self.controls
            self._begin(exposure=c.exposure == "lock" or (isinstance(c.exposure, int)
                                                          and self.adapter.fixed_exposure_meters_gain),
                        white_balance=c.white_balance == "lock")
            return
        with self._guard:
            if self._wait <= 0:
                return
            self._wait -= 1
            if self._wait > 0:
                return
        self._take_hold()

    def _take_hold(self) -> None:
        """The camera has settled: hold what it found."""
        with self._guard:
            self._wait = -1
            exposure, white_balance = self._hold_exposure, self._hold_white_balance
        fixed = self.controls.exposure if isinstance(self.controls.exposure, int) else None
        try:
            notes = self.adapter.hold(exposure, fixed, white_balance)
        except ControlNotTaken as exc:
            notes = {setting: f"{NOT_APPLIED}{exc}; the camera stays automatic"
                     for setting, wanted in (("exposure", exposure), ("white_balance", white_balance)) if wanted}
        for setting, note in notes.items():
            if note.startswith(NOT_APPLIED):
                self._note(setting, note.removeprefix(NOT_APPLIED), taken=False)
            else:
                self._note(setting, note)
                log.info("%s: camera.%s %s", self.source, setting, note)

    def close(self) -> None:
        """Give the camera back its automatic settings where they were switched off (a USB camera
        keeps its controls after it is closed; the next program to open it would find them held)."""
        try:
            self.adapter.restore()
        except ControlNotTaken as exc:
            log.debug("%s: could not give the camera back its automatic settings: %s", self.source, exc)


# --------------------------------------------------------------------- picamera2


class PiControls:
    """The settings through picamera2 (libcamera's controls): ``FrameDurationLimits`` for the frame
    rate; ``AeEnable``, ``ExposureTime`` and ``AnalogueGain`` for the exposure; ``AwbEnable``,
    ``ColourGains`` (and ``ColourTemperature`` where the camera takes one) for the white balance;
    the values held by a lock are read from ``capture_metadata()``."""

    fixed_exposure_meters_gain = True

    def __init__(self, camera: Any) -> None:
        self.camera = camera

    def _takes(self, control: str) -> bool:
        known = getattr(self.camera, "camera_controls", None)
        return not isinstance(known, dict) or control in known

    def _set(self, controls: dict[str, Any]) -> None:
        try:
            self.camera.set_controls(controls)
        except (RuntimeError, KeyError, ValueError, TypeError, OSError) as exc:
            raise ControlNotTaken(f"the camera refuses {', '.join(controls)} ({exc})") from None

    def _exposure_modes(self, time_manual: bool, gain_manual: bool) -> dict[str, Any]:
        """``AeEnable`` (off only when both the time and the gain are held), and libcamera's newer
        ``ExposureTimeMode`` and ``AnalogueGainMode`` (0 automatic, 1 manual) where this camera has them."""
        modes: dict[str, Any] = {"AeEnable": not (time_manual and gain_manual)}
        known = getattr(self.camera, "camera_controls", None)
        for mode, manual in (("ExposureTimeMode", time_manual), ("AnalogueGainMode", gain_manual)):
            if isinstance(known, dict) and mode in known:
                modes[mode] = 1 if manual else 0
        return modes

    def set_fps(self, fps: float) -> str:
        if not self._takes("FrameDurationLimits"):
            raise ControlNotTaken("this camera has no frame-rate control")
        frame_us = int(round(1_000_000 / fps))
        self._set({"FrameDurationLimits": (frame_us, frame_us)})
        return f"{fps:g} frames a second (a frame every {frame_us} µs)"

    def auto_exposure(self) -> None:
        if not self._takes("AeEnable"):
            raise ControlNotTaken("this camera has no automatic exposure to lock")
        self._set(self._exposure_modes(time_manual=False, gain_manual=False))

    def fixed_exposure(self, microseconds: int) -> str:
        if not self._takes("ExposureTime"):
            raise ControlNotTaken("this camera takes no exposure time")
        self._set({**self._exposure_modes(time_manual=True, gain_manual=False), "ExposureTime": microseconds})
        return f"fixed at {microseconds} µs; the gain locks after the camera settles"

    def auto_white_balance(self) -> None:
        if not self._takes("AwbEnable"):
            raise ControlNotTaken("this camera has no automatic white balance to lock")
        self._set({"AwbEnable": True})

    def fixed_white_balance(self, kelvin: int) -> str:
        if not self._takes("ColourTemperature"):
            raise ControlNotTaken("this camera's libcamera takes no colour temperature (use lock instead)")
        self._set({"AwbEnable": False, "ColourTemperature": kelvin})
        return f"fixed at {kelvin} K"

    def hold(self, exposure: bool, exposure_us: int | None, white_balance: bool) -> dict[str, str]:
        try:
            metadata = self.camera.capture_metadata()
        except (RuntimeError, OSError) as exc:
            raise ControlNotTaken(f"the camera gave no metadata to lock ({exc})") from None
        controls: dict[str, Any] = {}
        notes: dict[str, str] = {}
        if exposure:
            if "AnalogueGain" not in metadata or (exposure_us is None and "ExposureTime" not in metadata):
                notes["exposure"] = "not applied: the camera reports no exposure to lock"
            else:
                time_us = exposure_us if exposure_us is not None else int(metadata["ExposureTime"])
                gain = float(metadata["AnalogueGain"])
                controls.update(self._exposure_modes(time_manual=True, gain_manual=True))
                controls.update({"ExposureTime": time_us, "AnalogueGain": gain})
                held = "fixed" if exposure_us is not None else "locked"
                notes["exposure"] = f"{held} at {time_us} µs, gain {gain:.2f}"
        if white_balance:
            gains = metadata.get("ColourGains")
            if not gains or len(gains) != 2:
                notes["white_balance"] = "not applied: the camera reports no colour gains to lock"
            else:
                red, blue = float(gains[0]), float(gains[1])
                controls.update({"AwbEnable": False, "ColourGains": (red, blue)})
                kelvin = metadata.get("ColourTemperature")
                about = f" (about {int(kelvin)} K)" if kelvin else ""
                notes["white_balance"] = f"locked at colour gains red {red:.2f}, blue {blue:.2f}{about}"
        if controls:
            self._set(controls)
        return notes

    def restore(self) -> None:
        """Nothing: libcamera starts every camera afresh when it is opened."""


# --------------------------------------------------------------------- OpenCV


class OpenCVControls:
    """The settings through ``cv2.VideoCapture`` properties, as OpenCV's V4L2 backend (Linux, the Pi)
    gives them: ``CAP_PROP_FPS``; ``CAP_PROP_AUTO_EXPOSURE`` (V4L2's menu: 1 manual, 3 automatic; or
    0.25 and 0.75 where OpenCV is told to scale ranges to 0..1), ``CAP_PROP_EXPOSURE`` (V4L2's
    ``exposure_time_absolute``, in hundreds of microseconds) and ``CAP_PROP_GAIN``;
    ``CAP_PROP_AUTO_WB`` and ``CAP_PROP_WB_TEMPERATURE`` (kelvin). Every value set is read back: a
    driver that refuses it or keeps another value has not taken it."""

    fixed_exposure_meters_gain = False
    #: the V4L2 exposure modes as OpenCV takes them, first without scaling, then scaled to 0..1
    MANUAL = (1.0, 0.25)
    AUTOMATIC = (3.0, 0.75)

    def __init__(self, capture: Any) -> None:
        import cv2

        self.cap = capture
        self.cv2 = cv2
        self._scaled: bool | None = None     # which of the two conventions this OpenCV uses, once found
        self._switched_off: set[str] = set()

    def _read(self, prop: int) -> float:
        try:
            return float(self.cap.get(prop))
        except self.cv2.error:
            return -1.0

    def _set(self, prop: int, value: float, what: str, tolerance: float = 0.01) -> float:
        """Set a property and read it back; raise :class:`ControlNotTaken` where it did not hold."""
        try:
            ok = bool(self.cap.set(prop, float(value)))
        except self.cv2.error as exc:
            raise ControlNotTaken(f"the camera's driver refuses {what} ({exc})") from None
        if not ok:
            raise ControlNotTaken(f"the camera's driver refuses {what}")
        back = self._read(prop)
        if abs(back - value) > tolerance:
            raise ControlNotTaken(f"the camera's driver ignores {what} (asked {value:g}, it reads {back:g})")
        return back

    def _exposure_mode(self, manual: bool) -> None:
        choices = self.MANUAL if manual else self.AUTOMATIC
        order = [0, 1] if self._scaled is None else [int(self._scaled)]
        for i in order:
            try:
                self._set(self.cv2.CAP_PROP_AUTO_EXPOSURE, choices[i], "CAP_PROP_AUTO_EXPOSURE")
            except ControlNotTaken:
                continue
            self._scaled = bool(i)
            if manual:
                self._switched_off.add("exposure")
            else:
                self._switched_off.discard("exposure")
            return
        raise ControlNotTaken(f"the camera's driver does not switch its automatic exposure "
                              f"{'off' if manual else 'on'} (CAP_PROP_AUTO_EXPOSURE)")

    def set_fps(self, fps: float) -> str:
        taken = self._set(self.cv2.CAP_PROP_FPS, fps, f"{fps:g} frames a second (CAP_PROP_FPS)", tolerance=0.5)
        return f"{taken:g} frames a second"

    def auto_exposure(self) -> None:
        self._exposure_mode(manual=False)

    @contextmanager
    def _automatic_again_if_not_taken(self, part: str) -> Iterator[None]:
        """A value the camera did not take after its automatic mode was switched off: switch it on
        again, so that the camera goes on as it was."""
        try:
            yield
        except ControlNotTaken:
            try:
                if part == "exposure":
                    self._exposure_mode(manual=False)
                else:
                    self.auto_white_balance()
            except ControlNotTaken:
                pass                  # it did not take that either: the note already says what went wrong
            raise

    def fixed_exposure(self, microseconds: int) -> str:
        self._exposure_mode(manual=True)
        if self._scaled:
            self._exposure_mode(manual=False)
            raise ControlNotTaken("this OpenCV scales camera ranges to 0..1 (OPENCV_VIDEOIO_V4L_RANGE_NORMALIZED), "
                                  "so an exposure time cannot be given: use lock")
        units = max(1, round(microseconds / 100))
        with self._automatic_again_if_not_taken("exposure"):
            taken = self._set(self.cv2.CAP_PROP_EXPOSURE, units,
                              f"an exposure of {units * 100} µs (CAP_PROP_EXPOSURE)", tolerance=0.5)
        return f"fixed at {int(taken) * 100} µs"

    def auto_white_balance(self) -> None:
        self._set(self.cv2.CAP_PROP_AUTO_WB, 1, "automatic white balance (CAP_PROP_AUTO_WB)")
        self._switched_off.discard("white_balance")

    def fixed_white_balance(self, kelvin: int) -> str:
        self._set(self.cv2.CAP_PROP_AUTO_WB, 0, "white balance held (CAP_PROP_AUTO_WB)")
        self._switched_off.add("white_balance")
        with self._automatic_again_if_not_taken("white_balance"):
            taken = self._set(self.cv2.CAP_PROP_WB_TEMPERATURE, kelvin,
                              f"a colour temperature of {kelvin} K (CAP_PROP_WB_TEMPERATURE)", tolerance=100)
        return f"fixed at {taken:g} K"

    def hold(self, exposure: bool, exposure_us: int | None, white_balance: bool) -> dict[str, str]:
        cv2 = self.cv2
        notes: dict[str, str] = {}
        if exposure:
            time_units, gain = self._read(cv2.CAP_PROP_EXPOSURE), self._read(cv2.CAP_PROP_GAIN)
            try:
                if time_units <= 0:
                    raise ControlNotTaken("the camera's driver reports no exposure time to lock (CAP_PROP_EXPOSURE)")
                self._exposure_mode(manual=True)
                with self._automatic_again_if_not_taken("exposure"):
                    self._set(cv2.CAP_PROP_EXPOSURE, time_units, "the metered exposure (CAP_PROP_EXPOSURE)",
                              tolerance=0.5 if not self._scaled else 0.01)
                    said = f"{time_units:g}" if self._scaled else f"{int(round(time_units)) * 100} µs"
                    if gain >= 0:
                        self._set(cv2.CAP_PROP_GAIN, gain, "the metered gain (CAP_PROP_GAIN)", tolerance=0.5)
                        said += f", gain {gain:g}"
                notes["exposure"] = f"locked at {said}"
            except ControlNotTaken as exc:
                notes["exposure"] = f"not applied: {exc}"
        if white_balance:
            kelvin = self._read(cv2.CAP_PROP_WB_TEMPERATURE)
            try:
                if kelvin <= 0:
                    raise ControlNotTaken("the camera's driver reports no colour temperature to lock "
                                          "(CAP_PROP_WB_TEMPERATURE)")
                self._set(cv2.CAP_PROP_AUTO_WB, 0, "white balance held (CAP_PROP_AUTO_WB)")
                self._switched_off.add("white_balance")
                with self._automatic_again_if_not_taken("white_balance"):
                    self._set(cv2.CAP_PROP_WB_TEMPERATURE, kelvin, "the metered colour temperature", tolerance=100)
                notes["white_balance"] = f"locked at {kelvin:g} K"
            except ControlNotTaken as exc:
                notes["white_balance"] = f"not applied: {exc}"
        return notes

    def restore(self) -> None:
        problems = []
        if "exposure" in self._switched_off:
            try:
                self._exposure_mode(manual=False)
            except ControlNotTaken as exc:
                problems.append(str(exc))
        if "white_balance" in self._switched_off:
            try:
                self.auto_white_balance()
            except ControlNotTaken as exc:
                problems.append(str(exc))
        if problems:
            raise ControlNotTaken("; ".join(problems))
