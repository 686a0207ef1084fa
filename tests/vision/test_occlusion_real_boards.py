"""A real board is not a painted one: brass corners, an inlay, a hinge across
the frame, the points' numbers printed on it, wood grain, the rails' shadows
and glare on the varnish are the board's own and refuse nothing; what covers
the board -- an arm reaching over it, a cup standing on men -- is refused.

The board is drawn here, by code (no photograph): seen straight down at
1.2 px per mm, a start position, a 30 mm frame."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from willughby.vision.config import VisionConfig
from willughby.vision.geometry import BoardGeometry
from willughby.vision.cover_view import view_of
from willughby.vision.occlusion import check_frame, covered_why, rails_picture, round_covers
from willughby.vision.reader import read_board

CONFIG = VisionConfig()
GEO = BoardGeometry(CONFIG)
W, D = GEO.width, GEO.depth
PPM = 1.2
ORIGIN = np.array([322.0, 90.0])
FRAME = 30.0
START = {1: ("light", 2), 6: ("dark", 5), 8: ("dark", 3), 12: ("light", 5),
         13: ("dark", 5), 17: ("light", 3), 19: ("light", 5), 24: ("dark", 2)}
IVORY, BROWN = (200, 228, 238), (40, 62, 96)
SKIN = (118, 150, 212)


def px(points_mm) -> np.ndarray:
    return np.asarray(points_mm, np.float64) * PPM + ORIGIN


def ipx(points_mm) -> np.ndarray:
    return np.round(px(points_mm)).astype(np.int32)


def corners() -> list[list[float]]:
    return px(GEO.surface_corners()).tolist()


def _grain(shape, rng, along: int, scale: float) -> np.ndarray:
    """Wood grain: streaks along one axis, a little noise across."""
    h, w = shape
    n = rng.normal(0, 1, (h // 8 + 2, w // 8 + 2) if along else (h // 8 + 2, w // 8 + 2)).astype(np.float32)
    streak = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
    fine = rng.normal(0, 1, (h, w)).astype(np.float32)
    fine = cv2.GaussianBlur(fine, (0, 0), sigmaX=9 if along else 0.8, sigmaY=0.8 if along else 9)
    return scale * (0.6 * streak + 4.0 * fine)


def board(seed: int = 0) -> np.ndarray:
    """A wooden board as real ones are: grained rails and points, brass
    corners, a hinge across both long rails at the bar, a diamond inlay in
    each half, the points' numbers printed on the rails, the rails' shadow
    on the surface, a glare on the varnish, the start position."""
    rng = np.random.default_rng(seed)
    img = np.zeros((720, 1280, 3), np.uint8)
    img[:] = (70, 80, 92)                                                     # the table
    f = FRAME
    cv2.fillConvexPoly(img, ipx([[-f, -f], [W + f, -f], [W + f, D + f], [-f, D + f]]), (52, 100, 150))
    cv2.fillConvexPoly(img, ipx([[0, 0], [W, 0], [W, D], [0, D]]), (118, 160, 196))      # the field
    for p in range(1, 25):                                                    # the points
        x = GEO.point_centre_x(p)
        y0, y1 = (0, CONFIG.point_length) if GEO.is_top(p) else (D, D - CONFIG.point_length)
        colour = (34, 52, 88) if p % 2 else (150, 196, 226)
        cv2.fillConvexPoly(img, ipx([[x - 20, y0], [x + 20, y0], [x, y1]]), colour)
    left, right = GEO.bar_x
    cv2.fillConvexPoly(img, ipx([[left, 0], [right, 0], [right, D], [left, D]]), (52, 100, 150))
    # the inlays: a diamond of three woods in each half, a line down the field's middle
    for cx in (left / 2, (right + W) / 2):
        for k, (size, colour) in enumerate(((70, (30, 70, 120)), (52, (160, 200, 230)), (30, (20, 40, 70)))):
            cv2.fillConvexPoly(img, ipx([[cx, D / 2 - size / 2], [cx + size * 0.7, D / 2], [cx, D / 2 + size / 2],
                                         [cx - size * 0.7, D / 2]]), colour)
    cv2.line(img, tuple(ipx([0, D / 2])), tuple(ipx([left, D / 2])), (40, 70, 110), 2)
    cv2.line(img, tuple(ipx([right, D / 2])), tuple(ipx([W, D / 2])), (40, 70, 110), 2)
    # the hinge: a dark seam down the bar and brass leaves across both long rails
    mid = (left + right) / 2
    cv2.line(img, tuple(ipx([mid, -f])), tuple(ipx([mid, D + f])), (20, 30, 40), 2)
    for y in (-f / 2, D + f / 2):
        cv2.rectangle(img, tuple(ipx([mid - 12, y - 11])), tuple(ipx([mid + 12, y + 11])), (50, 160, 205), -1)
        cv2.rectangle(img, tuple(ipx([mid - 12, y - 11])), tuple(ipx([mid + 12, y + 11])), (25, 90, 120), 1)
        for dx in (-7, 7):
            cv2.circle(img, tuple(ipx([mid + dx, y])), 2, (20, 60, 80), -1)
    # brass corners, with a highlight
    for sx, sy, cx, cy in ((1, 1, W + f, D + f), (-1, 1, -f, D + f), (-1, -1, -f, -f), (1, -1, W + f, -f)):
        plate = [[cx, cy], [cx - sx * 34, cy], [cx - sx * 34, cy - sy * 10], [cx - sx * 10, cy - sy * 10],
                 [cx - sx * 10, cy - sy * 34], [cx, cy - sy * 34]]
        cv2.fillPoly(img, [ipx(plate)], (45, 150, 200))
        cv2.line(img, tuple(ipx([cx - sx * 30, cy - sy * 4])), tuple(ipx([cx - sx * 4, cy - sy * 4])),
                 (150, 225, 245), 2)
    # the points' numbers printed on the rails
    for p in range(1, 25):
        x = GEO.point_centre_x(p)
        y = -f / 2 + 4 if GEO.is_top(p) else D + f / 2 + 4
        cv2.putText(img, str(p), tuple(ipx([x - 5 * len(str(p)), y])), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    (170, 215, 235), 1, cv2.LINE_AA)
    # the men of the start, with a rim and a shadow
    for p, (colour, n) in START.items():
        for k in range(n):
            x, y = GEO.slot_centre(p, k)
            c = tuple(int(v) for v in px([x, y]))
            r = int(17 * PPM)
            cv2.circle(img, (c[0] + 3, c[1] + 3), r, (30, 40, 50), -1, cv2.LINE_AA)
            cv2.circle(img, c, r, IVORY if colour == "light" else BROWN, -1, cv2.LINE_AA)
            cv2.circle(img, c, r - 4, (150, 170, 180) if colour == "light" else (25, 40, 65), 1, cv2.LINE_AA)
    # grain, the rails' shadow on the surface (a lamp beyond the top), glare on the varnish
    grain = _grain(img.shape[:2], rng, 1, 1.0)
    img = img.astype(np.float32) + grain[..., None] * np.array([0.6, 0.8, 1.0], np.float32)
    yy, xx = np.mgrid[0:720, 0:1280].astype(np.float32)
    sx, sy = px([0, 0])
    under_rail = (yy > sy) * (xx > sx) * (xx < px([W, 0])[0])
    shade = np.clip(1 - 0.35 * np.exp(-np.maximum(yy - sy, 0) / (10 * PPM)) * under_rail, 0.6, 1)
    img *= shade[..., None]
    gx, gy = px([400, 120])
    glare = np.exp(-(((xx - gx) / 90) ** 2 + ((yy - gy) / 40) ** 2))
    img = img * (1 - 0.5 * glare[..., None]) + 250 * 0.5 * glare[..., None]
    img += rng.normal(0, 3, img.shape)
    return cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (3, 3), 0)


def men_outlines() -> list[np.ndarray]:
    """The men drawn, as the reader hands their outlines over (surface mm)."""
    t = np.linspace(0, 2 * np.pi, 20, endpoint=False)
    out = []
    for p, (_, n) in START.items():
        for k in range(n):
            x, y = GEO.slot_centre(p, k)
            out.append(np.column_stack([x + 18 * np.cos(t), y + 18 * np.sin(t)]))
    return out


def _shaded(img: np.ndarray, mask: np.ndarray, height: np.ndarray, colour) -> np.ndarray:
    """Paint *colour* where *mask*, lit from above-left by its *height*'s
    slope, with a soft shadow down and to the right."""
    out = img.astype(np.float32)
    shifted = cv2.warpAffine(mask.astype(np.float32), np.float32([[1, 0, 22], [0, 1, 22]]), mask.shape[::-1])
    shadow = cv2.GaussianBlur(shifted, (0, 0), 9)
    out *= (1 - 0.45 * shadow)[..., None]
    gy, gx = np.gradient(cv2.GaussianBlur(height, (0, 0), 2))
    light = np.clip(0.8 + 0.06 * (-gx - gy) / (np.hypot(gx, gy) + 1) * np.hypot(gx, gy) ** 0.5, 0.4, 1.2)
    light *= 0.65 + 0.35 * np.clip(height / max(float(height.max()), 1), 0, 1)
    out = np.where(mask[..., None], np.float32(colour) * light[..., None], out)
    return np.clip(out, 0, 255).astype(np.uint8)


def arm(img: np.ndarray, start_mm, end_mm, radius_mm: float = 36.0) -> np.ndarray:
    """A forearm and hand reaching from *start_mm* to *end_mm*: a rounded
    band, thicker at the elbow, shaded as a cylinder."""
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]].astype(np.float32)
    a, b = px([start_mm, end_mm])
    d = b - a
    t = np.clip(((xx - a[0]) * d[0] + (yy - a[1]) * d[1]) / float(d @ d), 0, 1)
    dist = np.hypot(xx - (a[0] + t * d[0]), yy - (a[1] + t * d[1]))
    r = radius_mm * PPM * (1.1 - 0.25 * t)
    height = np.sqrt(np.maximum(r * r - dist * dist, 0))
    return _shaded(img, height > 0, height, SKIN)


def cup(img: np.ndarray, centre_mm, radius_mm: float = 40.0, colour=(28, 40, 62)) -> np.ndarray:
    """A dice cup standing upright, seen from above: a leather disc with a
    dark mouth and a rim."""
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]].astype(np.float32)
    c = px([centre_mm])[0]
    r = radius_mm * PPM
    dist = np.hypot(xx - c[0], yy - c[1])
    out = _shaded(img, dist < r, np.sqrt(np.maximum(r * r - dist * dist, 0)), colour)
    cv2.circle(out, (int(c[0]), int(c[1])), int(r * 0.78), (15, 18, 22), -1, cv2.LINE_AA)
    cv2.circle(out, (int(c[0]), int(c[1])), int(r * 0.78), (70, 95, 125), 2, cv2.LINE_AA)
    return out


def check(img: np.ndarray):
    return check_frame(CONFIG, img, corners(), men_outlines())


def cut_close(img: np.ndarray, margin_mm: float = 40.0):
    """The picture cut *margin_mm* round the surface, as a phone photo of
    the board is (most of the frame seen, little of the table), and the
    corners in it."""
    (x0, y0), (x1, y1) = ipx([-margin_mm, -margin_mm]), ipx([W + margin_mm, D + margin_mm])
    x0, y0 = max(0, x0), max(0, y0)
    return np.ascontiguousarray(img[y0:y1, x0:x1]), (np.asarray(corners()) - [x0, y0]).tolist()


# ------------------------------------------------------------------ the board's own look
def test_a_real_board_s_own_look_is_read():
    """Brass corners, a hinge across the rails, an inlay, printed numbers,
    grain, the rails' shadow and glare belong to the board: the reader
    reads it and refuses nothing."""
    reading = read_board(board(), corners())
    assert not reading.occluded and reading.settled, reading.notes


@pytest.mark.parametrize("seed", [1, 2])
def test_in_a_photo_cut_close_the_board_s_own_look_covers_nothing(seed):
    """A phone photo of the board, no calibration photo: judged with the men
    read, nothing of the board's own lies over the men's places nor crosses
    the frame and goes on over the board."""
    img, cut_corners = cut_close(board(seed))
    result = check_frame(CONFIG, img, cut_corners, men_outlines())
    assert not result.occluded, result
    assert result.cover_mm < CONFIG.occlusion.cover_mm


# ------------------------------------------------------------------ what covers it
def test_an_arm_across_the_board_is_refused():
    """A forearm from beyond the near rail over the men of point 8, seen by
    a camera over the table: the frame and the table round it show it
    crossing the frame."""
    img = arm(board(), (195.0, 720.0), (175.0, 330.0))
    result = check(img)
    assert result.occluded and result.reason == "across the frame", result


def test_in_a_photo_cut_close_an_arm_across_the_frame_goes_on_over_the_board():
    """The same arm in a phone photo cut close: the frame alone could be
    the board's own look, but what crosses it goes on over the board, one
    colour within one outline, wider than any man."""
    img, cut_corners = cut_close(arm(board(), (195.0, 720.0), (175.0, 330.0)))
    result = check_frame(CONFIG, img, cut_corners, men_outlines())
    assert result.occluded and result.reason == "across the frame onto the board", result


def test_an_arm_from_the_picture_s_edge_is_refused_where_no_frame_is_seen():
    """A phone photo cut tight at the board's edge: the arm comes in from
    the picture's edge straight onto the men of point 6 (no frame to cross)."""
    img = arm(board(), (330.0, 600.0), (320.0, 330.0))
    bottom = int(px([0, D + 2])[1])
    result = check_frame(CONFIG, img[:bottom], corners(), men_outlines())
    assert result.occluded and result.reason == "over the men's places", result


