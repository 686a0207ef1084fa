"""Something lying across the board's frame (an arm) makes the frame refused;
the bare frame does not, whatever lies on it that belongs there: men
overhanging it, the printed markers, light falling off across it.

Each cue is shown on a small drawn scene (a board seen straight down, 1.2 px
per mm, frame 30 mm wide), then on rendered and on the dev set's frames."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from willughby.vision.camera import camera_from_corners
from willughby.vision.config import VisionConfig
from willughby.vision.errors import FrameError
from willughby.vision.geometry import BoardGeometry
from willughby.vision.occlusion import FrameCheck, check_frame, frame_cues
from willughby.vision.reader import read_board
from willughby.vision.synth import SceneSpec, render
from willughby.vision.turns import TurnEvidence

from .devset import dev_image
from .scenes import marker_patches

GOLDEN = Path(__file__).parent / "golden"
CONFIG = VisionConfig()
GEO = BoardGeometry(CONFIG)

# ------------------------------------------------------------------ a drawn board
PPM = 1.2                       # pixels per mm
ORIGIN = np.array([322.0, 90.0])  # where corner C3 (surface x=0, y=0) lands
FRAME_MM = 30.0
WOOD = (70, 120, 170)           # BGR
TABLE = (95, 95, 100)
FIELD = (150, 180, 200)
POINTS = ((40, 40, 150), (210, 225, 235))
SKIN = (120, 150, 215)


def px(points_mm) -> np.ndarray:
    """Surface mm to image pixels (the drawn camera looks straight down)."""
    return np.asarray(points_mm, np.float64) * PPM + ORIGIN


def corners() -> list[list[float]]:
    return px(GEO.surface_corners()).tolist()


def board(seed: int = 0) -> np.ndarray:
    """Table, a wooden frame with a shaded outer wall, the playing surface
    with its 24 points and the bar; camera noise and a little blur."""
    img = np.zeros((720, 1280, 3), np.uint8)
    img[:] = TABLE
    W, D, f = GEO.width, GEO.depth, FRAME_MM
    outer = px([[-f, -f], [W + f, -f], [W + f, D + f], [-f, D + f]]).astype(np.int32)
    cv2.fillConvexPoly(img, px([[-f, D + f], [W + f, D + f], [W + f + 4, D + f + 6], [-f + 4, D + f + 6]])
                       .astype(np.int32), (45, 70, 100))               # the near outer wall
    cv2.fillConvexPoly(img, outer, WOOD)
    cv2.fillConvexPoly(img, px([[0, 0], [W, 0], [W, D], [0, D]]).astype(np.int32), FIELD)
    for p in range(1, 25):
        x = GEO.point_centre_x(p)
        y0, y1 = (0, CONFIG.point_length) if GEO.is_top(p) else (D, D - CONFIG.point_length)
        tri = px([[x - 20, y0], [x + 20, y0], [x, y1]]).astype(np.int32)
        cv2.fillConvexPoly(img, tri, POINTS[p % 2])
    left, right = GEO.bar_x
    cv2.fillConvexPoly(img, px([[left, 0], [right, 0], [right, D], [left, D]]).astype(np.int32), WOOD)
    rng = np.random.default_rng(seed)
    noisy = img.astype(np.float32) + rng.normal(0, 4, img.shape)
    return cv2.GaussianBlur(np.clip(noisy, 0, 255).astype(np.uint8), (3, 3), 0)


def arm(img: np.ndarray, start_mm, end_mm, width_mm: float = 60.0, colour=SKIN) -> np.ndarray:
    """A forearm: a band from *start_mm* (outside the board) to *end_mm*
    (over it), shaded like a cylinder (darker towards its sides)."""
    out = img.copy()
    a, b = px([start_mm, end_mm])
    for k in range(6):
        w = width_mm * PPM * (1 - k / 7)
        shade = 0.75 + 0.05 * k
        cv2.line(out, tuple(int(v) for v in a), tuple(int(v) for v in b),
                 tuple(int(c * shade) for c in colour), int(w))
    return out


def lamp(img: np.ndarray, centre_mm=(600.0, 520.0), strength: float = 0.6) -> np.ndarray:
    """Light falling off from a lamp near one corner (and vignetting)."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = px(centre_mm)
    r = np.hypot(xx - cx, yy - cy) / np.hypot(w, h)
    gain = (1 + strength) - 2 * strength * np.clip(r, 0, 1)
    return np.clip(img.astype(np.float32) * gain[..., None], 0, 255).astype(np.uint8)


