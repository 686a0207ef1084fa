"""Ordinary dice found and read in a picture by two small learnt networks.

The referee's players throw their own dice onto the board; the camera that
reads the men reads the throw from the same frames. Two networks, both run
by OpenCV on the CPU (``vision/data``):

1. the **finder** (``dice_finder.onnx``) looks at the picture in grey, scaled
   so that a die is about ``FINDER_DIE_PX`` pixels across, and gives a map of
   where dice lie (one cell every 4 pixels) with each die's width and height
   and where in its cell its centre lies. It learnt to see nothing where a
   die is far larger than that (not its pips, not its edges: a coarser look
   finds it). Where the board's corners are known, the scale follows from
   them (a first guess, :func:`die_px_of`), and each die's size is
   the finder's guess within ``BOARD_DIE_SHARE`` of that; where they are
   not, the picture is looked at in several scales, for dice from a few
   pixels across to a quarter of the picture;
2. the **face reader** (``dice_face.onnx``) looks at a grey square of 32
   pixels around each place found (turned four ways where one look leaves
   it in doubt) and gives the chance of each face on top, and of there
   being no die there at all (a man, a point, a pip of a larger die, two
   dice seen as one, a reflection): a square it takes for no die is
   dropped; a square whose face it is not sure of, where the finder is
   sure of a die, is read again a little off the finder's centre, larger
   and smaller (``NUDGES``), and a die whose face is still unsure (cocked
   against another die or the rail, half covered, blurred) is reported
   without a face, never guessed;
3. of the places left, one is chosen a die (:func:`chosen`): the same die
   seen at two scales once, two dice seen as one at a coarse look as two,
   and a large die's pips not as dice of their own.

With the board's corners, only dice on the board and its frame are reported
(dice in a cup or beside the board are not thrown dice).

Both networks learnt from the real photographs of the dice dataset
"Rune55" v3 (Roboflow Universe, workspace rune-zkmvl, licence CC BY 4.0),
its training part alone, and from boards the project's painter draws with
men beside the dice; ``tools/train_dice_reader.py`` made them
(``docs/dice-reader.md`` gives the command and the figures).

>>> reader = DiceReader()
>>> reader.read(np.full((240, 320, 3), 128, np.uint8))      # a grey picture: no die
[]
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

from .errors import FrameError
from .geometry import Corners, corners_array
from .onnx_nets import onnx_net

__all__ = ["SeenDie", "DiceReader", "chosen", "FINDER_PATH", "FACE_PATH", "die_px_of", "face_square", "normalised"]

DATA = Path(__file__).with_name("data")
FINDER_PATH = DATA / "dice_finder.onnx"
FACE_PATH = DATA / "dice_face.onnx"
FINDER_DIE_PX = 20.0       # how many pixels across the finder sees a die best
FINDER_PX = (9.0, 44.0)    # the sizes of dice it learnt to see, with a margin (it learnt 12 to 32)
FACE_SIZE = 32             # the face reader's square
FACE_MARGIN = 1.15         # the square's side, in sides of the die found
#: the least spread a square or picture is divided by when normalised (of grey in 0..1): a flat one stays flat
LEAST_SPREAD = 0.05
#: a square this much smaller than the die's place (or less) is cut from it shrunk by area first
SHRINK_FIRST = 0.8
#: a place holding two places apart, each this share of its size or more, is two dice seen as one (:func:`chosen`)
MERGED_SHARE = 0.35
#: the most squares the face reader is handed at once: a square costs OpenCV's classic engine about 1.2 ms on
#: one core here in batches of a few dozen or fewer, and a third as much again in one batch of 140
FACE_BATCH = 16
#: the face reader's chance of "no die" for a square read once above which its other turns are not read
SURELY_NO_DIE = 0.97
#: the face reader's chance of one face, for a square read once (with "no die" below one less this), above
#: which its other turns are not read either: on 300 held-out real pictures it left the dice read as they were
#: (one more read wrong, two more right of 1,271) and took a quarter less time
SURELY_READ = 0.97
#: on a board, the least and most size of a die, in shares of the size the board's corners give
BOARD_DIE_SHARE = (0.6, 2.5)
#: where a die's face square is also read from where its face is unsure: (x, y) off the finder's centre, in
#: sides of the die, and the square's side, in shares of the die's
NUDGES = ((0.0, -0.2, 1.0), (0.0, 0.2, 1.0), (-0.2, 0.0, 1.0), (0.2, 0.0, 1.0), (0.0, 0.0, 0.85), (0.0, 0.0, 1.2))
SURFACE_DEPTH_MM = 450.0   # the playing surface's depth, across its rows of points
#: a die's size in the picture in its edges, as the board's first guess has it (the finder measures the painted
#: boards' dice at about 1.3 times this, the real boards' photos' at about 1.4: the finder's own size is kept)
DIE_SEEN = 1.25 * 450.0 / 530.0
DIE_MM = 16.0              # an ordinary die's edge


@dataclass(frozen=True)
class SeenDie:
    """A die found in a picture: its face on top (None: not readable, and why),
    its centre and its side in the picture's pixels, and the chance of the face."""

    value: int | None
    center: tuple[float, float]
    side: float
    p: float
    why: str | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"value": self.value, "center": [round(self.center[0], 1), round(self.center[1], 1)],
                               "p": round(self.p, 4)}
        if self.why:
            doc["why"] = self.why
        return doc