def _calibrated(img: np.ndarray):
    """Judged as the camera over the table judges, with the clear board's
    calibration photo as the reference."""
    return check_frame(CONFIG, img, corners(), men_outlines(), reference=rails_picture(CONFIG, board(), corners()))


def test_a_cup_standing_on_men_is_refused():
    """A cup over the men of point 8 hides them: refused, though it touches
    no frame (it was not there in the calibration photo, and what is there
    now is blank and unlike the board, wider than any man)."""
    x, y = GEO.slot_centre(8, 1)
    result = _calibrated(cup(board(), (x, y)))
    assert result.occluded and result.reason == "over the men's places", result


def test_in_a_photo_cut_close_a_cup_on_men_is_refused():
    """The same in a phone photo cut at the board's edges, with no
    calibration photo: what lies over point 8's men is blank, unlike
    anything at its depth along the board, and wider than any man."""
    x, y = GEO.slot_centre(8, 1)
    img, cut_corners = cut_close(cup(board(), (x, y)), 4.0)
    result = check_frame(CONFIG, img, cut_corners, men_outlines())
    assert result.occluded and result.reason == "over the men's places", result


def test_a_cup_on_the_tips_of_empty_points_covers_no_men():
    """A cup lying on the tips of points 3 and 4, which hold no men, hides
    no man and no place a man of the position stands: it is not counted as
    covering men."""
    x = (GEO.point_centre_x(3) + GEO.point_centre_x(4)) / 2
    result = _calibrated(cup(board(), (x, D - CONFIG.point_length + 15)))
    assert not result.occluded, result


