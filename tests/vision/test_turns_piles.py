"""The turn reader in a game of piles (Doublets and its kin): a play changes
piles, not counts, so each point is weighed over its count and its pile
together, and the play is ruled only where the piles are read surely.

"Players play down a man for each cast of the die ... the player takes the
upper of the two men on point 2 and places it on the same point but above
the lower man" (Willughby, seed 002): from the start, 4-1 leaves every count
as it was and changes the piles of points 4 and 1 only.
"""

from __future__ import annotations

import numpy as np

from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision.turns import (Candidate, TurnConfig, TurnEvidence, TurnReader, board_classes, has_piles,
                                    pile_classes)

RULES = preset_rules("doublets")
START = start_position(RULES, "light")
BEFORE = START.to_board()


def _candidates(dice) -> list[Candidate]:
    return [Candidate(o.play.notation, o.position.to_board()) for o in turn_outcomes(RULES, START, dice)]


def _evidence(board: dict, pile_sure: float = 0.999, changes=None) -> TurnEvidence:
    counts = np.full((24, 31), 1e-4 / 30)
    counts[np.arange(24), board_classes(board)] = 1 - 1e-4
    piles = np.full((24, 3), (1 - pile_sure) / 2)
    piles[np.arange(24), pile_classes(board)] = pile_sure
    return TurnEvidence(counts, pile_probs=piles, changes=changes)


def _reader() -> TurnReader:
    return TurnReader(TurnConfig(temperature=1.0))


def test_the_start_is_a_game_of_piles_and_its_piles_have_classes():
    assert has_piles(BEFORE)
    assert pile_classes(BEFORE)[:6].tolist() == [1, 1, 1, 2, 2, 2]      # piles of 2 on 1-3, of 3 on 4-6


def test_piles_read_surely_rule_the_play_they_show():
    # 6-6 under pip-total: twelve actions on any men, many boards alike in every count
    candidates = _candidates((3, 3))
    assert len(candidates) > 10 and len({tuple(board_classes(c.board)) for c in candidates}) == 1
    shown = candidates[7]
    found = _reader().judge(candidates, _evidence(shown.board), before=BEFORE)
    assert (found.verdict, found.play) == ("legal", shown.play)


def test_piles_read_unsurely_are_asked_not_guessed():
    candidates = _candidates((4, 1))
    assert len(candidates) == 1                 # counts alone would rule it whatever the piles show
    found = _reader().judge(candidates, _evidence(candidates[0].board, pile_sure=0.9), before=BEFORE)
    assert found.verdict == "unsure"
    assert any("piles" in note for note in found.notes)


def test_a_pile_the_throw_did_not_touch_shown_played_down_is_not_ruled_the_play():
    # 4-1 played, but the picture also shows point 6's pile played down: no play of 4-1 does that
    play = _candidates((4, 1))[0]
    wrong = dict(play.board)
    wrong["stacked"] = {k: list(v) for k, v in play.board["stacked"].items()}
    wrong["stacked"]["light"][5] = 2
    found = _reader().judge(_candidates((4, 1)), _evidence(wrong), before=BEFORE)
    assert found.verdict != "legal"


def test_a_point_whose_picture_did_not_change_keeps_its_pile():
    # the frame before shows point 4's pile standing and its picture did not change: 4-1's play
    # (point 4 played down) cannot be what the table shows, whatever the pile reader says
    play = _candidates((4, 1))[0]
    changes = np.full(24, 0.2)
    changes[3] = 0.0
    found = _reader().judge(_candidates((4, 1)), _evidence(play.board, changes=changes), before=BEFORE)
    assert found.verdict != "legal"


# ----------------------------------------------------------------- where along a point the picture changed
def _places(changed: dict[int, list[int]]) -> np.ndarray:
    """Change profiles (24, strip rows) with the given places (0 at the edge) of the given points changed."""
    from willughby.vision.strips import MM_PER_PX, STRIP_BEYOND

    prof = np.zeros((24, 140))
    for point, places in changed.items():
        for k in places:
            prof[point - 1, int(round((36 * k + STRIP_BEYOND) / MM_PER_PX)):
                 int(round((36 * (k + 1) + STRIP_BEYOND) / MM_PER_PX))] = 1.0
    return prof


def _seen(board: dict, changed: dict[int, list[int]], pile_sure: float = 0.9, faint=None) -> TurnEvidence:
    ev = _evidence(board, pile_sure=pile_sure)
    ev.profiles = _places(changed)
    ev.changes = ev.profiles.mean(axis=1)
    ev.faint_profiles = faint
    return ev


def test_a_man_seen_laid_beside_each_pile_the_throw_names_rules_the_play_the_piles_alone_could_not():
    # 4-1: point 4's pile of 3 and point 1's pile of 2 each lose a man, laid beside them (place 1). Read by the
    # pile reader alone at 0.9 that is asked (above); with the places that changed, it is ruled
    play = _candidates((4, 1))[0]
    found = _reader().judge(_candidates((4, 1)), _seen(play.board, {4: [1], 1: [1]}), before=BEFORE, piles=True)
    assert (found.verdict, found.play) == ("legal", play.play)


