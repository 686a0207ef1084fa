"""The turn reader (vision/turns.py): the boards a throw allows weighed against
the picture ("house convention N": docs/house-conventions.md). Drawn frames
of real turns (a legal one, an illegal one, a
covered one), and probabilities made by hand for the cases a test must pin
exactly (a point the picture cannot tell)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from willughby.engine.position import Position
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet
from willughby.vision.turns import (OTHER, Candidate, TurnConfig, TurnEvidence, TurnReader, board_classes,
                                    default_config, point_changes)

RULES = preset_rules("backgammon")
START = start_position(RULES, "light")
DICE = (3, 1)


def _candidates(pos: Position = START, dice=DICE) -> list[Candidate]:
    return [Candidate(o.play.notation or "(no play)", o.position.to_board()) for o in turn_outcomes(RULES, pos, dice)]


def _probs_of(board: dict, sure: float = 0.999) -> np.ndarray:
    """Point probabilities that say *board* with *sure* at every point."""
    p = np.full((24, 31), (1 - sure) / 30)
    p[np.arange(24), board_classes(board)] = sure
    return p


def _after(play: str) -> dict:
    return next(c.board for c in _candidates() if c.play == play)


def test_a_picture_that_shows_one_play_surely_is_ruled_that_play():
    found = TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), TurnEvidence(_probs_of(_after("8/5 6/5"))))
    assert (found.verdict, found.play, found.settled) == ("legal", "8/5 6/5", True)
    assert found.ranked[0]["play"] == "8/5 6/5" and found.ranked[0]["p"] > 0.999


def test_a_point_the_picture_cannot_tell_leaves_the_turn_unsure_with_both_plays_ranked():
    # 8/5 6/5 and 8/7 8/5 differ on points 5, 6, 7 and 8: where they differ, the picture is a coin toss
    a, b = _after("8/5 6/5"), _after("8/7 8/5")
    p = _probs_of(a)
    differ = np.flatnonzero(board_classes(a) != board_classes(b))
    assert (differ + 1).tolist() == [5, 6, 7, 8]
    for i in differ:
        p[i] = 1e-4
        p[i, board_classes(a)[i]] = 0.5
        p[i, board_classes(b)[i]] = 0.5
    found = TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), TurnEvidence(p))
    assert found.verdict == "unsure" and found.play is None
    plays = [r for r in found.ranked if r["play"] != OTHER]
    assert {r["play"] for r in plays[:2]} == {"8/5 6/5", "8/7 8/5"}
    assert all(0.2 < r["p"] < 0.7 for r in plays[:2])
    assert abs(plays[0]["p"] - plays[1]["p"]) < 1e-6      # the picture favours neither


def test_a_board_no_play_leads_to_read_surely_is_ruled_illegal_and_given_as_read():
    wrong = _after("8/5 6/5")
    wrong["light"][4] -= 1
    wrong["light"][3] += 1                  # one man a pip too far: 8/4 6/5
    found = TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), TurnEvidence(_probs_of(wrong, 0.9999)))
    assert found.verdict == "illegal" and found.play is None
    assert found.board["light"] == wrong["light"] and found.board["dark"] == wrong["dark"]
    assert found.ranked[0]["play"] == OTHER


def test_a_board_no_play_leads_to_but_read_unsurely_is_asked_not_ruled():
    # house convention 15: unsure -> ask. The two points that tell 8/4 6/5 from 8/5 6/5 (4 and 5) are
    # read at 90% only, as a point half covered is: the picture leans to the wrong move, not surely enough
    wrong = _after("8/5 6/5")
    wrong["light"][4] -= 1
    wrong["light"][3] += 1
    p = _probs_of(wrong, 0.9999)
    for i, legal in ((3, 0), (4, 2)):                # point 4: one man or none; point 5: one man or two
        p[i] = 1e-4 / 29
        p[i, board_classes(wrong)[i]] = 0.9
        p[i, legal] = 0.1
    found = TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), TurnEvidence(p))
    assert found.verdict == "unsure" and found.play is None and found.board is None
    assert found.ranked[0]["play"] == "8/5 6/5" and found.ranked[0]["p"] < 0.99
    assert any(r["play"] == OTHER for r in found.ranked)


def _changes(*points: int, share: float = 0.15) -> np.ndarray:
    """Each point's share of changed picture since the frame before: *share* at *points*, none elsewhere."""
    changes = np.zeros(24)
    changes[[q - 1 for q in points]] = share
    return changes


