"""The point reader: a small convolutional network that reads a point's men
from its strip (``strips``), and the frame's other points.

Each point's strip goes through the same layers; then each point's
features are joined with their mean and maximum over the frame's 24 points
before the two outputs, so what a point is read as can depend on the rest
of the frame (how thick this set of men stands, how the light falls, how
the other piles look).  The network is therefore always given a whole
frame, 24 strips at once.

Nearly all of its time goes on the first part, each strip alone.  So it
also ships in two parts (``point_reader_points.onnx``, each strip to its
own features, and ``point_reader_frame.onnx``, the 24 points' features to
the outputs; cut from the whole by ``tools/split_point_reader.py``), and
:func:`read_frame` puts the first part only to the strips whose picture
changed since the reader read them (``point_memory``), the frame's part to
all 24.  The parts are used only where they answer a probe frame as the
whole network does.

It was trained offline on frames of the project's own generator
(``tools/point_reader_data.py``, ``tools/train_point_reader.py``, then
``tools/train_frame_reader.py``; never on the dev set, which is kept for
evaluation) and ships as an ONNX file in
``vision/data/``; OpenCV's own inference runs it on the CPU, so nothing is
downloaded and no other library is needed at run time.

For each point it gives a probability for every reading: empty, 1..15
light men, 1..15 dark men; and for the men at the edge: laid flat, a pile
of 2, a pile of 3.  The most probable reading is the answer and its
probability is the location's confidence, so a point the network is unsure
of is one the companion asks about.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from . import starts
from .classes import CLASS_COLOUR, CLASS_MEN, DARK, MEN_PER_SIDE, MOST_MEN, PILE_HEIGHT, POINTS, point_class
from .errors import VisionError
from .onnx_nets import onnx_net
from .strips import AUX, CHANNELS, STRIP_PX, Strips

__all__ = ["MODEL_PATH", "PointReading", "read_points", "decide", "prefer_starts", "probabilities", "probabilities_and_features", "available",
           "FrameRead", "read_frame"]

MODEL_PATH = Path(__file__).with_name("data") / "point_reader.onnx"
SPLIT_TENSOR = "points"    # the tensor between the network's two parts (tools/split_point_reader.py)
SECOND_LOOK = 0.0    # off; with a value above 0 the frame is read again, mirrored, when a point is read with less


@dataclass(frozen=True)
class PointReading:
    colour: str          # "light" or "dark" ("light" with count 0 for an empty point)
    count: int
    stacked: int
    confidence: float    # probability of this count and colour
    pile_confidence: float
    layout: str = ""     # the start layout (``starts``) this side was read as, if any


@lru_cache(maxsize=2)
def _net(path: str) -> cv2.dnn.Net:
    try:
        return onnx_net(path)
    except (cv2.error, OSError) as exc:
        raise VisionError(f"cannot load the point reader {path}: {exc}") from None


def available(path: Path = MODEL_PATH) -> bool:
    """Whether the trained point reader is installed."""
    return path.is_file()


def _forward(strips: Strips, path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    if len(strips.maps) != POINTS:
        raise VisionError(f"the point reader reads a whole frame, {POINTS} strips, not {len(strips.maps)}")
    net = _net(str(path))
    net.setInput(np.ascontiguousarray(strips.maps, np.float32), "maps")
    net.setInput(np.ascontiguousarray(strips.aux, np.float32), "aux")
    # count and pile, and ``features`` (what the layers before them make of each point) in a network
    # exported since the reader learns boards (``board_head``)
    if "features" in net.getUnconnectedOutLayersNames():
        count, pile, features = net.forward(["count", "pile", "features"])
        return count, pile, features
    count, pile = net.forward(["count", "pile"])
    return count, pile, None


def probabilities(strips: Strips, path: Path = MODEL_PATH,
                  second_look: float = SECOND_LOOK) -> tuple[np.ndarray, np.ndarray]:
    """(24, 31) count probabilities and (24, 3) pile probabilities of the
    frame's 24 points (*strips*, read together).

    With *second_look* above 0, a frame with a point whose most probable
    reading has less than it is read a second time, mirrored across each
    point's axis (``Strips.mirrored``; the network was trained on points
    both ways round), and the points in doubt take the mean of the two
    readings.  It is off: the network reads the frame as a whole, so a
    second look is a whole second pass (about 16 ms, on most frames with a
    pile), and over six sets (760 clear boards) it read 3 more of them
    exactly (docs/point-reader.md)."""
    count, pile, _ = _forward(strips, path)
    unsure = np.flatnonzero(count.max(axis=1) < second_look)
    if unsure.size:
        count2, pile2, _ = _forward(strips.mirrored(), path)
        count, pile = count.copy(), pile.copy()
        count[unsure] = (count[unsure] + count2[unsure]) / 2
        pile[unsure] = (pile[unsure] + pile2[unsure]) / 2
    return count, pile


def _part_paths(path: Path) -> tuple[Path, Path]:
    """Where the two parts of the frame network *path* lie (``tools/split_point_reader.py``)."""
    return path.with_name(path.stem + "_points.onnx"), path.with_name(path.stem + "_frame.onnx")


@lru_cache(maxsize=2)
def _parts(path: str) -> tuple[cv2.dnn.Net, cv2.dnn.Net] | None:
    """The frame network *path* in its two parts, the strips' own layers and
    the frame's (see :class:`FrameRead`); None where they are not installed
    beside it, or do not answer a probe frame as the whole network does (a
    network trained again and not split again): then it is read whole."""
    points_path, frame_path = _part_paths(Path(path))
    if not (points_path.is_file() and frame_path.is_file()):
        return None
    try:
        points_net, frame_net = _net(str(points_path)), _net(str(frame_path))
    except VisionError:                 # spoilt: the whole network still reads every point
        return None
    probe = np.random.default_rng(0)
    maps = probe.uniform(-1, 1, (POINTS, CHANNELS, STRIP_PX[1], STRIP_PX[0])).astype(np.float32)
    aux = probe.uniform(-1, 1, (POINTS, AUX)).astype(np.float32)
    whole = _net(path)
    whole.setInput(maps, "maps")
    whole.setInput(aux, "aux")
    expected = whole.forward(list(whole.getUnconnectedOutLayersNames()))[:2]
    try:
        points_net.setInput(maps, "maps")
        points_net.setInput(aux, "aux")
        frame_net.setInput(points_net.forward(SPLIT_TENSOR), SPLIT_TENSOR)
        got = frame_net.forward(["count", "pile", "features"])[:2]
    except cv2.error:                   # not this network's parts at all
        return None
    if any(float(np.abs(a - b).max()) > 1e-4 for a, b in zip(expected, got)):
        return None
    return points_net, frame_net


@dataclass(frozen=True)
class FrameRead:
    """The point reader's reading of a frame (:func:`read_frame`)."""

    count: np.ndarray               #: (24, 31) count probabilities
    pile: np.ndarray                #: (24, 3) pile probabilities
    features: np.ndarray | None     #: (24, 160) the input of the count's last layer (``board_head``)
    #: (24, 160) each strip's own features, the first part's output (None where read whole)
    points: np.ndarray | None = None
    #: which points the first part read in this frame (the rest were known); all where read whole
    read: np.ndarray | None = None


