"""Photos of the board brought to a dispute: taken safely in, kept with the game.

A photo uploaded on the page's dispute view is a door into the Pi from any
phone on the network, so it is taken in with care (:func:`decode_photo`):

* at most :data:`MAX_PHOTO_BYTES` (20 MB) and :data:`MAX_PHOTO_PIXELS`
  (40 megapixels) for a JPEG, :data:`MAX_UNPACKED_PIXELS` (16 megapixels)
  for a PNG or WebP, which OpenCV unpacks whole;
* the picture's size is read from the file's own header *before* anything
  is decoded, so a small file that would unpack into gigabytes (a
  decompression bomb) is refused without being unpacked;
* only JPEG, PNG and WebP are taken, known by their first bytes, not by
  the name or type the browser sent;
* one photo is decoded at a time, and a JPEG larger than is kept is
  decoded at a half, a quarter or an eighth of its size (its own DCT
  scaling), so a burst of uploads costs the Pi one picture's memory, not
  one each, and the memory is handed back to the system after each;
* a phone's EXIF orientation is honoured (OpenCV turns the picture as the
  phone held it), and then the picture is kept without its metadata: what
  is stored is the picture, re-encoded, not the phone's file with its
  place and time.

Anything refused raises :class:`PhotoRefused` (a ``ValueError``: the page
answers 400, or 413 for a file too large) and nothing is stored.

:class:`PhotoStore` keeps each photo under the data directory, beside the
game it belongs to (``photos/<game id>/<photo id>.jpg``), with what was
judged from it (``<photo id>.json``: the turn, who brought it, the
corners, each ruling made from it). Both files are written whole or not at
all (written aside, flushed, then renamed).

>>> decode_photo(b"not a picture")
Traceback (most recent call last):
...
willughby.companion.photos.PhotoRefused: the file is not a JPEG, PNG or WebP picture
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import re
import secrets
import struct
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

__all__ = ["MAX_PHOTO_BYTES", "MAX_PHOTO_PIXELS", "MAX_UNPACKED_PIXELS", "KEPT_LONG_SIDE", "PhotoRefused", "PhotoTooLarge",
           "picture_size", "decode_photo", "PhotoStore", "PHOTO_ID"]

#: the largest photo file taken
MAX_PHOTO_BYTES = 20 * 1024 * 1024
#: the most pixels a photo may have (width x height, as its header says)
MAX_PHOTO_PIXELS = 40_000_000
#: the most a PNG or WebP may have: OpenCV unpacks those whole (3 bytes a pixel) before any scaling
MAX_UNPACKED_PIXELS = 16_000_000
#: a photo is kept (and read) at most this many pixels along its longer side: more only costs time,
#: since the reader reads each point at a fixed size
KEPT_LONG_SIDE = 2000
#: what a photo's id looks like (checked wherever one arrives from outside)
PHOTO_ID = re.compile(r"p-[0-9a-f]{12}")
_GAME_ID = re.compile(r"g-[0-9a-f]{12}")


class PhotoRefused(ValueError):
    """A photo that is not taken: not a picture, damaged, or too large."""


class PhotoTooLarge(PhotoRefused):
    """A photo past :data:`MAX_PHOTO_BYTES` or :data:`MAX_PHOTO_PIXELS`."""


# ---------------------------------------------------------------- the header
_JPEG_SOF = set(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}   # start-of-frame markers (not DHT, JPG, DAC)


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's first start-of-frame segment."""
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:                       # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if length < 2:
            return None
        if marker in _JPEG_SOF:
            if i + 9 > len(data):
                return None
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        if marker == 0xDA:                       # the scan begins before any frame: not a JPEG we take
            return None
        i += 2 + length
    return None


def _png_size(data: bytes) -> tuple[int, int] | None:
    if len(data) < 24 or data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return width, height
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


def picture_size(data: bytes) -> tuple[str, int, int]:
    """The kind (``"jpeg"``, ``"png"``, ``"webp"``) and (width, height) a
    picture's header declares, read without decoding it.

    >>> import struct, zlib
    >>> ihdr = struct.pack(">IIBBBBB", 30000, 20000, 8, 2, 0, 0, 0)
    >>> png = b"\\x89PNG\\r\\n\\x1a\\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    >>> picture_size(png)
    ('png', 30000, 20000)
    """
    if data.startswith(b"\xff\xd8\xff"):
        kind, size = "jpeg", _jpeg_size(data)
    elif data.startswith(b"\x89PNG\r\n\x1a\n"):
        kind, size = "png", _png_size(data)
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        kind, size = "webp", _webp_size(data)
    else:
        raise PhotoRefused("the file is not a JPEG, PNG or WebP picture")
    if size is None or min(size) < 1:
        raise PhotoRefused(f"the {kind.upper()} file is damaged: its size cannot be read")
    return kind, size[0], size[1]


