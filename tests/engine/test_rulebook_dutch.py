"""Rulebook: Dutch backgammon -- men start off the board and enter as from
the bar; all must enter before any moves on (``enter_all_first``); no hit
before a man is home (``hit_needs_home``).

Positions are drawn in each side's own numbering (``rulebook_helpers.board``);
``waiting`` gives the men not yet entered.  ``in/20`` is a waiting man
entering on light's 20 point (dark's 5 point) with a 5.
"""

from __future__ import annotations

from willughby.engine.rules import start_position

from .rulebook_helpers import assert_plays, board, events, judged, rules

DUTCH = rules("dutch")


def test_dutch_men_start_off_the_board() -> None:
    """"This is played in the same way as Backgammon but the pieces all start
    off the board" -- Tables or Backgammon (modern rules), seed 003 (Dutch Backgammon)."""
    assert start_position(DUTCH) == board(waiting=(15, 15), turn=None)


def test_dutch_a_waiting_man_enters_like_a_man_on_the_bar() -> None:
    """"each one must be entered on the opponent’s inner table before proceeding
    around to the home inner table." -- Tables or Backgammon (modern rules), seed 003 (Dutch Backgammon).

    The first throw, 5-3: one man enters on light's 20 (dark's 5 point), one
    on light's 22 (dark's 3 point).
    """
    assert_plays(DUTCH, board(waiting=(15, 15)), (5, 3), {"in/20 in/22"})


def test_dutch_entering_is_reported() -> None:
    """"each one must be entered on the opponent’s inner table" -- Tables or Backgammon (modern rules), seed 003
    (Dutch Backgammon)."""
    ruling = judged(DUTCH, board(waiting=(15, 15)), (5, 3), "in/20 in/22")
    assert ruling.verdict == "legal"
    assert sorted(events(ruling)) == [("enter", "light", 20, None), ("enter", "light", 22, None)]


def test_enter_all_first_true_no_entered_man_moves_on() -> None:
    """"(games starting off the board) all men must be entered before any
    entered man moves on" -- variants.md (enter_all_first=true; choice of this
    program, as Dutch backgammon is played today).

    One light man already stands on 20, fourteen wait: 5-3 enters two more.
    """
    position = board(light={20: 1}, waiting=(14, 15))
    assert_plays(DUTCH, position, (5, 3), {"in/20 in/22"})


def test_enter_all_first_false_entered_men_may_move_on() -> None:
    """"(games starting off the board) all men must be entered before any
    entered man moves on" -- variants.md (enter_all_first=false: they need not)."""
    position = board(light={20: 1}, waiting=(14, 15))
    assert_plays(rules("dutch", enter_all_first=False), position, (5, 3), {
        "in/20 in/22",
        "in/17",            # a man enters and goes on
        "in/22 20/15",
        "20/12",            # nobody enters
    })


def test_enter_all_first_a_die_that_cannot_enter_is_lost() -> None:
    """"(games starting off the board) all men must be entered before any
    entered man moves on" -- variants.md (enter_all_first=true).

    Dark holds his 3 point (light's 22).  Light, one man on 20 and fourteen
    waiting, throws 5-3: the 5 enters, the 3 can enter nobody and may not move
    an entered man, so it is lost.
    """
    position = board(light={20: 1}, dark={3: 2}, waiting=(14, 13))
    assert_plays(DUTCH, position, (5, 3), {"in/20"})


def test_enter_all_first_false_the_blocked_die_moves_an_entered_man() -> None:
    """"(games starting off the board) all men must be entered before any
    entered man moves on" -- variants.md (enter_all_first=false: they need not)."""
    position = board(light={20: 1}, dark={3: 2}, waiting=(14, 13))
    assert_plays(rules("dutch", enter_all_first=False), position, (5, 3), {
        "in/17",            # in/20, and a man on 20 goes on to 17
        "20/12",
    })


def test_enter_all_first_moving_on_is_illegal() -> None:
    """"enter_all_first: all men must be entered before any entered man moves
    on, as Dutch backgammon is played today (not in the seeds)." -- sources.py
    (choice of this program)."""
    position = board(light={20: 1}, waiting=(14, 15))
    ruling = judged(DUTCH, position, (5, 3), "20/12")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "enter.all_first"
    assert ruling.citation == "choice of this program"
    assert "light" in ruling.reason and "wait to enter" in ruling.reason


def test_hit_needs_home_true_no_hit_while_entering() -> None:
    """"a player may not hit a blot until he has a man in his own home table"
    -- variants.md (hit_needs_home=true; choice of this program).

    A dark blot on his 5 point (light's 20).  Light, with no man home, cannot
    enter on it with the 5; the 3 enters, the 5 is lost.
    """
    position = board(dark={5: 1}, waiting=(15, 14))
    assert_plays(DUTCH, position, (5, 3), {"in/22"})


def test_hit_needs_home_false_entering_hits() -> None:
    """"a player may not hit a blot until he has a man in his own home table"
    -- variants.md (hit_needs_home=false: he may)."""
    position = board(dark={5: 1}, waiting=(15, 14))
    assert_plays(rules("dutch", hit_needs_home=False), position, (5, 3), {"in/20* in/22"})


# Light on his 12 and 8 points, none home; a dark blot on light's 9 (dark's 16).
NOT_YET_HOME = board(light={12: 1, 8: 1}, dark={16: 1}, waiting=(0, 14))


def test_hit_needs_home_is_checked_die_by_die() -> None:
    """"(checked die by die: a man brought home by the first die allows a hit
    with the second)" -- variants.md (hit_needs_home=true).

    3-2: 8/6 brings a man home, and then 12/9* may hit; 12/9*/7 may not, for
    it hits before any man is home.
    """
    assert_plays(DUTCH, NOT_YET_HOME, (3, 2), {
        "12/7",             # by way of 10: no hit
        "12/10 8/5",
        "12/9* 8/6",        # 8/6 first, then the hit
        "8/3",
    })


def test_hit_needs_home_false_the_hit_comes_any_time() -> None:
    """"a player may not hit a blot until he has a man in his own home table"
    -- variants.md (hit_needs_home=false)."""
    assert_plays(rules("dutch", hit_needs_home=False), NOT_YET_HOME, (3, 2), {
        "12/7", "12/10 8/5", "12/9* 8/6", "8/3",
        "12/9*/7",          # hits on the way, no man home
    })


def test_hit_needs_home_hitting_first_is_illegal() -> None:
    """"hit_needs_home: a player may not hit a blot until he has a man in his
    own home table, as Dutch backgammon is played today (not in the seeds)." --
    sources.py (choice of this program)."""
    ruling = judged(DUTCH, NOT_YET_HOME, (3, 2), "12/9*/7")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "hit.needs_home"
    assert ruling.citation == "choice of this program"
    assert "light" in ruling.reason and "9 point" in ruling.reason and "home table" in ruling.reason
