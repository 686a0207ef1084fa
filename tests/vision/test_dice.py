"""Dice on the playing surface are found, and men never are.

The drawn scenes are rectified boards (``config.scale`` px per mm, origin at
corner C3) painted in the test: a field, the 24 points in two colours, dice
as rotated white squares with their pips, men as discs 36 mm across.  The
dev-set cases read the labelled dev images end to end and are skipped,
saying how to get them, where they are absent (``devset.py``).
"""

import json
import math

import cv2
import numpy as np
import pytest

from willughby.vision.camera import Camera, camera_from_corners
from willughby.vision.config import VisionConfig
from willughby.vision.dice import Die, dice_mask, find_dice
from willughby.vision.errors import FrameError
from willughby.vision.geometry import BoardGeometry, homography
from willughby.vision.reader import rectify

from .devset import dev_image

FIELD = (120, 170, 200)        # a beige field (BGR)
POINTS = ((40, 40, 150), (60, 60, 60))   # red and black points
WHITE_MAN = (225, 230, 235)
DARK_MAN = (40, 60, 90)
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}


def board(config=VisionConfig()):
    """A bare rectified board: the field and the points."""
    g = BoardGeometry(config)
    s = config.scale
    img = np.full((int(round(g.depth * s)), int(round(g.width * s)), 3), FIELD, np.uint8)
    for p in range(1, 25):
        xc, half, length = g.point_centre_x(p), config.point_width / 2, config.point_length
        if g.is_top(p):
            poly = [(xc - half, 0), (xc, length), (xc + half, 0)]
        else:
            poly = [(xc - half, g.depth), (xc, g.depth - length), (xc + half, g.depth)]
        cv2.fillConvexPoly(img, np.round(np.array(poly) * s).astype(np.int32), POINTS[p % 2])
    left, right = g.bar_x
    img[:, int(left * s):int(right * s)] = (70, 110, 140)
    return img


def draw_die(img, x, y, value=5, side=16.0, angle=20.0, config=VisionConfig(), colour=(236, 236, 233)):
    """A die's top face seen from straight above: a white square with its pips."""
    s = config.scale
    box = cv2.boxPoints(((x * s, y * s), (side * s, side * s), angle))
    cv2.fillConvexPoly(img, np.round(box).astype(np.int32), colour, cv2.LINE_AA)
    t = math.radians(angle)
    for i, j in PIPS[value]:
        u, v = i * side / 4, j * side / 4
        px, py = x + u * math.cos(t) - v * math.sin(t), y + u * math.sin(t) + v * math.cos(t)
        cv2.circle(img, (int(round(px * s)), int(round(py * s))), max(1, int(round(1.5 * s))), (25, 25, 28), -1,
                   cv2.LINE_AA)
    return img


def draw_man(img, x, y, colour=WHITE_MAN, config=VisionConfig()):
    """A man's top: a disc 36 mm across with a rim groove."""
    s = config.scale
    r = config.man_diameter / 2
    cv2.circle(img, (int(round(x * s)), int(round(y * s))), int(round(r * s)), colour, -1, cv2.LINE_AA)
    groove = tuple(int(c * 0.8) for c in colour)
    cv2.circle(img, (int(round(x * s)), int(round(y * s))), int(round((r - 4) * s)), groove, 1, cv2.LINE_AA)
    return img


def near(die, x, y, tol=3.0):
    return math.hypot(die.x - x, die.y - y) <= tol


# ---------------------------------------------------------------- drawn scenes
def test_a_die_on_the_field_is_found_where_it_lies():
    img = draw_die(board(), 150.0, 225.0)
    dice = find_dice(VisionConfig(), img)
    assert len(dice) == 1
    assert near(dice[0], 150.0, 225.0)
    assert dice[0].size == pytest.approx(16.0, abs=2.0)
    assert 0.8 <= dice[0].score <= 1.0


def test_a_die_on_a_dark_point_is_found():
    g = BoardGeometry()
    x, _ = g.slot_centre(20, 0)
    img = draw_die(board(), x, 110.0, value=3, angle=40.0)
    dice = find_dice(VisionConfig(), img)
    assert [near(d, x, 110.0) for d in dice] == [True]


def test_a_light_man_is_not_a_die():
    g = BoardGeometry()
    img = board()
    x, y = g.slot_centre(7, 0)
    draw_man(img, x, y)
    assert find_dice(VisionConfig(), img) == []


def test_rows_of_touching_men_are_not_dice():
    """Men of both colours in rows on neighbouring points, the field showing
    in the gaps between them."""
    g = BoardGeometry()
    img = board()
    for point, colour, count in ((13, WHITE_MAN, 5), (14, DARK_MAN, 4), (15, WHITE_MAN, 3),
                                 (1, DARK_MAN, 5), (2, DARK_MAN, 5), (3, WHITE_MAN, 2)):
        for k in range(count):
            draw_man(img, *g.slot_centre(point, k), colour=colour)
    assert find_dice(VisionConfig(), img) == []