def test_a_pile_played_down_twice_where_the_throw_plays_it_once_is_never_ruled_the_play():
    # point 4's pile of 3 laid flat (places 1 and 2 changed): one man more than the 4 allows
    play = _candidates((4, 1))[0]
    wrong = dict(play.board)
    wrong["stacked"] = {k: list(v) for k, v in play.board["stacked"].items()}
    wrong["stacked"]["light"][3] = 0
    found = _reader().judge(_candidates((4, 1)), _seen(wrong, {4: [1, 2], 1: [1]}), before=BEFORE, piles=True)
    assert found.verdict != "legal"


def test_a_pile_the_throw_names_left_standing_is_never_ruled_the_play():
    # the 1's pile of 2 was not played down: nothing changed on point 1, whatever the pile reader says
    play = _candidates((4, 1))[0]
    found = _reader().judge(_candidates((4, 1)), _seen(play.board, {4: [1]}, pile_sure=0.999), before=BEFORE,
                            piles=True)
    assert found.verdict != "legal"


def test_men_of_nearly_the_boards_colour_are_seen_at_the_fainter_difference():
    # the clear comparison misses the man laid beside point 1's pile; the fainter one sees him
    play = _candidates((4, 1))[0]
    missed = _reader().judge(_candidates((4, 1)), _seen(play.board, {4: [1]}), before=BEFORE, piles=True)
    assert missed.verdict == "unsure"
    ev = _seen(play.board, {4: [1]}, faint=_places({4: [1], 1: [1]}))
    found = _reader().judge(_candidates((4, 1)), ev, before=BEFORE, piles=True)
    assert (found.verdict, found.play) == ("legal", play.play)


def test_a_turn_is_never_ruled_illegal_only_because_the_picture_did_not_change_where_the_play_moves_men():
    # dark men on black points may not show at all: 4-1 played, but nothing changed on points 4 and 1 that
    # even the fainter comparison sees, and the point reader reads the start; the turn is asked (the same
    # picture of men not moved at all is asked too: the referee cannot tell the two apart)
    ev = _seen(BEFORE, {}, pile_sure=0.99999)
    found = _reader().judge(_candidates((4, 1)), ev, before=BEFORE, piles=True)
    assert found.verdict == "unsure" and found.p_other > 0.999
    assert "only where the picture did not change" in found.notes[-1]


def test_a_man_borne_off_a_pile_may_leave_the_picture_as_it_was():
    # Ofanfelling bears off from piles restacked ("a die n puts a man back onto a pile on point n, until every
    # point again holds its pile", variants.md): a pile of 2 becoming one man changes nothing seen from above
    # at the men's places; the play that does so is weighed on the point reader's count there, not refused
    before = {"format": "board/1", "light": [2, 2] + [0] * 22, "dark": [0] * 24, "bar": {"light": 0, "dark": 0},
              "off": {"light": 10, "dark": 15}, "stacked": {"light": [2, 2] + [0] * 22, "dark": [0] * 24}}
    after = {**before, "light": [1, 2] + [0] * 22, "off": {"light": 11, "dark": 15},
             "stacked": {"light": [0, 2] + [0] * 22, "dark": [0] * 24}}
    ev = _evidence(after, pile_sure=0.999)
    ev.profiles = np.zeros((24, 140))
    ev.changes = np.zeros(24)
    found = _reader().judge([Candidate("off 1", after)], ev, before=before, piles=True)
    assert (found.verdict, found.play) == ("legal", "off 1")


def test_a_picture_that_differs_from_a_legal_play_only_in_a_piles_height_is_asked_never_ruled_illegal():
    # the men lie where 4-1 leaves them, but the point reader is sure point 4 holds two men laid flat (a man
    # taken off its pile as well): from above a pile's height barely shows, so that is no ground for a ruling
    play = _candidates((4, 1))[0]
    seen = dict(play.board, light=list(play.board["light"]))
    seen["light"][3] = 2
    seen["stacked"] = {k: list(v) for k, v in play.board["stacked"].items()}
    seen["stacked"]["light"][3] = 0
    ev = _seen(seen, {4: [1], 1: [1]}, pile_sure=0.99999)
    ev.count_probs[3] = 1e-9
    ev.count_probs[3, 2] = 1.0
    found = _reader().judge(_candidates((4, 1)), ev, before=BEFORE, piles=True)
    assert found.verdict == "unsure" and found.p_other > 0.999
    assert "only the piles' heights may differ" in found.notes[-1]


def test_in_a_game_of_piles_a_board_without_piles_is_still_weighed_for_them():
    # bearing off, no board of the turn has a pile; a wrong turn may still pile men (the benchmark's wrong
    # rulings before ``piles=True``): a point whose picture changed where the play leaves it is asked
    before = {"format": "board/1", "light": [0] * 5 + [2] + [0] * 18, "dark": [0] * 18 + [2] + [0] * 5,
              "bar": {"light": 0, "dark": 0}, "off": {"light": 13, "dark": 13}}
    ev = _evidence(before, pile_sure=0.6)
    ev.profiles = _places({6: [1]})
    ev.changes = ev.profiles.mean(axis=1)
    assert _reader().judge([Candidate("(no play)", before)], ev, before=before, piles=True).verdict != "legal"
    # without piles=True the boards decide, and none has a pile: counts alone rule the wrong turn legal
    assert _reader().judge([Candidate("(no play)", before)], ev, before=before).verdict == "legal"
