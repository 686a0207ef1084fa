"""The saved calibration: the file, its errors, and finding the corners with it;
the ``vision calibrate`` command and ``parse_corners``."""

from __future__ import annotations

import argparse
import json
import os

import cv2
import numpy as np
import pytest

from willughby.vision.calibration import (FORMAT, Calibration, calibrate, calibration_path, corners_for,
                                          load_calibration, save_calibration)
from willughby.vision.cli import add_vision_commands, parse_corners
from willughby.vision.errors import (CalibrationError, CalibrationMissing, InvalidCornersError, SourceError,
                                     VisionError)
from willughby.vision.markers import MarkerCalibration

from .scenes import board_plane, nudge, view

CORNERS = [[600.0, 420.0], [40.0, 420.0], [40.0, 20.0], [600.0, 20.0]]


@pytest.fixture(scope="module")
def scene():
    return view()


# --------------------------------------------------------------------- the file


def test_a_calibration_round_trips_through_its_file(tmp_path, scene):
    cal = calibrate(scene.image, scene.corners, colours={"light": [230, 220, 200], "anything": {"k": 1}})
    assert cal.markers is not None and cal.image_size == (1280, 960)
    path = save_calibration(calibration_path(tmp_path / "data"), cal)
    assert path == tmp_path / "data" / "calibration.json"
    back = load_calibration(path)
    assert back == cal
    assert back.colours == {"light": [230, 220, 200], "anything": {"k": 1}}
    assert json.loads(path.read_text())["format"] == FORMAT


def test_corners_only_round_trip(tmp_path):
    cal = Calibration(corners=CORNERS)
    back = load_calibration(save_calibration(tmp_path / "c.json", cal))
    assert back == cal and back.markers is None and back.colours is None and back.image_size is None


def test_saving_over_a_calibration_replaces_it_whole(tmp_path):
    path = tmp_path / "c.json"
    save_calibration(path, Calibration(corners=CORNERS))
    save_calibration(path, Calibration(corners=CORNERS, colours={"v": 2}))
    assert load_calibration(path).colours == {"v": 2}
    assert os.listdir(tmp_path) == ["c.json"]  # no temporary file left behind


