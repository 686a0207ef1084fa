"""Rulebook: the dice -- how many, how a doublet is played, which dice must
be used, and what becomes of a die that cannot be used.

Positions are drawn in each side's own numbering (``rulebook_helpers.board``).
Men not drawn are off the board.  Unless a test says otherwise dark's two
men stand on his 6 point (light's 19), out of light's way.
"""

from __future__ import annotations

import pytest

from willughby.engine.errors import InvalidDiceError
from willughby.engine.game import Game
from willughby.engine.moves import legal_plays

from .rulebook_helpers import assert_plays, board, events, judged, rules

# Light's men on his 24 and 13 points: the board for the doublet tests.
TWO_MEN = board(light={24: 1, 13: 1}, dark={6: 2})


# ------------------------------------------------------------------ doubles
def test_doubles_plain_a_doublet_is_two_moves() -> None:
    """"Each die roll represents the movement of one man." -- Willughby c.1665,
    seed 000; in Irish a doublet is not redoubled ("In Backgammon, doubles are
    redoubled.") (doubles=plain).

    3-3 in Irish: two moves of 3.
    """
    assert_plays(rules("irish"), TWO_MEN, (3, 3), {"13/7", "24/18", "24/21 13/10"})


def test_doubles_triple_a_doublet_is_three_moves() -> None:
    """"One particular house rule is that you add one result in the case of
    doubles on the dice. For example, rolling two 1s, it’s now three 1s." --
    Willughby retold (house rule), seed 004 (doubles=triple)."""
    assert_plays(rules("irish", doubles="triple"), TWO_MEN, (3, 3), {
        "13/4", "24/21 13/7", "24/18 13/10", "24/15",
    })


def test_doubles_fourfold_a_doublet_is_four_moves() -> None:
    """"In Backgammon, doubles are redoubled. If you throw 2 duces, you take 4
    duces instead" -- Willughby c.1665, seed 000 (doubles=fourfold).

    The man on 13 may go all the way to light's ace point, 13/1.
    """
    assert_plays(rules("backgammon-willughby"), TWO_MEN, (3, 3), {
        "13/1", "24/21 13/4", "24/18 13/7", "24/15 13/10", "24/12",
    })


def test_doubles_pip_total_a_doublet_is_as_many_moves_as_its_pips() -> None:
    """"If a doublet is thrown, the player may play down (in phase 1) or bear
    off (in phase 2) as many men as the total of the two dice" -- Willughby
    c.1665, seed 002; as a race option "as many actions as the total of its
    pips (two fives = ten men)" -- variants.md (doubles=pip-total).

    3-3 is six moves of 3, shared between the two men.
    """
    assert_plays(rules("irish", doubles="pip-total"), TWO_MEN, (3, 3), {
        "24/6", "24/9 13/10", "24/12 13/7", "24/15 13/4", "24/18 13/1",
    })


# --------------------------------------------------------------- how many dice
def test_dice_3_three_dice_each_move_a_man() -> None:
    """"Three dice or two dice and a permanent imaginary six are used." --
    Tables or Backgammon (modern rules), seed 003 (English backgammon; dice=3).

    4-2-1 with men on 24 and 13: every way of sharing the three dice.
    """
    position = board(light={24: 1, 13: 1}, dark={24: 2})
    assert_plays(rules("english"), position, (4, 2, 1), {
        "24/17",
        "24/18 13/12",
        "24/19 13/11",
        "24/21 13/9",
        "24/20 13/10",
        "24/22 13/8",
        "24/23 13/7",
        "13/6",
    })


def test_dice_3_two_alike_are_the_doublet() -> None:
    """"With three dice, two dice alike are the doublet and are played as
    `doubles` says; the third die is played once." -- sources.py (choice of this
    program).

    3-3-1 with doubles=fourfold: four 3s and one 1, thirteen points.
    """
    position = board(light={24: 1}, dark={24: 2})
    assert_plays(rules("english", doubles="fourfold"), position, (3, 3, 1), {"24/11"})


def test_dice_2_plus_6_the_imaginary_six_is_a_third_die() -> None:
    """"Three dice or two dice and a permanent imaginary six are used." --
    Tables or Backgammon (modern rules), seed 003 (English backgammon; dice=2+6).

    4-1 thrown, and the six: every way of sharing 4, 1 and 6.
    """
    position = board(light={24: 1, 13: 1}, dark={24: 2})
    assert_plays(rules("english", dice="2+6"), position, (4, 1), {
        "24/13",
        "24/14 13/12",
        "24/17 13/9",
        "24/19 13/7",
        "24/18 13/8",
        "24/20 13/6",
        "24/23 13/3",
        "13/2",
    })


