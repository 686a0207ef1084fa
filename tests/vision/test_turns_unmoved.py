""""Nothing moved" is a claim about the picture, checked like any other (issue 44, house convention 18).

A man entered from the bar onto a point of his own colour that already holds a full row changes that
point's picture too little to show, and the point reader may read it as it was; but the bar, where the
man stood, shows him gone.  The turn reader weighs the bar's change (``changes.bar_change``) and never
rules a board the same as the board before where the picture changed clearly where men stood; the
referee (``Judging.nothing_moved``) then never takes such a frame for the men not moved yet."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from willughby.companion.judging import NOT_MOVED, Judging
from willughby.engine.position import Position
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules
from willughby.vision import pointnet
from willughby.vision.turns import (CHANGE_DELTA_E, FAINT_DELTA_E, Candidate, TurnEvidence, TurnReader, bar_change,
                                    board_classes, point_change_profiles, rectified)

RULES = preset_rules("backgammon")
needs_reader = pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")


def _entering(on_point: int) -> Position:
    """Dark to play 3-6 with a man on the bar and *on_point* dark men on point 3: light holds points 6 and 9
    and 18, so the only play is bar/22 (onto point 3, where dark's own men stand)."""
    dark = [0] * 24
    dark[2], dark[11] = on_point, 14 - on_point
    light = [0] * 24
    light[5] = light[8] = light[17] = 3
    light[12] = 6
    return Position.from_board({"format": "board/1", "turn": "dark", "light": light, "dark": dark,
                                "bar": {"light": 0, "dark": 1}, "off": {"light": 0, "dark": 0}})


def _probs_of(board: dict, sure: float = 0.999) -> np.ndarray:
    p = np.full((24, 31), (1 - sure) / 30)
    p[np.arange(24), board_classes(board)] = sure
    return p


def _turn(on_point: int = 5) -> tuple[Position, dict, list[Candidate]]:
    before = _entering(on_point)
    (entry,) = turn_outcomes(RULES, before, (3, 6))
    assert entry.play.notation == "bar/22"
    after = entry.position.to_board()
    return before, after, [Candidate("bar/22", after), Candidate(NOT_MOVED, before.to_board())]


def test_the_bars_picture_shows_a_man_gone_and_nothing_where_nothing_came_or_went():
    from willughby.vision.synth import Scene, SceneSpec

    before, after, _ = _turn()
    scene = Scene(np.random.default_rng(3), SceneSpec(image_size=(1280, 720), n_dice=0, tilt_deg=10.0))
    first, label = scene.render(before.to_board(), np.random.default_rng(1))
    again, _ = scene.render(before.to_board(), np.random.default_rng(2))      # the sensor's noise alone
    entered, _ = scene.render(after, np.random.default_rng(3))
    corners = label["corners"]
    was = rectified(first, corners)
    assert bar_change(was, rectified(again, corners)) < 0.05
    assert bar_change(was, rectified(entered, corners)) > TurnReader().config.bar_moved_share
    with pytest.raises(ValueError, match="other corners"):
        bar_change(was, rectified(entered, (np.asarray(corners) + [[3.0, 0.0]] * 4).tolist()))


def test_an_entry_the_points_do_not_show_is_not_taken_for_nothing_moved_where_the_bar_shows_the_man_gone():
    # the point reader reads point 3 as it was (5 dark men) and the strip changed by less than a man's worth:
    # from the points alone, the board before is the likeliest, and the referee would hold it unchanged
    before, after, cands = _turn(5)
    probs = _probs_of(before.to_board())
    changes = np.zeros(24)
    changes[2] = 0.01
    reader = TurnReader()
    unchecked = TurnReader(replace(reader.config, unmoved_check=False))
    blind = unchecked.judge(cands, TurnEvidence(probs, bar={"light": 0, "dark": 0}, changes=changes),
                            before=before.to_board())
    assert blind.ranked[0]["play"] == NOT_MOVED and Judging.nothing_moved(blind)
    # the bar's picture changed by a man's worth where a man stood: the board is not the board before
    seen = TurnEvidence(probs, bar={"light": 0, "dark": 0}, changes=changes, bar_change=0.7)
    found = reader.judge(cands, seen, before=before.to_board())
    assert found.moved_at == ("bar",)
    assert not Judging.nothing_moved(found)
    assert found.ranked[0]["play"] == "bar/22" or found.verdict == "unsure"
    assert found.verdict != "legal" or found.play == "bar/22"
    # even a reader sure of every point that nothing moved is not ruled so: asked
    sure = reader.judge(cands, replace(seen, count_probs=_probs_of(before.to_board(), 0.999999)),
                        before=before.to_board())
    assert sure.verdict == "unsure" and not Judging.nothing_moved(sure)
    assert "changed where men stood (the bar)" in sure.notes[-1]


def test_a_bar_that_did_not_change_leaves_nothing_moved_as_it_was():
    # dice thrown on the board, the man still on the bar: the bar's picture did not change, nothing moved
    before, _, cands = _turn(5)
    probs = _probs_of(before.to_board())
    found = TurnReader().judge(cands, TurnEvidence(probs, bar={"light": 0, "dark": 1}, changes=np.zeros(24),
                                                   bar_change=0.01), before=before.to_board())
    assert found.moved_at == () and found.verdict == "legal" and found.play == NOT_MOVED
    assert Judging.nothing_moved(found)


def test_a_point_whose_men_changed_clearly_is_never_nothing_moved_but_a_die_beyond_them_may_be():
    before, _, cands = _turn(2)
    probs = _probs_of(before.to_board())
    reader = TurnReader()
    changes = np.zeros(24)
    changes[11] = 0.3                                  # point 12, where 12 dark men stand, changed clearly ...
    profiles = np.zeros((24, 40))
    profiles[11, :10] = 0.9                            # ... along its row of men
    found = reader.judge(cands, TurnEvidence(probs, bar={"light": 0, "dark": 1}, changes=changes, profiles=profiles,
                                             faint_profiles=profiles, bar_change=0.0), before=before.to_board())
    assert found.moved_at == ("12",) and found.verdict == "unsure" and not Judging.nothing_moved(found)
    changes[11], changes[0] = 0.0, 0.3                 # point 1, empty: a die thrown there
    found = reader.judge(cands, TurnEvidence(probs, bar={"light": 0, "dark": 1}, changes=changes,
                                             bar_change=0.0), before=before.to_board())
    assert found.moved_at == () and Judging.nothing_moved(found)


@needs_reader
def test_a_drawn_entry_onto_a_full_row_of_the_movers_own_men_is_ruled_or_asked_never_not_moved():
    # olive and ebony men on black felt under glare (a held-out-test style): the 6th dark man laid on point
    # 3's full row barely changes its picture, and the point reader reads it as before; the bar shows him gone
    from willughby.vision.reader import learn_look, read_board
    from willughby.vision.synth import Scene, SceneSpec

    before, after, cands = _turn(5)
    spec = SceneSpec(image_size=(1280, 720), n_dice=2, wood="olive_wood", men="olive_ebony", points="purple_silver",
                     field="felt_black", table="ochre_cloth", lighting="overhead_glare", lens="dark_corners",
                     tilt_deg=12.0, board_yaw_deg=176.0, cam_az_deg=40.0, cam_roll_deg=-1.0, mirror=False,
                     focal_mm=40.0, fill=0.9, row_max=5, men_thick_mm=12.0, occluded=False)
    scene = Scene(np.random.default_rng(2), spec)
    board = before.to_board()
    first, label = scene.render(board, np.random.default_rng(1), n_dice=0)
    corners = label["corners"]
    look = learn_look(first, corners)
    was = read_board(first, corners, look=look, dice=True, known=board)
    image, _ = scene.render(after, np.random.default_rng(2), dice_values=(3, 6))
    now = read_board(image, corners, look=look, dice=True, earlier=was.point_memory, known=board,
                     recent=was.surface_seen)
    kept, here = rectified(first, corners, reading=was), rectified(image, corners, reading=now)
    profiles, faint = point_change_profiles(kept, here, corners, delta_e=(CHANGE_DELTA_E, FAINT_DELTA_E))
    evidence = TurnEvidence.from_reading(now, profiles=profiles, faint_profiles=faint)
    reader = TurnReader()
    # as the reader was: the board before the likeliest, and the referee holds it unchanged
    blind = TurnReader(replace(reader.config, unmoved_check=False)).judge(cands, evidence, before=board)
    assert blind.ranked[0]["play"] == NOT_MOVED and blind.ranked[0]["p"] > 0.9 and Judging.nothing_moved(blind)
    evidence.bar_change = bar_change(kept, here)
    found = reader.judge(cands, evidence, before=board)
    assert "bar" in found.moved_at and not Judging.nothing_moved(found)
    assert found.verdict == "unsure" or (found.verdict, found.play) == ("legal", "bar/22")