# ------------------------------------------------------------------ what the player is told
def test_a_refusal_says_what_was_seen_and_where():
    """The reading's note (and a turn's, when it asks) names what covers the
    board as the check found it: an arm across the frame, one going on over
    the points, or something over the men's places, with the side."""
    across = check(arm(board(), (195.0, 720.0), (175.0, 330.0)))
    assert covered_why(across).startswith("something lies across the frame (bottom side, ")
    img, cut_corners = cut_close(arm(board(), (195.0, 720.0), (175.0, 330.0)))
    onto = check_frame(CONFIG, img, cut_corners, men_outlines())
    assert "across the frame and over the points" in covered_why(onto)
    x, y = GEO.slot_centre(8, 1)
    cupped = _calibrated(cup(board(), (x, y)))
    why = covered_why(cupped)
    assert why.startswith("something covers the men's places (") and why.endswith(" mm along it)"), why


def test_a_cup_the_colour_of_the_men_standing_on_them_is_refused_as_a_round_top_wider_than_a_man():
    """A dice cup of the men's own ivory over point 8's men, in a phone
    photo cut close: what is blank and unlike the board is taken for men
    read, but no man's top is half as wide again as a man, so it is
    refused, and the player is told what was seen."""
    x, y = GEO.slot_centre(8, 1)
    img, cut_corners = cut_close(cup(board(), (x, y), radius_mm=30.0, colour=IVORY), 4.0)
    result = check_frame(CONFIG, img, cut_corners, men_outlines())
    assert result.occluded and result.reason == "a round top wider than a man", result
    assert result.cover_mm < CONFIG.occlusion.cover_mm            # the blank-region rule alone would read it
    assert covered_why(result).startswith("something round and wider than a man stands over the men's places")
    # the clear board, cut close the same way: its men are men, not cups
    clear, clear_corners = cut_close(board(), 4.0)
    found = round_covers(CONFIG.with_values({}), view_of(CONFIG, clear, clear_corners))
    assert found == [] and not check_frame(CONFIG, clear, clear_corners, men_outlines()).occluded