def check(img: np.ndarray, men=None) -> FrameCheck:
    return check_frame(CONFIG, img, corners(), men)


def side_cues(img: np.ndarray, name: str):
    return next(c for c in frame_cues(CONFIG, img, corners()) if c.name == name)


# ------------------------------------------------------------------ the bare frame
def test_the_bare_drawn_frame_is_not_refused():
    result = check(board())
    assert not result.occluded and result.side is None


def test_the_bare_frame_is_not_refused():
    image, label = _golden()
    cam = camera_from_corners(label["corners"], tuple(label["image_size"]))
    assert not check_frame(VisionConfig(), image, label["corners"], camera=cam).occluded


def test_light_falling_off_across_the_board_is_not_an_arm():
    assert not check(lamp(board(), strength=0.6)).occluded
    assert not check(lamp(board(), centre_mm=(-100.0, -60.0), strength=0.5)).occluded


def test_men_overhanging_the_frame_are_not_an_arm():
    """Piles on the top edge points, seen from the side, reach over the
    frame's inner half; with the reader's outlines and without them."""
    img = board()
    outlines = []
    for p, colour in ((13, (235, 235, 235)), (14, (40, 40, 40)), (15, (235, 235, 235)), (19, (40, 40, 40))):
        x = GEO.point_centre_x(p)
        centre = px([[x, -4.0]])[0]
        cv2.ellipse(img, (int(centre[0]), int(centre[1])), (int(18 * PPM), int(14 * PPM)), 0, 0, 360, colour, -1)
        t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        outlines.append(np.column_stack([x + 18 * np.cos(t), -4.0 + 14 * np.sin(t)]))
    assert not check(img, outlines).occluded
    assert not check(img).occluded


def test_printed_markers_at_the_corners_are_not_an_arm():
    img = board()
    W, D, f = GEO.width, GEO.depth, FRAME_MM
    for i, (cx, cy, sx, sy) in enumerate(((W, D, 1, 1), (0, D, -1, 1), (0, 0, -1, -1), (W, 0, 1, -1))):
        patch = marker_patches()[i]
        side = 40.0 * patch.shape[0] / 120.0           # mm, white border included
        centre = np.array([cx + sx * f / 2, cy + sy * f / 2])
        x0, y0 = np.round(px(centre - side / 2)).astype(int)
        n = int(round(side * PPM))
        img[y0:y0 + n, x0:x0 + n] = cv2.resize(patch, (n, n), interpolation=cv2.INTER_AREA)
    assert not check(img).occluded


# ------------------------------------------------------------------ the cues
def test_colour_cue_a_forearm_unlike_frame_and_table_is_refused():
    """Skin unlike both the wood and the table: the frame's rows and the
    rows beyond are both foreign, so the colour cue alone refuses."""
    img = arm(board(), (265.0, 700.0), (250.0, 300.0))
    result = check(img)
    assert result.occluded and result.side == "bottom" and result.run_mm >= CONFIG.frame_run_mm
    cues = side_cues(img, "bottom")
    across = np.abs(cues.t - 258.0) < 15
    assert (cues.colour[across] >= 1.0).all()


