"""``willughby doctor``: what a configuration needs of this machine, checked before the service starts.

On a Pi just set up, the service may fail for want of something the
configuration asks for: the camera, the pins, the dice box, espeak-ng, the
data directory's rights, or a clash between the Pi's own picamera2 (built
against the system's numpy 1) and the numpy 2 and OpenCV the virtual
environment holds. Each check says ``ok`` or what is missing and how to put it
right, in one line; nothing is changed. Exit status 0 when nothing the
configuration needs is missing, 1 otherwise (2: the configuration itself is
wrong, as for ``serve``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .config import CompanionConfig

__all__ = ["Check", "checks", "run_doctor", "PICAMERA_CLASH_FIX"]

#: what to do where the Pi's picamera2 cannot be imported beside the venv's numpy 2: its JPEG module
#: (simplejpeg, from Debian, built against numpy 1.24) does not load with numpy 2, whose ABI is not the
#: one it was built for; a simplejpeg wheel built against numpy 2, installed in the venv, is found first. The
#: Pi's lock holds one (numpy 1 is no way out: OpenCV 5 needs numpy 2)
PICAMERA_CLASH_FIX = ("install the Pi's lock in the venv, whose simplejpeg is built for numpy 2 and found before "
                      "the system's: .venv/bin/pip install --require-hashes -r requirements/pi.txt")


@dataclass(frozen=True)
class Check:
    """One thing checked: its name, whether it is as the configuration needs, and the line that says so."""

    name: str
    ok: bool
    line: str
    needed: bool = True          # False: worth knowing, but the configuration does not need it


def _python() -> Check:
    v = sys.version_info
    ok = v >= (3, 11)
    return Check("python", ok, f"Python {v.major}.{v.minor}.{v.micro} on {os.uname().machine}"
                 + ("" if ok else ": 3.11 or newer is needed"))


def _imports(config: CompanionConfig,
             run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run) -> list[Check]:
    """OpenCV and numpy, and picamera2 imported together with them in a fresh interpreter (a clash
    there is found at import, and must not take this process down); picamera2 is needed for a Pi camera."""
    out = []
    pi_camera = config.camera.startswith("picamera")
    try:
        import cv2
        import numpy

        out.append(Check("opencv", True, f"OpenCV {cv2.__version__}, numpy {numpy.__version__}"))
    except ImportError as exc:
        out.append(Check("opencv", False, f"OpenCV or numpy cannot be imported ({exc}): reinstall the venv"))
        return out
    code = "import numpy, cv2\nimport picamera2\nprint(numpy.__version__)"
    try:
        done = run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        out.append(Check("picamera2", False, f"picamera2 could not be tried: {exc}", needed=pi_camera))
        return out
    err = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
    if done.returncode == 0:
        out.append(Check("picamera2", True, "picamera2 imports beside OpenCV and numpy", needed=pi_camera))
    elif "No module named 'picamera2'" in err:
        out.append(Check("picamera2", False, "picamera2 is not installed (a Pi camera needs it: apt-get install "
                         "python3-picamera2, and a venv made with --system-site-packages)", needed=pi_camera))
    elif "size changed" in err or "binary incompatib" in err or "compiled using NumPy 1" in err:
        out.append(Check("picamera2", False, f"picamera2 does not load beside numpy {numpy.__version__} ({err}): "
                         + PICAMERA_CLASH_FIX, needed=pi_camera))
    else:
        out.append(Check("picamera2", False, f"picamera2 does not import: {err or done.returncode}",
                         needed=pi_camera))
    return out


def _camera(config: CompanionConfig) -> Check:
    if config.camera == "none":
        return Check("camera", True, "camera: none configured (the board is entered on the page)")
    from willughby.hardware.camera import CameraError, open_source

    try:
        source = open_source(config.camera, width=config.camera_width or None,
                             height=config.camera_height or None, controls=config.camera_controls)
    except CameraError as exc:
        return Check("camera", False, f"camera {config.camera!r}: {exc}")
    try:
        frame = source.read()
        for _ in range(source.controls.settle_frames + 2):   # a lock asked: let it be taken, to say what it held
            if frame is None or not source.controls_settling:
                break
            frame = source.read()
        applied = source.applied_controls()
    except CameraError as exc:
        return Check("camera", False, f"camera {config.camera!r} opens but gives no frame: {exc}")
    finally:
        source.close()
    if frame is None:
        return Check("camera", False, f"camera {config.camera!r} opens but gives no frame")
    h, w = frame.shape[:2]
    said = ""
    if source.controls.asks_anything:
        said = "; " + "; ".join(f"{name.replace('_', ' ')} {note}" for name, note in applied.items())
    return Check("camera", True, f"camera {config.camera!r}: a frame of {w}x{h}{said}")


def _pins(config: CompanionConfig) -> Check:
    needed = config.pins or config.dice == "pi"
    if not needed:
        return Check("pins", True, "the Pi's pins: not configured")
    from willughby.hardware.config import PinConfig
    from willughby.hardware.errors import PinUnavailableError
    from willughby.hardware.pins import PiPanel

    try:
        PiPanel(PinConfig.from_mapping(config.pin_numbers)).close()
    except PinUnavailableError as exc:
        return Check("pins", False, f"the Pi's pins: {exc}")
    return Check("pins", True, "the Pi's pins: the buttons and lights could be claimed")


def _box(config: CompanionConfig) -> Check:
    if config.dice != "box":
        return Check("box", True, f"dice: {config.dice} (no dice box configured)")
    if config.box_port != "auto":
        port = Path(config.box_port)
        if not port.exists():
            return Check("box", False, f"the dice box's port {port} does not exist (is the box plugged in?)")
        if not os.access(port, os.R_OK | os.W_OK):
            return Check("box", False, f"the dice box's port {port} cannot be opened by this user (the dialout "
                         "group: usermod -aG dialout USER)")
        return Check("box", True, f"the dice box's port {port} is there")
    from willughby.firmware_bridge.errors import BoxNotFoundError
    from willughby.firmware_bridge.link import find_box

    try:
        found = find_box()                # as the link looks for it with box_port = "auto"
    except BoxNotFoundError as exc:
        return Check("box", False, str(exc))
    return Check("box", True, f"a dice box at {found}")


def _speech(config: CompanionConfig) -> Check:
    from .speech import espeak_available

    path = espeak_available()
    if config.speech == "off":
        return Check("speech", True, "speech: off")
    if path is None:
        return Check("speech", False, "espeak-ng is not installed (apt-get install espeak-ng)",
                     needed=config.speech == "on")
    return Check("speech", True, f"espeak-ng at {path}")


def _data_dir(config: CompanionConfig) -> Check:
    d = config.data_dir
    probe = d
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return Check("data", False, f"the data directory {d} cannot be made: {probe} is not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        return Check("data", False, f"the data directory {d} cannot be written by this user "
                     f"({probe} is not writable: chown it to the service's user)")
    return Check("data", True, f"the data directory {d}" + (" is writable" if probe == d else " can be made"))


def _reader() -> Check:
    from willughby.vision import pointnet

    if not pointnet.available():
        return Check("reader", False, f"the point reader {pointnet.MODEL_PATH} is missing: reinstall the package")
    return Check("reader", True, "the point reader is installed"
                 + (", in two parts" if pointnet._parts(str(pointnet.MODEL_PATH)) is not None else ""))


def checks(config: CompanionConfig) -> list[Check]:
    """Every check, in the order they are shown."""
    return [_python(), *_imports(config), _reader(), _data_dir(config), _camera(config), _pins(config),
            _box(config), _speech(config)]


def run_doctor(config: CompanionConfig, out: Callable[[str], None] = print) -> int:
    """Print each check's line; 0 when nothing the configuration needs is missing, else 1."""
    found = checks(config)
    for c in found:
        mark = "ok  " if c.ok else ("MISSING" if c.needed else "note")
        out(f"{mark:8}{c.name:10} {c.line}")
    missing = [c.name for c in found if not c.ok and c.needed]
    out("nothing the configuration needs is missing" if not missing
        else f"missing: {', '.join(missing)}")
    return 1 if missing else 0

