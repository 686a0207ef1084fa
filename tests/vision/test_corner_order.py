"""Corners marked in another order (mirrored, or from the wrong corner) are told at calibration from the
board the photo is known to show, and the right order is named (vision/corner_order.py)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from willughby.companion.cli import main
from willughby.vision import pointnet
from willughby.vision.calibration import calibrate_from_photo
from willughby.vision.corner_order import ORDERS, corner_order
from willughby.vision.errors import InvalidCornersError

pytestmark = pytest.mark.skipif(not pointnet.available(), reason="no point reader installed")

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
CORNERS = [[264, 64], [734, 83], [733, 491], [233, 471]]


@pytest.fixture(scope="module")
def start():
    return cv2.imread(str(EXAMPLES / "start.jpg")), json.loads((EXAMPLES / "start.json").read_text())


def test_each_other_order_of_the_corners_is_told_and_the_right_one_named(start):
    image, known = start
    assert corner_order(image, CORNERS, known).as_given
    for given in ORDERS[1:]:
        marked = [CORNERS[i] for i in given]
        found = corner_order(image, marked, known)
        assert not found.as_given
        assert [marked[i] for i in found.order] == CORNERS          # the order named puts them right


def test_a_photo_of_another_board_says_nothing_of_the_order(start):
    image, _ = start
    elsewhere = {"light": [15] + [0] * 23, "dark": [0] * 23 + [15]}  # no photo of the start shows this
    assert corner_order(image, [CORNERS[i] for i in (1, 0, 3, 2)], elsewhere).as_given


def test_calibration_refuses_mirrored_corners_naming_the_right_order(start, tmp_path, monkeypatch, capsys):
    image, known = start
    mirrored = [CORNERS[i] for i in (1, 0, 3, 2)]
    with pytest.raises(InvalidCornersError, match="C1 at the corner given as C2, C2 at the corner given as C1"):
        calibrate_from_photo(image, mirrored, known=known)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    text = " ".join(f"{x},{y}" for x, y in mirrored)
    calibrate = ["vision", "calibrate", str(EXAMPLES / "start.jpg"), "--known", f"@{EXAMPLES / 'start.json'}"]
    assert main(calibrate + ["--corners", text]) == 2
    err = capsys.readouterr().err
    assert "another order" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "willughby" / "calibration.json").exists()          # nothing saved
    assert main(calibrate + ["--corners", " ".join(f"{x},{y}" for x, y in CORNERS)]) == 0
    assert (tmp_path / "willughby" / "calibration.json").is_file()
    bad = ["vision", "calibrate", str(EXAMPLES / "start.jpg"), "--corners", text, "--known", '{"light": [1]}']
    assert main(bad) == 2                                                      # a board that is none
    assert "24 counts" in capsys.readouterr().err
