"""Where along a point its picture changed, and what that says of its pile
(``vision.footprints``).

"Players play down a man for each cast of the die. For example, with throws
of 2 and 6, the player takes the upper of the two men on point 2 and places
it on the same point but above the lower man" (Willughby, seed 002): the man
played down lies beside his pile, one man's place further along the point,
so the places the men cover tell the pile once the count is known.
"""

from __future__ import annotations

import numpy as np
import pytest

from willughby.vision.classes import PILES
from willughby.vision.footprints import (PLACES, FootprintModel, footprint, footprint_log_likelihoods,
                                         joint_footprints, place_shares, quiet_points)
from willughby.vision.strips import MM_PER_PX, STRIP_BEYOND

MAN = 36.0


def _profile(changed: dict[int, list[int]], share: float = 1.0) -> np.ndarray:
    """Change profiles (24, 140) with the given places (0 at the edge) of the given points (1..24) changed."""
    prof = np.zeros((24, 140))
    for point, places in changed.items():
        for k in places:
            lo = int(round((k * MAN + STRIP_BEYOND) / MM_PER_PX))
            hi = int(round(((k + 1) * MAN + STRIP_BEYOND) / MM_PER_PX))
            prof[point - 1, lo:hi] = share
    return prof


def _board(men: int, stacked: int, point: int = 1) -> dict:
    light = [0] * 24
    light[point - 1] = men
    piles = [0] * 24
    piles[point - 1] = stacked
    return {"light": light, "dark": [0] * 24, "stacked": {"light": piles, "dark": [0] * 24}}


def _joint(men: int, pile_class: int) -> int:
    return men * PILES + pile_class          # light men: count class = men


def test_a_point_covers_one_place_for_its_pile_and_one_for_each_man_laid_flat():
    assert [footprint(3, 3), footprint(3, 2), footprint(3, 0)] == [1, 2, 3]
    assert [footprint(2, 2), footprint(1, 0), footprint(0, 0)] == [1, 1, 0]
    for men, stacked in ((2, 1), (2, 3), (-1, 0)):
        with pytest.raises(ValueError):
            footprint(men, stacked)


def test_each_joint_class_has_the_footprint_of_its_men_and_pile():
    fp, colour = joint_footprints()
    assert fp[_joint(3, 2)] == 1 and fp[_joint(3, 1)] == 2 and fp[_joint(3, 0)] == 3
    assert fp[_joint(1, 1)] == -1 and fp[_joint(2, 2)] == -1      # no pile of 2 or 3 from fewer men
    assert colour[_joint(3, 0)] == 0 and colour[(15 + 2) * PILES] == 1 and colour[0] == -1


def test_place_shares_find_the_place_that_changed():
    shares = place_shares(_profile({4: [2]}))
    assert shares.shape == (24, PLACES)
    assert shares[3].round(2).tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert not shares[[0, 1, 2, 4]].any()
    with pytest.raises(ValueError):
        place_shares(np.zeros((12, 140)))


def test_a_man_laid_beside_a_pile_of_three_reads_as_a_pile_of_two_not_three_nor_three_flat():
    before = _board(3, 3)
    ll = footprint_log_likelihoods(_profile({1: [1]}), before)[0]
    # one place more covered: played down once (by a factor of e^2 and more: the pile's top, which a man taken
    # off it moves by a pixel or two, shows nothing here, which leans a little the other way)
    assert ll[_joint(3, 1)] > ll[_joint(3, 2)] + 2
    assert ll[_joint(3, 1)] > ll[_joint(3, 0)] + 3            # not twice (a third place would have changed)


def test_a_point_whose_places_did_not_change_reads_as_it_was():
    before = _board(3, 2)                                      # a pile of 2 and one man beside it
    ll = footprint_log_likelihoods(np.zeros((24, 140)), before)[0]
    assert ll[_joint(3, 1)] > ll[_joint(3, 0)] + 3            # the pile still stands
    assert ll[_joint(3, 1)] > ll[_joint(1, 0)] + 3            # nor was the man beside it borne off


def test_a_change_seen_only_at_the_fainter_difference_counts_and_a_slight_one_says_neither():
    # men of nearly the board's colour: the clear comparison misses the man laid beside the pile
    before = _board(3, 3)
    clear = footprint_log_likelihoods(_profile({1: [1]}), before)[0]
    missed = footprint_log_likelihoods(np.zeros((24, 140)), before)[0]
    faint = footprint_log_likelihoods(np.zeros((24, 140)), before, faint=_profile({1: [1]}))[0]
    slight = footprint_log_likelihoods(np.zeros((24, 140)), before, faint=_profile({1: [1]}, share=0.4))[0]
    gap = lambda ll: ll[_joint(3, 1)] - ll[_joint(3, 2)]      # noqa: E731  (played down once, against not at all)
    assert gap(missed) < -3                                    # the clear profile alone says "nothing happened"
    assert gap(faint) == pytest.approx(gap(clear))             # a clear change at the fainter difference counts
    assert abs(gap(slight)) < 1.5                              # a slight one takes "nothing" back, and says little


def test_a_row_longer_than_the_places_weighed_says_nothing():
    ll = footprint_log_likelihoods(_profile({1: [1, 2, 3]}), _board(7, 0))[0]
    assert not ll.any()


def test_quiet_points_are_those_whose_mens_places_did_not_change():
    before = _board(3, 3)
    assert quiet_points(np.zeros((24, 140)), before).all()
    far = _profile({1: [4]})                                   # a die at the point's far end
    assert quiet_points(far, before)[0]
    assert not quiet_points(_profile({1: [1]}), before)[0]     # the place beside the pile
    edge = _profile({1: [0]}, share=0.05)                      # the pile's top moved: a man taken off it?
    assert not quiet_points(edge, before)[0]
    assert not quiet_points(np.zeros((24, 140)), before, faint=_profile({1: [1]}))[0]


def test_the_model_refuses_impossible_settings():
    for bad in ({"middle_mm": 0}, {"unchanged_below": 0.7}, {"miss": 0.5}, {"stray": 0.0}):
        with pytest.raises(ValueError):
            FootprintModel(**bad)