@dataclass(frozen=True)
class DiceReaderSettings:
    """The dice reader's numbers."""

    #: the least height of the finder's map at a die's centre
    min_found: float = 0.3
    #: the least chance of the face on top for it to be reported; below, the die is reported without one
    min_face: float = 0.9
    #: the chance of "no die" above which a square found is dropped
    max_no_die: float = 0.15
    #: the least side of a die, in the picture's pixels, whose face is read (a smaller one is reported without)
    min_face_px: float = 12.0
    #: the least height of the finder's map for a die whose face is not read to be reported at all (below, the
    #: finder and the face reader both doubt it is a die), and for its square to be read again off centre
    #: (``NUDGES``; below, half the dice those reads gave were false reports, on 300 held-out real pictures)
    min_found_unread: float = 0.5
    #: the sizes of dice looked for where the board's corners are not known, in pixels across
    search_px: tuple[float, ...] = field(default=(14.0, 24.0, 40.0, 66.0, 110.0, 180.0))
    #: how far off the board's surface a die may lie and still count, in shares of the surface's size
    frame_share: float = 0.08
    #: how many pixels across the finder is shown a die where the board's corners give its size (fewer than it
    #: sees best, FINDER_DIE_PX, but within the 12 to 32 it learnt: fewer pixels to look at, at the table)
    board_die_px: float = 16.0
    #: how many ways each square is turned and read, the chances averaged: 4 (where one look leaves it in
    #: doubt, ``SURELY_READ``), or 1 always (for the shipped face reader, fewer dice left unsure but more read
    #: wrong, and more reports of no die)
    face_turns: int = 4

    def __post_init__(self) -> None:
        if self.face_turns not in (1, 4):
            raise ValueError(f"face_turns must be 1 or 4, not {self.face_turns!r}")


def die_px_of(corners: Corners, die_mm: float = DIE_MM) -> float:
    """About how many pixels across a die is on the board with *corners*: the board's first guess, which the
    finder's own size is then kept near (``BOARD_DIE_SHARE``; the reader's other numbers were chosen with it)."""
    c = corners_array(corners)
    # pixels a millimetre across the rows of points: C2 (point 12) to C3 (point 13), C1 (point 1) to C4 (point 24)
    across = 0.5 * (float(np.linalg.norm(c[1] - c[2])) + float(np.linalg.norm(c[0] - c[3]))) / SURFACE_DEPTH_MM
    return across * die_mm * DIE_SEEN


def _net(path: Path) -> "cv2.dnn.Net":
    try:
        return onnx_net(path, classic=True)
    except FileNotFoundError:
        raise FrameError(f"the dice reader's network {path.name} is not installed (vision/data)") from None


def normalised(x: np.ndarray) -> np.ndarray:
    """Each square to zero mean and unit spread, as the networks learnt."""
    axes = tuple(range(1, x.ndim))
    m = x.mean(axis=axes, keepdims=True)
    s = x.std(axis=axes, keepdims=True)
    out: np.ndarray = ((x - m) / np.maximum(s, LEAST_SPREAD)).astype(np.float32)
    return out


