"""The covered-photo benchmark's own parts (``benchmarks/covers.py``,
``benchmarks/covered_photos.py``): each cover lies over a man the label
says is there and hides at least half of him; the benchmark counts a
refusal as the reader's ``occluded``; bad input is one clear error. Run on
a frame of the project's own painter, never the real photos."""

from __future__ import annotations

import json
import random

import cv2
import numpy as np
import pytest

from willughby.vision.config import VisionConfig
from willughby.vision.geometry import BoardGeometry
from willughby.vision.reader import board_config

from .test_real_photos import _load, painted  # noqa: F401  (the fixture)

covers = _load("covers")
bench = _load("covered_photos")
CONFIG = VisionConfig.default()


def _label_and_image(folder):
    return json.loads((folder / "start.json").read_text()), cv2.imread(str(folder / "start.jpg"))


@pytest.mark.parametrize("kind", covers.KINDS)
def test_each_cover_hides_at_least_half_of_the_man_it_names(painted, kind):  # noqa: F811
    label, image = _label_and_image(painted)
    cfg, _, _ = board_config(image, label["corners"], CONFIG)
    g = BoardGeometry(cfg)
    to_image = covers.frame_to_image(cfg, label["corners"])
    for seed in range(3):
        picture, where, mask = covers.cover_photo(image, label, CONFIG, kind, random.Random(seed))
        assert picture.shape == image.shape and mask.shape == image.shape[:2] and where.startswith(kind + " over ")
        colour, rest = where[len(kind) + 6:].split("@", 1)
        point, man = int(rest.split(" ")[0]), int(rest.split("(man ")[1].split(")")[0])
        assert label[colour][point - 1] >= man                        # the label has that man there
        y = (man - 0.5) * cfg.man_diameter
        centre = [g.point_centre_x(point), y if g.is_top(point) else g.depth - y]
        c = cv2.perspectiveTransform(np.float32([[centre]]), to_image)[0, 0]
        r = np.linalg.norm(cv2.perspectiveTransform(
            np.float32([[[centre[0] + cfg.man_diameter / 2, centre[1]]]]), to_image)[0, 0] - c)
        disc = np.zeros(image.shape[:2], np.uint8)
        cv2.circle(disc, (int(round(c[0])), int(round(c[1]))), max(1, int(round(r))), 255, -1)
        hidden = mask & (disc > 0)
        assert hidden.sum() >= 0.5 * (disc > 0).sum(), (where, hidden.sum(), (disc > 0).sum())
        assert (picture[mask] != image[mask]).any() and (picture[~mask & (disc == 0)] == image[~mask & (disc == 0)]
                                                          ).mean() > 0.9   # drawn where it lies (and its shadow)


def test_a_label_with_no_man_and_an_unknown_kind_are_clear_errors(painted):  # noqa: F811
    label, image = _label_and_image(painted)
    with pytest.raises(ValueError, match="kind must be one of"):
        covers.cover_photo(image, label, CONFIG, "umbrella", random.Random(0))
    empty = {**label, "light": [0] * 24, "dark": [0] * 24}
    with pytest.raises(ValueError, match="no man on a point"):
        covers.cover_photo(image, empty, CONFIG, "cup", random.Random(0))


def test_the_benchmark_counts_the_reader_s_refusals(painted, tmp_path):  # noqa: F811
    result = bench.measure(painted, per_kind=1, seed=2, save=tmp_path, quiet=True)
    assert set(result["clear"]) == {"start.jpg"} and len(result["covered"]) == len(covers.KINDS)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"start-{k.replace(' ', '-')}-0.jpg"
                                                                for k in covers.KINDS)
    assert result["clear"]["start.jpg"] == {w: False for w in bench.WAYS}     # the clear painted start is read
    lines = bench.report(result, per_photo=True)
    assert lines[-1].startswith("| start.jpg | no / no | ") or "read though covered" in lines[-1]
    # the sleeve (an arm in cloth over a man, from the picture's edge) is refused at least with the calibration
    sleeve = [c for c in result["covered"] if c["kind"] == "sleeve"]
    assert sleeve[0][bench.WAYS[1]], sleeve
