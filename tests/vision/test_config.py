"""The camera part's settings: every stage's numbers in a frozen record, and
a TOML file's values reach the stage that uses them (docs/house-conventions.md, convention 10)."""

import numpy as np
import pytest
import cv2

from willughby.vision.config import DiceConfig, OcclusionConfig, ReaderConfig, VisionConfig, VisionConfigError
from willughby.vision.dice import find_dice
from willughby.vision.reader import _men_colours


def _toml(tmp_path, text):
    path = tmp_path / "willughby.toml"
    path.write_text(text)
    return VisionConfig.from_toml(path)


def test_each_stage_has_its_own_table(tmp_path):
    config = _toml(tmp_path, """
[vision]
scale = 1.0
[vision.reader]
find_dice = true
top_votes = 25
[vision.dice]
min_score = 0.9
local_margins = [30, 45]
[vision.occlusion]
z_frame = 4
shears = [0, -0.5, 0.5]
""")
    assert config.reader == ReaderConfig(find_dice=True, top_votes=25.0)
    assert config.dice == DiceConfig(min_score=0.9, local_margins=(30, 45))
    assert config.occlusion == OcclusionConfig(z_frame=4.0, shears=(0.0, -0.5, 0.5))
    hash(config)                                     # the stages cache on it


def test_the_defaults_are_untouched_by_an_empty_table(tmp_path):
    assert _toml(tmp_path, "[vision]\n[vision.dice]\n") == VisionConfig()


def _board_with_a_die():
    board = np.full((450, 530, 3), (60, 110, 150), np.uint8)          # a plain brown surface
    cv2.rectangle(board, (292, 192), (307, 207), (235, 235, 235), -1)  # a 16 mm white square
    return board


def test_a_toml_value_reaches_the_dice_finder(tmp_path):
    board = _board_with_a_die()
    assert [(round(d.x), round(d.y)) for d in find_dice(VisionConfig(), board)] == [(300, 200)]
    # a die must now be at least 20 mm across: the 16 mm square is none
    strict = _toml(tmp_path, "[vision.dice]\nmin_side_mm = 20.0\n")
    assert find_dice(strict, board) == []


def test_a_toml_value_reaches_the_reader(tmp_path):
    # one colour of men on the board, of lightness 45, and no calibration to
    # say which: below the reader's light_from (50) it is the dark men
    tops = [np.array([45.0, 0.0, 0.0], np.float32)]
    assert set(_men_colours(tops, None, VisionConfig())) == {"dark"}
    config = _toml(tmp_path, "[vision.reader]\nlight_from = 40.0\n")
    assert set(_men_colours(tops, None, config)) == {"light"}


@pytest.mark.parametrize("text, message", [
    ("[vision.dice]\nnope = 1\n", "unknown vision dice setting 'nope'"),
    ("[vision.dice]\nmin_score = 1.5\n", r"vision.dice.min_score must be between 0 and 1"),
    ("[vision.dice]\nring_mm = [1.0]\n", r"vision.dice.ring_mm must hold 2 values"),
    ("[vision.dice]\nmeasures = [[\"size\", 1.0], [\"shine\", 2.0]]\n", "unknown measure 'shine'"),
    ("[vision.occlusion]\nknots_dropped = 10\n", "knots_dropped must be fewer than knots"),
    ("[vision.occlusion]\nblur = \"5x3\"\n", "vision.occlusion.blur must be a list"),
    ("[vision.reader]\nfind_dice = 1\n", "vision.reader.find_dice must be bool"),
    ("[vision]\ndice = 3\n", "vision.dice must be a table"),
])
def test_bad_stage_values_name_the_key(tmp_path, text, message):
    with pytest.raises(VisionConfigError, match=message):
        _toml(tmp_path, text)


def test_the_dice_score_weights_can_be_given_as_pairs():
    config = VisionConfig().with_values({"dice": {"measures": [["size", -1], ["rectness", 9.5]]}})
    assert config.dice.measures == (("size", -1.0), ("rectness", 9.5))