def read_frame(strips: Strips, path: Path = MODEL_PATH, known: np.ndarray | None = None,
               same: np.ndarray | None = None) -> FrameRead:
    """The frame's 24 points read (as :func:`probabilities_and_features`).
    Where the network is installed in its two parts, each strip goes
    through the first part alone, and *known* (each strip's own features
    from an earlier frame, (24, 160)) stands in for the points *same* says
    have the same picture as when they were read: only the others are read
    again, and the frame's part then sees all 24.  A point's strip read by
    the first part gives the same numbers as the whole network's."""
    parts = _parts(str(path))
    if parts is None:
        count, pile, features = _forward(strips, path)
        return FrameRead(count, pile, features, None, np.ones(POINTS, bool))
    if len(strips.maps) != POINTS:
        raise VisionError(f"the point reader reads a whole frame, {POINTS} strips, not {len(strips.maps)}")
    points_net, frame_net = parts
    read = np.ones(POINTS, bool) if known is None or same is None else ~np.asarray(same, bool)
    points: np.ndarray | None = np.array(known, np.float32) if not read.all() else None
    if read.any():
        points_net.setInput(np.ascontiguousarray(strips.maps[read], np.float32), "maps")
        points_net.setInput(np.ascontiguousarray(strips.aux[read], np.float32), "aux")
        fresh = points_net.forward(SPLIT_TENSOR)
        if points is None:
            points = fresh
        else:
            points[read] = fresh
    frame_net.setInput(np.ascontiguousarray(points, np.float32), SPLIT_TENSOR)
    count, pile, features = frame_net.forward(["count", "pile", "features"])
    return FrameRead(count, pile, features, points, read)


