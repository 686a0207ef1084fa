"""The camera recovered from the four corners: its tilt must match the
rendering camera of the labelled golden images (``style`` is read here only
to check, never by the reader)."""

import json
from pathlib import Path

import pytest

from willughby.vision.camera import Camera, camera_from_corners
from willughby.vision.geometry import CornersError, corners_array

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", ["img_0001", "img_0009", "img_0013"])
def test_tilt_is_recovered_from_the_corners(name):
    label = json.loads((GOLDEN / f"{name}.json").read_text())
    cam = camera_from_corners(label["corners"], tuple(label["image_size"]))
    assert cam.tilt_deg == pytest.approx(label["style"]["tilt_deg"], abs=0.5)
    assert cam.height > 500


def test_a_point_high_above_the_board_appears_further_from_the_camera_foot():
    cam = Camera(foot=(0.0, 0.0), height=1000.0, focal=1400.0, tilt_deg=0.0)
    x, y = cam.on_surface(100.0, 0.0, 50.0)
    assert x > 100.0 and y == 0.0
    assert cam.magnification(50.0) > 1.0


@pytest.mark.parametrize("bad", [[[0, 0], [1, 1]], "x", [[0, 0], [100, 0], [0, 100], [100, 100]],
                                 [[0, 0], [1, 0], [1, 1], [0, 1]]])
def test_bad_corners_are_refused(bad):
    with pytest.raises(CornersError):
        corners_array(bad)
