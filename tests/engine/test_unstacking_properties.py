"""Invariants of the unstacking games, on many random positions (docs/house-conventions.md,
convention 12): men are conserved, ids and board documents round-trip for
every outcome, every outcome is judged legal, an illegal ruling always names
its rule, and random whole games of every preset end with a winner."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from willughby.engine.position import COLOURS, Position
from willughby.engine.referee import game_over, judge, turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.engine.sources import SOURCES

from .test_reference_unstacking import (UNSTACKING, make_position, random_rules, random_side,
                                        read_position)


@st.composite
def turns(draw):
    """(rules, position, dice) of a random preset, options and position."""
    preset = draw(st.sampled_from(UNSTACKING))
    rng = random.Random(draw(st.integers(0, 2**32)))
    rules = random_rules(preset, rng)
    sides = {c: random_side(preset, rng) for c in COLOURS}
    pos = make_position(preset, sides, draw(st.sampled_from(COLOURS)), rng)
    dice = tuple(draw(st.integers(1, 6)) for _ in range(rules.dice_thrown))
    if rules.doubles == "pip-total" and len(set(dice)) < len(dice) and max(dice) > 3:
        dice = tuple(min(d, 3) for d in dice)  # keep the largest plays out of the slow checks
    return preset, rules, pos, dice


@settings(max_examples=200, deadline=None)
@given(turns())
def test_men_are_conserved(turn) -> None:
    preset, rules, pos, dice = turn
    for o in turn_outcomes(rules, pos, dice):
        for colour in COLOURS:
            assert o.position.men(colour) == pos.men(colour) == rules.men
            assert o.position.bar == (0, 0)


@settings(max_examples=200, deadline=None)
@given(turns())
def test_ids_and_documents_round_trip_for_every_outcome(turn) -> None:
    preset, rules, pos, dice = turn
    for p in [pos] + [o.position for o in turn_outcomes(rules, pos, dice)]:
        assert Position.from_id(p.id()) == p
        assert Position.from_board(p.to_board(), men=rules.men) == p
        assert eval(repr(p), {"Position": Position}) == p


@settings(max_examples=120, deadline=None)
@given(turns())
def test_every_outcome_is_judged_legal(turn) -> None:
    preset, rules, pos, dice = turn
    found = turn_outcomes(rules, pos, dice)
    assert found, "a turn always has an outcome (if only the dice lost)"
    for o in found[:8]:
        ruling = judge(rules, pos, dice, o.position)
        assert ruling.verdict == "legal", (o.play.notation, ruling.reason)
        assert ruling.after.turn == o.position.turn
        # the ruling's events account for every die: used, passed or lost
        kinds = [e.type for e in ruling.events]
        assert kinds.count("lost_die") == len(o.play.unused) - (
            len(o.opponent_play.steps) if o.opponent_play else 0)
        assert kinds.count("opponent_uses_die") == (len(o.opponent_play.steps) if o.opponent_play else 0)


@settings(max_examples=60, deadline=None)
@given(turns(), st.integers(0, 2**32))
def test_a_random_other_board_is_refused_with_a_named_rule(turn, seed) -> None:
    preset, rules, pos, dice = turn
    rng = random.Random(seed)
    other = make_position(preset, {c: random_side(preset, rng) for c in COLOURS},
                          rng.choice(COLOURS), rng)
    legal = {o.position.physical_key() for o in turn_outcomes(rules, pos, dice)}
    ruling = judge(rules, pos, dice, other)
    if other.physical_key() in legal:
        return
    assert ruling.verdict == "illegal"
    assert ruling.rule in SOURCES and ruling.reason and ruling.citation
    assert ruling.citation == SOURCES[ruling.rule].citation


def test_random_games_of_every_preset_end_with_a_winner() -> None:
    """Every preset, as it stands and under pip-total doublets and passed
    dice: random legal turns from the start end with one winner within 400
    turns, no outcome ever judged illegal on the way."""
    rng = random.Random(17)
    for preset in UNSTACKING:
        for options in ({}, {"doubles": "pip-total"}, {"unused_throw": "opponent"},
                        {"doublet_rethrow": "true", "dice": "3"}):
            rules = preset_rules(preset, options)
            for _ in range(3):
                pos = start_position(rules, rng.choice(COLOURS))
                for n in range(400):
                    dice = tuple(rng.randint(1, 6) for _ in range(rules.dice_thrown))
                    o = rng.choice(turn_outcomes(rules, pos, dice))
                    if n % 7 == 0:
                        assert judge(rules, pos, dice, o.position).legal
                    over = game_over(rules, o.position, pos.turn, dice)
                    if over is not None:
                        assert over.kind == "single" and over.stake == 1
                        winner = read_position(preset, o.position)[0 if over.winner == "light" else 1]
                        assert sum(winner[0]) == 0 and winner[2] == rules.men
                        break
                    pos = o.position
                else:
                    raise AssertionError(f"{preset} {options}: no winner in 400 turns")


def test_a_far_off_board_under_a_passed_pip_total_doublet_is_explained() -> None:
    """The case that took the explanation of an illegal turn 93 s (the mover's
    relaxed plays times the opponent's, for every one): Cotton's Doublets,
    4-4 (eight actions on any men, dice passed), a board after that seven men
    off and dark's piles changed explain."""
    rules = preset_rules("doublets-cotton")
    z = [0] * 18
    before = Position((2, 2, 2, 3, 3, 3, *z), (*z, 3, 3, 3, 2, 2, 2), turn="light",
                      stacked=((0, 2, 0, 3, 0, 2, *z), (*z, 0, 3, 0, 0, 0, 0)))
    after = Position((1, 2, 0, 3, 2, 0, *z), (*z, 3, 3, 3, 2, 2, 2), off=(7, 0), turn="light",
                     stacked=((0,) * 24, (*z, 3, 0, 0, 0, 0, 0)))
    ruling = judge(rules, before, (4, 4), after)
    assert ruling.verdict == "illegal" and ruling.rule == "unstack.turn_order"
