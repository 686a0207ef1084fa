"""End to end on the golden dev images kept in the project (tests/vision/golden)."""

import json
from pathlib import Path

import cv2
import pytest

from willughby.vision import pointnet
from willughby.vision.reader import read_board

GOLDEN = Path(__file__).parent / "golden"
pytestmark = pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")


def _case(stem):
    label = json.loads((GOLDEN / f"{stem}.json").read_text())
    return cv2.imread(str(GOLDEN / f"{stem}.jpg")), label


def test_the_backgammon_start_is_read_exactly_and_surely():
    image, label = _case("img_0001")
    reading = read_board(image, label["corners"])
    assert reading.settled and not reading.occluded
    assert reading.light == label["light"] and reading.dark == label["dark"]
    assert reading.bar == label["bar"] and reading.stacked == label["stacked"]
    assert reading.confidence > 0.85        # its least sure point: 0.895 with v13 (above 0.9 with v12)


@pytest.mark.parametrize("stem", ["img_0001", "img_0009", "img_0013"])
def test_golden_images_are_mostly_read_and_never_refused(stem):
    # a regression guard: the measured figures are in docs/point-reader.md
    image, label = _case(stem)
    reading = read_board(image, label["corners"])
    assert reading.settled
    wrong = [p for p in range(24)
             if (reading.light[p], reading.dark[p]) != (label["light"][p], label["dark"][p])]
    assert len(wrong) <= 2, f"points read wrong: {[p + 1 for p in wrong]}"


def test_a_point_read_wrong_here_is_one_the_reader_doubts():
    # img_0009: six light men on point 11, wood-stained men on a board of the
    # same wood; the reader does not see them, and says it is unsure there
    image, label = _case("img_0009")
    reading = read_board(image, label["corners"])
    for p in range(24):
        if (reading.light[p], reading.dark[p]) != (label["light"][p], label["dark"][p]):
            assert reading.location_confidence[str(p + 1)] < 0.9
