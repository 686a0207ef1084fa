"""Rulebook: how men move, land, block and hit (race games).

Positions are drawn in each side's own numbering (``rulebook_helpers.board``):
``dark={17: 1}`` is a dark man on DARK's 17 point, which is light's 8 point.
Men not drawn are off the board.  Light is on roll unless a test says not.
"""

from __future__ import annotations

from .rulebook_helpers import assert_plays, board, judged, events, rules

from willughby.engine.moves import legal_plays

IRISH = rules("irish")


def test_each_die_moves_one_man_and_one_man_may_take_both() -> None:
    """"Each die roll represents the movement of one man. ... You can use both
    dice to move a single man the combined distance" -- Willughby c.1665, seed 000.

    Light has men on his 24 and 13 points and throws 5-3: either man takes
    both dice, or each man takes one die.
    """
    position = board(light={24: 1, 13: 1}, dark={24: 2})
    assert_plays(IRISH, position, (5, 3), {
        "24/16",            # one man, both dice
        "13/5",             # the other man, both dice
        "24/21 13/8",       # the 3 with the back man, the 5 with the other
        "24/19 13/10",      # the 5 with the back man, the 3 with the other
    })


def test_two_routes_to_the_same_point_are_one_play() -> None:
    """"Plays that leave the same position are one play: the camera sees only
    the result. The referee judges a turn by the position it leaves." --
    variants.md (choice of this program).

    13/8/5 and 13/10/5 leave the same board: one play, not two.
    """
    position = board(light={13: 1}, dark={24: 2})
    found = legal_plays(IRISH, position, (5, 3))
    assert len(found) == 1
    assert_plays(IRISH, position, (5, 3), {"13/5"})


def test_a_point_held_by_two_enemy_men_cannot_be_landed_on() -> None:
    """"However, if there are two or more opposing men on a space, they can not
    be blotted, and you can not land on the space." -- Willughby c.1665, seed 000.

    Dark holds light's 8 point (dark's 17) with two men: the 5 cannot carry
    the man from 13 to 8, so 24/21 13/8 is gone; 13/10/5 still goes round.
    """
    position = board(light={24: 1, 13: 1}, dark={17: 2, 24: 2})
    assert_plays(IRISH, position, (5, 3), {"24/16", "13/5", "24/19 13/10"})


def test_blotting_a_held_point_is_illegal_and_named() -> None:
    """"However, if there are two or more opposing men on a space, they can not
    be blotted, and you can not land on the space." -- Willughby c.1665, seed 000.

    No board can show two colours on one point, so the camera sees a landing
    on a held point as the man standing there and both dark men taken up:
    light played 24/21 13/8 and "blotted" dark's two men on light's 8 point.
    """
    position = board(light={24: 1, 13: 1}, dark={17: 2, 24: 2})
    illegal = board(light={21: 1, 8: 1}, dark={24: 2}, bar=(0, 2))
    ruling = judged(IRISH, position, (5, 3), illegal)
    assert ruling.verdict == "illegal"
    assert ruling.rule == "land.blocked"
    assert "Willughby" in ruling.citation
    assert "light" in ruling.reason and "8 point" in ruling.reason and "dark" in ruling.reason


def test_every_intermediate_landing_must_be_legal() -> None:
    """"You can use both dice to move a single man the combined distance, but
    this must be taken in two legal moves (so you could move one man from the
    15 to the 10, and thence to the 7); however, you must be able to legally
    land on the intermediate space." -- Willughby c.1665, seed 000.

    Dark holds light's 10 and 8 points: the man on 13 can stop on neither,
    so he cannot reach the open 5 point; the back man must take both dice.
    """
    position = board(light={24: 1, 13: 1}, dark={15: 2, 17: 2})
    assert_plays(IRISH, position, (5, 3), {"24/16"})


def test_jumping_over_a_held_intermediate_point_is_illegal() -> None:
    """"however, you must be able to legally land on the intermediate space."
    -- Willughby c.1665, seed 000."""
    position = board(light={24: 1, 13: 1}, dark={15: 2, 17: 2})
    ruling = judged(IRISH, position, (5, 3), "13/5")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "move.intermediate"
    assert ruling.citation.startswith("Willughby")
    assert "light" in ruling.reason and "passed through" in ruling.reason
    assert "8 point" in ruling.reason or "10 point" in ruling.reason