def probabilities_and_features(strips: Strips, path: Path = MODEL_PATH
                               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """As :func:`probabilities` (one look), and each point's features
    ((24, 160): the input of the count's last layer, which ``board_head``
    adapts to a board on); None for a network without that output."""
    return _forward(strips, path)


def _decode(logp: np.ndarray, capacity: tuple[int, int]) -> list[int]:
    """The most probable class of each point such that no colour has more
    men on the points than *capacity* (light, dark): the men a side has
    less those on the bar.  A dynamic programme over (light men so far, dark men so far)."""
    n_points = logp.shape[0]
    cap_l, cap_d = max(0, capacity[0]), max(0, capacity[1])
    neg = -np.inf
    dp = np.full((cap_l + 1, cap_d + 1), neg)
    dp[0, 0] = 0.0
    choice = np.zeros((n_points, cap_l + 1, cap_d + 1), np.int16)
    # the classes a point may take, in the order ties are settled (the first wins): empty, then n light
    # and n dark men for n = 1, 2, ...; each a shift of the table by the men it adds
    shifts = [(0, 0, 0)]
    for n in range(1, MOST_MEN + 1):
        if n <= cap_l:
            shifts.append((point_class("light", n), n, 0))
        if n <= cap_d:
            shifts.append((point_class("dark", n), 0, n))
    klass = np.array([k for k, _, _ in shifts], np.int16)
    # the table padded with MOST_MEN impossible rows and columns before it: a shift is then one slice of
    # it, and all the shifts are gathered at once
    pad = MOST_MEN
    rows = pad - np.array([dl for _, dl, _ in shifts])[:, None, None] + np.arange(cap_l + 1)[None, :, None]
    cols = pad - np.array([dd for _, _, dd in shifts])[:, None, None] + np.arange(cap_d + 1)[None, None, :]
    flat = (rows * (cap_d + pad + 1) + cols).ravel()
    gains = logp[:, klass.astype(np.intp)][:, :, None]
    padded = np.full((cap_l + pad + 1, cap_d + pad + 1), neg)
    for p in range(n_points):
        padded[pad:, pad:] = dp
        cand = padded.take(flat).reshape(len(shifts), -1) + gains[p]
        arg = cand.argmax(axis=0)
        dp, choice[p] = cand.max(axis=0).reshape(dp.shape), klass[arg].reshape(dp.shape)
    l, d = np.unravel_index(int(np.argmax(dp)), dp.shape)
    out = [0] * n_points
    for p in range(n_points - 1, -1, -1):
        k = int(choice[p, l, d])
        out[p] = k
        if CLASS_COLOUR[k] == DARK:
            d -= int(CLASS_MEN[k])
        else:
            l -= int(CLASS_MEN[k])
    return out


def read_points(strips: Strips, path: Path = MODEL_PATH, capacity: tuple[int, int] = (MEN_PER_SIDE, MEN_PER_SIDE),
                starts_first: bool = True, men: int = MEN_PER_SIDE) -> list[PointReading]:
    """The most probable reading of each of the 24 points, with no more than
    *capacity* (light, dark) men of a colour on the points in all (each side
    has *men* men, the game's: those on the bar are not on the points), and,
    unless *starts_first* is false, a side read as a game's start layout
    where the picture leaves it unsure (``starts``)."""
    count, pile = probabilities(strips, path)
    readings = decide(count, pile, capacity)
    return prefer_starts(count, pile, readings, capacity, men) if starts_first else readings


def prefer_starts(count: np.ndarray, pile: np.ndarray, readings: list[PointReading],
                  capacity: tuple[int, int] = (MEN_PER_SIDE, MEN_PER_SIDE),
                  men: int = MEN_PER_SIDE) -> list[PointReading]:
    """*readings*, with each side whose men the probabilities explain nearly
    as well (within ``starts.MARGIN``) by a game's start layout read as
    that layout.  A side with men on the bar (capacity below *men*, the
    men a side has in the game) is left alone, and so is a layout that
    would put men where the other colour was read, or more men than the
    side has.  The confidence of a point so read is the layout's chance
    against the network's own reading, with the layout favoured by the
    margin."""
    out = list(readings)
    for side, cap in (("light", capacity[0]), ("dark", capacity[1])):
        if cap != men:
            continue
        mine = {p: (r.count, r.stacked) for p, r in enumerate(out, start=1) if r.count and r.colour == side}
        theirs = {p for p, r in enumerate(out, start=1) if r.count and r.colour != side}
        best = starts.best_log_likelihood(count, pile, side)
        choice = None
        for layout in starts.LAYOUTS:
            points = starts.layout_points(layout, side)
            if points == mine:          # read so already
                choice = None
                break
            if points.keys() & theirs or sum(n for n, _ in points.values()) > men:
                continue
            gap = best - starts.side_log_likelihood(count, pile, side, points)
            if gap <= starts.MARGIN and (choice is None or gap < choice[0]):
                choice = (gap, layout.name, points)
        if choice is None:
            continue
        gap, name, points = choice
        chance = float(1.0 / (1.0 + np.exp(gap - starts.MARGIN)))
        for p in range(1, 25):
            if p in points:
                n, stacked = points[p]
                out[p - 1] = PointReading(side, n, stacked, chance, 1.0, name)
            elif out[p - 1].count and out[p - 1].colour == side:
                out[p - 1] = PointReading("light", 0, 0, chance, 1.0)
    return out


def decide(count: np.ndarray, pile: np.ndarray,
           capacity: tuple[int, int] = (MEN_PER_SIDE, MEN_PER_SIDE)) -> list[PointReading]:
    """The readings from the point reader's probabilities (``probabilities``)."""
    classes = [int(np.argmax(pc)) for pc in count]
    light = sum(int(CLASS_MEN[k]) for k in classes if CLASS_COLOUR[k] != DARK)
    dark = sum(int(CLASS_MEN[k]) for k in classes if CLASS_COLOUR[k] == DARK)
    if light > capacity[0] or dark > capacity[1]:
        classes = _decode(np.log(np.maximum(count, 1e-12)), capacity)
    out = []
    for k, pc, pp in zip(classes, count, pile):
        colour = "dark" if CLASS_COLOUR[k] == DARK else "light"
        n = int(CLASS_MEN[k])
        j = int(np.argmax(pp)) if n >= 2 else 0
        stacked = min(PILE_HEIGHT[j], n)
        out.append(PointReading(colour, n, stacked, float(pc[k]), float(pp[j]) if n >= 2 else 1.0))
    return out