def face_square(grey: np.ndarray, cx: float, cy: float, side: float, angle: float = 0.0) -> np.ndarray:
    """The ``FACE_SIZE`` square of *grey* centred at (*cx*, *cy*), *side* pixels across, turned by *angle*
    degrees (reflected past the picture's edge): what the face reader reads, at training and at run time.

    A die much larger than the square is first shrunk by area round its place (cut straight from a
    large die the square would keep only every few pixels, and its pips could fall between them)."""
    scale = FACE_SIZE / max(side, 1.0)
    if scale < SHRINK_FIRST:
        half = int(math.ceil(side * 0.75)) + 2        # the square turned by any angle lies within
        x0, y0 = int(round(cx)) - half, int(round(cy)) - half
        h, w = grey.shape[:2]
        if x0 >= 0 and y0 >= 0 and x0 + 2 * half <= w and y0 + 2 * half <= h:
            small = max(FACE_SIZE, int(round(2 * half * scale)))
            f = small / (2 * half)
            grey = cv2.resize(grey[y0:y0 + 2 * half, x0:x0 + 2 * half], (small, small), interpolation=cv2.INTER_AREA)
            cx, cy, scale = (cx - x0) * f, (cy - y0) * f, scale / f
    m = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    m[:, 2] += np.array([FACE_SIZE / 2 - cx, FACE_SIZE / 2 - cy])
    out: np.ndarray = cv2.warpAffine(grey, m, (FACE_SIZE, FACE_SIZE), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REFLECT)
    return out


def _peak_offset(z: np.ndarray, i: int, j: int) -> tuple[float, float]:
    """Where between the cells round (i, j) the peak of map *z* lies (a parabola through each row's and
    column's three cells), in cells: finer than one cell in four pixels."""
    def along(a: float, b: float, c: float) -> float:
        bend = a - 2 * b + c
        return 0.0 if bend >= 0 else max(-0.5, min(0.5, 0.5 * (a - c) / bend))

    h, w = z.shape
    dx = along(float(z[i, j - 1]), float(z[i, j]), float(z[i, j + 1])) if 0 < j < w - 1 else 0.0
    dy = along(float(z[i - 1, j]), float(z[i, j]), float(z[i + 1, j])) if 0 < i < h - 1 else 0.0
    return dx, dy


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