def test_landing_on_a_blot_hits_it_even_on_the_way() -> None:
    """"If you land on one of your opponent's blots (or "blot the man"), that
    man is taken. The captured piece is placed off the Tables, usually on the
    bar" -- Willughby c.1665, seed 000.

    A dark blot stands on light's 8 point.  The man from 13 may go by the 8
    (hitting on the way: 13/8*/5) or by the 10 (no hit): two boards, two plays.
    """
    position = board(light={13: 1}, dark={17: 1, 24: 2})
    assert_plays(IRISH, position, (5, 3), {"13/8*/5", "13/5"})
    hit = next(p for p in legal_plays(IRISH, position, (5, 3)) if p.notation == "13/8*/5")
    assert hit.position.bar == (0, 1)
    assert hit.position.dark[8 - 1] == 0


def test_a_hit_is_reported() -> None:
    """"If you land on one of your opponent's blots (or "blot the man"), that
    man is taken." -- Willughby c.1665, seed 000."""
    position = board(light={13: 1}, dark={17: 1, 24: 2})
    ruling = judged(IRISH, position, (5, 3), "13/8*/5")
    assert ruling.verdict == "legal"
    assert ruling.play == "13/8*/5"
    assert events(ruling) == [("hit", "light", 8, None)]


def test_dark_moves_the_other_way_in_his_own_numbering() -> None:
    """"You and your opponent are moving pieces in opposite directions around
    the board" -- Willughby c.1665, seed 000.

    Dark's man on his 13 point (light's 12) throws 5-3 and hits a light blot
    on dark's 8 point (light's 17) on the way: notation is in dark's numbering.
    """
    position = board(light={17: 1, 6: 2}, dark={13: 1}, turn="dark")
    assert_plays(IRISH, position, (5, 3), {"13/8*/5", "13/5"})
    hit = next(p for p in legal_plays(IRISH, position, (5, 3)) if p.notation == "13/8*/5")
    assert hit.position.dark[20 - 1] == 1      # dark's 5 point is light's 20
    assert hit.position.bar == (1, 0)


def test_men_move_downward_never_upward() -> None:
    """"You are always moving pieces numerically downward, never upward" --
    Willughby c.1665, seed 000.

    Light moves his man from 8 back to 16: no throw does that.
    """
    position = board(light={13: 1, 8: 1}, dark={24: 2})
    backwards = board(light={16: 1, 13: 1}, dark={24: 2})
    ruling = judged(IRISH, position, (5, 3), backwards)
    assert ruling.verdict == "illegal"
    assert ruling.rule == "move.direction"
    assert ruling.citation.startswith("Willughby")
    assert "light" in ruling.reason and "backwards" in ruling.reason


def test_men_are_neither_made_nor_lost() -> None:
    """"Men are neither made nor lost: every man of a side stands on a point, on
    the bar, off the board, or (in games starting off the board) waits to
    enter." -- sources.py (choice of this program)."""
    position = board(light={13: 2}, dark={24: 2})
    one_man_gone = board(light={13: 1}, dark={24: 2}, off=(13, 13))
    ruling = judged(IRISH, position, (5, 3), one_man_gone)
    assert ruling.verdict == "illegal"
    assert ruling.rule == "conservation"
    assert ruling.citation == "choice of this program"
    assert "light" in ruling.reason


def test_the_opponents_men_do_not_move_on_my_throw() -> None:
    """"Players move according to the number on each die" -- Hoyle 1753, seed 001.

    Light plays 13/5 and also moves dark's man from dark's 24 to dark's 23.
    """
    position = board(light={13: 1}, dark={24: 2})
    moved = board(light={5: 1}, dark={24: 1, 23: 1})
    ruling = judged(IRISH, position, (5, 3), moved)
    assert ruling.verdict == "illegal"
    assert ruling.rule == "turn.order"
    assert "dark" in ruling.reason and "light" in ruling.reason


def test_a_move_of_more_pips_than_thrown_is_illegal() -> None:
    """"Players move according to the number on each die by moving one piece
    the number on one die and other the number on the other die, or by moving
    one piece the total number of both die." -- Hoyle 1753, seed 001."""
    position = board(light={13: 1}, dark={24: 2})
    too_far = board(light={4: 1}, dark={24: 2})
    ruling = judged(IRISH, position, (5, 3), too_far)
    assert ruling.verdict == "illegal"
    assert ruling.rule == "move.dice"
    assert "Hoyle" in ruling.citation
    assert "light" in ruling.reason and "5-3" in ruling.reason
