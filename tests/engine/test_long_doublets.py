"""A long doublet's play found directly (``moves.find_long_doublet_play``) agrees
with listing every play.

Under ``doubles=pip-total`` "two fives = ten men" (variants.md; Willughby, seed
002: "as many men as the total of the two dice"): a throw may end in thousands
of ways, and the referee finds the one the board shows without listing them.
The list of every play stays the reference.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from willughby.engine.moves import find_long_doublet_play, legal_plays
from willughby.engine.referee import judge, turn_outcomes
from willughby.engine.rules import preset_rules
from willughby.engine.sampling import random_position

PIP_TOTAL = preset_rules("backgammon", {"doubles": "pip-total"})


@pytest.mark.parametrize("seed", range(6))
def test_every_play_of_a_long_doublet_is_found_and_ruled_as_listing_them_rules_it(seed):
    rng = random.Random(seed)
    pos = random_position(rng, "contact")
    die = rng.choice((3, 4, 5, 6))
    outcomes = turn_outcomes(PIP_TOTAL, pos, (die, die))
    for outcome in rng.sample(outcomes, min(8, len(outcomes))):
        most = max(len(o.play.steps) for o in outcomes)
        direct = find_long_doublet_play(PIP_TOTAL, pos, (die, die), outcome.position)
        if most == 2 * die:  # every move playable: the direct search must find it
            assert direct is not None
            assert direct.position.physical_key() == outcome.position.physical_key()
        ruling = judge(PIP_TOTAL, pos, (die, die), outcome.position)
        assert ruling.legal
        assert ruling.after.physical_key() == outcome.position.physical_key()
        hits = Counter(e.type for e in ruling.events)
        assert hits["hit"] == (outcome.position.bar[1 if pos.turn == "light" else 0]
                               - pos.bar[1 if pos.turn == "light" else 0])


def test_a_board_no_play_leads_to_is_not_found_and_is_ruled_illegal():
    rng = random.Random(11)
    pos = random_position(rng, "contact")
    plays = legal_plays(PIP_TOTAL, pos, (6, 6))
    assert plays and plays[0].steps  # the mover can play sixes here
    # the board left as it was: twelve sixes thrown and nothing moved
    assert find_long_doublet_play(PIP_TOTAL, pos, (6, 6), pos) is None
    assert judge(PIP_TOTAL, pos, (6, 6), pos).verdict == "illegal"
    assert judge(PIP_TOTAL, pos, (6, 6), plays[-1].position).legal


def test_short_throws_are_left_to_the_full_list():
    pos = random_position(random.Random(3), "contact")
    assert find_long_doublet_play(preset_rules("backgammon"), pos, (4, 4), pos) is None
