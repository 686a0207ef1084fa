"""From a camera frame and the board's four corners to a board reading.

Stages, each a function of ``(config, image)`` (its numbers in ``config.py``):

1. **rectify** -- the playing surface warped top-down, ``config.scale`` px
   per mm, origin at corner C3 (``geometry``); the camera's place over the
   board is recovered from the same corners (``camera``);
2. **learn** -- the board's own look (its two point colours, the field, the
   bar) from the parts of the board the layout says are there, and the two
   colours of men from the round tops of men found in the picture: nothing
   hand-tuned per board;
3. **evidence** -- for each pixel, how much better it fits a light (or dark)
   man than the bare board at that place;
4. **count** -- for each point the arrangement of men (count, colour, piles)
   that best explains the picture (``counting``); the bar from the men found
   on it;
5. **trust** -- a confidence per location, and a refusal where the frame
   cannot be read (a hand over the board).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

import cv2
import numpy as np

from .board_head import BoardHead, board_classes_of, contradicted
from .classes import MEN_PER_SIDE
from .board_layout import BoardLayout, confirms, find_layout
from .camera import camera_from_corners
from .config import VisionConfig
from .dice import Die, find_dice
from .errors import VisionError
from .counting import PointFit, fit_point, outlines
from . import pointnet
from .surface_depth import depth_from_men
from .occlusion import check_frame, covered_why, rails_picture
from .strips import Strips, point_strips
from .geometry import BoardGeometry, Corners, homography
from .point_memory import PointMemory, smoothed, strip_pictures, unchanged_points
from .board_look import (BoardModel, Look, Man, _lab, _lab3, _lighter_group, _men_colours, evidence,  # noqa: F401
                         learn_board)

__all__ = ["METHODS", "Reading", "Man", "read_board", "rectify", "detect_men", "BoardModel", "Look", "learn_look",
           "observe", "Observation", "board_config", "forget_layouts"]

PILES = (0,)         # pile heights tried at a point's edge (0: men laid flat)
# how to count the men on the points: the trained point reader preferring
# the games' start layouts where it is unsure ("net"), the same without the
# start layouts ("net-alone"), fitting arrangements of men ("fit"), or the
# point reader when installed and fitting otherwise ("auto")
METHODS = ("auto", "net", "net-alone", "fit")


@dataclass
class Reading:
    """What the camera saw: counts per location and colour, and how sure it is."""

    light: list[int]
    dark: list[int]
    bar: dict[str, int]
    stacked: dict[str, list[int]]
    confidence: float
    location_confidence: dict[str, float]
    settled: bool
    occluded: bool = False
    #: why the frame was refused as covered, in a player's words (None where it was not)
    occluded_why: str | None = None
    men: list[Man] = field(default_factory=list)
    dice: list[Die] = field(default_factory=list)
    millis: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: the point reader's probabilities, where it read the frame: (24, 31) for
    #: each point (index p-1) over empty, 1..15 light, 1..15 dark men, and
    #: (24, 3) over the men at the edge laid flat, a pile of 2, of 3
    count_probs: np.ndarray | None = None
    pile_probs: np.ndarray | None = None
    #: the playing surface as rectified for this read (``rectify``, with the
    #: configuration's margin), for comparing with the next frame
    #: (``turns.rectified``) without warping the frame again
    rect: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: ... and the same in 8-bit Lab (``cv2.COLOR_BGR2Lab``), as the read converted it
    rect_lab8: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: the configuration the frame was read with: the one given, with this
    #: board's own layout (``board_layout``) where it was found; *rect* is in its frame
    config: VisionConfig | None = field(default=None, repr=False, compare=False)
    #: each point's features in the point reader ((24, 160), ``pointnet.probabilities_and_features``) and
    #: its own count probabilities before what it learnt of this board (``Look.head``) was applied: what
    #: the board's head learns from once the referee knows the board (``learn_board``)
    point_features: np.ndarray | None = field(default=None, repr=False, compare=False)
    net_count_probs: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: the playing surface as the check for a hand saw it (``occlusion.FrameCheck.surface``): the next
    #: frame's *recent* once this one settled
    surface_seen: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: ... and smoothed for comparing frames (``point_memory.smoothed``, as ``turns.rectified`` smooths it)
    rect_smoothed: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: what the point reader read of each point, and from which picture: the next frame's *earlier*
    #: (``point_memory``; None where the network is read whole)
    point_memory: PointMemory | None = field(default=None, repr=False, compare=False)
    #: which points the point reader read from this frame's picture (the others' features were read from the
    #: same picture in a frame before: *earlier*); None where it did not read the frame
    points_read: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: how many frames of this board beyond its start the point reader had learnt when it read this one
    #: (``Look.head``; 0 where nothing was learnt)
    learnt_frames: int = 0
    #: how many men a side has in the game the frame was read for (``read_board``'s *men_per_side*)
    men_per_side: int = MEN_PER_SIDE

    def to_board(self, men_per_side: int | None = None) -> dict[str, Any]:
        """The board document of this reading (``vision read``), with its
        confidence.  The men not seen on the points or the bar are off: of
        *men_per_side* a side (by default the game's, as read: 15 in most
        games; 12 in some of the old ones), so a game of fewer men is not
        read as men missing.

        >>> r = Reading([0] * 23 + [12], [12] + [0] * 23, {"light": 0, "dark": 0},
        ...             {"light": [0] * 24, "dark": [0] * 24}, 1.0, {}, True)
        >>> r.to_board()["off"], r.to_board(men_per_side=12)["off"]
        ({'light': 3, 'dark': 3}, {'light': 0, 'dark': 0})
        """
        if men_per_side is None:
            men_per_side = self.men_per_side
        if isinstance(men_per_side, bool) or not isinstance(men_per_side, int) or men_per_side < 1:
            raise ValueError(f"men_per_side must be a whole number of at least 1, not {men_per_side!r}")
        return {
            "format": "board/1",
            "light": list(self.light),
            "dark": list(self.dark),
            "bar": dict(self.bar),
            "off": {"light": max(0, men_per_side - sum(self.light) - self.bar["light"]),
                    "dark": max(0, men_per_side - sum(self.dark) - self.bar["dark"])},
            "stacked": {k: list(v) for k, v in self.stacked.items()},
            "confidence": round(self.confidence, 3),
            "settled": self.settled,
        }


def rectify(config: VisionConfig, image: np.ndarray, corners: Corners,
            margin: float = 0.0) -> np.ndarray:
    """The playing surface, warped top-down (``config.scale`` px per mm),
    with *margin* mm of what lies around it on every side."""
    geometry = BoardGeometry(config)
    s = config.scale
    T = np.array([[1, 0, margin * s], [0, 1, margin * s], [0, 0, 1]], dtype=np.float64)
    H = T @ homography(corners, geometry)
    size = (int(round((geometry.width + 2 * margin) * s)), int(round((geometry.depth + 2 * margin) * s)))
    return cv2.warpPerspective(image, H, size, flags=cv2.INTER_LINEAR)


def detect_men(config: VisionConfig, rect: np.ndarray, margin: float = 0.0,
               across: tuple[float, float] | None = None) -> list[Man]:
    """Round tops of a man's size on the rectified board (surface mm); with
    *across* (from, to: surface mm along the board's width), only those
    whose middle lies there, such as the bar's men (the picture is searched
    there and a man's width either side)."""
    s = config.scale
    rc = config.reader
    r = config.man_diameter / 2 * s
    x0 = 0
    if across is not None:
        x0 = max(0, int(((across[0] + margin) - config.man_diameter) * s))
        x1 = min(rect.shape[1], int(math.ceil(((across[1] + margin) + config.man_diameter) * s)))
        rect = rect[:, x0:max(x0 + 1, x1)]
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
    circles = cv2.HoughCircles(gray, cv2.HOUGH_GRADIENT, dp=1, minDist=rc.top_min_apart * r,
                               param1=rc.top_edge, param2=rc.top_votes,
                               minRadius=int(r * rc.top_radius_min), maxRadius=int(r * rc.top_radius_max))
    if circles is None:
        return []
    men = [Man((float(x) + x0) / s - margin, float(y) / s - margin, float(rad) / s) for x, y, rad in circles[0]]
    return men if across is None else [m for m in men if across[0] <= m.x <= across[1]]


@dataclass
class Observation:
    """The stages before counting, for one frame."""

    geometry: BoardGeometry
    camera: Any
    margin: float
    lab: np.ndarray
    tops: list[Man]
    model: BoardModel
    llr: dict[str, np.ndarray]
    rect: np.ndarray | None = None
    config: VisionConfig | None = None
    lab8: np.ndarray | None = None      # *rect* in 8-bit Lab, which *lab* was made from
    smooth: np.ndarray | None = None    # ... smoothed for comparing frames (``point_memory.smoothed``)
    pictures: np.ndarray | None = None  # ... cut into the 24 strips (``point_memory.strip_pictures``)
    #: the points whose picture is that of the *earlier* frame's memory, where its board model was kept
    same: np.ndarray | None = None

    def strips(self) -> Strips:
        """The 24 point strips the point reader reads (``strips.point_strips``)."""
        field = (float(self.model.field[0]) if self.model.field is not None
                 else (self.config or VisionConfig.default()).reader.field_lightness)
        return point_strips(self.geometry, self.camera, self.llr, self.lab, field, self.margin)


def _refined(image: np.ndarray, corners: Corners,
             config: VisionConfig) -> tuple[Corners, list[str]]:
    """The corners to read with: as given, or, where ``config.refine.enabled``,
    refined from the board's edges in *image* (``refine.refine_corners``),
    with its notes."""
    if not config.refine.enabled:
        return corners, []
    from .refine import refine_corners
    result = refine_corners(config, image, corners)
    return result.corners.tolist(), list(result.notes)


def board_config(image: np.ndarray, corners: Corners, config: VisionConfig,
                 look: Look | None = None) -> tuple[VisionConfig, BoardLayout | None, list[str]]:
    """The configuration to read this board with, the layout it holds and
    what to say of it: the calibrated layout where *look* has one (a look
    saved before layouts were found: the configured proportions, with a
    note); else, where ``config.layout.find`` (and no layout is configured
    by hand), the layout found in *image* (``board_layout.find_layout``:
    the configured proportions where nothing certain is seen, and a note
    saying so), once for a frame size and corners; else *config* as it is."""
    if look is not None and look.layout is not None:
        return look.layout.config(config), look.layout, []
    if look is not None and config.layout.find and not config.layout.centres:
        return config, None, ["the calibration holds no layout of the board (it was made before layouts were "
                              "found): read with the configured proportions; calibrate again"]
    if not config.layout.find or config.layout.centres:
        return config, None, []
    key = (config, tuple(image.shape), tuple(np.round(np.asarray(corners, np.float64).ravel() * 2).astype(int)))
    layout = _FOUND.get(key)
    if layout is None or not confirms(config, image, corners, layout):
        layout = find_layout(config, image, corners)
        if layout.found and layout.depth_from == "configured" and config.layout.men_depth:
            # the corners did not fix the surface's depth: the men's columns measure it
            layout = depth_from_men(layout, _observe(image, corners, layout.config(config)))
        if layout.found:                    # what was found is kept for the next frame of these corners
            _FOUND[key] = layout
            while len(_FOUND) > 8:
                _FOUND.pop(next(iter(_FOUND)))
    return layout.config(config), layout, list(layout.notes)


#: the layouts found without a calibration, by configuration, frame size and
#: corners (to half a pixel): a camera whose corners stay put watches one
#: board, so its layout is found on the first frame and only confirmed on
#: the next (``board_layout.confirms``), and frames compared across a turn
#: are rectified alike
_FOUND: dict[tuple[VisionConfig, tuple[int, ...], tuple[int, ...]], BoardLayout] = {}


def forget_layouts() -> None:
    """Forget the layouts found without a calibration, so the next frame's
    is searched for afresh (a benchmark timing the search, a test)."""
    _FOUND.clear()


def observe(image: np.ndarray, corners: Corners, config: VisionConfig,
            look: Look | None = None) -> Observation:
    """Rectify, learn the board's look and the men's colours, weigh the evidence
    (the corners first refined where ``config.refine.enabled``; the board's
    own layout used, ``board_config``; ``Observation.config`` is the
    configuration read with)."""
    corners, _ = _refined(image, corners, config)
    config, _, _ = board_config(image, corners, config, look)
    return _observe(image, corners, config, look)


def _observe(image: np.ndarray, corners: Corners, config: VisionConfig,
             look: Look | None = None, earlier: PointMemory | None = None,
             remember: bool = False) -> Observation:
    """The stages before counting. With *remember* (or *earlier*), the strips' smoothed pictures too, for a
    point memory (``point_memory``); only a read that keeps one pays for them."""
    geometry = BoardGeometry(config)
    margin = config.margin
    rect = rectify(config, image, corners, margin)
    camera = camera_from_corners(corners, (image.shape[1], image.shape[0]), geometry)
    lab8 = cv2.cvtColor(rect, cv2.COLOR_BGR2Lab)
    lab = _lab(rect, lab8)
    smooth = pictures = same = None
    if remember or earlier is not None:
        smooth = smoothed(config, lab8)
        pictures = strip_pictures(config, smooth)
        if earlier is not None and earlier.fits(corners, image.shape) and earlier.pictures.shape == pictures.shape:
            same = unchanged_points(earlier.pictures, pictures)
    if same is not None and pictures is not None and earlier is not None and earlier.keeps_model(pictures):
        # the board as it was: its colours as learnt then, so an unchanged point's strip is what it was; the
        # men's tops are then wanted only on the bar (``read_board``)
        model = earlier.model
        left, right = geometry.bar_x
        tops = detect_men(config, rect, margin, (left - config.reader.bar_slack_mm, right + config.reader.bar_slack_mm))
    else:
        tops = detect_men(config, rect, margin)
        model = learn_board(config, lab, tops, margin, look)
        same = None
    return Observation(geometry, camera, margin, lab, tops, model, evidence(lab, model, config), rect, config,
                       lab8, smooth, pictures, same)


def _one_per_man(tops: list[Man], apart: float) -> list[Man]:
    """Round tops closer than *apart* mm are one man (seen at a tilt, a man's
    top and the rim of his base both look round); men lying flat are a whole
    man's width apart."""
    kept: list[Man] = []
    for m in tops:                       # HoughCircles lists the best first
        if all((m.x - k.x) ** 2 + (m.y - k.y) ** 2 >= apart ** 2 for k in kept):
            kept.append(m)
    return kept


def _count_by_fit(config: VisionConfig, obs: Observation) -> tuple[list[tuple[str, int, int, float]], int]:
    """Count each point by fitting arrangements of men (``counting``): the
    reader used when the trained point reader is not installed, and the
    baseline it is measured against."""
    geometry, lab = obs.geometry, obs.lab
    L = np.ascontiguousarray(lab[..., 0])
    grad = (cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3) / 4.0, cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3) / 4.0)
    s = config.scale
    rc = config.reader
    h, w = lab.shape[:2]
    rows = rc.fit_rows
    fits_by_row: dict[int, list[PointFit]] = {row: [] for row in rows}
    for p in range(1, 25):
        xc = geometry.point_centre_x(p) + obs.margin
        roi = (max(0, int((xc - rc.fit_half_width_mm) * s)), 0, min(w, int((xc + rc.fit_half_width_mm) * s)), h)
        fits = fit_point(p, geometry, obs.camera, obs.llr, roi, rows, config.man_thickness,
                         piles=PILES, grad=grad, offset=obs.margin)
        for row in rows:
            fits_by_row[row].append(fits[row])
    best_row = max(rows, key=lambda row: sum(f.score for f in fits_by_row[row]))
    return [(f.colour, f.count, f.stacked, float(1 - np.exp(-max(f.margin, 0.0) / rc.fit_confidence_scale)))
            for f in fits_by_row[best_row]], best_row