class DiceReader:
    """The dice in a picture (see the module docstring). Made once; :meth:`read` per picture."""

    def __init__(self, finder_path: str | os.PathLike[str] = FINDER_PATH,
                 face_path: str | os.PathLike[str] = FACE_PATH,
                 settings: DiceReaderSettings = DiceReaderSettings()) -> None:
        self._finder = _net(Path(finder_path))
        self._face = _net(Path(face_path))
        self.settings = settings

    def read(self, image: np.ndarray, corners: Corners | None = None, die_mm: float = DIE_MM) -> list[SeenDie]:
        """The dice in *image* (BGR or grey), most surely found first; with
        *corners* (C1..C4 of the playing surface), only those on the board and its frame."""
        if image is None or image.ndim not in (2, 3) or image.size == 0:
            raise FrameError("the dice reader needs a picture")
        region = None
        ox = oy = 0
        if corners is not None:
            c = corners_array(corners)
            sizes = [die_px_of(c, die_mm)]
            centre = c.mean(axis=0)
            region = (centre + (c - centre) * (1.0 + 2 * self.settings.frame_share)).astype(np.float32)
            # only the board, its frame and the squares of dice on them are looked at: in a large
            # photograph the grey of the whole costs more than finding the dice
            pad = int(math.ceil(1.5 * BOARD_DIE_SHARE[1] * sizes[0])) + 2
            bx, by, bw, bh = cv2.boundingRect(region)
            ox, oy = max(0, bx - pad), max(0, by - pad)
            image = image[oy:max(oy, by + bh + pad), ox:max(ox, bx + bw + pad)]
            region -= np.array([ox, oy], np.float32)
            if image.size == 0:
                return []                           # the board lies outside the picture
        else:
            sizes = list(self.settings.search_px)
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        grey = np.ascontiguousarray(grey, np.uint8)
        found = self.find_places(grey, sizes, region, shown_px=self.settings.board_die_px if region is not None
                                 else FINDER_DIE_PX)
        if region is not None:
            # the corners say about how large a die is, the finder how large this one is: boards and dice
            # differ (a travel board's dice look larger than a club board's), so its guess is kept, within
            # what a die on this board can be
            low, high = BOARD_DIE_SHARE[0] * sizes[0], BOARD_DIE_SHARE[1] * sizes[0]
            found = [(x, y, min(max(side, low), high), score) for x, y, side, score in found]
        seen = self._faces(grey, found)
        if ox or oy:
            seen = [replace(d, center=(d.center[0] + ox, d.center[1] + oy)) for d in seen]
        return seen

    def find_places(self, grey: np.ndarray, sizes: Sequence[float], region: np.ndarray | None = None,
                    shown_px: float = FINDER_DIE_PX) -> list[tuple[float, float, float, float]]:
        """(x, y, side, score) of each place the finder takes for a die in *grey*, looking for dice
        *sizes* pixels across (within *region*, a polygon, where given; each size scaled to *shown_px*
        for the finder), the surest first. The same die may be seen at more than one size: the face
        reader chooses among them (:meth:`read`)."""
        s = self.settings
        h, w = grey.shape
        x0 = y0 = 0
        if region is not None:                       # look only round the board
            bx, by, bw, bh = cv2.boundingRect(region)
            x0, y0 = max(0, bx), max(0, by)
            grey = grey[y0:min(h, by + bh), x0:min(w, bx + bw)]
            h, w = grey.shape
            if h < 8 or w < 8:
                return []
        out: list[tuple[float, float, float, float]] = []
        for size in sizes:
            scale = shown_px / size
            sw, sh = max(8, round(w * scale)), max(8, round(h * scale))
            if max(sw, sh) > 2400 or min(sw, sh) < 16:
                continue
            # averaged over each pixel's area where shrunk to less than half (a straight look would miss
            # pips and edges); shrunk less, a straight look loses nothing the finder needs (the same dice
            # found on the painted and the real boards) at a fraction of the averaging's cost
            small = cv2.resize(grey, (sw, sh), interpolation=cv2.INTER_AREA if scale < 0.5 else cv2.INTER_LINEAR)
            pw, ph = -sw % 16, -sh % 16             # the finder halves the picture four times
            small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
            # normalised() of the picture in 0..1, without a float copy of the picture first
            mean, spread = cv2.meanStdDev(small)
            x = small.astype(np.float32)[None, None]
            x -= np.float32(mean[0, 0])
            x *= np.float32(1.0 / max(float(spread[0, 0]), LEAST_SPREAD * 255.0))
            self._finder.setInput(x)
            maps = self._finder.forward()[0]
            heat = 1.0 / (1.0 + np.exp(-maps[0]))
            peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > s.min_found)
            for i, j in zip(*np.nonzero(peaks)):
                seen_px = float(max(maps[1, i, j], maps[2, i, j])) * 32.0
                if not FINDER_PX[0] <= seen_px <= FINDER_PX[1]:
                    continue                        # a size this scale does not see rightly (a pip, a patch)
                if len(maps) >= 5:                  # the finder says where in its cell the centre lies
                    dx, dy = float(np.clip(maps[3, i, j], -1, 1)), float(np.clip(maps[4, i, j], -1, 1))
                else:
                    dx, dy = _peak_offset(maps[0], i, j)
                cx = ((j + dx) * 4 + 2) / scale + x0
                cy = ((i + dy) * 4 + 2) / scale + y0
                out.append((cx, cy, seen_px / scale, float(heat[i, j])))
        if region is not None:
            out = [d for d in out if cv2.pointPolygonTest(region, (d[0], d[1]), False) >= 0]
        out.sort(key=lambda d: -d[3])
        return out

    def _faces(self, grey: np.ndarray, found: list[tuple[float, float, float, float]]) -> list[SeenDie]:
        """Each place found with its face read (:meth:`_read_squares`; where that leaves the face unsure and
        the finder is sure enough of the die to report it unread, the square also read a little off the
        finder's centre and larger and smaller, ``NUDGES``, and the surest read kept), the places of no die
        dropped, and of the rest one report a die (:func:`chosen`), at the place the finder found it."""
        if not found:
            return []
        s = self.settings
        probs = self._read_squares(grey, found)
        unsure = [n for n, p in enumerate(probs) if p[0] <= s.max_no_die and p[1:].max() < s.min_face * p[1:].sum()
                  and found[n][3] >= s.min_found_unread]
        if unsure:
            # a finder's centre or size a little off cuts a pip from the square, or the next die's into it
            moved = [(x + dx * side, y + dy * side, side * grow, score)
                     for x, y, side, score in (found[n] for n in unsure) for dx, dy, grow in NUDGES]
            tried = self._read_squares(grey, moved).reshape(len(unsure), len(NUDGES), -1)
            for n, t in zip(unsure, tried):
                best = int(np.argmax((1.0 - t[:, 0]) * t[:, 1:].max(axis=1)))
                if t[best, 1:].max() > probs[n, 1:].max():
                    # the face as read off centre; whether a die lies there, the surer "no" of the two reads
                    probs[n] = np.concatenate([[max(probs[n, 0], t[best, 0])], t[best, 1:]])
        places = []
        for (cx, cy, side, score), p in zip(found, probs):
            if p[0] > s.max_no_die:
                continue
            faces = p[1:] / max(1e-9, float(p[1:].sum()))
            k = int(np.argmax(faces))
            if (side < s.min_face_px or faces[k] < s.min_face) and score < s.min_found_unread:
                continue
            if side < s.min_face_px:
                die = SeenDie(None, (cx, cy), side, 0.0, why="too small to read")
            elif faces[k] >= s.min_face:
                die = SeenDie(k + 1, (cx, cy), side, float(faces[k]))
            else:
                die = SeenDie(None, (cx, cy), side, 0.0, why="unreadable")
            places.append((die, score * (1.0 - float(p[0])) * float(faces[k])))
        return chosen(places)

    def _read_squares(self, grey: np.ndarray, places: Sequence[tuple[float, float, float, float]]) -> np.ndarray:
        """The face reader's chances (no die, then the faces 1..6) for the square round each place: read as
        it lies, and with four turns (``face_turns``), where that leaves it in doubt (neither surely no die,
        as most places on a board are, men and points, nor surely one face), its other three turns read
        too and the four averaged."""
        def read(which: Sequence[tuple[int, int]]) -> np.ndarray:
            squares = [face_square(grey, places[n][0], places[n][1], places[n][2] * FACE_MARGIN, 90.0 * turn)
                       for n, turn in which]
            x = normalised(np.stack(squares).astype(np.float32)[:, None] / 255.0)
            chances = []
            for start in range(0, len(x), FACE_BATCH):
                self._face.setInput(x[start:start + FACE_BATCH])
                chances.append(_softmax(self._face.forward()))
            return np.concatenate(chances)

        out: np.ndarray = read([(n, 0) for n in range(len(places))])
        if self.settings.face_turns == 1:
            return out
        doubt = [n for n, p in enumerate(out)
                 if p[0] < SURELY_NO_DIE and not (p[0] < 1.0 - SURELY_READ and p[1:].max() >= SURELY_READ)]
        if doubt:
            turned = read([(n, turn) for turn in (1, 2, 3) for n in doubt]).reshape(3, len(doubt), -1)
            out[doubt] = (out[doubt] + turned.sum(axis=0)) / 4.0
        return out


