"""The ``willughby vision`` commands of this part: ``markers`` and
``calibrate`` (``vision read`` and ``vision evaluate`` are added by the
reader's module to the parser :func:`add_vision_commands` returns).

Errors are the package's own (:class:`~willughby.vision.errors.VisionError`);
the main command turns them into exit status 2 and one line.

>>> parse_corners("600,420 40,420 40,20 600,20")
[[600.0, 420.0], [40.0, 420.0], [40.0, 20.0], [600.0, 20.0]]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .calibration import save_calibration
from .errors import InvalidCornersError, SourceError
from .markers import MARKER_CORNERS, MARKER_IDS, MARKER_PLACES, check_corners, detect_markers, marker_sheet

__all__ = ["add_vision_commands", "parse_corners", "read_image", "cmd_markers", "cmd_calibrate"]

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_PAIR = re.compile(rf"\s*({_NUMBER})\s*,\s*({_NUMBER})\s*")


def parse_corners(text: str) -> list[list[float]]:
    """Four corners C1..C4 written ``"x1,y1 x2,y2 x3,y3 x4,y4"`` (spaces or
    semicolons between pairs) as ``[[x, y], ...]``.  Anything else is an
    :class:`InvalidCornersError` naming the bad text."""
    if not isinstance(text, str):
        raise InvalidCornersError(f"--corners takes text like \"x1,y1 x2,y2 x3,y3 x4,y4\", not {text!r}")
    parts = [p for p in re.split(r"[\s;]+", re.sub(r"\s*,\s*", ",", text.strip())) if p]
    if len(parts) != 4:
        raise InvalidCornersError(f"--corners needs four x,y pairs (C1..C4), not {len(parts)} in {text!r}")
    out = []
    for k, part in enumerate(parts, start=1):
        m = _PAIR.fullmatch(part)
        if not m:
            raise InvalidCornersError(f"--corners: C{k} {part!r} is not x,y (in {text!r})")
        x, y = float(m.group(1)), float(m.group(2))
        if not (math.isfinite(x) and math.isfinite(y)):
            raise InvalidCornersError(f"--corners: C{k} {part!r} is not a finite x,y (in {text!r})")
        out.append([x, y])
    return out


def read_image(path: str | Path) -> np.ndarray:
    """Read an image file as BGR, or a :class:`SourceError` naming it."""
    p = Path(path)
    if not p.is_file():
        raise SourceError(f"no such image file: {p}")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as exc:
        raise SourceError(f"cannot read {p}: {exc.strerror or exc}") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise SourceError(f"{p} is not an image OpenCV can read")
    return image


def cmd_markers(args: argparse.Namespace) -> int:
    """``willughby vision markers OUT [--size-mm 40]``."""
    path = marker_sheet(args.out, size_mm=args.size_mm)
    places = [{"id": i, "corner": MARKER_CORNERS[i], "place": MARKER_PLACES[i]} for i in MARKER_IDS]
    if args.json:
        print(json.dumps({"path": str(path), "size_mm": args.size_mm, "markers": places}))
        return 0
    print(f"wrote {path}: print it at 100% (the bar on it must measure 100 mm)")
    for p in places:
        print(f"  marker {p['id']}: {p['place']}")
    print("Stick them flat, outside the playing surface, where no man will cover them; "
          "then run 'willughby vision calibrate'.")
    return 0


def _marker_warnings(markers: dict[int, np.ndarray], corners: np.ndarray) -> list[str]:
    """Advice on markers seen while calibrating: inside the surface, or at
    another corner than the sheet says (corners given in the wrong order?)."""
    out = []
    poly = corners.astype(np.float32).reshape(-1, 1, 2)
    for i, c in sorted(markers.items()):
        if i not in MARKER_IDS:
            continue
        centre = c.mean(axis=0)
        if cv2.pointPolygonTest(poly, (float(centre[0]), float(centre[1])), False) > 0:
            out.append(f"marker {i} lies inside the playing surface: men will cover it; "
                       f"move it onto the frame")
            continue
        nearest = int(np.argmin(np.hypot(*(corners - centre).T)))
        if nearest != i:
            out.append(f"marker {i} ({MARKER_CORNERS[i]}) is nearest the corner given as C{nearest + 1}: "
                       f"are the corners in the order C1..C4, and the markers where the sheet says?")
    return out


def cmd_calibrate(args: argparse.Namespace) -> int:
    """``willughby vision calibrate IMAGE --corners "..." [--out FILE]``."""
    from .calibration import calibrate_from_photo, calibration_path
    from .reader import Look

    image = read_image(args.image)
    corners = parse_corners(args.corners)
    cal, refinement = calibrate_from_photo(image, corners, refine=not args.no_refine, known=args.known)
    look = Look.from_json(cal.colours)
    found = {i: c for i, c in detect_markers(image).items() if i in MARKER_IDS}
    warnings = _marker_warnings(found, check_corners(corners))
    path = save_calibration(args.out or calibration_path(default_data_dir()), cal)
    if args.json:
        print(json.dumps({"path": str(path), "markers": sorted(found),
                          "marker_calibration": cal.markers is not None, "warnings": warnings,
                          "corners_given": [list(map(float, c)) for c in check_corners(corners)],
                          "corners_moved_px": None if refinement is None else
                          [round(float(m), 2) for m in refinement.moved_px],
                          "calibration": cal.to_json()}))
        return 0
    print(f"wrote {path}: corners C1..C4 " + " ".join(f"{x:.1f},{y:.1f}" for x, y in cal.corners))
    if refinement is not None:
        if refinement.refined:
            print(f"the corners given were moved along the board to the points' edges, by up to "
                  f"{refinement.moved_px.max():.1f} px")
        for note in refinement.notes:
            print(f"note: {note}")
    if len(look.men) == 2:
        print("learnt the board's look and both colours of men (Lab): "
              + ", ".join(f"{k} {v[0]:.0f},{v[1]:.0f},{v[2]:.0f}" for k, v in sorted(look.men.items())))
    else:
        print("learnt the board's look; " + ("only the " + next(iter(look.men)) + " men were seen" if look.men
                                             else "no men were seen")
              + ": for the men's colours, calibrate from a photo of the starting position")
    if cal.markers is not None:
        print(f"markers {sorted(found)} found: the board will be found again when nudged")
    elif found:
        print(f"only markers {sorted(found)} found: at least 3 are needed; saved without markers")
    else:
        print("no markers found: saved the corners only (the board must not move)")
    for w in warnings:
        print(f"warning: {w}")
    return 0


def add_vision_commands(subparsers: Any) -> Any:
    """Add ``vision markers`` and ``vision calibrate`` to a command's
    subparsers (``parser.add_subparsers()``).  Returns the ``vision``
    command's own subparsers, for ``vision read`` and ``vision evaluate``."""
    vision = subparsers.add_parser("vision", help="the camera: markers, calibration, reading")
    sub = vision.add_subparsers(dest="vision_command", required=True, metavar="COMMAND")

    p = sub.add_parser("markers", help="write the printable sheet of board markers")
    p.add_argument("out", metavar="OUT", help="the sheet to write: a .png or .pdf file")
    p.add_argument("--size-mm", type=_size_mm, default=40.0, help="marker size in mm (default 40)")
    p.add_argument("--json", action="store_true", help="one JSON document on standard output")
    p.set_defaults(func=cmd_markers)

    p = sub.add_parser("calibrate", help="save the board's corners (and its markers) for this camera")
    p.add_argument("image", metavar="IMAGE", help="a photo from the camera, the board empty or set up")
    p.add_argument("--corners", required=True, metavar='"x1,y1 x2,y2 x3,y3 x4,y4"',
                   help="the playing surface's corners C1..C4 in pixels")
    p.add_argument("--no-refine", action="store_true",
                   help="keep the corners exactly as given (by default they are moved along the board "
                        "to the points' edges)")
    p.add_argument("--known", type=_board_argument, metavar="BOARD",
                   help="the board the photo shows (a board document, or @FILE; the game's start): the reader "
                        "learns this board's points from it, and corners given in another order are refused, "
                        "with the right order named")
    p.add_argument("--out", metavar="FILE",
                   help="the calibration file to write (default: the one in the data directory, where "
                        "'vision read', 'judge --after-image' and 'serve' look for it)")
    p.add_argument("--json", action="store_true", help="one JSON document on standard output")
    p.set_defaults(func=cmd_calibrate)
    return sub