def test_dice_2_plus_6_only_the_two_thrown_are_given() -> None:
    """"With `dice=2+6` the throw is the two dice thrown; the six is implied" --
    variants.md."""
    position = board(light={24: 1}, dark={24: 2})
    with pytest.raises(InvalidDiceError, match="implied"):
        legal_plays(rules("english", dice="2+6"), position, (4, 1, 6))


# ------------------------------------------------------------- using the dice
# Light's man on his 10 point; dark holds light's 9 (dark's 16).  With 6-1
# the 1 can only be played after the 6: 10/4/3.
ONE_ORDER = board(light={10: 1}, dark={16: 2})


def test_must_use_all_as_many_dice_as_can_be_played() -> None:
    """"Players must use all available moves presented by the dice." -- Hoyle
    1753, seed 001 (must_use=all).

    10/4 alone would leave the 1 unplayed, though 10/4/3 plays both.
    """
    assert_plays(rules("irish"), ONE_ORDER, (6, 1), {"10/3"})


def test_must_use_all_playing_fewer_dice_is_illegal() -> None:
    """"Players are not allowed to pass – as many moves as possible must be made
    each turn." -- Tables or Backgammon (modern rules), seed 003 (must_use=all)."""
    ruling = judged(rules("irish"), ONE_ORDER, (6, 1), "10/4")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "use.all"
    assert ruling.citation == "Hoyle 1753"
    assert "light" in ruling.reason and "one die" in ruling.reason


def test_must_use_all_no_pass_while_a_die_can_be_played() -> None:
    """"Players are not allowed to pass – as many moves as possible must be made
    each turn." -- Tables or Backgammon (modern rules), seed 003 (must_use=all)."""
    ruling = judged(rules("irish"), ONE_ORDER, (6, 1), ONE_ORDER)
    assert ruling.verdict == "illegal"
    assert ruling.rule == "use.all"
    assert "light" in ruling.reason and "no die" in ruling.reason


def test_must_use_free_any_number_of_dice() -> None:
    """"`free`: any number" -- variants.md; "a player may play any number of the
    dice thrown, none included." -- sources.py (choice of this program)
    (must_use=free)."""
    assert_plays(rules("irish", must_use="free"), ONE_ORDER, (6, 1),
                 {"(no play)", "10/4", "10/3"})


# Light's man on his 9 point; dark holds light's ace point (dark's 24).
# With 6-2 either die can be played (9/3 or 9/7) but not both (9/1 is held).
EITHER_NOT_BOTH = board(light={9: 1}, dark={24: 2})


def test_higher_die_false_either_die_may_be_played() -> None:
    """"Players must use all available moves presented by the dice." -- Hoyle
    1753, seed 001; no rule of Willughby's prefers a die (higher_die=false)."""
    assert_plays(rules("irish"), EITHER_NOT_BOTH, (6, 2), {"9/3", "9/7"})


def test_higher_die_true_the_higher_must_be_played() -> None:
    """"when a throw of two different numbers allows either die but not both,
    the higher must be played (it does not apply to three dice)" -- variants.md
    (higher_die=true; modern rules)."""
    assert_plays(rules("irish", higher_die=True), EITHER_NOT_BOTH, (6, 2), {"9/3"})


def test_higher_die_true_playing_the_lower_is_illegal() -> None:
    """"when a throw of two different numbers allows either die but not both,
    the higher must be played" -- variants.md (higher_die=true; modern rules)."""
    ruling = judged(rules("backgammon"), EITHER_NOT_BOTH, (6, 2), "9/7")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "higher.die"
    assert ruling.citation == "modern rules"
    assert "light" in ruling.reason and "higher (6)" in ruling.reason


def test_higher_die_does_not_apply_to_three_dice() -> None:
    """"(it does not apply to three dice)" -- variants.md (higher_die=true,
    dice=3).

    Light's man on his 20 point throws 6-2-1 with higher_die=true.  Dark holds
    light's 19, 17, 13 and 12: the 1 cannot be played, and after either the 6
    (20/14) or the 2 (20/18) nothing more can.  Both stand.
    """
    position = board(light={20: 1}, dark={6: 2, 8: 2, 12: 2, 13: 2})
    assert_plays(rules("english", higher_die=True), position, (6, 2, 1), {"20/14", "20/18"})


# ---------------------------------------------------------- doublet rethrow
def test_doublet_rethrow_true_the_same_player_throws_again() -> None:
    """"First, a player who throws a doublet keeps the dice and has another
    throw; this continues until two singles are thrown." -- Charpentier 1715,
    seed 002 (doublet_rethrow=true)."""
    rethrow = rules("irish", doublet_rethrow=True)
    assert {p.position.turn for p in legal_plays(rethrow, TWO_MEN, (3, 3))} == {"light"}
    assert {p.position.turn for p in legal_plays(rethrow, TWO_MEN, (3, 1))} == {"dark"}


