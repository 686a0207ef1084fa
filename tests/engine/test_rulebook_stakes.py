"""Rulebook: the end of the game and what it is worth (``stakes`` = single,
willughby, cotton, gammon, fill), read from ``referee.judge``'s game_over.

Positions are drawn in each side's own numbering (``rulebook_helpers.board``).
Men not drawn are off the board.  In each test light bears off his last men.
"""

from __future__ import annotations

import pytest

from .rulebook_helpers import assert_plays, board, events, judged, rules

# Light's last man on his 2 point; 2-1 bears him off.
LAST_MAN = {2: 1}
# Light's last two men on his 2 point; 2-2 bears both off with a doublet.
LAST_TWO = {2: 2}

DARK_HOME_SOME_OFF = {6: 14}            # dark has borne one man off
DARK_HOME_NONE_OFF = {6: 5, 5: 5, 4: 5}  # all fifteen in dark's home, none off
DARK_ONE_OUTSIDE = {13: 1, 6: 14}       # a dark man not yet in dark's home table


def finish(rules_, dark, light=LAST_MAN, dice=(2, 1), bar=(0, 0), cube=1):
    """Judge light bearing off his last men; return the game_over."""
    before = board(light=light, dark=dark, bar=bar)
    ruling = judged(rules_, before, dice, board(dark=dark, bar=bar), cube=cube)
    assert ruling.verdict == "legal", ruling.reason
    assert ("win", "light", None, None) in events(ruling)
    return ruling.game_over


def test_stakes_single_the_first_off_wins_one_stake() -> None:
    """"Regardless, the winner is the first player to bear off all 15 of his
    men." -- Willughby c.1665, seed 000 (stakes=single).

    Even with all dark's men still on light's ace point, Irish pays one stake.
    """
    over = finish(rules("irish"), {24: 15})
    assert (over.winner, over.kind, over.stake) == ("light", "single", 1)


def test_stakes_single_a_doublet_pays_no_more() -> None:
    """"Regardless, the winner is the first player to bear off all 15 of his
    men." -- Willughby c.1665, seed 000 (stakes=single)."""
    over = finish(rules("irish"), DARK_ONE_OUTSIDE, light=LAST_TWO, dice=(2, 2))
    assert (over.kind, over.stake) == ("single", 1)


def test_no_game_over_while_a_man_is_left() -> None:
    """"The first person to bear off completely wins." -- Willughby c.1665,
    seed 000."""
    before = board(light={2: 1, 6: 1}, dark=DARK_HOME_NONE_OFF)
    ruling = judged(rules("irish"), before, (2, 1), "2/off 6/5")
    assert ruling.verdict == "legal"
    assert ruling.game_over is None


# ---------------------------------------------------------------- willughby
WILLUGHBY = rules("backgammon-willughby")


def test_stakes_willughby_plain_finish_is_one() -> None:
    """"Under normal conditions, you win simply a single stake." -- Willughby
    c.1665, seed 000 (stakes=willughby)."""
    over = finish(WILLUGHBY, DARK_HOME_NONE_OFF)
    assert (over.kind, over.stake) == ("single", 1)


def test_stakes_willughby_doublet_finish_is_two() -> None:
    """"But if you throw doubles on the final throw, to bear off your last men,
    you win a double stake." -- Willughby c.1665, seed 000 (stakes=willughby)."""
    over = finish(WILLUGHBY, DARK_HOME_NONE_OFF, light=LAST_TWO, dice=(2, 2))
    assert (over.kind, over.stake) == ("double", 2)


def test_stakes_willughby_backgammon_is_two() -> None:
    """"According to Willughby, a Backgammon is worth a double stake" --
    Willughby c.1665, seed 000 (stakes=willughby).  "Winning a Backgammon means
    that you have borne off all your men before your opponent has brought all
    of his men around to his Home."
    """
    over = finish(WILLUGHBY, DARK_ONE_OUTSIDE)
    assert (over.kind, over.stake) == ("backgammon", 2)


def test_stakes_willughby_backgammon_with_a_doublet_is_three() -> None:
    """"and a Backgammon that is won on a throw of doubles is worth a triple
    stake." -- Willughby c.1665, seed 000 (stakes=willughby)."""
    over = finish(WILLUGHBY, DARK_ONE_OUTSIDE, light=LAST_TWO, dice=(2, 2))
    assert (over.kind, over.stake) == ("backgammon-double", 3)


def test_stakes_willughby_a_man_on_the_bar_is_not_home() -> None:
    """"Winning a Backgammon means that you have borne off all your men before
    your opponent has brought all of his men around to his Home." -- Willughby
    c.1665, seed 000 (stakes=willughby)."""
    over = finish(WILLUGHBY, {6: 14}, bar=(0, 1))
    assert (over.kind, over.stake) == ("backgammon", 2)


