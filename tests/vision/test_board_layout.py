"""The board's own layout (vision/board_layout.py): its points, its bar and
its depth found in the picture, not assumed; the configured proportions only
where the picture shows nothing certain, and then the reading says so."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from willughby.engine.rules import preset_rules, start_position
from willughby.vision.board_layout import (BoardLayout, confirms, find_layout, layout_config,
                                           layout_of)
from willughby.vision.calibration import calibrate_from_photo
from willughby.vision.config import VisionConfig, VisionConfigError
from willughby.vision.errors import CalibrationError
from willughby.vision.evaluate import _counts
from willughby.vision.geometry import BoardGeometry
from willughby.vision.reader import Look, read_board
from willughby.vision.surface_depth import camera_aspect
from willughby.vision.synth import SceneSpec, render

CONFIG = VisionConfig()
START = start_position(preset_rules("backgammon"))

# boards no standard proportions describe (the painter's SceneSpec fields, in mm of a board 530 wide)
WIDE_BAR = dict(bar_kind="raised", bar_width_mm=80.0, point_width_mm=37.0)     # a bar twice the usual
NO_BAR = dict(bar_kind="flush", bar_width_mm=2.0, point_width_mm=44.0)         # halves edge to edge, a line
TRAVEL = dict(surface_aspect=1.0, bar_kind="hinge", bar_width_mm=30.0, point_width_mm=32.0)  # narrow points,
                                                                                                 # deep case


def _painted(seed: int, position=START, **board):
    image, label = render(np.random.default_rng(seed), SceneSpec(position=position, occluded=False, n_dice=0,
                                                                tilt_deg=15.0, **board))
    return image, label, layout_of(CONFIG.with_values(label["geometry"]))


def _in_label_frame(centres, corners, label_corners) -> np.ndarray:
    """Points' centres found with *corners* (at the board's edges), where the label's corners put them."""
    g = BoardGeometry(CONFIG)
    frame = g.surface_corners().astype(np.float32)
    to_image = cv2.getPerspectiveTransform(frame, np.float32(corners))
    to_label = cv2.getPerspectiveTransform(np.float32(label_corners), frame)
    edge = np.array([[[c, 0.0 if p >= 13 else g.depth]] for p, c in zip(range(1, 25), centres)], np.float32)
    return cv2.perspectiveTransform(cv2.perspectiveTransform(edge, to_image), to_label)[:, 0, 0]


@pytest.mark.parametrize("board", [WIDE_BAR, NO_BAR, TRAVEL], ids=["wide bar", "no bar", "narrow travel board"])
def test_a_board_of_other_proportions_has_its_points_found_where_they_are(board):
    image, label, truth = _painted(1, **board)
    found = find_layout(CONFIG, image, label["corners"])
    assert found.found, found.notes
    assert np.abs(np.array(found.centres) - np.array(truth.centres)).max() <= 1.5
    # the gap between the two groups of six: the bar and whatever margin lies beside it
    pw = label["geometry"]["point_width"]
    assert found.bar == pytest.approx((6 * pw, 530.0 - 6 * pw), abs=1.5)
    assert found.pitch == pytest.approx(pw, abs=0.3)


def test_a_deep_board_is_read_as_deep_where_the_camera_and_the_men_say_so():
    image, label, truth = _painted(1, **TRAVEL)
    found = find_layout(CONFIG, image, label["corners"])
    # the corners alone map the surface onto the configured 530 x 450; this case is 530 deep
    assert found.depth == pytest.approx(truth.depth, rel=0.04)
    aspect = camera_aspect(np.array(label["corners"]), (image.shape[1], image.shape[0]), 530.0, 450.0)
    assert aspect == pytest.approx(1.0, abs=0.04)


def test_the_reader_reads_with_the_layout_found_and_not_with_the_configured_one():
    image, label, truth = _painted(1, **WIDE_BAR)
    want = _counts(label)
    reading = read_board(image, label["corners"])
    assert _counts(reading.to_board()) == want
    # the configured proportions would put the strips beside this board's points (a quarter of a point or more)
    configured = BoardGeometry(CONFIG.with_values({"layout": {"find": False}}))
    assert max(abs(configured.point_centre_x(p) - c) for p, c in zip(range(1, 25), truth.centres)) >= 10.0
    # the reading's configuration holds the layout, the surface scaled so that a point is 40 mm wide
    used = BoardGeometry(reading.config)
    scale = reading.config.surface_width / 530.0
    assert reading.config.point_width <= 40.0 + 1e-6 and scale == pytest.approx(40.0 / 37.0, rel=0.01)
    assert [used.point_centre_x(p) / scale for p in range(1, 25)] == pytest.approx(list(truth.centres), abs=1.5)


@pytest.mark.parametrize("seed", [2, 3])
def test_corners_15_px_off_still_give_the_right_layout(seed):
    image, label, truth = _painted(seed, **WIDE_BAR)
    true = np.array(label["corners"], np.float64)
    rng = np.random.default_rng(seed)
    angle = rng.uniform(0, 2 * np.pi, 4)
    given = true + 15.0 * np.c_[np.cos(angle), np.sin(angle)]        # each corner 15 px off, every way
    found = find_layout(CONFIG, image, given)
    assert found.found, found.notes
    error = np.abs(_in_label_frame(found.centres, given, true) - np.array(truth.centres))
    assert np.median(error) <= 2.0 and error.max() < truth.pitch / 4, error.round(1)