def test_doublet_rethrow_false_the_turn_passes_after_a_doublet() -> None:
    """"During a normal turn, you put both dice into the box, and roll them
    out." -- Willughby c.1665, seed 000; no second throw for a doublet
    (doublet_rethrow=false)."""
    assert {p.position.turn for p in legal_plays(rules("irish"), TWO_MEN, (3, 3))} == {"dark"}


def test_doublet_rethrow_in_a_match() -> None:
    """"a player who throws a doublet keeps the dice and has another throw" --
    Charpentier 1715, seed 002 (doublet_rethrow=true)."""
    match = Game(rules("irish", doublet_rethrow=True), start=TWO_MEN.with_turn(None))
    match.start_roll(5, 2)
    match.throw((3, 3))
    ruling = match.play_notation("24/18")
    assert ruling.verdict == "legal"
    assert (match.turn, match.phase) == ("light", "throw")
    match.throw((3, 1))
    match.play_notation("18/14")
    assert (match.turn, match.phase) == ("dark", "throw")


# ------------------------------------------------------------- unused dice
# Light on his 9 and 7 points; dark holds light's 3 (dark's 22) and light's
# ace point (dark's 24).  With 6-2 the 6 cannot be played: 9/3 and 7/1 are
# held, before or after the 2.
SIX_UNPLAYABLE = board(light={9: 1, 7: 1}, dark={22: 2, 24: 2})


def test_unused_throw_lost_a_die_that_cannot_be_played_is_lost() -> None:
    """"If the men on a point corresponding to a die throw have already been
    played down, the throw is lost." -- Willughby c.1665, seed 002
    (unused_throw=lost)."""
    irish = rules("irish")
    assert_plays(irish, SIX_UNPLAYABLE, (6, 2), {"9/7", "7/5"})
    ruling = judged(irish, SIX_UNPLAYABLE, (6, 2), "9/7")
    assert ruling.verdict == "legal"
    assert events(ruling) == [("lost_die", "light", None, 6)]


def test_unused_throw_lost_the_opponent_may_not_use_it() -> None:
    """"If the men on a point corresponding to a die throw have already been
    played down, the throw is lost." -- Willughby c.1665, seed 002
    (unused_throw=lost).

    Light plays 9/7 and dark moves 22/16 with the lost 6: dark's men moved in
    light's turn.
    """
    moved = board(light={7: 2}, dark={24: 2, 22: 1, 16: 1})
    ruling = judged(rules("irish"), SIX_UNPLAYABLE, (6, 2), moved)
    assert ruling.verdict == "illegal"
    assert ruling.rule == "turn.order"
    assert "dark" in ruling.reason and "light's turn" in ruling.reason


def test_unused_throw_opponent_uses_the_die_in_the_same_turn() -> None:
    """"Cotton's description is broadly similar except that, when a player is
    unable to use the throw of a die, the opponent may use it instead if able."
    -- Cotton 1674, seed 002 (unused_throw=opponent).

    Light plays 9/7; dark uses the 6 light could not: 22/16 (24/18 would land
    on light's new point).
    """
    opponent = rules("irish", unused_throw="opponent")
    moved = board(light={7: 2}, dark={24: 2, 22: 1, 16: 1})
    ruling = judged(opponent, SIX_UNPLAYABLE, (6, 2), moved)
    assert ruling.verdict == "legal"
    assert ruling.play == "9/7"
    assert ruling.opponent_play == "22/16"
    assert events(ruling) == [("opponent_uses_die", "dark", None, 6)]


def test_unused_throw_opponent_may_leave_the_die() -> None:
    """"the opponent may use it instead if able." -- Cotton 1674, seed 002
    (unused_throw=opponent)."""
    opponent = rules("irish", unused_throw="opponent")
    unmoved = board(light={7: 2}, dark={24: 2, 22: 2})
    ruling = judged(opponent, SIX_UNPLAYABLE, (6, 2), unmoved)
    assert ruling.verdict == "legal"
    assert ruling.opponent_play is None
    assert ("opponent_uses_die", "dark", None, 6) not in events(ruling)


def test_unused_throw_opponent_cannot_move_with_a_die_light_used() -> None:
    """"when a player is unable to use the throw of a die, the opponent may use
    it instead if able." -- Cotton 1674, seed 002 (unused_throw=opponent).

    Light played the 2 himself: dark may not play a 2 (22/20).
    """
    opponent = rules("irish", unused_throw="opponent")
    moved = board(light={7: 2}, dark={24: 2, 22: 1, 20: 1})
    ruling = judged(opponent, SIX_UNPLAYABLE, (6, 2), moved)
    assert ruling.verdict == "illegal"
