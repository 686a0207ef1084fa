"""Printed markers that find the board again when it has been nudged.

Four ArUco markers (dictionary ``DICT_4X4_50``, ids 0..3) are stuck flat on
the board's frame, one at each corner, outside the playing surface: marker 0
at the corner C1 (by point 1), 1 at C2 (point 12), 2 at C3 (point 13), 3 at
C4 (point 24); see ``docs/vision-markers.md``.  :func:`marker_sheet` prints
them.

Calibrating once (:meth:`MarkerCalibration.fit`) records where the playing
surface's corners C1..C4 lie in the *marker frame*: a plane coordinate system
fixed to the markers' own corners (those seen in the calibration image,
centred and scaled).  The markers and the surface lie in one plane, so in any
later image a homography from the marker frame to the image, fitted to the
markers found (at least three: 12 or 16 corner points), carries the surface
corners into that image (:meth:`MarkerCalibration.locate`): nudge the board,
tilt the camera, the corners follow.

>>> import numpy as np
>>> sheet = render_marker_sheet(size_mm=40)
>>> sorted(detect_markers(sheet))
[0, 1, 2, 3]
"""

from __future__ import annotations

import itertools
import logging
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import cv2
import numpy as np

from .config import VisionConfig
from .errors import BoardNotFound, CalibrationError, InvalidCornersError, MarkerSheetError
from .geometry import CornersError, corners_array

__all__ = [
    "MARKER_IDS",
    "MARKER_CORNERS",
    "MARKER_PLACES",
    "render_marker_sheet",
    "marker_sheet",
    "detect_markers",
    "MarkerCalibration",
    "check_corners",
]

log = logging.getLogger(__name__)

DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_IDS: tuple[int, ...] = (0, 1, 2, 3)
#: the corner of the playing surface each marker stands by
MARKER_CORNERS: dict[int, str] = {0: "C1", 1: "C2", 2: "C3", 3: "C4"}
#: where each marker is stuck, in words
MARKER_PLACES: dict[int, str] = {
    0: "on the frame at the corner by point 1 (C1)",
    1: "on the frame at the corner by point 12 (C2)",
    2: "on the frame at the corner by point 13 (C3)",
    3: "on the frame at the corner by point 24 (C4)",
}
_TOUCHES = {0: 1, 1: 12, 2: 13, 3: 24}

A4_MM = (210.0, 297.0)
MIN_SIZE_MM = 10.0
MAX_SIZE_MM = 80.0


def check_corners(corners: Any, what: str = "corners") -> np.ndarray:
    """Four corners C1..C4 as a 4x2 float array, or :class:`InvalidCornersError`."""
    try:
        return corners_array(corners)
    except CornersError as exc:
        raise InvalidCornersError(f"{what}: {exc}") from None


# --------------------------------------------------------------------- the sheet


def _dictionary() -> Any:
    return cv2.aruco.getPredefinedDictionary(DICTIONARY)


