"""The arrangement-fitting reader (the baseline the point reader is measured against)."""

import json
from pathlib import Path

import cv2
import pytest

from willughby.vision.config import VisionConfig
from willughby.vision.counting import arrangement, fit_point
from willughby.vision.reader import observe

GOLDEN = Path(__file__).parent / "golden"


def test_arrangement_rows_then_layers_in_the_gaps():
    # vision-dev README: "when a row is full (5 or 6 men) further men lie on
    # top of the row, in the gaps between the men below"
    a = arrangement(8, 5)
    assert a.men[:5] == tuple((float(k), 0) for k in range(5))
    assert a.men[5:] == ((0.5, 1), (1.5, 1), (2.5, 1))
    pile = arrangement(4, 5, pile=3)
    assert pile.stacked == 3 and pile.men == ((0.0, 0), (0.0, 1), (0.0, 2), (1.0, 0))


def test_fitting_several_row_lengths_at_once_equals_fitting_each():
    label = json.loads((GOLDEN / "img_0001.json").read_text())
    image = cv2.imread(str(GOLDEN / "img_0001.jpg"))
    config = VisionConfig()
    obs = observe(image, label["corners"], config)
    s, m = config.scale, obs.margin
    h, w = obs.lab.shape[:2]
    for p in (1, 6, 12, 19):
        xc = obs.geometry.point_centre_x(p) + m
        roi = (max(0, int((xc - 45) * s)), 0, min(w, int((xc + 45) * s)), h)
        both = fit_point(p, obs.geometry, obs.camera, obs.llr, roi, (5, 6), 11.0, offset=m)
        for row in (5, 6):
            alone = fit_point(p, obs.geometry, obs.camera, obs.llr, roi, row, 11.0, offset=m)
            assert (both[row].colour, both[row].count) == (alone.colour, alone.count)
            assert both[row].score == pytest.approx(alone.score)
        assert both[6].count == label["light"][p - 1] + label["dark"][p - 1]   # this board lays rows of 6
