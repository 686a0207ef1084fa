"""The printed markers: the sheet, detection, and finding a nudged board."""

from __future__ import annotations

import argparse
import json
import re
import struct
import zlib

import cv2
import numpy as np
import pytest

from willughby.vision.cli import add_vision_commands
from willughby.vision.config import VisionConfig
from willughby.vision.errors import BoardNotFound, CalibrationError, MarkerSheetError, VisionError
from willughby.vision.markers import (MARKER_CORNERS, MarkerCalibration, detect_markers, marker_sheet,
                                      render_marker_sheet)

from .scenes import board_plane, nudge, view

TOLERANCE_PX = 2.0


@pytest.fixture(scope="module")
def calibrated():
    """The board seen once by the tilted camera, and the calibration made from it."""
    v = view()
    return v, MarkerCalibration.fit(detect_markers(v.image), v.corners)


# --------------------------------------------------------------------- the sheet


def test_the_sheet_holds_markers_0_to_3_each_once():
    sheet = render_marker_sheet(40)
    assert sheet.shape == (3508, 2480)  # A4 at 300 dpi
    assert sorted(detect_markers(sheet)) == [0, 1, 2, 3]


def test_markers_are_printed_at_the_size_asked():
    sheet = render_marker_sheet(40, dpi=300)
    for quad in detect_markers(sheet).values():
        side_mm = np.hypot(*(quad[1] - quad[0])) * 25.4 / 300
        assert side_mm == pytest.approx(40, abs=0.3)


def test_the_png_sheet_records_its_print_resolution(tmp_path):
    path = marker_sheet(tmp_path / "markers.png")
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    i = data.index(b"pHYs")
    ppx, ppy, unit = struct.unpack(">IIB", data[i + 4:i + 13])
    assert (ppx, ppy, unit) == (11811, 11811, 1)  # 300 dpi
    assert struct.unpack(">I", data[i + 13:i + 17])[0] == zlib.crc32(data[i:i + 13])
    image = cv2.imread(str(path))
    assert sorted(detect_markers(image)) == [0, 1, 2, 3]


def test_the_pdf_sheet_is_one_a4_page_with_a_correct_cross_reference(tmp_path):
    data = marker_sheet(tmp_path / "markers.pdf").read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [0 0 595.276 841.89]" in data
    startxref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    assert data[startxref:startxref + 4] == b"xref"
    entries = re.findall(rb"(\d{10}) 00000 n \n", data[startxref:])
    assert len(entries) == 5
    for number, offset in enumerate(entries, start=1):
        assert data[int(offset):].startswith(f"{number} 0 obj".encode())
    # the image inside decodes to the sheet, markers and all
    w = int(re.search(rb"/Width (\d+)", data).group(1))
    h = int(re.search(rb"/Height (\d+)", data).group(1))
    start = data.index(b"stream\n", data.index(b"/Subtype /Image")) + len(b"stream\n")
    length = int(re.search(rb"/Subtype /Image.*?/Length (\d+)", data, re.S).group(1))
    pixels = np.frombuffer(zlib.decompress(data[start:start + length]), np.uint8).reshape(h, w)
    assert sorted(detect_markers(pixels)) == [0, 1, 2, 3]


@pytest.mark.parametrize("name", ["markers.jpg", "markers", "markers.svg"])
def test_a_sheet_is_png_or_pdf(tmp_path, name):
    with pytest.raises(MarkerSheetError, match="png or .pdf"):
        marker_sheet(tmp_path / name)


@pytest.mark.parametrize("size", [0, 5, 120, "40"])
def test_a_marker_size_that_does_not_fit_the_page_is_refused(tmp_path, size):
    with pytest.raises(MarkerSheetError, match="marker size"):
        marker_sheet(tmp_path / "m.png", size_mm=size)


def test_an_unwritable_sheet_is_a_clear_error(tmp_path):
    with pytest.raises(MarkerSheetError, match="cannot write"):
        marker_sheet(tmp_path / "no" / "such" / "dir" / "m.png")