def _fit_text(img: np.ndarray, text: str, x: int, baseline: int, height: int, max_width: int,
              centre: bool = False, thickness: int | None = None) -> None:
    """Draw *text* with capital letters about *height* pixels tall, no wider than *max_width*."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w1, h1), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = min(height / max(h1, 1), max_width / max(w1, 1))
    th = thickness or max(1, round(scale * 1.6))
    (w, _h), _ = cv2.getTextSize(text, font, scale, th)
    if centre:
        x = x + (max_width - w) // 2
    cv2.putText(img, text, (x, baseline), font, scale, 0, th, cv2.LINE_AA)


def _dashed_rect(img: np.ndarray, x0: int, y0: int, x1: int, y1: int, dash: int, gap: int,
                 grey: int = 150) -> None:
    for (ax, ay), (bx, by) in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)),
                               ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        length = int(np.hypot(bx - ax, by - ay))
        for s in range(0, length, dash + gap):
            e = min(s + dash, length)
            p = (round(ax + (bx - ax) * s / length), round(ay + (by - ay) * s / length))
            q = (round(ax + (bx - ax) * e / length), round(ay + (by - ay) * e / length))
            cv2.line(img, p, q, grey, 2)


def render_marker_sheet(size_mm: float = 40.0, dpi: int = 300) -> np.ndarray:
    """The printable sheet as a grey image: an A4 page at *dpi* with the four
    markers (*size_mm* across, black border included), each labelled with its
    corner and where it goes, laid out as the board is seen from the side of
    points 1-12, and a 100 mm bar to check the print's scale.

    Raises :class:`MarkerSheetError` for a size that does not fit (10..80 mm)
    or an unusable dpi.
    """
    if isinstance(size_mm, bool) or not isinstance(size_mm, (int, float)) or not (
            MIN_SIZE_MM <= size_mm <= MAX_SIZE_MM):
        raise MarkerSheetError(f"marker size must be {MIN_SIZE_MM:g}..{MAX_SIZE_MM:g} mm, not {size_mm!r}")
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not 72 <= dpi <= 1200:
        raise MarkerSheetError(f"dpi must be a whole number 72..1200, not {dpi!r}")
    px_per_mm = dpi / 25.4

    def px(mm: float) -> int:
        return int(round(mm * px_per_mm))

    width, height = px(A4_MM[0]), px(A4_MM[1])
    page = np.full((height, width), 255, np.uint8)
    margin = px(12)
    text_w = width - 2 * margin

    _fit_text(page, "Willughby board markers", margin, margin + px(7), px(7), text_w)
    _fit_text(page, f"ArUco 4x4_50, ids 0-3, {size_mm:g} mm. Print at 100% (no 'fit to page').",
              margin, margin + px(14), px(3.2), text_w)
    _fit_text(page, "Laid out as the board is seen from the side of points 1-12. Cut on the dashed",
              margin, margin + px(20), px(3.2), text_w)
    _fit_text(page, "lines, keep the white border, stick each one flat on the frame at its corner.",
              margin, margin + px(25), px(3.2), text_w)

    side = px(size_mm)
    dictionary = _dictionary()
    top = margin + px(32)
    bottom = height - margin - px(24)
    cell_w = text_w // 2
    cell_h = (bottom - top) // 2
    # C3 C4 across the far side, C2 C1 across the near side: the board as a player on points 1-12 sees it
    layout = {2: (0, 0), 3: (1, 0), 1: (0, 1), 0: (1, 1)}
    for marker_id, (col, row) in layout.items():
        cx0 = margin + col * cell_w
        cy0 = top + row * cell_h
        label_h = px(26)  # the three lines of label and the cut margin above the marker
        mx = cx0 + (cell_w - side) // 2
        ly = cy0 + max(0, (cell_h - label_h - side) // 2)  # the label block's top
        my = ly + label_h
        marker = cv2.aruco.generateImageMarker(dictionary, marker_id, 6 * 40, borderBits=1)
        marker = cv2.resize(marker, (side, side), interpolation=cv2.INTER_NEAREST)
        page[my:my + side, mx:mx + side] = marker
        cut = px(5)
        _dashed_rect(page, mx - cut, my - cut, mx + side + cut, my + side + cut, px(2), px(1.5))
        corner = MARKER_CORNERS[marker_id]
        inner = cell_w - px(6)
        _fit_text(page, f"{corner}  (marker {marker_id})", cx0 + px(3), ly + px(7), px(6), inner, centre=True)
        _fit_text(page, f"frame corner by point {_TOUCHES[marker_id]}", cx0 + px(3), ly + px(13),
                  px(3.2), inner, centre=True)
        _fit_text(page, "outside the playing surface", cx0 + px(3), ly + px(18), px(3.2), inner, centre=True)

    # a 100 mm scale bar
    bar_y = height - margin - px(10)
    x0, x1 = margin, margin + px(100)
    cv2.rectangle(page, (x0, bar_y - px(1.5)), (x1, bar_y + px(1.5)), 0, -1)
    for k in range(0, 101, 10):
        x = margin + px(k)
        cv2.line(page, (x, bar_y - px(4)), (x, bar_y + px(1.5)), 0, max(1, px(0.4)))
    _fit_text(page, "this bar must measure 100 mm", x1 + px(4), bar_y + px(1.5), px(3.2),
              width - margin - x1 - px(4))
    return page


def _png_bytes(image: np.ndarray, dpi: int) -> bytes:
    """PNG bytes of *image* with a pHYs chunk so printers know its size."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:  # pragma: no cover -- a grey uint8 image always encodes
        raise MarkerSheetError("cannot encode the marker sheet as PNG")
    data = buf.tobytes()
    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    end_of_ihdr = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:end_of_ihdr] + chunk + data[end_of_ihdr:]


def _pdf_bytes(image: np.ndarray, page_mm: tuple[float, float] = A4_MM) -> bytes:
    """A one-page PDF showing the grey *image* over the whole page."""
    h, w = image.shape[:2]
    pw, ph = (round(v / 25.4 * 72, 3) for v in page_mm)
    pixels = zlib.compress(np.ascontiguousarray(image, dtype=np.uint8).tobytes(), 9)
    content = f"q {pw} 0 0 {ph} 0 0 cm /Im0 Do Q\n".encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw} {ph}] "
         f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode("ascii"),
        (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
         f"/BitsPerComponent 8 /Interpolate false /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n"
         ).encode("ascii") + pixels + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode("ascii") + content + b"endstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode("ascii") + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n".encode("ascii")
    out += b"0000000000 65535 f \n"
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode("ascii")
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
            ).encode("ascii")
    return bytes(out)