def test_one_man_a_pip_too_far_seen_clearly_is_ruled_illegal_with_the_board_seen_and_why():
    # house convention 15: a board no play leads to, clearly shown, is ruled illegal. "Players move
    # according to the number on each die" (move.dice, Hoyle 1753, seed 001): with 3-1, 8/4 6/5 moves a
    # man one pip too far (8/5 6/5 is legal). The engine explains the board the turn reader saw.
    from willughby.engine.referee import judge

    wrong = _after("8/5 6/5")
    wrong["light"][4] -= 1
    wrong["light"][3] += 1
    ev = TurnEvidence(_probs_of(wrong, 0.999), changes=_changes(4, 5, 6, 8))
    found = TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), ev, before=START.to_board())
    assert found.verdict == "illegal" and found.play is None and found.settled
    assert found.board["light"] == wrong["light"] and found.board["dark"] == wrong["dark"]
    assert found.board["bar"] == {"light": 0, "dark": 0} and found.board["off"] == {"light": 0, "dark": 0}
    assert ("no legal play leads to the board seen: point 4 holds 1 light man where 8/5 6/5 leaves no man; "
            "point 5 holds 1 light man where 8/5 6/5 leaves 2 light men") in found.notes
    ruling = judge(RULES, START, DICE, Position.from_board(found.board))
    assert (ruling.verdict, ruling.rule) == ("illegal", "move.dice")
    assert ruling.reason == "light's men moved 5 points in all, but the throw 3-1 moves at most 4"
    # issue 44, item 5: ruled illegal only where the picture contradicts every legal play beyond what the
    # reader's calibration says it can be wrong by. With the shipped calibration the network's 99.9% is about
    # 94.5% (its temperature), a confidence at which the reader misread 3 of 1,075 changed points of the
    # held-out-fit games (its error at most 0.85%, ``point_errors``): sure enough to rule
    shipped = TurnReader()
    assert shipped.config.point_errors and shipped.config.reader_error(0.945) <= 0.01
    assert shipped.judge(_candidates(), ev, before=START.to_board()).verdict == "illegal"
    # where the table says the reader errs more at that confidence (2% from 90%), it asks, and says why
    doubtful = TurnReader(replace(shipped.config, point_errors=((0.9, 0.02), (0.99, 0.001))))
    unsure = doubtful.judge(_candidates(), ev, before=START.to_board())
    assert unsure.verdict == "unsure"
    assert any("the camera itself is not sure of the board seen" in n and "errs up to 2.00%" in n
               for n in unsure.notes), unsure.notes
    # without the table, the doubt itself is taken for the error (the rule before the table): 94.5% asks too
    fixed = TurnReader(replace(shipped.config, point_errors=()))
    assert fixed.judge(_candidates(), ev, before=START.to_board()).verdict == "unsure"


