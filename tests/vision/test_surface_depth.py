"""The surface's depth from the men's columns (vision/surface_depth.py): where
the corners' perspective cannot say how deep the surface is (a photo
stretched after it was taken), the men standing in a line along a point,
each touching the next, measure it."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from willughby.engine.rules import preset_rules, start_position
from willughby.vision import reader
from willughby.vision.board_layout import BoardLayout, find_layout
from willughby.vision.config import VisionConfig
from willughby.vision.errors import CalibrationError
from willughby.vision.surface_depth import column_periods, depth_from_men
from willughby.vision.synth import SceneSpec, render

CONFIG = VisionConfig()
START = start_position(preset_rules("backgammon"))
DEEP = dict(surface_aspect=1.0, bar_kind="hinge", bar_width_mm=30.0, point_width_mm=36.0)   # a deep travel case


def _stretched(seed: int, squeeze: float, position=START, **board):
    """A painted board whose picture was then squeezed across (as photos
    stored square are): square pixels no longer, so the corners' perspective
    fixes nothing; and the board's true depth over its width."""
    image, label = render(np.random.default_rng(seed), SceneSpec(position=position, occluded=False, n_dice=0,
                                                                tilt_deg=12.0, **board))
    h, w = image.shape[:2]
    squeezed = cv2.resize(image, (int(round(w * squeeze)), h), interpolation=cv2.INTER_AREA)
    corners = [[x * squeeze, y] for x, y in label["corners"]]
    g = label.get("geometry", {})
    truth = g.get("surface_depth", CONFIG.surface_depth) / g.get("surface_width", CONFIG.surface_width)
    return squeezed, corners, truth


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_deep_board_in_a_stretched_photo_is_read_as_deep_as_it_is(seed):
    """A travel case as deep as it is wide, in a photo squeezed to four
    fifths across: the corners cannot say its depth (the configured
    proportions would make it 0.85 of its width), its men can."""
    image, corners, truth = _stretched(seed, 0.8, **DEEP)
    assert truth == pytest.approx(1.0, abs=0.02)
    found = find_layout(CONFIG, image, corners)
    assert found.found and found.depth_from == "configured", found.notes
    reader.forget_layouts()
    _, layout, notes = reader.board_config(image, corners, CONFIG)
    assert layout.depth_from == "men", notes
    assert layout.depth / layout.width == pytest.approx(truth, rel=0.06)
    assert any(n.startswith("the surface's depth from the men's columns") for n in notes)
    assert not any(n.startswith("the surface's depth is the configured") for n in notes)


def test_the_start_s_columns_repeat_every_man_s_diameter_at_the_true_depth():
    """Read at the board's true proportions, the start's columns of five
    and three men repeat along their points every man's diameter."""
    image, label = render(np.random.default_rng(5), SceneSpec(position=START, occluded=False, n_dice=0))
    obs = reader.observe(image, label["corners"], CONFIG)
    columns = column_periods(obs)
    points = {c.point for c in columns}
    assert len(points) >= 3 and points <= {6, 8, 12, 13, 17, 19}, columns   # only where three or five men stand
    for c in columns:
        assert c.period_mm == pytest.approx(obs.config.man_diameter, rel=0.1), c
        assert c.length_mm >= CONFIG.layout.column_men * obs.config.man_diameter


def test_without_a_column_of_men_the_depth_stays_and_the_note_says_why():
    """Single men only (no point holds three): nothing repeats along a
    point, so the layout keeps the depth it had and its note."""
    singles = {"format": "board/1", "light": [1 if p in (1, 4, 9, 15, 20) else 0 for p in range(1, 25)],
               "dark": [1 if p in (3, 7, 11, 18, 23) else 0 for p in range(1, 25)],
               "bar": {"light": 0, "dark": 0}, "off": {"light": 10, "dark": 10}}
    image, corners, _ = _stretched(4, 0.8, position=singles, **DEEP)
    found = find_layout(CONFIG, image, corners)
    assert found.found
    obs = reader._observe(image, corners, found.config(CONFIG))
    assert column_periods(obs) == []
    assert depth_from_men(found, obs) is found


def test_the_depth_s_source_is_kept_in_the_layout_s_json():
    layout = BoardLayout(tuple(float(20 + 40 * i) for i in range(24)), (240.0, 290.0), 40.0, 40.0, 190.0, 36.0,
                         530.0, 450.0, True, depth_from="men")
    assert BoardLayout.from_json(layout.to_json()).depth_from == "men"
    doc = layout.to_json()
    del doc["depth_from"]                                       # a calibration saved before it was kept
    assert BoardLayout.from_json(doc).depth_from == "configured"
    with pytest.raises(CalibrationError, match="depth_from"):
        BoardLayout.from_json({**layout.to_json(), "depth_from": "guessed"})
    assert replace(layout, depth_from="camera").depth_from == "camera"
