"""From a camera frame and the board's four corners to a board reading.

Stages (DESIGN.md, convention 10), each a function of ``(config, image)``:

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

import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import cv2
import numpy as np

from .camera import camera_from_corners
from .config import VisionConfig
from .counting import PointFit, fit_point, outlines
from .occlusion import check_frame
from .geometry import BoardGeometry, homography

__all__ = ["Reading", "Man", "read_board", "rectify", "detect_men", "BoardModel"]

MEN_PER_SIDE = 15


@dataclass(frozen=True)
class Man:
    """One round man-top found on the rectified board (mm)."""

    x: float
    y: float
    radius: float
    colour: str = "?"
    location: str = "?"


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
    men: list[Man] = field(default_factory=list)
    millis: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_board(self) -> dict[str, Any]:
        """The board document of this reading (``vision read``), with its confidence."""
        return {
            "format": "board/1",
            "light": list(self.light),
            "dark": list(self.dark),
            "bar": dict(self.bar),
            "off": {"light": max(0, MEN_PER_SIDE - sum(self.light) - self.bar["light"]),
                    "dark": max(0, MEN_PER_SIDE - sum(self.dark) - self.bar["dark"])},
            "stacked": {k: list(v) for k, v in self.stacked.items()},
            "confidence": round(self.confidence, 3),
            "settled": self.settled,
        }


def rectify(config: VisionConfig, image: np.ndarray, corners: Sequence[Sequence[float]]) -> np.ndarray:
    """The playing surface, warped top-down (``config.scale`` px per mm)."""
    geometry = BoardGeometry(config)
    H = homography(corners, geometry)
    size = (int(round(geometry.width * config.scale)), int(round(geometry.depth * config.scale)))
    return cv2.warpPerspective(image, H, size, flags=cv2.INTER_LINEAR)


def detect_men(config: VisionConfig, rect: np.ndarray) -> list[Man]:
    """Round tops of a man's size on the rectified board."""
    s = config.scale
    gray = cv2.cvtColor(rect, cv2.COLOR_BGR2GRAY)
    r = config.man_diameter / 2 * s
    circles = cv2.HoughCircles(gray, cv2.HOUGH_GRADIENT, dp=1, minDist=0.8 * r,
                               param1=80, param2=20, minRadius=int(r * 0.85), maxRadius=int(r * 1.3))
    if circles is None:
        return []
    return [Man(float(x) / s, float(y) / s, float(rad) / s) for x, y, rad in circles[0]]


# ------------------------------------------------------------------ the board's look
@dataclass
class BoardModel:
    """The bare board's colours (Lab) where the layout puts them, and the men's."""

    expected: np.ndarray          # rectified Lab image of the bare board
    men: dict[str, np.ndarray]    # colour -> Lab of that colour's men