def test_a_reader_that_misreads_a_point_whose_picture_did_not_change_is_not_trusted_to_rule_illegal():
    # house conventions 15 and 17: the referee knows the men of every point whose picture did not change
    # since the frame before. Where the point reader reads one of them confidently wrong (dark men on a dark
    # field, a light it never saw: held-out-test seed 4242 had such a board), it may as surely misread the
    # points that decide, so the clear-looking 8/4 6/5 is asked about, not ruled
    wrong = _after("8/5 6/5")
    wrong["light"][4] -= 1
    wrong["light"][3] += 1
    p = _probs_of(wrong, 0.999)
    p[18] = 0.001 / 30
    p[18, 0] = 0.999                             # dark's 5 men on point 19, unmoved, read as none at 99.9%
    ev = TurnEvidence(p, changes=_changes(4, 5, 6, 8))
    reader = TurnReader(TurnConfig(temperature=1.0))
    found = reader.judge(_candidates(), ev, before=START.to_board())
    assert found.verdict == "unsure" and found.board is None
    assert any("the camera misreads points it knows (point 19" in n for n in found.notes)
    # read as it stands there, the same picture is ruled illegal
    ev = TurnEvidence(_probs_of(wrong, 0.999), changes=_changes(4, 5, 6, 8))
    assert reader.judge(_candidates(), ev, before=START.to_board()).verdict == "illegal"


def test_every_legal_play_seen_is_ruled_that_play_and_never_illegal():
    # house convention 15: a wrong ruling is worse than a question. Every legal result of every throw
    # from the start, read as surely as the point reader reads a clear board (99.9% a point) and changed
    # where its men came and went, is ruled that play
    before = START.to_board()
    reader = TurnReader()
    for a in range(1, 7):
        for b in range(a, 7):
            cands = _candidates(START, (a, b))
            for c in cands:
                moved = np.flatnonzero(board_classes(c.board) != board_classes(before)) + 1
                ev = TurnEvidence(_probs_of(c.board, 0.999), changes=_changes(*moved))
                found = reader.judge(cands, ev, before=before)
                assert found.verdict != "illegal", (a, b, c.play)
                assert (found.verdict, found.play) == ("legal", c.play) or \
                    board_classes(next(x for x in cands if x.play == found.play).board).tolist() \
                    == board_classes(c.board).tolist(), (a, b, c.play, found.play)


def test_a_man_moved_where_the_picture_did_not_change_is_asked_never_ruled_illegal():
    # house convention 15 (unsure -> ask): men of nearly the board's colour may be moved without the
    # picture changing enough to show it. 8/5 6/5 was played; point 5's picture did not change, so it holds
    # what it held; the men that left 8 and 6 are seen gone. No board a wrong move leaves fits better
    after = _after("8/5 6/5")
    ev = TurnEvidence(_probs_of(after, 0.999), changes=_changes(6, 8))        # point 5: no change
    found = TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), ev, before=START.to_board())
    assert found.verdict == "unsure" and found.board is None


def test_an_opponents_blot_seen_gone_where_the_movers_men_stand_as_a_legal_play_leaves_them_is_asked():
    # "If you land on one of your opponent's blots ... that man is taken" (land.hit, Willughby, seed 000):
    # with 3-1 light may hit dark's blot on point 5 (8/5 6/5*), but plays 24/23 24/21. A die thrown on
    # point 5 hides the blot: the mover's men stand as 24/23 24/21 leaves them, and an opponent's man that
    # looks gone is likelier hidden than moved by a wrong play: asked (docs/house-conventions.md convention 15)
    pos = Position.from_board({"format": "board/1", "turn": "light", "light": START.to_board()["light"],
                               "dark": [1, 0, 0, 0, 1] + [0] * 6 + [5, 0, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 0],
                               "bar": {"light": 0, "dark": 0}, "off": {"light": 0, "dark": 0}})
    cands = _candidates(pos, DICE)
    assert any(c.play == "8/5 6/5*" for c in cands)
    played = next(c.board for c in cands if c.play == "24/23 24/21")
    hidden = {**played, "dark": [1] + [0] * 10 + played["dark"][11:]}       # point 5 read empty
    ev = TurnEvidence(_probs_of(hidden, 0.9999), changes=_changes(5, 21, 23, 24))
    found = TurnReader(replace(default_config(), temperature=1.0)).judge(cands, ev, before=pos.to_board())
    assert found.verdict == "unsure" and found.board is None
    assert any("the mover's men stand as a legal play (24/23 24/21) leaves them" in n for n in found.notes)