def test_men_in_rows_on_boards_of_any_colours_are_never_dice():
    """Property: whatever the colours of board, points and men, men lying in
    rows (with the jitter of real placing, camera blur and noise) give no die."""
    rng = np.random.default_rng(11)
    g = BoardGeometry()
    for _ in range(25):
        img = board()
        img[:] = rng.integers(60, 240, 3)
        for p in range(1, 25):
            xc, half, length = g.point_centre_x(p), 20.0, 180.0
            tip = (xc, length) if g.is_top(p) else (xc, g.depth - length)
            base = 0.0 if g.is_top(p) else g.depth
            poly = np.round(np.array([(xc - half, base), tip, (xc + half, base)])).astype(np.int32)
            cv2.fillConvexPoly(img, poly, tuple(int(v) for v in rng.integers(20, 250, 3)))
        light, dark = tuple(int(v) for v in rng.integers(180, 250, 3)), tuple(int(v) for v in rng.integers(20, 120, 3))
        for p in rng.choice(np.arange(1, 25), size=int(rng.integers(4, 12)), replace=False):
            colour = light if rng.random() < 0.5 else dark
            for k in range(int(rng.integers(1, 6))):
                x, y = g.slot_centre(int(p), k)
                draw_man(img, x + rng.normal(0, 1.0), y + rng.normal(0, 0.7), colour=colour)
        img = cv2.GaussianBlur(img, (3, 3), 0.8)
        img = np.clip(img + rng.normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)
        assert find_dice(VisionConfig(), img) == []


def test_a_die_beside_a_man_is_found_and_the_man_is_not():
    g = BoardGeometry()
    img = board()
    mx, my = g.slot_centre(10, 0)
    draw_man(img, mx, my)
    draw_die(img, mx + 40.0, my - 50.0, value=6, angle=5.0)
    dice = find_dice(VisionConfig(), img)
    assert len(dice) == 1 and near(dice[0], mx + 40.0, my - 50.0)
    assert math.hypot(dice[0].x - mx, dice[0].y - my) > 36


def test_no_die_is_looked_for_on_the_bar():
    g = BoardGeometry()
    bx, by = g.bar_centre()
    img = draw_die(board(), bx, by)
    assert find_dice(VisionConfig(), img) == []


def test_two_dice_are_two():
    img = board()
    draw_die(img, 120.0, 225.0, value=2, angle=10.0)
    draw_die(img, 400.0, 240.0, value=4, angle=65.0)
    dice = find_dice(VisionConfig(), img)
    assert sorted((round(d.x / 10), round(d.y / 10)) for d in dice) == [(12, 22), (40, 24)]


def test_the_pips_are_read_when_seen_plainly():
    config = VisionConfig(scale=2.0)
    img = board(config)
    for value, x in ((1, 80.0), (3, 150.0), (6, 390.0)):
        draw_die(img, x, 225.0, value=value, side=18.0, angle=0.0, config=config)
    dice = sorted(find_dice(config, img), key=lambda d: d.x)
    assert [d.value for d in dice] == [1, 3, 6]


def test_a_finer_rectification_finds_the_same_die_in_millimetres():
    for scale in (0.75, 1.5):
        config = VisionConfig(scale=scale)
        img = draw_die(board(config), 300.0, 220.0, angle=30.0, config=config)
        dice = find_dice(config, img)
        assert len(dice) == 1 and near(dice[0], 300.0, 220.0), scale


def test_with_the_camera_a_die_stands_nearer_the_camera_foot_than_its_top_is_seen():
    cam = Camera(foot=(265.0, 900.0), height=800.0, focal=1400.0, tilt_deg=30.0)
    img = draw_die(board(), 200.0, 225.0)          # the top face as the camera sees it
    (die,) = find_dice(VisionConfig(), img, cam)
    k = cam.magnification(16.0)                    # a 16 mm die's top is seen k times as far from the foot
    assert near(die, 265.0 + (200.0 - 265.0) / k, 900.0 + (225.0 - 900.0) / k, tol=2.0)
    assert die.top == pytest.approx((200.0, 225.0), abs=3.0)
    assert die.y > die.top[1] + 10                 # towards the camera's foot (y = 900)


