"""The saved calibration of one board under one camera.

A calibration holds the playing surface's corners C1..C4 as the user gave
them once (pixels of the camera's image), and, where the printed markers were
in view, a :class:`~willughby.vision.markers.MarkerCalibration` that finds the
corners again when the board has been nudged.  ``colours`` is the reader's
own: a JSON object it may fill with what it learns of this board's men and
points; this module stores it and never looks inside.

The file is JSON (``calibration.json`` under the data directory)::

    {"format": "willughby-calibration/1",
     "corners": [[x1, y1], [x2, y2], [x3, y3], [x4, y4]],
     "image_size": [width, height],
     "markers": {"surface": [[x, y], ...], "markers": {"0": [[x, y], ...], ...}} | null,
     "colours": {...} | null}

It is written atomically (a temporary file, then ``os.replace``): a crash
leaves the old calibration or the new one, never half of one.

>>> import tempfile, os
>>> cal = Calibration(corners=[[600, 420], [40, 420], [40, 20], [600, 20]])
>>> path = os.path.join(tempfile.mkdtemp(), "calibration.json")
>>> save_calibration(path, cal).name
'calibration.json'
>>> load_calibration(path) == cal
True
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .config import VisionConfig
from .errors import (BoardNotFound, CalibrationError, CalibrationMissing, CalibrationSizeError,
                     CornerOrderUnknown, InvalidCornersError)
from .markers import MARKER_IDS, MarkerCalibration, _float_pairs, _pairs, check_corners, detect_markers
from .sources import as_bgr

__all__ = [
    "FORMAT",
    "CALIBRATION_FILE",
    "Calibration",
    "calibrate",
    "calibrate_from_photo",
    "calibration_path",
    "check_order",
    "load_calibration",
    "save_calibration",
    "corners_for",
]

log = logging.getLogger(__name__)

FORMAT = "willughby-calibration/1"
CALIBRATION_FILE = "calibration.json"


@dataclass(frozen=True)
class Calibration:
    """Corners C1..C4 (pixels), and optionally the marker calibration, the
    image size they were taken at, and the reader's learned colours."""

    corners: tuple[tuple[float, float], ...]
    markers: MarkerCalibration | None = None
    colours: dict[str, Any] | None = field(default=None, compare=True)
    image_size: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        arr = check_corners(self.corners, "calibration corners")
        object.__setattr__(self, "corners", tuple((float(x), float(y)) for x, y in arr))
        if self.markers is not None and not isinstance(self.markers, MarkerCalibration):
            raise CalibrationError(f"markers must be a MarkerCalibration, not {self.markers!r}")
        if self.colours is not None and not isinstance(self.colours, dict):
            raise CalibrationError(f"colours must be a dict or None, not {self.colours!r}")
        if self.image_size is not None:
            size = tuple(self.image_size)
            if len(size) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size):
                raise CalibrationError(f"image_size must be [width, height], not {self.image_size!r}")
            object.__setattr__(self, "image_size", (int(size[0]), int(size[1])))

    def corners_array(self) -> np.ndarray:
        """The saved corners as a 4x2 float array."""
        return np.array(self.corners, dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        """The file's JSON document."""
        return {
            "format": FORMAT,
            "corners": [list(p) for p in self.corners],
            "image_size": list(self.image_size) if self.image_size else None,
            "markers": self.markers.to_json() if self.markers else None,
            "colours": self.colours,
        }

    @classmethod
    def from_json(cls, doc: Any, where: str = "calibration") -> "Calibration":
        """Read :meth:`to_json`'s document; :class:`CalibrationError` naming the field otherwise."""
        if not isinstance(doc, dict):
            raise CalibrationError(f"{where}: must be a JSON object, not {type(doc).__name__}")
        if doc.get("format") != FORMAT:
            raise CalibrationError(f"{where}: format must be {FORMAT!r}, not {doc.get('format')!r}")
        unknown = set(doc) - {"format", "corners", "image_size", "markers", "colours"}
        if unknown:
            raise CalibrationError(f"{where}: unknown field(s) {sorted(unknown)}")
        corners = _pairs(doc.get("corners"), f"{where}: corners")
        markers = doc.get("markers")
        marker_cal = None if markers is None else MarkerCalibration.from_json(markers, f"{where}: markers")
        colours = doc.get("colours")
        if colours is not None and not isinstance(colours, dict):
            raise CalibrationError(f"{where}: colours must be an object or null, not {colours!r}")
        size = doc.get("image_size")
        if size is not None and not (isinstance(size, list) and len(size) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)):
            raise CalibrationError(f"{where}: image_size must be [width, height], not {size!r}")
        try:
            return cls(corners=_float_pairs(corners), markers=marker_cal, colours=colours,
                       image_size=tuple(size) if size else None)
        except (InvalidCornersError, BoardNotFound) as exc:
            raise CalibrationError(f"{where}: {exc}") from None