def test_a_frame_that_cannot_be_read_is_unsure_and_unsettled_never_a_ruling():
    ev = TurnEvidence(_probs_of(_after("8/5 6/5")), settled=False, why_unsettled="something lies across the board")
    found = TurnReader().judge(_candidates(), ev)
    assert (found.verdict, found.settled) == ("unsure", False)
    assert found.notes == ["something lies across the board"]


def test_unchanged_points_keep_the_counts_the_referee_knows():
    # the picture misreads point 19 (dark's 6 point), far from the play; the frame before shows it unchanged
    after = _after("8/5 6/5")
    p = _probs_of(after)
    p[18] = 0.1 / 30
    p[18, 19] = 0.9                           # "4 dark men" where there are 5, at 90%
    before = START.to_board()
    changes = np.zeros(24)
    for point in (5, 6, 8):
        changes[point - 1] = 0.05             # where the men were moved
    reader = TurnReader(TurnConfig(temperature=1.0))
    alone = reader.judge(_candidates(), TurnEvidence(p))
    assert alone.verdict != "legal"           # alone, the misread point spoils the picture
    found = reader.judge(_candidates(), TurnEvidence(p, changes=changes), before=before)
    assert (found.verdict, found.play) == ("legal", "8/5 6/5")


def test_a_temperature_above_one_softens_the_probabilities():
    p = _probs_of(_after("8/5 6/5"), 0.99)
    hot = np.exp(TurnReader(TurnConfig(temperature=2.0)).log_probs(p)).max(axis=1)
    cold = np.exp(TurnReader(TurnConfig(temperature=1.0)).log_probs(p)).max(axis=1)
    assert (hot < cold).all() and np.allclose(cold, 0.99)


def test_bad_probabilities_and_no_candidates_are_refused():
    with pytest.raises(ValueError, match="24, 31"):
        TurnReader().judge(_candidates(), TurnEvidence(np.ones((24, 30))))
    with pytest.raises(ValueError, match="at least one"):
        TurnReader().judge([], TurnEvidence(_probs_of(_after("8/5 6/5"))))


# -- drawn frames, read by the shipped reader -----------------------------------------

needs_reader = pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")


def _frame(board, seed=5, **extra):
    from willughby.vision.synth import SceneSpec, render

    spec = SceneSpec(position=board, image_size=(1280, 720), tilt_deg=8.0, board_yaw_deg=2.0, cam_az_deg=0.0,
                     cam_roll_deg=0.5, mirror=False, focal_mm=35.0, fill=0.85, n_dice=0, wood="walnut",
                     men="white_black", points="red_cream", field="felt_green", table="light_table",
                     lighting="overhead", row_max=5, men_thick_mm=9.0, **extra)
    return render(np.random.default_rng(seed), spec)


def _judge_frame(board, reader=None, **extra):
    from willughby.vision.reader import read_board

    image, label = _frame(board, **extra)
    reading = read_board(image, label["corners"])
    return (reader or TurnReader()).judge(_candidates(), TurnEvidence.from_reading(reading),
                                          before=START.to_board())


@needs_reader
def test_a_drawn_legal_turn_is_ruled_legal():
    found = _judge_frame(_after("8/5 6/5"), occluded=False)
    assert (found.verdict, found.play) == ("legal", "8/5 6/5")


@needs_reader
def test_a_drawn_illegal_turn_is_asked_about_or_ruled_illegal_never_legal():
    wrong = _after("8/5 6/5")
    wrong["light"][4] -= 1
    wrong["light"][3] += 1
    # the shipped calibration (fitted for corners marked a few pixels off) asks rather than rules here
    found = _judge_frame(wrong, occluded=False)
    assert found.verdict in ("illegal", "unsure") and found.play is None
    assert found.ranked[0]["play"] == OTHER
    # the picture is clear: with the network's own probabilities and 99% a point, it is ruled illegal
    found = _judge_frame(wrong, TurnReader(TurnConfig(temperature=1.0, illegal_point_min=0.99)), occluded=False)
    assert found.verdict == "illegal" and found.board["light"] == wrong["light"]