def test_vision_markers_command_writes_the_sheet_and_says_where_each_goes(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    add_vision_commands(parser.add_subparsers())
    args = parser.parse_args(["vision", "markers", str(tmp_path / "m.pdf"), "--size-mm", "50"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "m.pdf").exists()
    for i, corner in MARKER_CORNERS.items():
        assert f"marker {i}: on the frame at the corner by point" in out and f"({corner})" in out
    args = parser.parse_args(["vision", "markers", str(tmp_path / "m.png"), "--json"])
    assert args.func(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [m["corner"] for m in doc["markers"]] == ["C1", "C2", "C3", "C4"]


# ----------------------------------------------------------------- detection


def test_detect_markers_gives_four_corners_per_marker(calibrated):
    v, _ = calibrated
    found = detect_markers(v.image)
    assert sorted(found) == [0, 1, 2, 3]
    assert all(q.shape == (4, 2) for q in found.values())


def test_a_blank_image_has_no_markers():
    assert detect_markers(np.full((240, 320, 3), 200, np.uint8)) == {}


def test_detect_markers_refuses_what_is_not_an_image():
    with pytest.raises(VisionError):
        detect_markers("board.png")


# ----------------------------------------------------------------- locating


def test_locate_in_the_calibration_image_gives_back_the_corners(calibrated):
    v, cal = calibrated
    assert np.abs(cal.locate(v.image) - v.corners).max() < 0.1


@pytest.mark.parametrize("angle, shift", [(3, (25, -15)), (-2, (-40, 30)), (0, (60, 0))])
def test_a_nudged_board_is_found_again(calibrated, angle, shift):
    _, cal = calibrated
    moved = view(board_motion=nudge(angle, shift))
    assert np.abs(cal.locate(moved.image) - moved.corners).max() < TOLERANCE_PX


@pytest.mark.parametrize("hidden", [0, 1, 2, 3])
def test_three_markers_are_enough(calibrated, hidden):
    _, cal = calibrated
    moved = view(board_plane(missing=(hidden,)), nudge(-2, (-30, 20)))
    assert sorted(detect_markers(moved.image)) == sorted({0, 1, 2, 3} - {hidden})
    assert np.abs(cal.locate(moved.image) - moved.corners).max() < TOLERANCE_PX


@pytest.mark.parametrize("hidden", [(0, 1), (1, 3), (0, 1, 2, 3)])
def test_fewer_than_three_markers_is_board_not_found(calibrated, hidden):
    _, cal = calibrated
    moved = view(board_plane(missing=hidden), nudge(1, (5, 5)))
    with pytest.raises(BoardNotFound, match="at least 3"):
        cal.locate(moved.image)


def test_a_marker_stuck_back_turned_is_left_out(calibrated, caplog):
    _, cal = calibrated
    moved = view(board_plane(turned=(2,)), nudge(2, (10, 10)))
    assert np.abs(cal.locate(moved.image) - moved.corners).max() < TOLERANCE_PX
    assert "marker [2] disagrees" in caplog.text


def test_markers_that_disagree_are_board_not_found(calibrated):
    _, cal = calibrated
    moved = view(board_plane(turned=(0, 1)), nudge(2, (10, 10)))
    with pytest.raises(BoardNotFound, match="disagree"):
        cal.locate(moved.image)


def test_the_disagreement_allowed_is_a_setting(calibrated):
    _, cal = calibrated
    moved = view(board_plane(turned=(0, 1)), nudge(2, (10, 10)))
    cal.locate(moved.image, VisionConfig(marker_max_error=500.0))  # anything goes


def test_fit_needs_three_markers():
    v = view(board_plane(missing=(2, 3)))
    with pytest.raises(BoardNotFound, match="at least 3"):
        MarkerCalibration.fit(detect_markers(v.image), v.corners)


def test_fit_ignores_markers_of_other_ids(calibrated):
    v, _ = calibrated
    found = detect_markers(v.image)
    found[17] = found[0] + 5
    assert MarkerCalibration.fit(found, v.corners).marker_ids == [0, 1, 2, 3]


def test_the_marker_frame_does_not_depend_on_where_the_camera_was(calibrated):
    """Calibrated through another camera, the same board is found the same."""
    v, _ = calibrated
    other = view(cam=cv2.getPerspectiveTransform(
        np.float32([[0, 0], [1599, 0], [1599, 1299], [0, 1299]]),
        np.float32([[100, 60], [1180, 40], [1100, 930], [150, 900]])))
    cal2 = MarkerCalibration.fit(detect_markers(other.image), other.corners)
    assert np.abs(cal2.locate(v.image) - v.corners).max() < TOLERANCE_PX


def test_marker_calibration_round_trips_through_json(calibrated):
    _, cal = calibrated
    doc = json.loads(json.dumps(cal.to_json()))
    assert MarkerCalibration.from_json(doc) == cal


@pytest.mark.parametrize("doc, field", [
    ([], "must be an object"),
    ({"surface": [[0, 0]] * 3, "markers": {}}, "surface"),
    ({"surface": [[0, 0], [1, 0], [1, 1], [0, 1]], "markers": []}, "markers"),
    ({"surface": [[0, 0], [1, 0], [1, 1], [0, 1]], "markers": {"7": [[0, 0]] * 4}}, "'7'"),
    ({"surface": [[0, 0], [1, 0], [1, 1], [0, 1]], "markers": {"0": [[0, 0]] * 4}}, "at least 3"),
    ({"surface": [[0, 0], [1, 0], [1, "x"], [0, 1]], "markers": {}}, "surface"),
])
def test_a_malformed_marker_calibration_names_the_field(doc, field):
    with pytest.raises(CalibrationError, match=re.escape(field)):
        MarkerCalibration.from_json(doc)