def test_the_mask_covers_the_die_and_where_it_stands_and_spares_the_man():
    config = VisionConfig()
    die = Die(100.0, 200.0, 16.0, None, 1.0, top_x=104.0, top_y=190.0)
    mask = dice_mask(config, [die], (450, 530, 3))
    assert mask.shape == (450, 530) and mask.dtype == np.uint8
    corners = cv2.boxPoints(((104.0, 190.0), (16.0, 16.0), 45.0))
    assert all(mask[int(round(y)), int(round(x))] == 255 for x, y in corners)   # every corner of the top
    assert mask[200, 100] == 255 and mask[195, 102] == 255                     # the foot, the sides
    assert mask[200, 140] == 0                                                 # a man's edge 40 mm away
    assert dice_mask(config, [], (450, 530)).sum() == 0


def test_the_mask_follows_the_scale():
    config = VisionConfig(scale=2.0)
    mask = dice_mask(config, [Die(100.0, 200.0, 16.0, None, 1.0)], (900, 1060))
    assert mask[400, 200] == 255 and mask[400, 240] == 0


def test_a_frame_that_is_no_image_is_refused():
    with pytest.raises(FrameError):
        find_dice(VisionConfig(), np.zeros((450, 530), np.uint8))
    with pytest.raises(FrameError):
        find_dice(VisionConfig(), np.zeros((450, 530, 3), np.float32))
    with pytest.raises(FrameError, match="scale"):
        find_dice(VisionConfig(scale=2.0), board())


# ---------------------------------------------------------------- the dev set
def _dev(name):
    path = dev_image(name)
    label = json.loads(path.with_suffix(".json").read_text())
    image = cv2.imread(str(path))
    config = VisionConfig()
    geometry = BoardGeometry(config)
    rect = rectify(config, image, label["corners"])
    camera = camera_from_corners(label["corners"], (image.shape[1], image.shape[0]), geometry)
    # where each labelled die stands: its centre (half its height up) seen on the surface, brought down
    H = homography(label["corners"], geometry)
    feet = []
    for d in label["dice"]:
        sx, sy = cv2.perspectiveTransform(np.array([[d["center"]]], np.float64), H)[0, 0] / config.scale
        k = camera.magnification(8.0)
        fx, fy = camera.foot
        feet.append((fx + (sx - fx) / k, fy + (sy - fy) / k))
    # the first men of each labelled row (where men certainly lie)
    men = []
    for colour in ("light", "dark"):
        for i, count in enumerate(label[colour]):
            men += [geometry.slot_centre(i + 1, k) for k in range(min(count, 5))]
    return config, rect, camera, feet, men


@pytest.mark.parametrize("name", ["img_0003", "img_0007", "img_0022", "img_0027", "img_0028"])
def test_dev_dice_are_found_and_no_man_is_taken_for_one(name):
    config, rect, camera, feet, men = _dev(name)
    dice = find_dice(config, rect, camera)
    for fx, fy in feet:
        assert any(math.hypot(d.x - fx, d.y - fy) < 12 for d in dice), (name, fx, fy, dice)
    assert len(dice) == len(feet)
    for d in dice:
        assert all(math.hypot(d.top[0] - x, d.top[1] - y) > config.man_diameter / 2 for x, y in men)


@pytest.mark.parametrize("name", ["img_0001", "img_0006", "img_0015", "img_0019"])
def test_dev_boards_without_dice_show_none(name):
    config, rect, camera, feet, men = _dev(name)
    assert feet == []
    assert find_dice(config, rect, camera) == []


def test_dev_dice_are_masked_out():
    config, rect, camera, feet, men = _dev("img_0027")
    dice = find_dice(config, rect, camera)
    mask = dice_mask(config, dice, rect.shape)
    s = config.scale
    for fx, fy in feet:
        assert mask[int(round(fy * s)), int(round(fx * s))] == 255
    for x, y in men:
        assert mask[int(round(y * s)), int(round(x * s))] == 0


def test_the_reader_finds_dice_only_when_asked_and_reads_the_men_the_same():
    # the point reader has learnt dice lying on the points (its training
    # frames hold them), so the men are read without the dice finder; it
    # runs when asked (read_board(dice=True), or [vision.reader] find_dice)
    from willughby.vision.reader import read_board
    from willughby.vision.synth import SceneSpec, render

    image, label = render(np.random.default_rng(1001), SceneSpec(n_dice=2, occluded=False, image_size=(1280, 720)))
    plain = read_board(image, label["corners"])
    asked = read_board(image, label["corners"], dice=True)
    by_config = read_board(image, label["corners"], VisionConfig().with_values({"reader": {"find_dice": True}}))
    assert plain.dice == [] and len(asked.dice) == 2 and by_config.dice == asked.dice
    for other in (asked, by_config):
        assert (other.light, other.dark, other.bar, other.stacked) == (plain.light, plain.dark, plain.bar,
                                                                       plain.stacked)