@needs_reader
def test_drawn_turns_with_the_frame_before_a_man_a_pip_too_far_is_ruled_illegal_the_legal_play_legal():
    # house convention 15, as the camera sees a game: one table (seed 11), the frame before the turn
    # and the frame after, with the throw's dice on the board. 8/4 6/5 with 3-1 moves a man a pip too far
    # (move.dice, Hoyle 1753, seed 001): ruled illegal, with the board as it stands; 8/5 6/5 ruled legal
    from willughby.vision.reader import read_board
    from willughby.vision.synth import Scene, SceneSpec

    scene = Scene(np.random.default_rng(11), SceneSpec(image_size=(1280, 720), n_dice=2, wood="walnut",
                                                        men="white_black", points="red_cream", field="felt_green",
                                                        table="light_table", lighting="overhead", tilt_deg=8.0))
    before, label = scene.render(START, np.random.default_rng(1), n_dice=0)
    wrong = _after("8/5 6/5")
    wrong["light"][4] -= 1
    wrong["light"][3] += 1
    for board, verdict in ((wrong, "illegal"), (_after("8/5 6/5"), "legal")):
        after, _ = scene.render(board, np.random.default_rng(2), dice_values=DICE)
        reading = read_board(after, label["corners"])
        ev = TurnEvidence.from_reading(reading, changes=point_changes(before, after, label["corners"]))
        found = TurnReader().judge(_candidates(), ev, before=START.to_board())
        if verdict == "illegal":
            # the shipped calibration (fitted for the network before v13, whose temperature flattens v13's
            # probabilities more than its own fit would) may ask here, never rule it legal; with the
            # network's own probabilities the picture is clear enough to rule it illegal
            assert found.verdict in ("illegal", "unsure") and found.ranked[0]["play"] == OTHER
            found = TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), ev, before=START.to_board())
        assert found.verdict == verdict
        assert found.board["light"] == board["light"] and found.board["dark"] == board["dark"]


@needs_reader
def test_a_drawn_frame_with_an_arm_over_it_is_unsure_and_unsettled():
    found = _judge_frame(_after("8/5 6/5"), occluded=True, occluded_share=0.3)
    assert (found.verdict, found.settled) == ("unsure", False)


@needs_reader
def test_point_changes_see_where_men_were_moved_and_nothing_elsewhere():
    from willughby.vision.synth import Scene, SceneSpec

    # one table, as a game is played at: the frames differ in the men moved and the sensor's noise
    scene = Scene(np.random.default_rng(11), SceneSpec(image_size=(1280, 720), n_dice=0, wood="walnut",
                                                        men="white_black", points="red_cream", field="felt_green",
                                                        table="light_table", lighting="overhead", tilt_deg=8.0))
    before, label = scene.render(START, np.random.default_rng(1))
    after, _ = scene.render(_after("8/5 6/5"), np.random.default_rng(2))
    changes = point_changes(before, after, label["corners"])
    moved = {5, 6, 8}
    unchanged = TurnConfig().unchanged_share
    assert all(changes[p - 1] > unchanged for p in moved), changes.round(3)
    # a point beside a moved one may look changed (a man's shadow reaches it): the safe way to err,
    # since a point that looks changed is only read again; every other point is seen as unchanged
    assert all(changes[p - 1] <= unchanged for p in range(1, 25) if p not in moved | {4, 7, 9}), changes.round(3)
    with pytest.raises(ValueError, match="middle share"):
        point_changes(before, after, label["corners"], core=0.0)