def _lab(rect: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(rect.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)


def _triangle(geometry: BoardGeometry, point: int, scale: float, frac: tuple[float, float] = (0.0, 1.0)) -> np.ndarray:
    c = geometry.config
    xc = geometry.point_centre_x(point)
    half = c.point_width / 2
    a0, a1 = frac[0] * c.point_length, frac[1] * c.point_length
    w0, w1 = half * (1 - frac[0]), half * (1 - frac[1])
    if geometry.is_top(point):
        poly = [(xc - w0, a0), (xc + w0, a0), (xc + w1, a1), (xc - w1, a1)]
    else:
        d = geometry.depth
        poly = [(xc - w0, d - a0), (xc + w0, d - a0), (xc + w1, d - a1), (xc - w1, d - a1)]
    return np.round(np.array(poly) * scale).astype(np.int32)


def learn_board(config: VisionConfig, lab: np.ndarray, men: list[Man]) -> BoardModel:
    """Learn the bare board's look and the men's colours from this picture."""
    geometry = BoardGeometry(config)
    s = config.scale
    h, w = lab.shape[:2]
    men_mask = np.zeros((h, w), np.uint8)
    for m in men:
        cv2.circle(men_mask, (int(m.x * s), int(m.y * s)), int(m.radius * s * 1.15), 255, -1)
    free = men_mask == 0
    # the points: their tip halves, where men seldom lie
    tips = []
    for p in range(1, 25):
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, _triangle(geometry, p, s, (0.45, 0.92)), 255)
        sel = (mask > 0) & free
        if sel.sum() < 20:
            sel = mask > 0
        tips.append(np.median(lab[sel], axis=0))
    tips_arr = np.array(tips, np.float32)
    # points alternate in colour along the track, so a point's parity is its colour
    labels = np.array([p % 2 for p in range(1, 25)])
    colour_of = {k: np.median(tips_arr[labels == k], axis=0) for k in (0, 1)}
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.1)
    left, right = geometry.bar_x
    bar_mask = np.zeros((h, w), bool)
    bar_mask[:, int(left * s):int(right * s)] = True
    field_mask = np.zeros((h, w), bool)
    c = config
    field_mask[int((c.point_length + 8) * s):int((geometry.depth - c.point_length - 8) * s), :] = True
    field_mask &= ~bar_mask
    fsel = field_mask & free
    field_colour = np.median(lab[fsel if fsel.sum() > 50 else field_mask], axis=0)
    bsel = bar_mask & free
    bar_colour = np.median(lab[bsel if bsel.sum() > 50 else bar_mask], axis=0)
    expected = np.empty_like(lab)
    expected[:] = field_colour
    for p in range(1, 25):
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, _triangle(geometry, p, s), 255)
        expected[mask > 0] = colour_of[int(labels[p - 1])]
    expected[bar_mask] = bar_colour
    # the men's colours: the middle of each round top, in two groups
    samples = []
    for m in men:
        mask = np.zeros((h, w), np.uint8)
        cv2.circle(mask, (int(m.x * s), int(m.y * s)), max(2, int(m.radius * s * 0.5)), 255, -1)
        samples.append(cv2.mean(lab, mask)[:3])
    men_colours: dict[str, np.ndarray] = {}
    if len(samples) >= 2:
        arr = np.array(samples, np.float32)
        _, mlabels, centres = cv2.kmeans(arr, 2, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
        lightk = int(np.argmax(centres[:, 0]))
        if abs(float(centres[0, 0] - centres[1, 0])) >= 12:
            men_colours["light"] = np.median(arr[mlabels.ravel() == lightk], axis=0)
            men_colours["dark"] = np.median(arr[mlabels.ravel() != lightk], axis=0)
        else:
            only = np.median(arr, axis=0)
            men_colours["light" if only[0] >= 50 else "dark"] = only
    elif samples:
        only = np.array(samples[0], np.float32)
        men_colours["light" if only[0] >= 50 else "dark"] = only
    return BoardModel(expected, men_colours)


def _distance(lab: np.ndarray, ref: np.ndarray) -> np.ndarray:
    d = lab - ref
    return np.sqrt(0.5 * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)


def evidence(lab: np.ndarray, model: BoardModel) -> dict[str, np.ndarray]:
    """Per pixel and colour: how much better a man of that colour explains it than the board."""
    cap = 60.0
    d_bg = np.minimum(_distance(lab, model.expected), cap)
    d_men = {c: np.minimum(_distance(lab, ref.reshape(1, 1, 3)), cap) for c, ref in model.men.items()}
    out = {}
    for colour, d_c in d_men.items():
        rival = d_bg
        for other, d_o in d_men.items():
            if other != colour:
                rival = np.minimum(rival, d_o)
        out[colour] = np.clip((rival - d_c) / 10.0, -2.0, 2.0).astype(np.float32) - 0.25
    return out


def read_board(image: np.ndarray, corners: Sequence[Sequence[float]],
               config: VisionConfig | None = None) -> Reading:
    """Read the men on the board in *image*, whose playing surface has the
    corners *corners* (C1..C4, pixels)."""
    config = config or VisionConfig()
    t0 = time.perf_counter()
    geometry = BoardGeometry(config)
    rect = rectify(config, image, corners)
    camera = camera_from_corners(corners, (image.shape[1], image.shape[0]), geometry)
    lab = _lab(rect)
    tops = detect_men(config, rect)
    model = learn_board(config, lab, tops)
    llr = evidence(lab, model)
    L = np.ascontiguousarray(lab[..., 0])
    grad = (cv2.Sobel(L, cv2.CV_32F, 1, 0, ksize=3) / 4.0, cv2.Sobel(L, cv2.CV_32F, 0, 1, ksize=3) / 4.0)
    s = config.scale
    h, w = lab.shape[:2]
    light = [0] * 24
    dark = [0] * 24
    stacked = {"light": [0] * 24, "dark": [0] * 24}
    conf: dict[str, float] = {}
    best_total = None
    best_fits: list[PointFit] = []
    best_row = 5
    for row_max in (5, 6):
        fits = []
        for p in range(1, 25):
            xc = geometry.point_centre_x(p)
            roi = (max(0, int((xc - 45) * s)), 0, min(w, int((xc + 45) * s)), h)
            fits.append(fit_point(p, geometry, camera, llr, roi, row_max, 11.0,
                                  piles=(0,), grad=grad))
        total = sum(f.score for f in fits)
        if best_total is None or total > best_total:
            best_total, best_fits, best_row = total, fits, row_max
    for p, fit in enumerate(best_fits, start=1):
        if fit.count:
            (light if fit.colour == "light" else dark)[p - 1] = fit.count
            stacked[fit.colour][p - 1] = fit.stacked
        conf[str(p)] = float(1 - np.exp(-max(fit.margin, 0.0) / 150.0))
    bar = {"light": 0, "dark": 0}
    left, right = geometry.bar_x
    placed = []
    for m in tops:
        if left - 2 <= m.x <= right + 2 and config.point_length * 0.5 < m.y < geometry.depth - config.point_length * 0.5:
            lab_c = cv2.mean(lab, cv2.circle(np.zeros((h, w), np.uint8), (int(m.x * s), int(m.y * s)), max(2, int(m.radius * s * 0.5)), 255, -1))[:3]
            if model.men:
                colour = min(model.men, key=lambda c: float(np.linalg.norm(np.array(lab_c) - model.men[c])))
                bar[colour] += 1
                placed.append(Man(m.x, m.y, m.radius, colour, "bar"))
    polys = []
    for p, fit in enumerate(best_fits, start=1):
        if fit.count:
            polys.extend(outlines(p, geometry, camera, fit.count, best_row, 11.0, fit.stacked))
    frame = check_frame(config, image, corners, polys, camera)
    notes = []
    if frame.occluded:
        notes.append(f"something lies across the frame ({frame.side} side, {frame.run_mm:.0f} mm)")
    confidence = float(min(conf.values())) if conf else 1.0
    return Reading(light, dark, bar, stacked, confidence, conf, not frame.occluded,
                   occluded=frame.occluded, men=placed, notes=notes,
                   millis=(time.perf_counter() - t0) * 1000)