def learn_look(image: np.ndarray, corners: Corners,
               config: VisionConfig | None = None, known: Mapping[str, Any] | None = None) -> Look:
    """The calibration step: learn this board's look from one photo of the
    starting position (both colours of men) or of the empty board.  With
    *known*, the board the photo shows (a board document: ``light`` and
    ``dark``, 24 counts each; the game's start, which the referee knows),
    the point reader also learns this board's points (``Look.head``),
    unless the photo contradicts it (the reader reads another count at some
    point at ``board_head.CONTRADICTS`` or more: the men are not yet set up,
    or set up wrongly), when nothing is learnt of the points."""
    config = config or VisionConfig.default()
    corners, _ = _refined(image, corners, config)
    board, layout, _ = board_config(image, corners, config)
    obs = _observe(image, corners, board)
    m = obs.model
    assert m.points is not None and m.field is not None and m.bar is not None   # learn_board learns them all
    head = None
    if known is not None and pointnet.available():
        count, _, features = pointnet.probabilities_and_features(obs.strips())
        classes = board_classes_of(list(known["light"]), list(known["dark"]))
        if features is not None and not contradicted(count, classes):
            head = BoardHead.empty()
            head.learn(features, count, classes, start=True)
    return Look({k: _lab3(v) for k, v in m.men.items()}, (_lab3(m.points[0]), _lab3(m.points[1])),
                _lab3(m.field), _lab3(m.bar), rails_picture(board, image, corners, obs.camera),
                layout, head)