@needs_reader
def test_a_frame_rectified_once_compares_as_the_frame_itself_and_only_from_the_same_place():
    from willughby.vision.reader import read_board
    from willughby.vision.synth import Scene, SceneSpec
    from willughby.vision.turns import rectified

    scene = Scene(np.random.default_rng(12), SceneSpec(image_size=(1280, 720), n_dice=0, tilt_deg=10.0))
    before, label = scene.render(START, np.random.default_rng(1))
    after, _ = scene.render(_after("8/5 6/5"), np.random.default_rng(2))
    corners = label["corners"]
    direct = point_changes(before, after, corners)
    kept = rectified(before, corners)
    reading = read_board(after, corners)
    assert reading.rect is not None
    # the reading's own rectified surface stands in for warping the frame again: the same figures
    assert np.array_equal(point_changes(kept, rectified(after, corners, reading=reading), corners), direct)
    assert np.array_equal(point_changes(kept, after, corners), direct)
    moved = (np.asarray(corners) + [[3.0, 0.0]] * 4).tolist()
    with pytest.raises(ValueError, match="other corners"):
        point_changes(kept, after, moved)


@needs_reader
def test_comparing_the_strips_alone_gives_the_figures_of_comparing_the_whole_board(monkeypatch):
    # at the default scale each pixel of a strip is one of the board's, so only the strips' pixels are
    # compared; the figures are those of comparing the whole board and cutting the strips after
    from willughby.vision import strips
    from willughby.vision.synth import Scene, SceneSpec

    scene = Scene(np.random.default_rng(13), SceneSpec(image_size=(1280, 720), n_dice=0, tilt_deg=14.0))
    before, label = scene.render(START, np.random.default_rng(1))
    after, _ = scene.render(_after("8/5 6/5"), np.random.default_rng(2))
    corners = label["corners"]
    fast = point_changes(before, after, corners)
    monkeypatch.setattr(strips, "whole_pixel_strips", lambda geometry, margin: False)
    whole = point_changes(before, after, corners)
    assert np.array_equal(fast, whole)
    assert (fast > TurnConfig().unchanged_share).sum() >= 3


def test_men_seen_piled_where_no_board_of_the_turn_has_a_pile_make_the_reader_ask():
    # a race game never piles its men: a pile read surely means the picture is not what the referee can
    # weigh (on the dev set, unstacking boards judged as backgammon were ruled wrongly without this)
    after = _after("8/5 6/5")
    piles = np.zeros((24, 3))
    piles[:, 0] = 1.0
    reader = TurnReader(TurnConfig(temperature=1.0))
    sure = reader.judge(_candidates(), TurnEvidence(_probs_of(after), pile_probs=piles), before=START.to_board())
    assert sure.verdict == "legal"
    piles[5] = [0.02, 0.97, 0.01]                  # point 6, which holds men: read as a pile of 2
    found = reader.judge(_candidates(), TurnEvidence(_probs_of(after), pile_probs=piles), before=START.to_board())
    assert (found.verdict, found.settled) == ("unsure", True)
    assert "piled on point 6" in found.notes[0]
    piles[5] = [0.1, 0.9, 0.0]                     # below the alarm: weighed as before
    assert reader.judge(_candidates(), TurnEvidence(_probs_of(after), pile_probs=piles)).verdict == "legal"
    # a game whose boards have piles (the unstacking games) expects them, and weighs them: a pile read
    # at 0.97 is not sure enough to rule on (tests/vision/test_turns_piles.py), at 0.995 it is
    piled = {**after, "stacked": {"light": [0] * 5 + [2] + [0] * 18, "dark": [0] * 24}}
    piles[5] = [0.02, 0.97, 0.01]
    found = reader.judge([Candidate("8/5 6/5", piled)], TurnEvidence(_probs_of(after), pile_probs=piles))
    assert found.verdict == "unsure" and "not read surely enough" in found.notes[-1]
    piles[5] = [0.004, 0.995, 0.001]
    found = reader.judge([Candidate("8/5 6/5", piled)], TurnEvidence(_probs_of(after), pile_probs=piles))
    assert found.verdict == "legal"