def test_edge_cue_a_forearm_the_colour_of_the_frame_is_refused():
    """Skin the very colour of the wood: the frame's rows are not foreign,
    so colour alone cannot tell, but the frame's edges (surface to frame,
    frame to wall and table) are gone where it lies."""
    img = arm(board(), (120.0, 700.0), (140.0, 280.0), colour=WOOD)
    result = check(img)
    assert result.occluded and result.side == "bottom"
    cues = side_cues(img, "bottom")
    across = np.abs(cues.t - 128.0) < 12
    assert (cues.colour[across] < 1.0).all()
    assert (cues.corr[across] < VisionConfig().occlusion.corr_crossed).all()


def test_a_forearm_crossing_aslant_is_refused():
    img = arm(board(), (-160.0, 560.0), (200.0, 250.0))
    result = check(img)
    assert result.occluded


def test_a_forearm_crossing_at_a_corner_is_refused():
    """Over the corner block, where the markers' corner zone is: the strips
    run on past the corner, so both sides see it."""
    img = arm(board(), (-170.0, 620.0), (110.0, 330.0), width_mm=55.0)
    assert check(img).occluded


def test_something_on_the_surface_alone_does_not_cross_the_frame():
    """Something lying on the bar and the field between the rows of points
    alone (a cup, a die box) does not cross the frame and hides no man and
    no place a man stands; a camera seeing the frame and the table round it
    judges an arm by the frame (a hand reaches the board from outside it)."""
    img = board()
    cv2.circle(img, tuple(int(v) for v in px([[265.0, 225.0]])[0]), int(40 * PPM), SKIN, -1)
    assert not check(img).occluded


def test_a_stretch_of_frame_alone_unlike_its_side_with_the_table_beyond_as_ever_is_not_an_arm():
    """A camera over the table sees the frame and the table round it. A stretch of the frame whose
    edges are lost (a pile of men rising over the far rail, a blur, the frame's own shadow) with the
    table beyond as it is all along the side is not something reaching the board from outside
    (``beyond_z``; path-traced boards, issue 45); the same stretch with the table beyond it covered
    too is, as an arm of the frame's own colour is."""
    img = board()
    a, b = px([[180.0, GEO.depth], [280.0, GEO.depth + FRAME_MM + 4.0]]).astype(int)
    img[a[1]:b[1], a[0]:b[0]] = TABLE                              # the frame's edges gone there
    cues = side_cues(img, "bottom")
    lost = np.abs(cues.t - 230.0) < 30
    assert cues.crossed[lost].any()                                # the frame's cues alone call it crossed ...
    assert not check(img).occluded                                 # ... but nothing came from outside
    old = CONFIG.with_values({"occlusion": {"beyond_z": 0.0}})
    assert check_frame(old, img, corners()).occluded              # (as the check was before)
    beyond = img.copy()
    c, d = px([[180.0, GEO.depth + FRAME_MM], [280.0, GEO.depth + FRAME_MM + 60.0]]).astype(int)
    beyond[c[1]:d[1], c[0]:d[0]] = WOOD
    assert check(beyond).occluded and check(beyond).side == "bottom"


# ------------------------------------------------------------------ rendered frames
@pytest.mark.parametrize("seed", [3, 8])
def test_rendered_frames_with_and_without_a_hand(seed):
    for occluded in (False, True):
        image, label = render(np.random.default_rng(seed), SceneSpec(occluded=occluded, n_dice=0))
        cam = camera_from_corners(label["corners"], tuple(label["image_size"]))
        assert check_frame(CONFIG, image, label["corners"], None, cam).occluded is occluded


def _rendered(seed: int, index: int, occluded_share: float):
    """Frame *index* of ``python -m willughby.vision.synth DIR --seed SEED``."""
    image, label = render(np.random.default_rng([seed, index]), SceneSpec(occluded_share=occluded_share))
    return image, label, camera_from_corners(label["corners"], tuple(label["image_size"]))


