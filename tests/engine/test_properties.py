"""Invariants, checked on many random positions (docs/house-conventions.md, convention 12):
men are conserved, ids round-trip, a legal play's result is judged legal, and
a random other position almost never is."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from willughby.engine.moves import legal_plays
from willughby.engine.position import COLOURS, Position
from willughby.engine.referee import judge
from willughby.engine.rules import PRESETS, preset_rules
from willughby.engine.sampling import KINDS, random_dice, random_position

RACE = [p for p in PRESETS if PRESETS[p].rules.family == "race" and PRESETS[p].rules.start_waiting == 0]

positions = st.builds(
    lambda seed, kind, turn: random_position(random.Random(seed), kind, turn=turn),
    st.integers(0, 2**32), st.sampled_from(KINDS), st.sampled_from(COLOURS),
)


@st.composite
def turns(draw):
    preset = draw(st.sampled_from(RACE))
    options = {}
    if draw(st.booleans()):
        options["bear_off"] = draw(st.sampled_from(["exact", "over", "modern"]))
    if draw(st.booleans()):
        options["doubles"] = draw(st.sampled_from(["plain", "triple", "fourfold"]))
    rules = preset_rules(preset, options)
    pos = draw(positions)
    n = rules.dice_thrown
    dice = tuple(draw(st.integers(1, 6)) for _ in range(n))
    return rules, pos, dice


@settings(max_examples=150, deadline=None)
@given(turns())
def test_men_are_conserved(turn):
    rules, pos, dice = turn
    for play in legal_plays(rules, pos, dice):
        for colour in COLOURS:
            assert play.position.men(colour) == pos.men(colour)


@settings(max_examples=300, deadline=None)
@given(positions)
def test_ids_round_trip(pos):
    assert Position.from_id(pos.id()) == pos
    assert Position.from_board(pos.to_board(), men=15) == pos
    back = Position.from_gnubg_id(pos.gnubg_id(), on_roll=pos.turn)
    assert back == pos


@settings(max_examples=100, deadline=None)
@given(turns())
def test_every_legal_result_is_judged_legal(turn):
    rules, pos, dice = turn
    for play in legal_plays(rules, pos, dice):
        ruling = judge(rules, pos, dice, play.position)
        assert ruling.verdict == "legal", (play.notation, ruling.reason)


def test_a_random_other_position_is_almost_never_judged_legal():
    rng = random.Random(7)
    rules = preset_rules("backgammon")
    legal = 0
    trials = 300
    for _ in range(trials):
        before = random_position(rng, rng.choice(KINDS))
        other = random_position(rng, rng.choice(KINDS))
        if other.physical_key() == before.physical_key():
            continue
        ruling = judge(rules, before, random_dice(rng, rules), other)
        assert ruling.reason, "an illegal ruling always gives a reason"
        legal += ruling.verdict == "legal"
    assert legal / trials < 0.01