def chosen(places: list[tuple[SeenDie, float]]) -> list[SeenDie]:
    """One report a die, of places seen at one size or several (each with how sure it is a die), the
    surest first.

    Dice do not lie inside dice: where a larger place holds two smaller ones apart, each at least
    ``MERGED_SHARE`` of its size, it is two dice seen as one (at too coarse a look) and is dropped;
    a place smaller than that share within a larger one that stays is one of its pips, and dropped; of
    the same die seen at two sizes, the surer is kept."""
    def inside(small: SeenDie, big: SeenDie) -> bool:
        return small.side < big.side and math.hypot(small.center[0] - big.center[0],
                                                    small.center[1] - big.center[1]) < 0.5 * big.side

    def apart(a: SeenDie, b: SeenDie) -> bool:
        return math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) > 0.7 * max(a.side, b.side)

    merged = set()
    for n, (big, _) in enumerate(places):
        parts = [d for d, _ in places if inside(d, big) and d.side >= MERGED_SHARE * big.side]
        if any(apart(a, b) for i, a in enumerate(parts) for b in parts[i + 1:]):
            merged.add(n)
    # a place far smaller than a die it lies in (and not two dice seen as one) is one of that die's pips
    pips = {n for n, (d, _) in enumerate(places)
            if any(m not in merged and inside(d, big) and d.side < MERGED_SHARE * big.side
                   for m, (big, _) in enumerate(places))}
    kept: list[SeenDie] = []
    for n, (die, _) in sorted(enumerate(places), key=lambda e: -e[1][1]):
        if n in merged or n in pips:
            continue
        if all(not inside(die, k) and not inside(k, die) and apart(die, k) for k in kept):
            kept.append(die)
    return kept