def test_a_crash_while_saving_leaves_the_old_calibration(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    save_calibration(path, Calibration(corners=CORNERS, colours={"v": 1}))

    def power_cut(src, dst):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(CalibrationError, match="cannot write calibration"):
        save_calibration(path, Calibration(corners=CORNERS, colours={"v": 2}))
    monkeypatch.undo()
    assert load_calibration(path).colours == {"v": 1}
    assert os.listdir(tmp_path) == ["c.json"]


def test_colours_that_are_not_json_are_refused_before_writing(tmp_path):
    with pytest.raises(CalibrationError, match="colours"):
        save_calibration(tmp_path / "c.json", Calibration(corners=CORNERS, colours={"x": object()}))
    assert not (tmp_path / "c.json").exists()


def test_a_missing_file_says_how_to_make_one(tmp_path):
    with pytest.raises(CalibrationMissing, match="no calibration at .*vision calibrate"):
        load_calibration(tmp_path / "none.json")


def good_doc():
    return Calibration(corners=CORNERS, image_size=(640, 480)).to_json()


@pytest.mark.parametrize("change, message", [
    (lambda d: "not json {", "not valid JSON"),
    (lambda d: [1, 2], "must be a JSON object"),
    (lambda d: {**d, "format": "board/1"}, "format must be"),
    (lambda d: {k: v for k, v in d.items() if k != "corners"}, "corners must be four"),
    (lambda d: {**d, "corners": [[0, 0], [1, 0], [1, 1]]}, "corners must be four"),
    (lambda d: {**d, "corners": [[0, 0], [10, 0], [0, 10], [10, 10]]}, "convex"),
    (lambda d: {**d, "corners": [[0, 0], [1, "2"], [1, 1], [0, 1]]}, "corners must be four"),
    (lambda d: {**d, "image_size": [640]}, "image_size"),
    (lambda d: {**d, "colours": [1, 2]}, "colours must be an object"),
    (lambda d: {**d, "markers": {"surface": []}}, "markers.surface"),
    (lambda d: {**d, "extra": 1}, "unknown field"),
])
def test_a_malformed_file_is_a_clear_error_naming_the_file_and_field(tmp_path, change, message):
    path = tmp_path / "c.json"
    doc = change(good_doc())
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    with pytest.raises(CalibrationError, match=message) as info:
        load_calibration(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_file_that_is_not_text_is_a_clear_error(tmp_path):
    path = tmp_path / "c.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CalibrationError, match="cannot read calibration"):
        load_calibration(path)


def test_a_calibration_needs_four_good_corners():
    with pytest.raises(InvalidCornersError):
        Calibration(corners=CORNERS[:3])


# ------------------------------------------------------------- corners_for


def test_corners_come_from_the_markers_when_the_board_was_nudged(scene):
    cal = calibrate(scene.image, scene.corners)
    moved = view(board_motion=nudge(3, (30, -20)))
    got = corners_for(moved.image, cal)
    assert np.abs(got - moved.corners).max() < 2.0
    assert np.abs(got - scene.corners).max() > 20  # it really did move


def test_without_markers_in_view_the_saved_corners_are_used(scene):
    cal = calibrate(scene.image, scene.corners)
    covered = view(board_plane(missing=(0, 1, 2)))
    assert np.allclose(corners_for(covered.image, cal), scene.corners)


def test_a_calibration_without_markers_gives_its_saved_corners(scene):
    cal = calibrate(view(board_plane(missing=(0, 1))).image, scene.corners)
    assert cal.markers is None
    assert np.allclose(corners_for(scene.image, cal), scene.corners)


def test_saved_corners_of_another_image_size_are_refused(scene):
    cal = Calibration(corners=scene.corners, image_size=(1920, 1080))
    with pytest.raises(CalibrationError, match="1920x1080 .* 1280x960"):
        corners_for(scene.image, cal)


def test_calibrate_refuses_corners_outside_the_image(scene):
    with pytest.raises(InvalidCornersError, match="C2 .* outside the 1280x960 image"):
        calibrate(scene.image, [[600, 420], [-50, 420], [40, 20], [600, 20]])


def test_the_marker_calibration_in_the_file_still_locates(tmp_path, scene):
    path = save_calibration(tmp_path / "c.json", calibrate(scene.image, scene.corners))
    cal = load_calibration(path)
    assert isinstance(cal.markers, MarkerCalibration)
    moved = view(board_motion=nudge(-2, (-25, 15)))
    assert np.abs(corners_for(moved.image, cal) - moved.corners).max() < 2.0


# --------------------------------------------------------------------- the command


def run(capsys, *argv):
    parser = argparse.ArgumentParser()
    add_vision_commands(parser.add_subparsers())
    args = parser.parse_args(list(argv))
    code = args.func(args)
    return code, capsys.readouterr().out


def corners_text(corners):
    return " ".join(f"{x:.2f},{y:.2f}" for x, y in corners)


def test_vision_calibrate_saves_the_corners_and_the_markers(tmp_path, capsys, scene):
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), scene.image)
    out_file = tmp_path / "data" / "calibration.json"
    code, out = run(capsys, "vision", "calibrate", str(image), "--corners", corners_text(scene.corners),
                    "--out", str(out_file), "--no-refine")
    assert code == 0
    assert "markers [0, 1, 2, 3] found" in out
    assert "warning" not in out
    cal = load_calibration(out_file)
    assert np.abs(cal.corners_array() - scene.corners).max() < 0.01
    assert cal.markers is not None and cal.markers.marker_ids == [0, 1, 2, 3]