def test_a_lamp_burning_table_and_frame_white_is_not_an_arm():
    """A warm lamp's spot near a corner: the table and the frame there are
    far from the side's usual colour, but every edge is in place, so the
    colour is light's, not an arm's (without that rule this frame is refused)."""
    image, label, cam = _rendered(505, 195, 0.15)
    assert not label["occluded"]
    assert not check_frame(CONFIG, image, label["corners"], None, cam).occluded
    without_the_rule = CONFIG.with_values({"occlusion": {"colour_veto_corr": 9.0}})
    assert check_frame(without_the_rule, image, label["corners"], None, cam).occluded


@pytest.mark.xfail(reason="known miss: a dark forearm on a dark table, the elbow's round end lying on the "
                          "frame mimics the frame's own edge; 27 mm crossed, 30 needed", strict=True)
def test_known_miss_the_elbow_on_the_frame():
    image, label, cam = _rendered(404, 156, 0.5)
    assert label["occluded"]
    assert check_frame(CONFIG, image, label["corners"], None, cam).occluded


# ------------------------------------------------------------------ the dev set
def _dev(name):
    path = dev_image(name)
    label = json.loads(path.with_suffix(".json").read_text())
    return cv2.imread(str(path)), label


@pytest.mark.parametrize("name", ["img_0014", "img_0024"])
def test_dev_frames_with_a_forearm_are_refused(name):
    image, label = _dev(name)
    cam = camera_from_corners(label["corners"], tuple(label["image_size"]))
    assert label["occluded"]
    assert check_frame(CONFIG, image, label["corners"], None, cam).occluded


def test_dev_frame_with_piles_overhanging_the_top_edge_is_not_refused():
    image, label = _dev("img_0007")
    cam = camera_from_corners(label["corners"], tuple(label["image_size"]))
    assert not label["occluded"]
    assert not check_frame(CONFIG, image, label["corners"], None, cam).occluded
    assert not check_frame(CONFIG, image, label["corners"]).occluded          # the camera found from the corners


# ------------------------------------------------------------------ with the reader
def _golden(name="img_0001"):
    label = json.loads((GOLDEN / f"{name}.json").read_text())
    return cv2.imread(str(GOLDEN / f"{name}.jpg")), label


def _painted_arm(image, corners):
    """Paint a forearm-coloured band from outside the board across its bottom frame."""
    c = np.array(corners)
    out = image.copy()
    mid = (c[0] + c[1]) / 2          # the middle of the C1-C2 edge
    inner = mid - (mid - (c[2] + c[3]) / 2) * 0.5
    start = mid + (mid - (c[2] + c[3]) / 2) * 0.4
    cv2.line(out, tuple(int(v) for v in start), tuple(int(v) for v in inner), (140, 170, 215), 70)
    return out


def test_an_arm_across_the_frame_is_refused_and_not_read():
    image, label = _golden()
    armed = _painted_arm(image, label["corners"])
    reading = read_board(armed, label["corners"])
    assert reading.occluded and not reading.settled
    assert reading.occluded_why and reading.occluded_why in reading.notes
    assert reading.occluded_why.startswith("something lies across the frame")
    # a turn judged from this frame asks, saying what the reading saw
    assert TurnEvidence.from_reading(reading).why_unsettled == reading.occluded_why


# ------------------------------------------------------------------ the interface
def test_the_result_and_the_reader_s_call():
    img = board()
    cam = camera_from_corners(corners(), (1280, 720), GEO)
    result = check_frame(CONFIG, img, corners(), [], cam)          # as read_board calls it
    assert isinstance(result, FrameCheck)
    assert (result.occluded, result.side) == (False, None)
    assert isinstance(result.run_mm, float) and isinstance(result.contrast, float)


def test_a_grey_frame_is_read_and_a_bad_frame_is_refused_with_an_error():
    assert not check(cv2.cvtColor(board(), cv2.COLOR_BGR2GRAY)).occluded
    with pytest.raises(FrameError, match="8-bit"):
        check(board().astype(np.float32))
    with pytest.raises(ValueError):
        check_frame(CONFIG, board(), [[0, 0], [1, 1]])