def test_a_picture_with_no_points_falls_back_to_the_configured_proportions_and_says_so():
    rng = np.random.default_rng(5)
    # wood-like upright stripes, periodic across the board: no board's points (nothing leans as a side does)
    stripes = np.tile((120 + 60 * (np.arange(1280) // 20 % 2))[None, :, None], (720, 1, 3)).astype(np.uint8)
    noise = np.clip(rng.normal(128, 30, (720, 1280, 3)), 0, 255).astype(np.uint8)
    corners = [[1100, 650], [180, 650], [180, 70], [1100, 70]]
    for image in (stripes, noise):
        layout = find_layout(CONFIG, image, corners)
        assert not layout.found
        reading = read_board(image, corners)
        assert any("points were not found" in n and "configured proportions" in n for n in reading.notes)
        g = BoardGeometry(reading.config)
        assert [g.point_centre_x(p) for p in range(1, 25)] == [BoardGeometry(CONFIG).point_centre_x(p)
                                                               for p in range(1, 25)]


def test_the_layout_is_found_once_at_calibration_and_kept_with_it(monkeypatch):
    image, label, truth = _painted(3, **NO_BAR)
    cal, _ = calibrate_from_photo(image, label["corners"])
    doc = json.loads(json.dumps(cal.colours))                     # as saved in the calibration file
    look = Look.from_json(doc)
    assert look.layout is not None and look.layout.found
    assert np.abs(np.array(look.layout.centres) - np.array(truth.centres)).max() <= 1.5
    # every read of that board uses it: nothing is searched for again
    import willughby.vision.reader as reader

    monkeypatch.setattr(reader, "find_layout", lambda *a, **k: pytest.fail("searched again"))
    reading = read_board(image, cal.corners_array().tolist(), look=look)
    assert reading.config.layout.centres == look.layout.config(CONFIG).layout.centres
    assert _counts(reading.to_board()) == _counts(label)


def test_a_look_saved_before_layouts_were_found_reads_with_the_configured_proportions_and_says_so():
    image, label, _ = _painted(3, **NO_BAR)
    look = Look({}, ((50.0, 0, 0), (60.0, 0, 0)), (70.0, 0, 0), (70.0, 0, 0))
    reading = read_board(image, label["corners"], look=look)
    assert any("calibrate again" in n for n in reading.notes)
    assert not reading.config.layout.centres


def test_frames_of_one_board_under_corners_that_stay_put_are_read_alike_and_another_board_anew():
    from willughby.vision.changes import rectified

    wide, label, _ = _painted(1, **WIDE_BAR)
    flush, other, _ = _painted(1, **NO_BAR)
    corners = label["corners"]
    assert np.allclose(corners, other["corners"])                 # the same camera's view of two boards
    first = read_board(wide, corners)
    again = rectified(wide, corners)                              # as a turn's frame before is kept
    assert again.config == first.config
    assert confirms(CONFIG, wide, corners, find_layout(CONFIG, wide, corners))
    assert not confirms(CONFIG, flush, corners, find_layout(CONFIG, wide, corners))
    assert read_board(flush, corners).config.layout.bar != first.config.layout.bar


def test_a_layout_reads_back_from_its_json_and_a_bad_one_is_the_calibrations_error():
    image, label, _ = _painted(2, **TRAVEL)
    layout = find_layout(CONFIG, image, label["corners"])
    back = BoardLayout.from_json(json.loads(json.dumps(layout.to_json())))
    assert back.centres == pytest.approx(layout.centres, abs=0.01) and back.found
    assert layout_config(CONFIG, back).layout.centres == pytest.approx(layout.config(CONFIG).layout.centres,
                                                                       abs=0.01)
    bad = layout.to_json() | {"centres": [1.0, 2.0]}
    with pytest.raises(CalibrationError, match="layout"):
        BoardLayout.from_json(bad)


def test_a_layout_given_by_hand_in_the_toml_file_is_read_with_and_nothing_is_searched(tmp_path, monkeypatch):
    centres = [float(510 - 40 * i) for i in range(12)] + [float(20 + 40 * i) for i in range(12)]
    path = tmp_path / "willughby.toml"
    path.write_text("[vision.layout]\ncentres = [" + ", ".join(map(str, centres)) + "]\nbar = [240.0, 290.0]\n")
    config = VisionConfig.from_toml(path)
    assert BoardGeometry(config).point_centre_x(13) == 20.0 and BoardGeometry(config).bar_x == (240.0, 290.0)
    import willughby.vision.reader as reader

    monkeypatch.setattr(reader, "find_layout", lambda *a, **k: pytest.fail("searched"))
    assert reader.board_config(np.zeros((720, 1280, 3), np.uint8), [[1100, 650], [180, 650], [180, 70],
                                                                    [1100, 70]], config)[0] is config
    with pytest.raises(VisionConfigError, match="24 values"):
        VisionConfig().with_values({"layout": {"centres": [1.0, 2.0]}})
    with pytest.raises(VisionConfigError, match="left to right"):
        VisionConfig().with_values({"layout": {"bar": [290.0, 240.0]}})