def _board_argument(text: str) -> dict[str, list[int]]:
    """``--known``: a board document (JSON, or ``@FILE``), read and checked as every command reads one
    (``Position.from_board``); its 24 points of each colour are used."""
    from willughby.engine.errors import InvalidBoardError
    from willughby.engine.position import Position

    source = text
    if text.startswith("@"):
        try:
            source = Path(text[1:]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise argparse.ArgumentTypeError(f"cannot read {text[1:]}: {getattr(exc, 'strerror', None) or exc}") \
                from None
    try:
        board = Position.from_board(source).to_board()
    except InvalidBoardError as exc:
        raise argparse.ArgumentTypeError(f"a board document, 24 counts a side, is wanted: {exc}") from None
    return {"light": list(board["light"]), "dark": list(board["dark"])}


def _size_mm(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a number of millimetres, not {text!r}") from None
    return value


# --------------------------------------------------------------- read, evaluate
def default_data_dir() -> Path:
    """The user's data directory for Willughby (``$XDG_DATA_HOME/willughby``)."""
    import os

    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "willughby"


def locate(image: np.ndarray, corners_text: str | None, calibration: str | Path | None = None) -> tuple[Any, Any]:
    """The board's corners in *image* and what calibration learnt of its look:
    the corners given (``--corners``), else the saved calibration's, found
    again by its markers. Raises :class:`CalibrationMissing` with what to do
    where there is neither."""
    from .calibration import calibration_path, corners_for, load_calibration
    from .errors import CalibrationMissing
    from .reader import Look

    h, w = image.shape[:2]

    def outside(corners: Any) -> list[Any]:
        return [c for c in corners if not (-0.05 * w <= c[0] <= 1.05 * w and -0.05 * h <= c[1] <= 1.05 * h)]

    if corners_text:
        corners = parse_corners(corners_text)
        far = outside(corners)
        if far:
            raise InvalidCornersError(f"the corners must lie in the image ({w}x{h} pixels), not at {far[0]}")
        return corners, None
    path = Path(calibration) if calibration else calibration_path(default_data_dir())
    try:
        saved = load_calibration(path)
    except CalibrationMissing:
        raise CalibrationMissing(
            f"no --corners given and no calibration at {path}: give the corners, or run "
            "'willughby vision calibrate' first") from None
    corners = corners_for(image, saved).tolist()
    far = outside(corners)
    if far:
        raise InvalidCornersError(f"the calibration's corners ({path}) lie outside the image ({w}x{h} pixels), at "
                                  f"{[round(float(v), 1) for v in far[0]]}: calibrate again for this camera, or "
                                  "give --corners")
    return corners, (Look.from_json(saved.colours) if saved.colours else None)


def cmd_read(args: argparse.Namespace) -> int:
    """``vision read IMAGE [--corners ...] [--calibration FILE] [--json]``."""
    from .reader import read_board

    image = read_image(args.image)
    corners, look = locate(image, args.corners, args.calibration)
    reading = read_board(image, corners, look=look, dice=bool(args.json))
    doc = reading.to_board()
    if args.json:
        doc["location_confidence"] = {k: round(v, 3) for k, v in reading.location_confidence.items()}
        doc["dice"] = [{"value": d.value, "at_mm": [round(d.x, 1), round(d.y, 1)]} for d in reading.dice]
        print(json.dumps(doc))
        return 0
    from willughby.engine.position import Position

    shown = {k: doc[k] for k in ("format", "light", "dark", "bar", "off", "stacked")}
    print(Position.from_board(shown))
    print(f"confidence {doc['confidence']:.2f}, {'settled' if doc['settled'] else 'NOT settled: do not act on it'}"
          f", read in {reading.millis:.0f} ms")
    doubtful = sorted((v, k) for k, v in reading.location_confidence.items() if v < 0.6)
    if doubtful:
        print("doubtful: " + ", ".join(f"point {k} ({v:.2f})" for v, k in doubtful))
    for note in reading.notes:
        print(f"note: {note}")
    return 0


def cmd_dice(args: argparse.Namespace) -> int:
    """``vision dice IMAGE [--corners ...] [--calibration FILE] [--json]``: the dice lying in a still image."""
    from .dice_reader import DiceReader

    from .calibration import calibration_path
    from .errors import CalibrationSizeError

    image = read_image(args.image)
    corners = None
    try:
        if args.corners or args.calibration:
            corners, _look = locate(image, args.corners, args.calibration)
        elif calibration_path(default_data_dir()).exists():   # a saved calibration, where there is one, bounds it
            corners, _look = locate(image, None, None)
    except CalibrationSizeError as exc:
        # a photo that is not the camera's (a phone's): its dice are found in the whole picture, as without one
        (cw, ch), (w, h) = exc.calibrated, exc.image
        print(f"willughby: the calibration is for {cw}x{ch} frames; this photo is {w}x{h}: read without it",
              file=sys.stderr)
    dice = DiceReader().read(image, corners)
    if args.json:
        print(json.dumps({"dice": [d.to_json() for d in dice]}))
        return 0
    if not dice:
        print("no dice found" + (" on the board" if corners is not None else ""))
    for d in dice:
        face = str(d.value) if d.value is not None else f"? ({d.why})"
        print(f"{face} at ({d.center[0]:.0f}, {d.center[1]:.0f})" + (f", p {d.p:.3f}" if d.value else ""))
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    """``vision evaluate DIR``: the evaluation report (see :mod:`.evaluate`)."""
    from .evaluate import evaluate, print_report

    folder = Path(args.folder)
    if not folder.is_dir():
        raise SourceError(f"{folder} is not a folder of labelled images")
    cv2.setNumThreads(1)      # this command owns its process: read as the referee reads, on one thread
    print_report(evaluate(folder, limit=args.limit, method=args.method), args.show_failures)
    return 0


def add_reader_commands(sub: Any) -> None:
    """Add ``vision read``, ``vision dice`` and ``vision evaluate`` to the ``vision`` subparsers."""
    from .reader import METHODS

    def still_image(name: str, about: str, corners: str, calibration: str, func: Any) -> None:
        p = sub.add_parser(name, help=about)
        p.add_argument("image", metavar="IMAGE")
        p.add_argument("--corners", metavar='"x1,y1 x2,y2 x3,y3 x4,y4"', help=corners)
        p.add_argument("--calibration", metavar="FILE", help=calibration)
        p.add_argument("--json", action="store_true", help="one JSON document on standard output")
        p.set_defaults(func=func)

    still_image("read", "read the men on the board in a still image",
                "the playing surface's corners C1..C4 in pixels",
                "calibration file (default: the one in the data directory)", cmd_read)
    still_image("dice", "find the dice in a still image and read the face on top of each",
                "the playing surface's corners C1..C4 in pixels: only dice on the board and its frame",
                "calibration file (default: the one in the data directory, where there is one)", cmd_dice)

    p = sub.add_parser("evaluate", help="measure the reader over a folder of labelled images")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--limit", type=int, help="only the first N images")
    p.add_argument("--show-failures", action="store_true", help="list every image read wrong")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help="count with the trained point reader (net; net-alone: without preferring the "
                        "games' start layouts) or by fitting arrangements (fit); auto: net when installed")
    p.set_defaults(func=cmd_evaluate)
