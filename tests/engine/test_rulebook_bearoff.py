"""Rulebook: bearing off -- when it may begin, when it stops, and the three
ways a die bears a man off (``bear_off`` = exact, over, modern).

Positions are drawn in each side's own numbering (``rulebook_helpers.board``).
Men not drawn are off the board.  Dark's men stand in dark's own home table,
out of light's way.
"""

from __future__ import annotations

from .rulebook_helpers import assert_plays, board, events, judged, rules


def test_bearing_off_waits_until_every_man_is_home() -> None:
    """"When all of your men are in your Home Table, you may bear them off." --
    Willughby c.1665, seed 000.

    Light (none off yet) has a man on his 9 point, one on his 3 and thirteen on
    his ace point, and throws 3-1.  Nothing is borne off while the man on 9 is
    out; once the 3 has brought him home (9/6), the 1 may bear a man off.
    """
    position = board(light={9: 1, 3: 1, 1: 13}, dark={6: 2})
    assert_plays(rules("irish"), position, (3, 1), {
        "9/5",
        "9/6 3/2",
        "9/6 1/off",        # home with the first die, bearing with the second
    })


def test_bearing_off_with_a_man_outside_is_illegal() -> None:
    """"When all of a player's pieces are on their final 6 points, they may
    start removing pieces from the board." -- Hoyle 1753, seed 001."""
    position = board(light={9: 1, 3: 1, 1: 13}, dark={6: 2})
    ruling = judged(rules("irish"), position, (3, 1), "9/8 3/off")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "bear.home"
    assert ruling.citation == "Hoyle 1753"
    assert "light" in ruling.reason and "home table" in ruling.reason


def test_a_hit_man_suspends_bearing_off() -> None:
    """"I would tend to assume that you cannot, until all your men are back Home
    again." -- Willughby c.1665 (as read), seed 000.

    Light has borne off thirteen men; one was hit and stands on the bar, one
    is on his 2 point.  With 6-2 he must enter, and the 2 cannot bear off
    while the entered man is out of the home table.
    """
    position = board(light={2: 1}, dark={24: 2}, bar=(1, 0))
    assert_plays(rules("irish"), position, (6, 2), {"bar/17"})


def test_bearing_off_while_a_hit_man_is_out_is_illegal() -> None:
    """"If after starting to bear off, a player’s piece is captured, that piece
    must re-enter at the other side of the board and bearing off cannot
    continue until all pieces are once again residing in the inner table." --
    Tables or Backgammon (modern rules), seed 003."""
    position = board(light={2: 1}, dark={24: 2}, bar=(1, 0))
    ruling = judged(rules("irish"), position, (6, 2), "bar/19 2/off")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "bear.suspended"
    assert "Willughby" in ruling.citation
    assert "light" in ruling.reason and "home table" in ruling.reason


def test_bear_off_exact_needs_the_exact_number() -> None:
    """"To “bear off”, a player must get the exact number of moves to reach the
    side of the board." -- Willughby retold, seed 004 (bear_off=exact).

    Light has men on his 5 and 2 points and throws 6-4: no man stands on the
    6 or the 4, so nothing goes off; the 4 moves 5/1 and the 6 is lost.
    """
    position = board(light={5: 1, 2: 1}, dark={6: 2})
    assert_plays(rules("irish", bear_off="exact"), position, (6, 4), {"5/1"})


def test_bear_off_exact_refuses_a_higher_die() -> None:
    """"To “bear off”, a player must get the exact number of moves to reach the
    side of the board." -- Willughby retold, seed 004 (bear_off=exact)."""
    position = board(light={5: 1, 2: 1}, dark={6: 2})
    ruling = judged(rules("irish", bear_off="exact"), position, (6, 4), "5/1 2/off")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "bear.exact"
    assert "Willughby" in ruling.citation
    assert "light" in ruling.reason and "2 point" in ruling.reason and "6" in ruling.reason