def test_a_board_whose_frame_is_out_of_the_picture_is_not_refused():
    """Nothing of the frame seen, nothing to judge: the check says so by not
    refusing (the reader's other checks stand)."""
    img = board()
    big = [[1500.0, 900.0], [-250.0, 900.0], [-250.0, -180.0], [1500.0, -180.0]]
    assert check_frame(CONFIG, img, big).run_mm == 0.0


# ---- with the calibration photo's frame as reference (issue 16: boards whose own frame looks like an arm)

def _table(style: dict, seed: int):
    """One table for a game (the painter's Scene): its start frame, as the calibration photo, and a look."""
    from willughby.engine.rules import preset_rules, start_position
    from willughby.vision.reader import learn_look
    from willughby.vision.synth import Scene, SceneSpec

    start = start_position(preset_rules("backgammon"))
    scene = Scene(np.random.default_rng(seed), SceneSpec(n_dice=2, **style))
    photo, label = scene.render(start, np.random.default_rng(1), n_dice=0)
    return scene, start, label["corners"], learn_look(photo, label["corners"])


# a black leather board on ivory felt under a low lamp, whose frame judged alone is taken for an arm on
# every frame (in benchmarks/turns.py, 2 of the 13 boards drawn in held-out styles were never read so)
SHADOWED = {"wood": "black_leather", "field": "felt_ivory", "men": "olive_ebony", "points": "purple_silver",
            "lighting": "side_lamp_shadows"}


def test_a_board_whose_own_frame_looks_crossed_is_read_once_its_calibration_photo_is_known():
    from willughby.vision.reader import read_board

    scene, start, corners, look = _table(SHADOWED, 2)
    assert look.rails is not None
    read_alone = read_with_look = 0
    for k in range(6):
        image, _ = scene.render(start, np.random.default_rng(10 + k))
        read_alone += read_board(image, corners).settled
        read_with_look += read_board(image, corners, look=look).settled
    assert read_with_look == 6, read_with_look
    assert read_alone < 6       # the case the reference is for: alone, the check refuses this board's frames


@pytest.mark.parametrize("style,seed", [(SHADOWED, 2), ({"wood": "olive_wood", "field": "felt_black", "men": "cream_tan",
                                                          "lighting": "cold_daylight", "tilt_deg": 8.0}, 7)])
def test_with_the_calibration_photo_a_hand_over_the_frame_is_still_refused(style, seed):
    from willughby.vision.reader import read_board

    scene, start, corners, look = _table(style, seed)
    for k in range(4):
        image, _ = scene.render(start, np.random.default_rng(20 + k), occluded=True)
        reading = read_board(image, corners, look=look)
        assert not reading.settled and reading.occluded, k


def test_a_reference_of_another_shape_is_not_used():
    image = np.full((720, 1280, 3), 120, np.uint8)
    corners = [[1000, 620], [280, 620], [280, 100], [1000, 100]]
    assert not check_frame(VisionConfig(), image, corners, reference=np.zeros((3, 3, 3), np.uint8)).occluded


@pytest.mark.parametrize("step", [2.0, 3.0, 4.0])
def test_the_colour_support_holds_for_a_surface_of_any_width(step):
    # a path-traced board of its own proportions (issue 45) was rectified to a width whose folded half was odd:
    # its last column fell in a block past the last, and judging the photo ended in a traceback
    from willughby.vision import cover_cues
    oc = VisionConfig.default().occlusion
    for w in range(40, 140):
        rng = np.random.default_rng(w)
        lab = rng.uniform(0, 255, (30, 2 * w, 3)).astype(np.float32)
        grain = rng.uniform(0, 1, (30, 2 * w)).astype(np.float32)
        ok = np.ones((30, 2 * w), bool)
        share, usual = cover_cues._colour_support(lab, grain, ok, ok.copy(), oc, step)
        assert share.shape == usual.shape == ok.shape
        assert ((share >= 0) & (share <= 1)).all()