# ------------------------------------------------------------------- cotton
COTTON = rules("backgammon-cotton")


@pytest.mark.parametrize("dark, light, dice, kind, stake", [
    (DARK_HOME_NONE_OFF, LAST_MAN, (2, 1), "single", 1),
    (DARK_HOME_NONE_OFF, LAST_TWO, (2, 2), "double", 2),
    (DARK_ONE_OUTSIDE, LAST_MAN, (2, 1), "backgammon", 3),
    (DARK_ONE_OUTSIDE, LAST_TWO, (2, 2), "backgammon-double", 4),
], ids=["one", "doublet-two", "backgammon-three", "backgammon-doublet-four"])
def test_stakes_cotton(dark, light, dice, kind, stake) -> None:
    """"If both bear together he that is first off without Doublets wins one. If
    both bear and one goes off with Doublets he wins two. If your Tables be
    clear before your Adversaries men be come in, that's a Back-Gammon, which
    is three; but if you thus go off with Doublets it is four." -- Cotton 1674,
    seed 001 (stakes=cotton)."""
    over = finish(COTTON, dark, light=light, dice=dice)
    assert (over.winner, over.kind, over.stake) == ("light", kind, stake)


# ------------------------------------------------------------------- gammon
BACKGAMMON = rules("backgammon")


def test_stakes_gammon_single_when_the_loser_has_borne_off() -> None:
    """"If the opponent has borne off at least one piece, a single game is won
    and the current stake is forfeited." -- Tables or Backgammon (modern rules), seed 003 (stakes=gammon)."""
    over = finish(BACKGAMMON, DARK_HOME_SOME_OFF)
    assert (over.kind, over.stake) == ("single", 1)


def test_stakes_gammon_double_when_the_loser_has_borne_off_none() -> None:
    """"If the opponent has not borne off any pieces, this is a “gammon” and
    worth double the current stake." -- Tables or Backgammon (modern rules), seed 003 (stakes=gammon)."""
    over = finish(BACKGAMMON, DARK_HOME_NONE_OFF)
    assert (over.kind, over.stake) == ("gammon", 2)


def test_stakes_gammon_a_man_outside_his_home_is_only_a_gammon() -> None:
    """"If the opponent has not borne off any pieces, this is a “gammon” and
    worth double the current stake." -- Tables or Backgammon (modern rules), seed 003 (stakes=gammon).

    A dark man on his 13 point (light's 12) is neither on the bar nor in
    light's home table.
    """
    over = finish(BACKGAMMON, {13: 1, 6: 14})
    assert (over.kind, over.stake) == ("gammon", 2)


def test_stakes_gammon_triple_with_a_man_in_the_winners_home() -> None:
    """"If the opponent has a piece left on the bar or within the opponent’s
    inner table, this is a “backgammon” and worth triple the current stake." --
    Tables or Backgammon (modern rules), seed 003 (stakes=gammon).

    A dark man on his 19 point (light's 6), none borne off.
    """
    over = finish(BACKGAMMON, {19: 1, 6: 14})
    assert (over.kind, over.stake) == ("backgammon", 3)


def test_stakes_gammon_triple_with_a_man_on_the_bar() -> None:
    """"If the opponent has a piece left on the bar or within the opponent’s
    inner table, this is a “backgammon” and worth triple the current stake." --
    Tables or Backgammon (modern rules), seed 003 (stakes=gammon)."""
    over = finish(BACKGAMMON, {6: 14}, bar=(0, 1))
    assert (over.kind, over.stake) == ("backgammon", 3)


def test_stakes_gammon_a_doublet_does_not_count() -> None:
    """"If the opponent has not borne off any pieces, this is a “gammon” and
    worth double the current stake." -- Tables or Backgammon (modern rules), seed 003 (stakes=gammon: the last
    throw's doublet is no part of it)."""
    over = finish(BACKGAMMON, DARK_HOME_NONE_OFF, light=LAST_TWO, dice=(2, 2))
    assert (over.kind, over.stake) == ("gammon", 2)


def test_stakes_gammon_times_the_cube() -> None:
    """"The effect of the doubling die is that it will double the final score
    received by the winning player." -- Willughby retold, seed 004 (stakes=gammon, cube)."""
    over = finish(BACKGAMMON, DARK_HOME_NONE_OFF, cube=4)
    assert (over.kind, over.stake) == ("gammon", 8)


# --------------------------------------------------------------------- fill
# Light's home table full but for his 6 point, which 8/6 fills; the 1 is
# played 14/13 (dark's fifteen men hold light's 12, dark's 13 point).
NEARLY_FILLED = board(light={1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 1, 8: 1, 14: 1, 13: 2},
                      dark={13: 15})