def decode_photo(data: bytes) -> np.ndarray:
    """The photo in *data* as a BGR image, turned as its EXIF orientation
    says, and no larger than :data:`KEPT_LONG_SIDE` along its longer side.

    Raises :class:`PhotoTooLarge` past the limits (checked on the header,
    before decoding) and :class:`PhotoRefused` for anything that is not a
    whole picture."""
    if len(data) > MAX_PHOTO_BYTES:
        raise PhotoTooLarge(f"the photo is {len(data) / 1e6:.1f} MB; at most {MAX_PHOTO_BYTES // (1024 * 1024)} MB "
                            "is taken")
    if not data:
        raise PhotoRefused("the file is empty")
    kind, width, height = picture_size(data)
    most = MAX_PHOTO_PIXELS if kind == "jpeg" else MAX_UNPACKED_PIXELS
    if width * height > most:
        raise PhotoTooLarge(f"the picture is {width} x {height} pixels ({width * height / 1e6:.0f} megapixels); "
                            f"at most {most // 1_000_000} megapixels are taken"
                            + ("" if kind == "jpeg" else f" in a {kind.upper()} (a JPEG may have "
                                                         f"{MAX_PHOTO_PIXELS // 1_000_000})"))
    # a JPEG larger than is kept, decoded smaller by its own DCT scaling: never unpacked whole
    factor = 1
    if kind == "jpeg":
        while factor < 8 and max(width, height) / (factor * 2) >= KEPT_LONG_SIDE:
            factor *= 2
    flag = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8}[factor]
    with _DECODING:                                   # one at a time: a burst costs one picture's memory
        try:
            try:
                image = cv2.imdecode(np.frombuffer(data, np.uint8), flag)   # EXIF orientation applied
            except cv2.error:
                image = None
            if image is None or image.ndim != 3 or image.size == 0:
                raise PhotoRefused(f"the {kind.upper()} file is damaged: it cannot be decoded")
            expected = {-(-width // factor), -(-height // factor)}
            if {image.shape[0], image.shape[1]} != expected:
                raise PhotoRefused(f"the {kind.upper()} file is damaged: its picture is not the size its header "
                                   "says")
            longer = max(image.shape[:2])
            if longer > KEPT_LONG_SIDE:
                scale = KEPT_LONG_SIDE / longer
                size = (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale)))
                image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
            kept = np.ascontiguousarray(image)
            del image                             # the whole picture freed here, before the memory is handed back
        finally:
            hand_back_memory()
    return kept


_DECODING = threading.Lock()


def hand_back_memory() -> None:
    """Give the memory freed by a decode back to the system (glibc's ``malloc_trim``; nothing elsewhere), so
    the Pi's memory after a burst of photos returns near where it was."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.lru_cache(maxsize=1)
def _malloc_trim() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


# ----------------------------------------------------------------- the store
def _write_whole(path: Path, data: bytes) -> None:
    """Write *data* to *path* whole or not at all: aside, flushed, renamed."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)      # gone once renamed; left behind only by a failed write


@dataclass(frozen=True)
class PhotoStore:
    """The dispute photos under one folder (the data directory's ``photos``)."""

    folder: Path

    def _game_folder(self, game_id: str) -> Path:
        if not _GAME_ID.fullmatch(game_id):
            raise LookupError(f"no such game: {game_id!r}")
        return self.folder / game_id

    def _paths(self, game_id: str, photo_id: str) -> tuple[Path, Path]:
        if not isinstance(photo_id, str) or not PHOTO_ID.fullmatch(photo_id):
            raise LookupError(f"no such photo: {photo_id!r}")
        folder = self._game_folder(game_id)
        return folder / f"{photo_id}.jpg", folder / f"{photo_id}.json"

    def add(self, game_id: str, image: np.ndarray, about: dict[str, Any]) -> str:
        """Keep *image* (a decoded photo) for *game_id* with *about* (what it
        is of: the turn, who brought it); returns its new id."""
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        if not ok:
            raise PhotoRefused("the photo could not be kept: it cannot be written as a JPEG")
        photo_id = "p-" + secrets.token_hex(6)
        folder = self._game_folder(game_id)
        folder.mkdir(parents=True, exist_ok=True)
        picture, facts = self._paths(game_id, photo_id)
        doc = {"photo": photo_id, "game_id": game_id, "at": time.time(),
               "size": [int(image.shape[1]), int(image.shape[0])], **about, "rulings": []}
        _write_whole(picture, jpeg.tobytes())
        _write_whole(facts, json.dumps(doc, indent=1).encode("utf-8"))
        return photo_id

    def about(self, game_id: str, photo_id: str) -> dict[str, Any]:
        """What is kept of a photo (its ``.json``); LookupError where there is none."""
        _picture, facts = self._paths(game_id, photo_id)
        try:
            doc: dict[str, Any] = json.loads(facts.read_text("utf-8"))
        except FileNotFoundError:
            raise LookupError(f"no such photo: {photo_id}") from None
        except (OSError, ValueError) as exc:
            raise LookupError(f"the photo {photo_id} cannot be read: {exc}") from None
        return doc

    def jpeg(self, game_id: str, photo_id: str) -> bytes:
        """The photo as it is kept (JPEG bytes)."""
        picture, _facts = self._paths(game_id, photo_id)
        try:
            return picture.read_bytes()
        except FileNotFoundError:
            raise LookupError(f"no such photo: {photo_id}") from None

    def image(self, game_id: str, photo_id: str) -> np.ndarray:
        """The photo as it is kept, decoded (BGR)."""
        found = cv2.imdecode(np.frombuffer(self.jpeg(game_id, photo_id), np.uint8), cv2.IMREAD_COLOR)
        if found is None:
            raise LookupError(f"the photo {photo_id} is damaged")
        return found

    def add_ruling(self, game_id: str, photo_id: str, ruling: dict[str, Any]) -> dict[str, Any]:
        """Keep a ruling made from the photo beside it; returns what is kept now."""
        doc = self.about(game_id, photo_id)
        doc["rulings"].append(ruling)
        _picture, facts = self._paths(game_id, photo_id)
        _write_whole(facts, json.dumps(doc, indent=1).encode("utf-8"))
        return doc

    def of_game(self, game_id: str) -> list[dict[str, Any]]:
        """What is kept of each photo of *game_id*, oldest first (a damaged one left out)."""
        folder = self._game_folder(game_id)
        out = []
        for facts in sorted(folder.glob("p-*.json")) if folder.is_dir() else []:
            try:
                out.append(self.about(game_id, facts.stem))
            except LookupError:
                continue
        return sorted(out, key=lambda d: d.get("at", 0))
