"""Two frames compared across a turn are rectified with one layout of the board (vision/changes.py): the
layout found in the frame before, which a hand over the board in the frame after cannot move."""

from __future__ import annotations

import numpy as np
import pytest

from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet
from willughby.vision.changes import point_change_profiles, rectified
from willughby.vision.config import VisionConfig
from willughby.vision.reader import forget_layouts
from willughby.vision.refine import refine_corners
from willughby.vision.synth import Scene, SceneSpec

pytestmark = pytest.mark.skipif(not pointnet.available(), reason="no point reader installed")


def test_a_hand_in_the_frame_after_does_not_change_the_layout_the_two_frames_are_compared_with():
    # a black leather board under a low lamp (tests/companion/test_judge_photo.py): the layout found in the
    # frame with a hand over it is another than the one found in the frame before
    rules = preset_rules("backgammon")
    start = start_position(rules, "light")
    scene = Scene(np.random.default_rng(2), SceneSpec(n_dice=0, wood="black_leather", field="felt_ivory",
                                                      men="olive_ebony", points="purple_silver",
                                                      lighting="side_lamp_shadows"))
    after = next(o for o in turn_outcomes(rules, start, (3, 1)) if o.play.notation == "8/5 6/5").position.to_board()
    before, _ = scene.render(start.to_board(), np.random.default_rng(6), occluded=False)
    hand, label = scene.render(after, np.random.default_rng(4), occluded=True)
    corners = refine_corners(VisionConfig.default(), hand, label["corners"]).corners.tolist()  # as judge does
    shapes = []
    for frame in (before, hand):                                     # each alone finds its own
        forget_layouts()
        shapes.append(rectified(frame, corners).lab.shape)
    assert shapes[0] != shapes[1]
    forget_layouts()
    profiles = point_change_profiles(before, hand, corners)
    assert profiles.shape[0] == 24
    assert (profiles.mean(axis=1) > 0.05).any()                     # the hand is seen as a change
