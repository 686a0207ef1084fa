"""Something lying over the men comes and goes between frames; the board's own look stays
(vision/occlusion.py, ``recent``). A frame of the turn benchmark's held-out-test games: the base of a point
bared by men that left a turn or more before looks, against the calibration photo of the start, like
something smooth over the men's places; against the frame settled last it has not changed, and the frame is
read. The same frame with an arm over a man is refused all the same."""

from __future__ import annotations

import random

import numpy as np
import pytest

from willughby.vision import pointnet
from willughby.vision.config import VisionConfig
from willughby.vision.reader import learn_look, read_board

from ..benchmarks.test_real_photos import _load

pytestmark = pytest.mark.skipif(not pointnet.available(), reason="no point reader installed")


def _game_frames(seed: int, game_index: int, turns_wanted: tuple[int, ...]):
    """The start and the frames after the given turns of one game of ``benchmarks/turns.py`` (its table,
    camera, light and drawing, as the benchmark draws them), with their labels."""
    bench = _load("turns")
    games = bench.play_games(seed, 600, 0.1)
    game = games[game_index]
    gseed = seed * 7919 + game_index
    scene, _ = bench.game_scene(gseed, "held-out-test")
    start, start_label = scene.render(game[0].before.to_board(), np.random.default_rng(gseed * 1000 - 1), n_dice=0)
    frames = {n: scene.render(game[n].after, np.random.default_rng(gseed * 1000 + n), dice_values=game[n].dice)
              for n in turns_wanted}
    return start, start_label, frames


def test_a_point_bared_turns_ago_is_not_taken_for_a_hand_but_an_arm_still_is():
    start, label, frames = _game_frames(2718, 7, (26, 27))
    corners = label["corners"]
    look = learn_look(start, corners)
    before = read_board(frames[26][0], corners, look=look)
    assert before.settled and before.surface_seen is not None
    image, after_label = frames[27]
    alone = read_board(image, corners, look=look)
    assert not alone.settled and "men's places" in (alone.occluded_why or "")    # against the start only
    recent = read_board(image, corners, look=look, recent=before.surface_seen)
    assert recent.settled                                                        # it was there a turn ago
    covers = _load("covers")
    for kind in ("arm", "sleeve"):
        hidden, where, _ = covers.cover_photo(image, after_label, VisionConfig(), kind, random.Random(3))
        assert not read_board(hidden, corners, look=look, recent=before.surface_seen).settled, where
