"""One table for a whole game (synth.Scene): frames of one scene share the
board, men, camera and light; two frames of one position differ only by
sensor noise, and two positions only around the points whose men changed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from willughby.engine.rules import preset_rules, start_position
from willughby.vision.geometry import BoardGeometry, homography
from willughby.vision.synth import Scene, SceneSpec, SynthError, render

SMALL = (640, 360)
GEO = BoardGeometry()
START = start_position(preset_rules("backgammon"))
IMAGE_KEYS = ("corners", "image_size", "occluded", "dice", "position_kind", "style")


def moved(doc: dict, colour: str, frm: int, to: int) -> dict:
    """*doc* with one man of *colour* moved from point *frm* to point *to*."""
    out = {**doc, colour: list(doc[colour])}
    out[colour][frm - 1] -= 1
    out[colour][to - 1] += 1
    return out


def board_mask(label: dict) -> np.ndarray:
    mask = np.zeros(label["image_size"][::-1], np.uint8)
    cv2.fillConvexPoly(mask, np.round(np.array(label["corners"])).astype(np.int32), 255)
    return mask > 0


def point_mask(label: dict, point: int, men: int, grow: float = 1.0) -> np.ndarray:
    """Where the first *men* men of a row on *point* lie in the picture:
    *grow* men's radii around their centres at the surface's height (their
    tops stand higher, and their shadows fall beside them)."""
    H = np.linalg.inv(homography(label["corners"], GEO, scale=1.0))
    centres = np.array([GEO.slot_centre(point, k) for k in range(men)], np.float64)
    px = cv2.perspectiveTransform(centres.reshape(-1, 1, 2), H).reshape(-1, 2)
    edge = cv2.perspectiveTransform(np.array([[[0.0, 0.0]], [[GEO.config.man_diameter, 0.0]]]), H).reshape(-1, 2)
    r = int(np.ceil(np.linalg.norm(edge[1] - edge[0]) / 2 * grow))
    mask = np.zeros(label["image_size"][::-1], np.uint8)
    for x, y in px:
        cv2.circle(mask, (int(round(x)), int(round(y))), r, 255, -1)
    return mask > 0


@pytest.fixture(scope="module")
def scene() -> Scene:
    return Scene(np.random.default_rng(4), SceneSpec(image_size=SMALL))


def test_frames_of_one_position_differ_only_by_noise(scene: Scene) -> None:
    doc = START.to_board()
    a, la = scene.render(doc, np.random.default_rng(1), n_dice=0)
    b, lb = scene.render(doc, np.random.default_rng(2), n_dice=0)
    assert la == lb                       # corners, style and all
    assert not np.array_equal(a, b)       # each frame has its own noise
    on_board = board_mask(la)
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).mean(-1)
    noise = la["style"]["post"]["noise"]
    assert diff[on_board].mean() < 1.2 * noise + 1.0
    # with the noise blurred away, nothing is left: no man, light or texture moved
    soft = np.abs(cv2.GaussianBlur(a, (0, 0), 3).astype(np.int16)
                  - cv2.GaussianBlur(b, (0, 0), 3).astype(np.int16)).mean(-1)
    assert soft[on_board].mean() < 1.0


@pytest.mark.parametrize("seed", [0, 5, 11])
def test_frames_of_one_position_differ_by_a_few_grey_levels(seed: int) -> None:
    scene = Scene(np.random.default_rng(seed), SceneSpec(image_size=SMALL, palette_jitter=0.1, edge_gap=2.0,
                                                         varied_men=True, men_contrast=0.2))
    a, la = scene.render(START, np.random.default_rng([seed, 1]), n_dice=0)
    b, lb = scene.render(START, np.random.default_rng([seed, 2]), n_dice=0)
    assert la["corners"] == lb["corners"]
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).mean(-1)
    assert diff[board_mask(la)].mean() < 1.2 * la["style"]["post"]["noise"] + 1.0 < 5.2


def test_frames_differ_only_around_the_points_that_changed(scene: Scene) -> None:
    doc = START.to_board()
    after = moved(doc, "light", 24, 20)           # a back man steps out
    a, la = scene.render(doc, np.random.default_rng(1), n_dice=0)
    b, lb = scene.render(after, np.random.default_rng(1), n_dice=0)
    assert la["corners"] == lb["corners"] and la["style"] == lb["style"]
    assert lb["light"][19] == 1 and lb["light"][23] == 1
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(-1)
    # the light men on point 6 and the dark men on point 13, far from the move, are untouched
    for point, men in ((6, 5), (13, 5)):
        assert not diff[point_mask(la, point, men, grow=1.5)].any(), point
    # and the picture did change where the man left and where he arrived
    assert diff[point_mask(la, 24, 2)].mean() > 1.0
    assert diff[point_mask(la, 20, 1)].mean() > 5.0
    # two men's widths from the men that moved (their soft shadows, JPEG's
    # ringing) the frames are the same, give or take a grey level or two
    near = point_mask(la, 24, 2, grow=4.0) | point_mask(la, 20, 1, grow=4.0)
    assert diff[~near].max() <= 3


def test_a_points_men_stay_put_while_the_others_move(scene: Scene) -> None:
    doc = START.to_board()
    rng = np.random.default_rng(0)
    before = scene.plan_frame(doc, rng, n_dice=0).men
    after = scene.plan_frame(moved(doc, "dark", 1, 4), rng, n_dice=0).men

    def on(men: list, colour: int, point: int) -> list[tuple[float, float, float]]:
        return [(m.x, m.y, m.level) for m in men if m.colour == colour and m.point == point]

    for colour, point in ((0, 6), (0, 8), (0, 13), (1, 12), (1, 17), (1, 19)):
        assert on(before, colour, point) and on(before, colour, point) == on(after, colour, point)
    # a man added to a row leaves the men already there where they were
    again = scene.plan_frame(moved(doc, "light", 13, 8), rng, n_dice=0).men
    # (give or take the nudge of pushing the newcomer clear of them)
    assert len(on(again, 0, 8)) == 4
    assert np.allclose(on(again, 0, 8)[:3], on(before, 0, 8), atol=1.0)


def test_the_table_is_drawn_once_whatever_the_position() -> None:
    a = Scene(np.random.default_rng(9), SceneSpec(image_size=SMALL))
    b = Scene(np.random.default_rng(9), SceneSpec(image_size=SMALL))
    img_a, la = a.render(START, np.random.default_rng(3))
    img_b, lb = b.render(START, np.random.default_rng(3))
    assert np.array_equal(img_a, img_b) and la == lb      # deterministic
    empty = {"format": "board/1", "light": [0] * 24, "dark": [0] * 24}
    _, le = a.render(empty, np.random.default_rng(4))
    assert le["corners"] == la["corners"] and le["position_kind"] == "random"
    assert {k: v for k, v in le["style"].items() if k != "n_dice"} == \
           {k: v for k, v in la["style"].items() if k != "n_dice"}


def test_labels_are_renders(scene: Scene) -> None:
    image, label = scene.render(START, np.random.default_rng(5), dice_values=(3, 5))
    _, rendered = render(np.random.default_rng(5), SceneSpec(image_size=SMALL))
    assert set(label) == set(rendered) and set(label["style"]) == set(rendered["style"])
    assert image.shape == (SMALL[1], SMALL[0], 3) and image.dtype == np.uint8
    assert label["position_kind"] == "backgammon_start" and sum(label["light"]) == 15
    assert sorted(d["value"] for d in label["dice"]) == [3, 5]
    for d in label["dice"]:
        assert board_mask(label)[int(d["center"][1]), int(d["center"][0])]
    _, none = scene.render(START, np.random.default_rng(5), n_dice=0)
    assert none["dice"] == [] and none["occluded"] is False


def test_dice_and_hand_are_the_frames(scene: Scene) -> None:
    doc = START.to_board()
    plain, _ = scene.render(doc, np.random.default_rng(6), n_dice=0)
    hand, label = scene.render(doc, np.random.default_rng(6), n_dice=0, occluded=True)
    assert label["occluded"] is True
    assert np.abs(plain.astype(np.int16) - hand.astype(np.int16)).max(-1).mean() > 2
    one = {tuple(d["center"]) for d in scene.render(doc, np.random.default_rng(7), n_dice=2)[1]["dice"]}
    two = {tuple(d["center"]) for d in scene.render(doc, np.random.default_rng(8), n_dice=2)[1]["dice"]}
    assert one != two                      # the dice fall anywhere, frame by frame


def test_without_camera_effects_frames_of_one_position_are_equal() -> None:
    scene = Scene(np.random.default_rng(2), SceneSpec(image_size=SMALL, camera_effects=False))
    a, _ = scene.render(START, np.random.default_rng(1), n_dice=0)
    b, _ = scene.render(START, np.random.default_rng(2), n_dice=0)
    assert np.array_equal(a, b)


def test_a_scene_keeps_the_styles_its_spec_names() -> None:
    spec = SceneSpec(image_size=SMALL, style_set="held-out-test", wood="walnut")
    scene = Scene(np.random.default_rng(1), spec)
    _, label = scene.render(START, np.random.default_rng(1))
    assert label["style"]["wood"] == "walnut" and label["style"]["style_set"] == "held-out-test"
    assert scene.plan.men == [] and scene.plan.wood == "walnut"


@pytest.mark.parametrize("kwargs", [{"n_dice": 3}, {"dice_values": (0, 2)}, {"dice_values": (1, 2, 3)}])
def test_bad_dice_are_refused(scene: Scene, kwargs: dict) -> None:
    with pytest.raises(SynthError):
        scene.render(START, np.random.default_rng(0), **kwargs)


def test_a_bad_position_is_refused(scene: Scene) -> None:
    with pytest.raises(SynthError):
        scene.render({"format": "board/1", "light": [16] + [0] * 23, "dark": [0] * 24}, np.random.default_rng(0))