def calibrate(image: np.ndarray, corners: Any, colours: dict[str, Any] | None = None) -> Calibration:
    """A calibration from one image and the corners C1..C4 given in it; with
    at least three of the markers 0-3 in view it also records the marker
    calibration.  Corners outside the image are an :class:`InvalidCornersError`."""
    frame = as_bgr(image, "image")
    h, w = frame.shape[:2]
    arr = check_corners(corners)
    for k, (x, y) in enumerate(arr, start=1):
        if not (-0.5 <= x <= w - 0.5 and -0.5 <= y <= h - 0.5):
            raise InvalidCornersError(f"corner C{k} ({x:g},{y:g}) lies outside the {w}x{h} image")
    found = {i: c for i, c in detect_markers(frame).items() if i in MARKER_IDS}
    markers = MarkerCalibration.fit(found, arr) if len(found) >= 3 else None
    return Calibration(corners=_float_pairs(arr), markers=markers, colours=colours, image_size=(w, h))


def calibrate_from_photo(image: np.ndarray, corners: Any, config: Any = None,
                         refine: bool = True, known: Any = None) -> tuple[Calibration, Any]:
    """The calibration a photo of the board makes, as ``willughby vision
    calibrate`` and the page's calibration make it: the corners given
    (marked by hand, a few pixels off) refined from the points' sides
    (``refine.refine_corners``; not with *refine* false), then the board's
    look learnt from the photo (``reader.learn_look``: its colours, and its
    frame's picture, against which a hand across the frame is told from the
    board's own look; the photo must show no hand) and kept in
    ``colours``; with *known* (the board document the photo shows, which
    the referee knows: the game's start), the point reader learns this
    board's points from it too (``Look.head``), and corners given in another
    order (the board read mirrored or turned round) are an
    :class:`InvalidCornersError` that names the right order
    (``corner_order``).  Returns the calibration and
    the refinement (None when not refined).  Corners outside the image are an :class:`InvalidCornersError`."""
    from .reader import learn_look
    from .refine import refine_corners

    config = config or VisionConfig()
    frame = as_bgr(image, "image")
    cal = calibrate(frame, corners)          # checks the corners before anything is read
    if known is not None:
        # the board the photo shows is known: corners given in another order read it mirrored or turned round
        from .corner_order import corner_order, describe

        found = corner_order(frame, cal.corners_array(), known, config)
        if found is not None and not found.as_given:
            raise InvalidCornersError(
                "the corners are in another order: the photo shows the board as it stands only with "
                f"{describe(found.order)}; mark them again in that order")
    refinement = None
    if refine:
        refinement = refine_corners(config, frame, cal.corners_array())
        cal = calibrate(frame, refinement.corners)
    look = learn_look(frame, cal.corners_array(), config, known=known)
    return calibrate(frame, cal.corners_array(), colours=look.to_json()), refinement


