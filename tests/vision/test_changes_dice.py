"""A die thrown onto the board, or picked up from it, is no man come or gone (vision/changes.py): where the
reader found the dice, the changes since the frame before leave them out."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet
from willughby.vision.reader import read_board
from willughby.vision.synth import Scene, SceneSpec
from willughby.vision.turns import point_changes, rectified

pytestmark = pytest.mark.skipif(not pointnet.available(), reason="no point reader installed")


def test_the_points_a_die_lands_on_keep_their_men_where_the_die_was_found():
    spec = SceneSpec(image_size=(960, 540), tilt_deg=10.0, board_yaw_deg=2.0, cam_az_deg=0.0, mirror=False,
                     focal_mm=35.0, fill=0.85, occluded=False, wood="walnut", men="white_black",
                     points="red_cream", field="felt_green", table="light_table", lighting="overhead", row_max=5,
                     men_thick_mm=9.0)
    scene = Scene(np.random.default_rng(3), spec)
    board = start_position(preset_rules("backgammon")).to_board()
    before, label = scene.render(board, np.random.default_rng(1), n_dice=0)
    after, _ = scene.render(board, np.random.default_rng(1), dice_values=(6, 3))
    corners = label["corners"]
    reading = read_board(after, corners, dice=True)
    assert reading.dice                                                  # the finder saw a die at least
    here = rectified(after, corners, reading=reading)
    there = rectified(before, corners, reading=read_board(before, corners, dice=True))
    assert here.dice is not None and here.dice.any()
    counted = point_changes(there, here, corners)
    uncounted = point_changes(replace(there, dice=None), replace(here, dice=None), corners)
    assert (uncounted > 0.004).sum() >= 1                                # the dice change the points they lie on
    assert (counted > 0.004).sum() < (uncounted > 0.004).sum()           # left out, fewer points look changed
    assert (counted <= uncounted + 1e-6).all()