def marker_sheet(path: str | os.PathLike[str], size_mm: float = 40.0, dpi: int = 300) -> Path:
    """Write the printable marker sheet to *path*: a PNG (``.png``, with its
    print size recorded) or a one-page A4 PDF (``.pdf``).  Returns the path.

    >>> import tempfile, os
    >>> p = marker_sheet(os.path.join(tempfile.mkdtemp(), "markers.pdf"))
    >>> p.read_bytes()[:5]
    b'%PDF-'
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise MarkerSheetError(f"the marker sheet is written as .png or .pdf, not {str(p)!r}")
    page = render_marker_sheet(size_mm, dpi)
    data = _png_bytes(page, dpi) if suffix == ".png" else _pdf_bytes(page)
    try:
        p.write_bytes(data)
    except OSError as exc:
        raise MarkerSheetError(f"cannot write {p}: {exc.strerror or exc}") from None
    return p


# ----------------------------------------------------------------- detection

_detector: Any = None


def _get_detector() -> Any:
    global _detector
    if _detector is None:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        _detector = cv2.aruco.ArucoDetector(_dictionary(), params)
    return _detector


def detect_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """The ArUco markers (``DICT_4X4_50``) in a BGR or grey image: id -> its
    four corners as a 4x2 float array of pixels, in the marker's own order
    (top-left, top-right, bottom-right, bottom-left as printed).

    An id seen twice is ambiguous and left out (with a logged warning).
    """
    from .sources import as_bgr

    if isinstance(image, np.ndarray) and image.ndim == 2 and image.dtype == np.uint8:
        grey = image
    else:
        grey = cv2.cvtColor(as_bgr(image, "image"), cv2.COLOR_BGR2GRAY)
    corners, ids, _rejected = _get_detector().detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    twice: set[int] = set()
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel()):
        marker_id = int(i)
        if marker_id in found:
            twice.add(marker_id)
        found[marker_id] = np.asarray(c, dtype=np.float64).reshape(4, 2)
    for marker_id in twice:
        log.warning("marker %d seen more than once: left out", marker_id)
        del found[marker_id]
    return found


# ----------------------------------------------------------------- calibration


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    out: np.ndarray = p[:, :2] / p[:, 2:3]
    return out


def _points(markers: Mapping[int, np.ndarray], ids: list[int]) -> np.ndarray:
    return np.vstack([np.asarray(markers[i], dtype=np.float64).reshape(4, 2) for i in ids])


@dataclass(frozen=True)
class MarkerCalibration:
    """Where the playing surface lies relative to the printed markers.

    ``reference`` holds each marker's four corners and ``surface`` the
    playing surface's corners C1..C4, all in the marker frame (see the
    module's docstring).  Make one with :meth:`fit`; find the surface in a
    new image with :meth:`locate`.
    """

    reference: Mapping[int, tuple[tuple[float, float], ...]]
    surface: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        ref = {int(k): tuple((float(x), float(y)) for x, y in np.asarray(v, dtype=np.float64).reshape(4, 2))
               for k, v in dict(self.reference).items()}
        object.__setattr__(self, "reference", dict(sorted(ref.items())))
        object.__setattr__(self, "surface", tuple((float(x), float(y)) for x, y in
                                                  np.asarray(self.surface, dtype=np.float64).reshape(4, 2)))
        if len(ref) < 3:
            raise BoardNotFound(f"a marker calibration needs at least 3 markers, not {sorted(ref)}")

    @property
    def marker_ids(self) -> list[int]:
        """The ids of the markers seen when calibrating."""
        return list(self.reference)

    @classmethod
    def fit(cls, marker_corners: Mapping[int, Any], surface_corners: Any) -> "MarkerCalibration":
        """Record the surface corners C1..C4 (pixels of an image) relative to
        the markers found in that same image (``detect_markers``).  Only
        markers 0..3 count; at least three are needed, else :class:`BoardNotFound`.
        """
        ids = [i for i in sorted(marker_corners) if i in MARKER_IDS]
        if len(ids) < 3:
            raise BoardNotFound(f"found markers {sorted(marker_corners)}: calibrating needs at least 3 "
                                f"of markers 0-3 in view")
        surface = check_corners(surface_corners, "surface corners")
        pts = _points(marker_corners, ids)
        # the marker frame: the calibration image's coordinates, centred on the
        # markers and scaled to a mean distance of sqrt(2) from their centre
        centre = pts.mean(axis=0)
        spread = float(np.mean(np.hypot(*(pts - centre).T)))
        if spread < 1.0:
            raise BoardNotFound("the markers found all lie on one spot")
        s = np.sqrt(2.0) / spread
        n = np.array([[s, 0, -s * centre[0]], [0, s, -s * centre[1]], [0, 0, 1.0]])
        reference = {i: _float_pairs(_apply(n, _points(marker_corners, [i]))) for i in ids}
        return cls(reference=reference, surface=_float_pairs(_apply(n, surface)))

    def surface_from(self, markers: Mapping[int, Any], config: VisionConfig | None = None) -> np.ndarray:
        """The surface corners C1..C4 in the image whose markers are *markers*
        (as :func:`detect_markers` gives them)."""
        cfg = config or VisionConfig()
        ids = [i for i in self.reference if i in markers]
        if len(ids) < 3:
            raise BoardNotFound(f"found markers {sorted(markers)} of the calibrated {self.marker_ids}: "
                                f"locating the board needs at least 3 in view")
        best: tuple[float, list[int], np.ndarray] | None = None
        subsets = [ids] + ([list(c) for c in itertools.combinations(ids, len(ids) - 1)] if len(ids) > 3 else [])
        for use in subsets:
            h, err = self._homography(markers, use)
            if h is None:
                continue
            if best is None or err < best[0]:
                best = (err, use, h)
            if use is ids and err <= cfg.marker_max_error:
                break
        if best is None or best[0] > cfg.marker_max_error:
            detail = f" by {best[0]:.1f} px" if best is not None else ""
            raise BoardNotFound(f"markers {ids} disagree with the calibration{detail} "
                                f"(more than {cfg.marker_max_error:g}): was one moved or turned? calibrate again")
        err, use, h = best
        if use is not ids:
            moved = sorted(set(ids) - set(use))
            log.warning("marker %s disagrees with the others: left out "
                        "(was it moved or turned? calibrate again)", moved)
        return _apply(h, np.asarray(self.surface))

    def _homography(self, markers: Mapping[int, Any], ids: list[int]) -> tuple[np.ndarray | None, float]:
        src = np.vstack([np.asarray(self.reference[i]) for i in ids])
        dst = _points(markers, ids)
        h, _mask = cv2.findHomography(src, dst, 0)
        if h is None or not np.all(np.isfinite(h)):
            return None, float("inf")
        err = float(np.max(np.hypot(*(_apply(h, src) - dst).T)))
        return h, err

    def locate(self, image: np.ndarray, config: VisionConfig | None = None) -> np.ndarray:
        """The surface corners C1..C4 (4x2 pixels) in *image*, from the markers
        in it.  Raises :class:`BoardNotFound` where fewer than three of the
        calibrated markers are found, or they disagree by more than
        ``config.marker_max_error`` pixels."""
        return self.surface_from(detect_markers(image), config)

    # --- JSON
    def to_json(self) -> dict[str, Any]:
        """``{"surface": [[x, y] x4], "markers": {"0": [[x, y] x4], ...}}``."""
        return {"surface": [list(p) for p in self.surface],
                "markers": {str(k): [list(p) for p in v] for k, v in self.reference.items()}}

    @classmethod
    def from_json(cls, doc: Any, where: str = "markers") -> "MarkerCalibration":
        """Read :meth:`to_json`'s form; :class:`CalibrationError` naming the field otherwise."""
        if not isinstance(doc, dict):
            raise CalibrationError(f"{where} must be an object, not {doc!r}")
        surface = _pairs(doc.get("surface"), f"{where}.surface")
        raw = doc.get("markers")
        if not isinstance(raw, dict):
            raise CalibrationError(f"{where}.markers must be an object of marker id -> 4 corners, not {raw!r}")
        reference: dict[int, tuple[tuple[float, float], ...]] = {}
        for key, value in raw.items():
            if not (isinstance(key, str) and key.isdigit() and int(key) in MARKER_IDS):
                raise CalibrationError(f"{where}.markers: {key!r} is not a marker id 0-3")
            reference[int(key)] = _float_pairs(_pairs(value, f"{where}.markers.{key}"))
        if len(reference) < 3:
            raise CalibrationError(f"{where}.markers holds {len(reference)} markers; at least 3 are needed")
        return cls(reference=reference, surface=_float_pairs(surface))


def _float_pairs(points: np.ndarray) -> tuple[tuple[float, float], ...]:
    """The rows of an N x 2 array of points as (x, y) float pairs."""
    return tuple((float(x), float(y)) for x, y in np.asarray(points, dtype=np.float64).reshape(-1, 2))


def _pairs(value: Any, where: str) -> np.ndarray:
    """Four [x, y] number pairs, or :class:`CalibrationError` naming *where*."""
    ok = (isinstance(value, list) and len(value) == 4
          and all(isinstance(p, list) and len(p) == 2
                  and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p) for p in value))
    arr = np.asarray(value, dtype=np.float64) if ok else None
    if arr is None or not np.all(np.isfinite(arr)):
        raise CalibrationError(f"{where} must be four [x, y] number pairs, not {value!r}")
    return arr