def check_order(image: np.ndarray, corners: Any, known: Any = None, config: Any = None,
                c1_confirmed: bool = False) -> str:
    """How the order of *corners* (C1..C4) is known, before they are saved
    as a calibration: ``"board"`` where the photo reads the *known* board
    (the referee's: a game's start) in that order and in no other
    (``corner_order.decisive_order``); ``"players"`` where it says nothing
    but the players confirmed which corner is C1 (*c1_confirmed*).  The
    known board read in another order is an :class:`InvalidCornersError`
    that names the right one, whatever the players said; nothing telling
    the order, and no confirmation, is :class:`CornerOrderUnknown`: the
    same quadrilateral marked from the opposite corner rectifies as
    cleanly, and the board would be read turned round."""
    config = config or VisionConfig()
    frame = as_bgr(image, "image")
    cal = calibrate(frame, corners)          # checks the corners before anything is read
    if known is not None:
        from .corner_order import ORDERS, decisive_order, describe

        order = decisive_order(frame, cal.corners_array(), known, config)
        if order is not None and order != ORDERS[0]:
            raise InvalidCornersError(
                "the corners are in another order: the photo shows the board as it stands only with "
                f"{describe(order)}; mark them again in that order")
        if order is not None:
            return "board"
    if c1_confirmed:
        return "players"
    raise CornerOrderUnknown(
        "the corners' order is unknown: no board the referee knows is seen in the picture to tell which "
        "corner is C1; confirm the corner touching point 1 (light's ace point), or set the men up as at the start")


def calibration_path(data_dir: str | os.PathLike[str]) -> Path:
    """Where a data directory keeps its calibration."""
    return Path(data_dir) / CALIBRATION_FILE


def load_calibration(path: str | os.PathLike[str]) -> Calibration:
    """Read a calibration file.  :class:`CalibrationMissing` where there is
    none; :class:`CalibrationError` naming the path and the field where it is
    malformed."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationMissing(f"no calibration at {p}: run 'willughby vision calibrate'") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CalibrationError(f"cannot read calibration {p}: {reason}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"calibration {p} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    return Calibration.from_json(doc, where=f"calibration {p}")


def save_calibration(path: str | os.PathLike[str], cal: Calibration) -> Path:
    """Write *cal* to *path* atomically (creating the folder); returns the path."""
    if not isinstance(cal, Calibration):
        raise CalibrationError(f"save_calibration takes a Calibration, not {type(cal).__name__}")
    p = Path(path)
    try:
        text = json.dumps(cal.to_json(), indent=2, allow_nan=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise CalibrationError(f"calibration cannot be written as JSON (colours?): {exc}") from None
    tmp_name = None
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_name, p)
        tmp_name = None
        _fsync_dir(p.parent)
    except OSError as exc:
        raise CalibrationError(f"cannot write calibration {p}: {exc.strerror or exc}") from None
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass
    return p


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (where the platform allows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def corners_for(image: np.ndarray, calibration: Calibration,
                config: VisionConfig | None = None) -> np.ndarray:
    """The corners C1..C4 (4x2 pixels) of the board in *image*: from the
    markers where the calibration has them and they are found, else the
    saved corners.  The saved corners of an image of another size than the
    calibration's are no use: that is a :class:`CalibrationError`."""
    frame = as_bgr(image, "image")
    if calibration.markers is not None:
        try:
            located = calibration.markers.locate(frame, config)
            return check_corners(located, "corners from the markers")
        except (BoardNotFound, InvalidCornersError) as exc:
            log.info("markers did not locate the board (%s); using the saved corners", exc)
    if calibration.image_size is not None:
        h, w = frame.shape[:2]
        if (w, h) != calibration.image_size:
            cw, ch = calibration.image_size
            raise CalibrationSizeError(f"the calibration was made on {cw}x{ch} images, this one is {w}x{h}: "
                                       f"calibrate again at this size", (cw, ch), (w, h))
    return calibration.corners_array()