def test_stakes_fill_the_first_to_fill_his_home_table_wins() -> None:
    """"The first player to fill all the points of the player’s home table
    wins." -- Tables or Backgammon (modern rules), seed 003 (Irish Backgammon, second form; stakes=fill, fill_min=2)."""
    ruling = judged(rules("filling"), NEARLY_FILLED, (2, 1), "8/6 14/13")
    assert ruling.verdict == "legal"
    over = ruling.game_over
    assert (over.winner, over.kind, over.stake) == ("light", "fill", 1)


def test_stakes_fill_min_2_one_man_a_point_is_not_filled() -> None:
    """"(stakes `fill`) men needed on each home point to "fill" the table;
    default 2" -- variants.md (fill_min=2)."""
    one_each = board(light={1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 8: 1, 14: 1, 13: 8}, dark={13: 15})
    ruling = judged(rules("filling"), one_each, (2, 1), "8/6 14/13")
    assert ruling.verdict == "legal"
    assert ruling.game_over is None


def test_stakes_fill_min_1_one_man_a_point_fills() -> None:
    """"(stakes `fill`) men needed on each home point to "fill" the table;
    default 2" -- variants.md (fill_min=1)."""
    one_each = board(light={1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 8: 1, 14: 1, 13: 8}, dark={13: 15})
    ruling = judged(rules("filling", fill_min=1), one_each, (2, 1), "8/6 14/13")
    assert ruling.verdict == "legal"
    assert (ruling.game_over.kind, ruling.game_over.stake) == ("fill", 1)


def test_stakes_fill_no_man_is_borne_off() -> None:
    """"(The seed says nothing of bearing off in this game; with stakes=fill this
    program lets no man be borne off, since the game ends when the table is
    filled.)" -- sources.py (choice of this program).

    All light's men are home but his ace point is empty.  2-1 moves men within
    the table (a man from a point a to a-2 and one from b to b-1) and bears
    none off: not 2/off, not 3/1/off.
    """
    home = board(light={6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, dark={13: 15})
    assert_plays(rules("filling"), home, (2, 1), {
        "6/5 6/4", "6/4 5/4", "6/3", "6/4 3/2", "6/4 2/1",
        "5/4 5/3", "5/3 4/3", "5/2", "5/3 2/1",
        "6/5 4/2", "4/3 4/2", "4/2 3/2", "4/1",
        "6/5 3/1", "5/4 3/1", "3/2 3/1", "3/1 2/1",
    })


def test_stakes_fill_bearing_off_is_illegal_and_named() -> None:
    """"(The seed says nothing of bearing off in this game; with stakes=fill this
    program lets no man be borne off, since the game ends when the table is
    filled.)" -- sources.py (choice of this program).

    Light bears a man off his 2 point with the 2 and plays 2/1 with the 1:
    the one rule broken is that no man is borne off in this game.
    """
    home = board(light={6: 3, 5: 3, 4: 3, 3: 3, 2: 3}, dark={13: 15})
    ruling = judged(rules("filling"), home, (2, 1), "2/off 2/1")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "bear.fill"
    assert ruling.citation == "choice of this program"
    assert "light" in ruling.reason and "filling" in ruling.reason


# ----------------------------------------------------------- the terms told before the end
def test_stake_terms_tell_before_the_end_what_the_end_will_pay() -> None:
    """The stake a game is played for, shown on the page while it is played,
    comes from the same table the end applies. "If the opponent has not
    borne off any pieces, this is a "gammon" and worth double the current
    stake. If the opponent has a piece left on the bar or within the
    opponent's inner table, this is a "backgammon" and worth triple the
    current stake." -- seed 003 (stakes=gammon); "According to Cotton and
    Holme ..., a Backgammon is worth a triple stake, and a Backgammon won
    with a throw of doubles is worth a quadruple stake." -- Cotton 1674,
    seed 000 (stakes=cotton)."""
    from willughby.engine.referee import stake_terms
    from willughby.engine.rules import preset_rules

    assert stake_terms(preset_rules("backgammon"), cube=4) == [
        ("single", 4, "stakes.gammon"), ("gammon", 8, "stakes.gammon"), ("backgammon", 12, "stakes.gammon")]
    assert [(k, n) for k, n, _ in stake_terms(preset_rules("backgammon-cotton"))] == [
        ("single", 1), ("double", 2), ("backgammon", 3), ("backgammon-double", 4)]
    assert stake_terms(preset_rules("irish")) == [("single", 1, "win.single")]
    # and each term is what the end pays: a gammon with the cube at 2
    over = finish(rules("backgammon"), DARK_HOME_NONE_OFF, cube=2)
    assert (over.kind, over.stake) == ("gammon", 4)
    assert ("gammon", 4, "stakes.gammon") in stake_terms(preset_rules("backgammon"), cube=2)
