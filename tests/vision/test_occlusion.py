"""Something lying across the board's frame (an arm) makes the frame refused;
the bare frame does not."""

import json
from pathlib import Path

import cv2
import numpy as np

from willughby.vision.camera import camera_from_corners
from willughby.vision.config import VisionConfig
from willughby.vision.occlusion import check_frame
from willughby.vision.reader import read_board

GOLDEN = Path(__file__).parent / "golden"


def _golden(name="img_0001"):
    label = json.loads((GOLDEN / f"{name}.json").read_text())
    return cv2.imread(str(GOLDEN / f"{name}.jpg")), label


def _arm(image, corners):
    """Paint a forearm-coloured band from outside the board across its bottom frame."""
    c = np.array(corners)
    out = image.copy()
    mid = (c[0] + c[1]) / 2          # the middle of the C1-C2 edge
    inner = mid + (c[2] + c[3]) / 2 * 0 - (mid - (c[2] + c[3]) / 2) * 0.5
    start = mid + (mid - (c[2] + c[3]) / 2) * 0.4
    cv2.line(out, tuple(int(v) for v in start), tuple(int(v) for v in inner), (140, 170, 215), 70)
    return out


def test_the_bare_frame_is_not_refused():
    image, label = _golden()
    cam = camera_from_corners(label["corners"], tuple(label["image_size"]))
    assert not check_frame(VisionConfig(), image, label["corners"], camera=cam).occluded


def test_an_arm_across_the_frame_is_refused_and_not_read():
    image, label = _golden()
    armed = _arm(image, label["corners"])
    reading = read_board(armed, label["corners"])
    assert reading.occluded and not reading.settled
    assert any("across the frame" in note for note in reading.notes)