def test_a_board_that_differs_from_a_legal_play_only_on_the_bar_is_asked_never_ruled_illegal():
    # the bar's men are found, not weighed: a man missed there must not make a legal hit illegal
    pos = Position.from_board({"format": "board/1", "turn": "light", "light": [0] * 5 + [2] + [0] * 17 + [1],
                               "dark": [0] * 19 + [1] + [0] * 4, "bar": {"light": 0, "dark": 0},
                               "off": {"light": 12, "dark": 14}})
    cands = [Candidate(o.play.notation, o.position.to_board()) for o in turn_outcomes(RULES, pos, (4, 1))]
    hit = next(c for c in cands if "*" in c.play)
    assert hit.board["bar"]["dark"] == 1
    ev = TurnEvidence(_probs_of(hit.board, 0.9999), bar={"light": 0, "dark": 0})   # the man on the bar not seen
    reader = TurnReader(TurnConfig(temperature=1.0, bar_mismatch=1e-9))
    for before in (None, pos.to_board()):
        found = reader.judge(cands, ev, before=before)
        assert found.p_other > 0.9                     # the picture's bar is far from the hit's ...
        assert found.verdict == "unsure"               # ... yet the bar alone never makes a ruling


def test_with_the_shipped_calibration_a_hit_whose_man_on_the_bar_was_missed_is_still_ruled_that_hit():
    # a board's bar follows from its points and the men off, so the points decide; the bar's own count
    # (round tops found, not weighed) only adds what the fit set showed it may (bar_mismatch)
    pos = Position.from_board({"format": "board/1", "turn": "light", "light": [0] * 5 + [2] + [0] * 17 + [1],
                               "dark": [0] * 19 + [1] + [0] * 4, "bar": {"light": 0, "dark": 0},
                               "off": {"light": 12, "dark": 14}})
    cands = [Candidate(o.play.notation, o.position.to_board()) for o in turn_outcomes(RULES, pos, (4, 1))]
    hit = next(c for c in cands if "*" in c.play)
    config = default_config()
    assert config.bar_mismatch >= 0.01               # what tools/fit_turn_reader.py chose
    ev = TurnEvidence(_probs_of(hit.board, 0.9999), bar={"light": 0, "dark": 0})   # the man on the bar not seen
    found = TurnReader(replace(config, temperature=1.0)).judge(cands, ev)
    assert (found.verdict, found.play) == ("legal", hit.play)


def test_a_board_seen_that_the_reader_itself_reads_unsurely_where_the_legal_play_differs_is_asked():
    # house convention 15, issue 44 item 5: held-out-test seed 18065 ruled legal turns illegal at p_other
    # 0.9999 where the point reader read the board seen at only 0.72-0.87 where the legal play differed (its
    # probability of the true count 1e-7 to 4e-3). The illegal verdict needs every legal play contradicted at
    # a point the reader itself reads surely, beyond what it may be wrong by there: else a question
    wrong = _after("8/5 6/5")
    wrong["light"][4] -= 1
    wrong["light"][3] += 1
    legal = board_classes(_after("8/5 6/5"))
    p = _probs_of(wrong, 0.999)
    for q in (3, 4):                            # points 4 and 5, where 8/4 6/5 and 8/5 6/5 differ
        p[q] = 0.099 / 29                       # the rest spread over the other counts
        p[q, legal[q]] = 0.001                  # the legal play's count: nearly ruled out ...
        p[q, board_classes(wrong)[q]] = 0.9     # ... but the board seen read at 90% only
    ev = TurnEvidence(p, changes=_changes(4, 5, 6, 8))
    old = TurnReader(TurnConfig(temperature=1.0, illegal_reader_error=None)).judge(_candidates(), ev,
                                                                                 before=START.to_board())
    assert old.verdict == "illegal"               # the rule before: the weighed picture alone
    found = TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), ev, before=START.to_board())
    assert found.verdict == "unsure" and found.board is None and found.play is None
    assert any("the camera itself is not sure of the board seen" in n for n in found.notes)
    # read surely where they differ, the same board is ruled illegal
    ev = TurnEvidence(_probs_of(wrong, 0.999), changes=_changes(4, 5, 6, 8))
    assert TurnReader(TurnConfig(temperature=1.0)).judge(_candidates(), ev, before=START.to_board()).verdict \
        == "illegal"


