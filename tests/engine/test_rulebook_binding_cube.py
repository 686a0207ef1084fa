"""Rulebook: Willughby's binding of the tables (``binding``) and the doubling
cube (``cube``).

Positions are drawn in each side's own numbering (``rulebook_helpers.board``).
"""

from __future__ import annotations

import pytest

from willughby.engine.errors import MatchStateError
from willughby.engine.game import Game

from .rulebook_helpers import board, events, judged, rules

IRISH = rules("irish")
BACKGAMMON = rules("backgammon")

# Light holds every home point with two men except his 6, which 8/6 makes
# (three there after it); the 1 is played 14/13.  Dark has a man on the bar;
# his other men stand on his 13 point (light's 12), out of the way.
NEARLY_BOUND = board(light={1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 1, 14: 1, 13: 1},
                     dark={13: 14}, bar=(0, 1))
BIND = "8/6 14/13"


# ------------------------------------------------------------------ binding
def test_binding_a_bound_table_with_a_man_to_enter_is_reported() -> None:
    """"If you have bound up the table, and he has men to enter, then you must
    "break" or "open" the table." -- Willughby c.1665, seed 000 (binding=true)."""
    ruling = judged(IRISH, NEARLY_BOUND, (2, 1), BIND)
    assert ruling.verdict == "legal"
    assert events(ruling) == [("bound", "light", None, None)]


def test_binding_with_no_man_to_enter_is_no_matter() -> None:
    """"If there are no blots to be entered, then you can bind up your Tables
    with impunity." -- Willughby c.1665, seed 000 (binding=true)."""
    nobody_hit = board(light={1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 1, 14: 1, 13: 1},
                       dark={13: 15})
    ruling = judged(IRISH, nobody_hit, (2, 1), BIND)
    assert ruling.verdict == "legal"
    assert events(ruling) == []


def test_binding_false_a_bound_table_stands() -> None:
    """"Note that this whole concept of breaking bound-up tables comes entirely
    from Willughby; so far, I haven't noticed it in any other sources." --
    Willughby c.1665, seed 000 (binding=false)."""
    ruling = judged(rules("irish", binding=False), NEARLY_BOUND, (2, 1), BIND)
    assert ruling.verdict == "legal"
    assert events(ruling) == []


def _bound_match() -> Game:
    match = Game(IRISH, start=NEARLY_BOUND.with_turn(None))
    match.start_roll(5, 3)                   # light first; Irish throws afresh
    match.throw((2, 1))
    assert match.play_notation(BIND).verdict == "legal"
    assert match.phase == "binding_toss"
    return match


def test_binding_the_higher_throw_chooses_the_point_to_break() -> None:
    """"To choose which point must be broken, both players throw two dice. The
    player with the higher throw gets to choose which point will be broken" --
    Willughby c.1665, seed 000 (binding=true)."""
    match = _bound_match()
    assert match.binding_toss((2, 1), (6, 5)) == "dark"
    assert match.phase == "binding_choice"


def test_binding_all_but_one_man_of_the_point_are_taken_up() -> None:
    """"Breaking the table means that all but one of the men on one of your home
    spaces are removed, just as if they were blotted, and must be re-entered
    from your opponent's home." -- Willughby c.1665, seed 000 (binding=true).

    Dark wins the toss and breaks light's 6 point, three men there: two go to
    the bar, one stays.
    """
    match = _bound_match()
    match.binding_toss((2, 1), (6, 5))
    position = match.break_point(6)
    assert position.light[6 - 1] == 1
    assert position.bar == (2, 1)
    assert (match.phase, match.turn) == ("throw", "dark")


def test_binding_the_binder_breaks_even_if_he_wins_the_toss() -> None:
    """"however, even if the person who has bound up his home wins the toss, he
    still must break one point in his Home." -- Willughby c.1665, seed 000
    (binding=true)."""
    match = _bound_match()
    assert match.binding_toss((6, 6), (2, 1)) == "light"
    with pytest.raises(MatchStateError):
        match.throw((3, 1))                  # no throwing until the table is broken
    position = match.break_point(2)
    assert position.light[2 - 1] == 1
    assert position.bar == (1, 1)


def test_binding_a_tied_toss_is_thrown_again() -> None:
    """"Both players throw two dice; the higher throw chooses which point of the
    bound table is broken" -- variants.md (ties throw again: choice of this
    program)."""
    match = _bound_match()
    assert match.binding_toss((3, 4), (5, 2)) is None
    assert match.phase == "binding_toss"


# --------------------------------------------------------------------- cube
def test_cube_false_no_double_may_be_offered() -> None:
    """"Optionally, a doubling cube may be used." -- Willughby retold, seed 004 (cube=false: not
    used)."""
    match = Game.new("irish")
    match.start_roll(5, 3)
    assert not match.can_double()
    with pytest.raises(MatchStateError):
        match.offer_double()


def test_cube_a_taken_double_moves_the_cube_up_a_face() -> None:
    """"Every time a player proposes doubling and it is taken, the die is moved
    up to the next higher face." -- Willughby retold, seed 004 (cube=true).

    Dark doubles and light takes (2, light's cube); later light redoubles and
    dark takes (4, dark's cube): then light may not double.
    """
    match = Game.new("backgammon")
    match.start_roll(6, 1)                   # light plays the opening 6-1
    match.play_notation("13/7 8/7")
    match.offer_double()                     # dark, before his throw
    match.take()
    assert (match.cube_value, match.cube_owner) == (2, "light")
    assert not match.can_double()            # dark gave the cube away
    match.throw((3, 1))
    assert match.play_notation("8/5 6/5").verdict == "legal"
    assert match.can_double()                # light owns the cube
    match.offer_double()
    match.take()
    assert (match.cube_value, match.cube_owner) == (4, "dark")
    assert not match.can_double()


def test_cube_a_dropped_double_loses_the_game_at_the_cubes_value() -> None:
    """"The opposing player may “take” it or “drop” the game, losing the game in
    the same fashion as described below." -- Willughby retold, seed 004 (cube=true)."""
    match = Game.new("backgammon")
    match.start_roll(6, 1)
    match.play_notation("13/7 8/7")
    match.offer_double()
    result = match.drop()
    assert (result.winner, result.stake) == ("dark", 1)
    assert match.phase == "over"


def test_cube_multiplies_the_stake_of_the_game() -> None:
    """"The effect of the doubling die is that it will double the final score
    received by the winning player." -- Willughby retold, seed 004 (cube=true, stakes=gammon).

    Light's last man is on his 2 point; dark (none off, all on his 8 point)
    plays, light doubles, dark takes, light throws 2-1 and bears off: a
    gammon, 2, on a cube of 2.
    """
    match = Game(BACKGAMMON, start=board(light={2: 1}, dark={8: 15}, turn=None))
    match.start_roll(1, 6)                   # dark first, playing the 6-1
    assert match.play_notation("8/2 8/7").verdict == "legal"
    match.offer_double()
    match.take()
    match.throw((2, 1))
    ruling = match.play_notation("2/off")
    assert ruling.verdict == "legal"
    assert (match.result.winner, match.result.kind, match.result.stake) == ("light", "gammon", 4)
