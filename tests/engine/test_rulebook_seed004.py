"""Rulebook: Willughby as retold for players today (seed 004) -- ``irish``
with ``bear_off=exact stakes=gammon cube=true`` and its house rule
``doubles=triple``.

Positions are drawn in each side's own numbering (``rulebook_helpers.board``).
Men not drawn are off the board.
"""

from __future__ import annotations

from .rulebook_helpers import assert_plays, board, judged, rules

SEED_004 = rules("irish", bear_off="exact", stakes="gammon", cube=True, doubles="triple")


def test_seed004_options() -> None:
    """"Seed 004 (Willughby as retold for players today) is `irish` with
    `bear_off=exact stakes=gammon cube=true`, and its house rule is
    `doubles=triple`." -- variants.md."""
    options = SEED_004.options()
    assert {k: options[k] for k in ("bear_off", "stakes", "cube", "doubles", "binding")} == {
        "bear_off": "exact", "stakes": "gammon", "cube": "true", "doubles": "triple",
        "binding": "true"}


def test_seed004_two_aces_are_three_aces() -> None:
    """"One particular house rule is that you add one result in the case of
    doubles on the dice. For example, rolling two 1s, it’s now three 1s." --
    Willughby retold (house rule), seed 004.

    Light's men on 24 and 13 throw 1-1: three moves of 1.
    """
    position = board(light={24: 1, 13: 1}, dark={6: 2})
    assert_plays(SEED_004, position, (1, 1), {
        "13/10", "24/23 13/11", "24/22 13/12", "24/21",
    })


def test_seed004_a_doublet_bears_off_three_men() -> None:
    """"One particular house rule is that you add one result in the case of
    doubles on the dice." -- Willughby retold (house rule), seed 004.

    Four light men on his 2 point, 2-2: three go off, one stays.
    """
    position = board(light={2: 4}, dark={6: 2})
    assert_plays(SEED_004, position, (2, 2), {"2/off(3)"})


def test_seed004_bear_off_needs_the_exact_number() -> None:
    """"To “bear off”, a player must get the exact number of moves to reach the
    side of the board." -- Willughby retold, seed 004.

    Light on his 5 and 2 points throws 6-4: nothing goes off; 5/1, the 6 lost.
    """
    position = board(light={5: 1, 2: 1}, dark={6: 2})
    assert_plays(SEED_004, position, (6, 4), {"5/1"})


def test_seed004_bearing_off_with_a_higher_die_is_illegal() -> None:
    """"To “bear off”, a player must get the exact number of moves to reach the
    side of the board." -- Willughby retold, seed 004."""
    position = board(light={5: 1, 2: 1}, dark={6: 2})
    ruling = judged(SEED_004, position, (6, 4), "5/1 2/off")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "bear.exact"
    assert "seed 004" in ruling.citation
    assert "light" in ruling.reason and "2 point" in ruling.reason


def test_seed004_gammon_on_the_cube() -> None:
    """"If the opposing player does not have a man that has borne off, this is
    called “gammon” and is worth 2 scores." -- Willughby retold, seed 004; "The
    effect of the doubling die is that it will double the final score received
    by the winning player."

    Light bears off his last three men with 2-2 (three 2s); dark has none off
    and none in light's home: a gammon, 2, on a cube of 2.
    """
    before = board(light={2: 3}, dark={6: 15})
    ruling = judged(SEED_004, before, (2, 2), board(dark={6: 15}), cube=2)
    assert ruling.verdict == "legal"
    assert (ruling.game_over.kind, ruling.game_over.stake) == ("gammon", 4)