def test_vision_calibrate_moves_corners_marked_off_along_the_board_to_the_points(tmp_path, capsys):
    from willughby.engine.rules import preset_rules, start_position
    from willughby.vision.synth import SceneSpec, render

    start = start_position(preset_rules("backgammon"))
    photo, label = render(np.random.default_rng(7), SceneSpec(position=start, occluded=False, n_dice=0))
    true = np.asarray(label["corners"])
    marked = true + [[6.0, 0.0], [6.0, 0.0], [-6.0, 0.0], [-6.0, 0.0]]      # a finger, 6 px off
    image = tmp_path / "photo.png"
    cv2.imwrite(str(image), photo)
    code, out = run(capsys, "vision", "calibrate", str(image), "--corners", corners_text(marked),
                    "--out", str(tmp_path / "c.json"), "--json")
    doc = json.loads(out)
    assert code == 0 and max(doc["corners_moved_px"]) > 3.0
    assert np.abs(load_calibration(tmp_path / "c.json").corners_array() - true).max() < 2.0
    code, out = run(capsys, "vision", "calibrate", str(image), "--corners", corners_text(marked),
                    "--out", str(tmp_path / "kept.json"), "--no-refine")
    assert code == 0 and "moved along the board" not in out
    assert np.abs(load_calibration(tmp_path / "kept.json").corners_array() - marked).max() < 0.01


def test_vision_calibrate_without_markers_saves_the_corners_only(tmp_path, capsys, scene):
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), view(board_plane(missing=(0, 1, 2, 3))).image)
    code, out = run(capsys, "vision", "calibrate", str(image), "--corners", corners_text(scene.corners),
                    "--out", str(tmp_path / "c.json"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["markers"] == [] and doc["marker_calibration"] is False
    assert load_calibration(tmp_path / "c.json").markers is None


def test_vision_calibrate_warns_when_the_corners_seem_out_of_order(tmp_path, capsys, scene):
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), scene.image)
    rotated = np.roll(scene.corners, 2, axis=0)  # C3 C4 C1 C2: the board read from the wrong side
    code, out = run(capsys, "vision", "calibrate", str(image), "--corners", corners_text(rotated),
                    "--out", str(tmp_path / "c.json"))
    assert code == 0
    assert "warning: marker 0 (C1) is nearest the corner given as C3" in out


def test_vision_calibrate_errors_are_the_packages_own(tmp_path, capsys, scene):
    with pytest.raises(SourceError, match="no such image file"):
        run(capsys, "vision", "calibrate", str(tmp_path / "none.png"), "--corners", "1,1 2,2 3,3 4,4",
            "--out", str(tmp_path / "c.json"))
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"junk")
    with pytest.raises(SourceError, match="not an image"):
        run(capsys, "vision", "calibrate", str(junk), "--corners", "1,1 2,2 3,3 4,4",
            "--out", str(tmp_path / "c.json"))
    image = tmp_path / "board.png"
    cv2.imwrite(str(image), scene.image)
    with pytest.raises(InvalidCornersError, match="'12;x'|C2"):
        run(capsys, "vision", "calibrate", str(image), "--corners", "1,1 12,x 3,3 4,4",
            "--out", str(tmp_path / "c.json"))
    assert not (tmp_path / "c.json").exists()


# --------------------------------------------------------------------- parse_corners


def test_parse_corners_reads_four_pairs():
    assert parse_corners("600,420 40,420 40,20 600,20") == CORNERS
    assert parse_corners(" 600.5, 420 ;40,420; 40,20  600,20.25 ")[0] == [600.5, 420.0]
    assert parse_corners("-1.5,2 3,4 5,6 7,8")[0] == [-1.5, 2.0]


@pytest.mark.parametrize("text, names", [
    ("600,420 40,420 40,20", "not 3"),
    ("600,420 40,420 40,20 600,20 1,1", "not 5"),
    ("600,420 40;420 40,20 600,20", "not 5"),
    ("600,420 forty,420 40,20 600,20", "C2 'forty,420'"),
    ("600,420 40,420,1 40,20 600,20", "C2 '40,420,1'"),
    ("", "not 0"),
])
def test_parse_corners_names_the_bad_text(text, names):
    with pytest.raises(InvalidCornersError, match=names) as info:
        parse_corners(text)
    assert isinstance(info.value, VisionError)