def test_a_legal_play_the_picture_cannot_tell_from_a_man_left_a_pip_short_of_off_is_asked():
    # house convention 15, issue 45: a wrong turn that bears off fewer men than every legal play leaves other
    # numbers of men on the points, which no board of the illegal turn's weighs. Path-traced frame f00110: light
    # had seven men on his 1-point and one on his 8-point, threw 2-2 and played 8/1 (the man a pip short of
    # off); a stack of eight read anywhere from six to nine had the only legal play, 8/off, ruled legal
    before = Position.from_id("AQFwAAABAAAAAAAAAAAAAAAAAJAAAAAAAAAAdgA")
    cands = _candidates(before, (2, 2))
    assert [c.play for c in cands] == ["8/off"] and cands[0].board["light"][0] == 7
    played = dict(cands[0].board, light=[8] + [0] * 23, off={"light": 7, "dark": 6})
    p = _probs_of(played, 0.999)
    p[0] = 0.001
    p[0, 6:10] = [0.26, 0.2, 0.12, 0.2]          # a stack of eight: six to nine, as v16 read it
    p /= p.sum(axis=1, keepdims=True)
    ev = TurnEvidence(p)
    old = TurnReader(TurnConfig(temperature=1.0, alone_one_man=None)).judge(cands, ev, before=before.to_board())
    assert (old.verdict, old.play) == ("legal", "8/off")        # the rule before: the illegal boards hold 7 men
    found = TurnReader(TurnConfig(temperature=1.0, alone_one_man=1.0)).judge(cands, ev, before=before.to_board())
    assert found.verdict == "unsure" and found.play is None
    assert any("does not tell it from a light man" in n and "point 1" in n for n in found.notes)
    # the stack read surely: seven men there are ruled 8/off, eight are never ruled legal
    sure = TurnReader(TurnConfig(temperature=1.0, alone_one_man=1.0))
    assert sure.judge(cands, TurnEvidence(_probs_of(cands[0].board, 0.99)), before=before.to_board()).play == "8/off"
    assert sure.judge(cands, TurnEvidence(_probs_of(played, 0.99)), before=before.to_board()).verdict != "legal"


def test_the_check_of_a_man_more_or_fewer_is_made_on_a_photo_alone_not_where_the_frame_before_is_at_hand():
    # with the frame before, the points' changes weigh a man laid on or taken from a stack (the check there
    # cost six times the questions at seed 16180 for no wrong ruling seen): the same picture of a legal play,
    # every point's picture changed, is ruled with it and asked without it
    cfg = default_config()
    assert cfg.alone_one_man is not None and cfg.alone_one_man >= 1.0
    before = Position.from_id("AQFwAAABAAAAAAAAAAAAAAAAAJAAAAAAAAAAdgA")
    cands = _candidates(before, (2, 2))
    p = _probs_of(cands[0].board, 0.999)
    p[0] = 0.001
    p[0, 6:10] = [0.26, 0.2, 0.12, 0.2]
    p /= p.sum(axis=1, keepdims=True)
    reader = TurnReader(TurnConfig(temperature=1.0))
    assert reader.judge(cands, TurnEvidence(p), before=before.to_board()).verdict == "unsure"
    framed = reader.judge(cands, TurnEvidence(p, changes=np.full(24, 0.3)), before=before.to_board())
    assert framed.play == "8/off" and not any("does not tell it from" in n for n in framed.notes)