def read_board(image: np.ndarray, corners: Corners,
               config: VisionConfig | None = None, method: str = "auto", look: Look | None = None,
               dice: bool | None = None, recent: np.ndarray | None = None,
               earlier: PointMemory | None = None, known: Mapping[str, Any] | None = None,
               men_per_side: int = MEN_PER_SIDE) -> Reading:
    """Read the men on the board in *image*, whose playing surface has the
    corners *corners* (C1..C4, pixels).  *method*: one of ``METHODS``
    (see there).  *look*: what calibration learnt of this board
    (``learn_look``), if anything.  *dice*: also find the dice lying on the
    board (``Reading.dice``; ``dice.find_dice``); by default as
    ``config.reader.find_dice`` says (off: the men are read the same
    without it, and the read is cheaper).  *recent*: the ``surface_seen``
    of the frame settled last, from this camera: with a look, only what
    changed since it too may be taken for something covering the men
    (``occlusion.check_frame``).  *earlier*: the ``point_memory`` of a
    frame read before from this camera: the board's colours learnt then are
    kept while most points look as they did, and with *known* (the board
    the referee holds for the frame before: a board document's ``light``
    and ``dark``), the point reader reads again only the points whose
    picture changed since, or that it read then otherwise than the referee
    now knows them (``point_memory``).  *men_per_side*: how many men a side
    has in the game (``classes.MEN_PER_SIDE``, 15, where it is not said): the
    point reader puts no more of a side's men on the points than it has off
    the bar, and ``Reading.to_board`` counts the men off of as many."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if isinstance(men_per_side, bool) or not isinstance(men_per_side, int) or men_per_side < 1:
        raise ValueError(f"men_per_side must be a whole number of at least 1, not {men_per_side!r}")
    config = config or VisionConfig.default()
    t0 = time.perf_counter()
    given = corners
    corners, refine_notes = _refined(image, corners, config)
    config, _, layout_notes = board_config(image, corners, config, look)
    networked = method in ("net", "net-alone") or (method == "auto" and pointnet.available())
    obs = _observe(image, corners, config, look, earlier, remember=networked)
    geometry, camera, margin, lab, tops, model = obs.geometry, obs.camera, obs.margin, obs.lab, obs.tops, obs.model
    s = config.scale
    found: list[Die] = []
    if config.reader.find_dice if dice is None else dice:
        assert obs.rect is not None                     # _observe keeps the picture it rectified
        m0 = int(round(margin * s))
        surface = np.ascontiguousarray(obs.rect[m0:m0 + int(round(geometry.depth * s)),
                                                m0:m0 + int(round(geometry.width * s))])
        found = find_dice(config, surface, camera)
    light = [0] * 24
    dark = [0] * 24
    stacked = {"light": [0] * 24, "dark": [0] * 24}
    conf: dict[str, float] = {}
    bar = {"light": 0, "dark": 0}
    left, right = geometry.bar_x
    placed = []
    rc = config.reader
    reach = config.point_length * rc.bar_reach
    for m in _one_per_man(tops, config.man_diameter * rc.one_man_apart):
        if left - rc.bar_slack_mm <= m.x <= right + rc.bar_slack_mm and reach < m.y < geometry.depth - reach:
            x, y, rr = int((m.x + margin) * s), int((m.y + margin) * s), max(2, int(m.radius * s * rc.top_middle))
            lab_c = lab[y - rr:y + rr + 1, x - rr:x + rr + 1].reshape(-1, 3).mean(axis=0)
            if model.men:
                colour = min(model.men, key=lambda c: float(np.linalg.norm(lab_c - model.men[c])))
                bar[colour] += 1
                placed.append(Man(m.x, m.y, m.radius, colour, "bar"))
    laid_out: dict[str, str] = {}
    memory = points_read = None
    count_probs: np.ndarray | None
    pile_probs: np.ndarray | None
    features: np.ndarray | None
    net_probs: np.ndarray | None
    if networked:
        capacity = (men_per_side - bar["light"], men_per_side - bar["dark"])
        kept = earlier if obs.same is not None else None         # the earlier frame's board model was kept
        reuse = None
        if kept is not None and known is not None:
            try:
                holds = board_classes_of(list(known["light"]), list(known["dark"]))
            except (KeyError, TypeError, VisionError) as exc:
                raise VisionError(f"the board the referee holds is not a board: {exc}") from None
            # a point read before from the same picture, and read then as the referee now knows it
            reuse = obs.same & (kept.classes == holds)
        net = pointnet.read_frame(obs.strips(), known=kept.points if kept is not None and reuse is not None else None,
                                  same=reuse)
        count_probs, pile_probs, features, points_read = net.count, net.pile, net.features, net.read
        if net.points is not None and obs.pictures is not None:
            assert net.read is not None                 # read_frame says which points it read
            classes = np.argmax(net.count, axis=1)
            memory = (kept.updated(obs.pictures, net.points, classes, net.read) if kept is not None
                      else PointMemory(obs.pictures, net.points, classes,
                                       tuple((float(x), float(y)) for x, y in corners), tuple(image.shape), obs.model,
                                       obs.pictures))
        net_probs = count_probs
        if look is not None and look.head is not None:
            count_probs = look.head.apply(count_probs, features)
        points = pointnet.decide(count_probs, pile_probs, capacity)
        if method != "net-alone":
            points = pointnet.prefer_starts(count_probs, pile_probs, points, capacity, men_per_side)
        laid_out = {r.colour: r.layout for r in points if r.layout}
        readings = [(r.colour, r.count, r.stacked, r.confidence * (r.pile_confidence if r.count >= 2 else 1.0))
                    for r in points]
        best_row = rc.net_row
    else:
        count_probs = pile_probs = features = net_probs = None
        readings, best_row = _count_by_fit(config, obs)
    for p, (colour, count, pile, c) in enumerate(readings, start=1):
        if count:
            (light if colour == "light" else dark)[p - 1] = count
            stacked[colour][p - 1] = pile
        conf[str(p)] = c
    polys = []
    for p, (colour, count, pile, c) in enumerate(readings, start=1):
        if count:
            polys.extend(outlines(p, geometry, camera, count, best_row, config.man_thickness, pile))
    frame = check_frame(config, image, corners, polys, camera,
                        reference=look.rails if look is not None else None, recent=recent)
    notes = list(refine_notes) + layout_notes
    occluded_why = covered_why(frame) if frame.occluded else None
    if occluded_why:
        notes.append(occluded_why)
    for side, layout in sorted(laid_out.items()):
        notes.append(f"{side}'s men read as the {layout} start: the picture nearly fitted it, and games begin so")
    confidence = float(min(conf.values())) if conf else 1.0
    return Reading(light, dark, bar, stacked, confidence, conf, not frame.occluded,
                   occluded=frame.occluded, occluded_why=occluded_why, men=placed, dice=found, notes=notes,
                   millis=(time.perf_counter() - t0) * 1000, count_probs=count_probs, pile_probs=pile_probs,
                   point_features=features, net_count_probs=net_probs, surface_seen=frame.surface,
                   learnt_frames=look.head.frames_learnt if look is not None and look.head is not None else 0,
                   rect=obs.rect if corners is given else None,
                   rect_lab8=obs.lab8 if corners is given else None, config=config,
                   rect_smoothed=obs.smooth if corners is given else None, point_memory=memory,
                   points_read=points_read, men_per_side=men_per_side)