def test_bear_off_over_takes_any_man_past_the_ace_point() -> None:
    """"The way he generally phrases bearing off in Irish is along the lines of
    "bearing off over the 1 point". He never talks about exact rolls, only about
    bearing off over the end of the board." -- Willughby c.1665, seed 000
    (bear_off=over).

    The same board and throw: now either die carries either man off.
    """
    position = board(light={5: 1, 2: 1}, dark={6: 2})
    assert_plays(rules("irish", bear_off="over"), position, (6, 4), {
        "5/off 2/off",
        "5/off",            # 5/1 with the 4, then off with the 6
        "5/1 2/off",        # the 6 carries the man on 2 off from behind
    })


def test_bear_off_modern_higher_die_only_from_the_highest_point() -> None:
    """"When a player rolls a number that is higher than the highest point of
    the inner table upon which that player has pieces, the player is allowed to
    bear off the next highest piece." -- Tables or Backgammon (modern rules), seed 003 (bear_off=modern).

    The same board and throw: the 6 bears off the man on 5 (the highest), or,
    after 5/1, the man on 2 (then the highest); never 1/off while a man is on 2.
    """
    position = board(light={5: 1, 2: 1}, dark={6: 2})
    assert_plays(rules("irish", bear_off="modern"), position, (6, 4), {
        "5/off 2/off",
        "5/1 2/off",
    })


def test_bear_off_modern_refuses_a_man_below_the_highest() -> None:
    """"When a player rolls a number that is higher than the highest point of
    the inner table upon which that player has pieces, the player is allowed to
    bear off the next highest piece." -- Tables or Backgammon (modern rules), seed 003 (bear_off=modern).

    Light on 5 and 3 throws 6-1.  Legal: 5/off 3/2, or 5/4/off.  Illegal:
    5/4 then 3/off with the 6 while a man stands on 4.
    """
    modern = rules("irish", bear_off="modern")
    position = board(light={5: 1, 3: 1}, dark={6: 2})
    assert_plays(modern, position, (6, 1), {"5/off 3/2", "5/off"})
    ruling = judged(modern, position, (6, 1), "5/4 3/off")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "bear.modern"
    assert ruling.citation == "modern rules"
    assert "light" in ruling.reason and "3 point" in ruling.reason and "higher point" in ruling.reason


def test_a_player_may_move_within_his_home_instead_of_bearing_off() -> None:
    """"Players do not have to bear off – if available, they can choose to move
    a piece within their inner table instead." -- Tables or Backgammon (modern rules), seed 003.

    Light on 5 and 2 throws 2-1 (exact): 2/off 5/4, or keep both men on the
    board with 5/2 or 5/3 2/1.
    """
    position = board(light={5: 1, 2: 1}, dark={6: 2})
    assert_plays(rules("irish", bear_off="exact"), position, (2, 1), {
        "5/4 2/off",
        "5/2",
        "5/3 2/1",
    })


def test_the_hoyle_bear_off_by_the_point_thrown() -> None:
    """"They can do so by rolling a 6 to move from the 6th point, and so on down
    to 1." -- Hoyle 1753, seed 001.

    Light on his 6 and 1 points throws 6-1 in modern backgammon: each die
    takes the man from its own point (or the 1 moves 6/5 first).
    """
    position = board(light={6: 1, 1: 1}, dark={6: 2})
    assert_plays(rules("backgammon"), position, (6, 1), {
        "6/off 1/off",
        "6/off",            # 6/5 with the 1, then 5/off with the 6 (the highest)
    })


def test_dark_bears_off_from_his_own_points() -> None:
    """"That is, if you throw a 2 and a 5, you may bear off one man from your
    duce (2) point, and one from your cinque (5) point." -- Willughby c.1665,
    seed 000.

    Dark's last men on his 5 and 2 points (light's 20 and 23) throw 5-2.
    """
    position = board(light={13: 2}, dark={5: 1, 2: 1}, turn="dark")
    ruling = judged(rules("irish"), position, (5, 2), board(light={13: 2}))
    assert ruling.verdict == "legal"
    assert ruling.play == "5/off 2/off"
    assert sorted(events(ruling)[:2]) == [("bear_off", "dark", 2, None),
                                          ("bear_off", "dark", 5, None)]
    assert events(ruling)[2:] == [("win", "dark", None, None)]
