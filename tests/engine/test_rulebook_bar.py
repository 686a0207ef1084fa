"""Rulebook: the bar -- entering, blocked entry, nothing moves before entering.

Positions are drawn in each side's own numbering (``rulebook_helpers.board``):
``dark={5: 2}`` is two dark men on DARK's 5 point, which is light's 20 point,
where a light man enters with a 5.  Men not drawn are off the board.
"""

from __future__ import annotations

from willughby.engine.game import Game
from willughby.engine.moves import legal_plays

from .rulebook_helpers import assert_plays, board, events, judged, rules

IRISH = rules("irish")


def test_die_n_enters_on_the_opponents_point_n() -> None:
    """"If you roll an ace, you can enter a piece on your opponent's ace point
    (that is, your 24 point); if a duce, on your opponent's duce point (your
    23) and so on." -- Willughby c.1665, seed 000.

    Light has a man on the bar and one on his 13 point and throws 5-3: the 5
    enters on dark's 5 point (light's 20), the 3 on dark's 3 point (light's
    22); the other die then moves either man.
    """
    position = board(light={13: 1}, dark={24: 2}, bar=(1, 0))
    assert_plays(IRISH, position, (5, 3), {
        "bar/17",           # enters and goes on with the other die
        "bar/20 13/10",
        "bar/22 13/8",
    })
    entered = {p.notation: p.position for p in legal_plays(IRISH, position, (5, 3))}
    assert entered["bar/20 13/10"].light[20 - 1] == 1
    assert entered["bar/22 13/8"].light[22 - 1] == 1


def test_dark_enters_on_lights_point_n() -> None:
    """"If you roll an ace, you can enter a piece on your opponent's ace point
    (that is, your 24 point)" -- Willughby c.1665, seed 000.

    Dark on the bar throws 6-1 with no other man to move: the 6 enters on
    light's 6 point (dark's 19) and the 1 on light's ace point (dark's 24).
    """
    position = board(light={2: 2}, dark={13: 1}, bar=(0, 1), turn="dark")
    assert_plays(IRISH, position, (6, 1), {"bar/18", "bar/19 13/12", "bar/24 13/7"})
    by_die = {p.notation: p.position for p in legal_plays(IRISH, position, (6, 1))}
    assert by_die["bar/19 13/12"].dark[6 - 1] == 1     # light's 6 point
    assert by_die["bar/24 13/7"].dark[1 - 1] == 1      # light's ace point


def test_cannot_enter_on_a_point_held_by_two() -> None:
    """"However, you must be able to legally land on that space -- if he has
    multiple pieces on the space, then you can not land there." -- Willughby
    c.1665, seed 000.

    Dark holds his 5 point (light's 20): the 5 cannot enter, so the 3 enters
    and the 5 is played after it.
    """
    position = board(light={13: 1}, dark={5: 2}, bar=(1, 0))
    assert_plays(IRISH, position, (5, 3), {"bar/17", "bar/22 13/8"})


def test_entering_on_a_blot_hits_it() -> None:
    """"If he has only a single man on the space, then not only can you land
    there, but you blot the man that was standing in that spot." -- Willughby
    c.1665, seed 000."""
    position = board(light={13: 1}, dark={5: 1, 24: 2}, bar=(1, 0))
    assert_plays(IRISH, position, (5, 3), {
        "bar/20*/17",
        "bar/20* 13/10",
        "bar/17",           # by way of the 22: the blot stands
        "bar/22 13/8",
    })


def test_entering_and_hitting_are_reported() -> None:
    """"If he has only a single man on the space, then not only can you land
    there, but you blot the man that was standing in that spot." -- Willughby
    c.1665, seed 000."""
    position = board(light={13: 1}, dark={5: 1, 24: 2}, bar=(1, 0))
    ruling = judged(IRISH, position, (5, 3), "bar/20* 13/10")
    assert ruling.verdict == "legal"
    assert events(ruling) == [("enter", "light", 20, None), ("hit", "light", 20, None)]
    assert ruling.after.bar == (0, 1)


def test_all_men_on_the_bar_enter_before_any_other_man_moves() -> None:
    """"No other pieces can move until all of the pieces belonging to that
    player are removed from the center." -- Hoyle 1753, seed 001.

    Two light men on the bar, 5-3: both dice enter; the man on 13 waits.
    """
    position = board(light={13: 1}, dark={24: 2}, bar=(2, 0))
    assert_plays(IRISH, position, (5, 3), {"bar/22 bar/20"})


def test_a_man_left_on_the_bar_stops_the_other_die() -> None:
    """"If a player has one or more pieces on the bar, no other pieces can be
    moved until all pieces on the bar have re-entered play." -- Tables or Backgammon (modern rules), seed 003.

    Two light men on the bar; dark holds his 5 point.  The 3 enters one man;
    the 5 can neither enter the other nor move the man on 13.
    """
    position = board(light={13: 1}, dark={5: 2}, bar=(2, 0))
    assert_plays(IRISH, position, (5, 3), {"bar/22"})


def test_nothing_moves_while_a_man_cannot_enter() -> None:
    """"So if the dice throw and position of enemy pieces prevents a player from
    re-entering a piece onto the board from the bar, the player cannot move any
    other piece and play passes to the opponent." -- Tables or Backgammon (modern rules), seed 003.

    Dark holds his 5 and 3 points: light's 5-3 cannot enter, and the man on
    13 may not move: the one play is no play.
    """
    position = board(light={13: 1}, dark={5: 2, 3: 2}, bar=(1, 0))
    found = legal_plays(IRISH, position, (5, 3))
    assert [p.notation for p in found] == ["(no play)"]
    assert found[0].position.physical_key() == position.physical_key()
    assert found[0].position.turn == "dark"


def test_moving_another_man_while_one_is_on_the_bar_is_illegal() -> None:
    """"No other pieces can move until all of the pieces belonging to that
    player are removed from the center." -- Hoyle 1753, seed 001."""
    position = board(light={13: 1}, dark={5: 2, 3: 2}, bar=(1, 0))
    ruling = judged(IRISH, position, (5, 3), "13/5")
    assert ruling.verdict == "illegal"
    assert ruling.rule == "bar.first"
    assert ruling.citation == "Hoyle 1753"
    assert ruling.reason == "light moved a man while one stands on the bar"


def test_a_throw_that_cannot_enter_is_a_pass() -> None:
    """"the player cannot move any other piece and play passes to the
    opponent." -- Tables or Backgammon (modern rules), seed 003."""
    position = board(light={13: 1}, dark={5: 2, 3: 2}, bar=(1, 0))
    ruling = judged(IRISH, position, (5, 3), position)
    assert ruling.verdict == "legal"
    assert ruling.play == "(no play)"
    kinds = [e[0] for e in events(ruling)]
    assert kinds[0] == "pass"
    assert sorted(e[3] for e in events(ruling) if e[0] == "lost_die") == [3, 5]


def test_the_match_passes_the_turn_when_nothing_can_be_played() -> None:
    """"the player cannot move any other piece and play passes to the
    opponent." -- Tables or Backgammon (modern rules), seed 003."""
    position = board(light={13: 1}, dark={5: 2, 3: 2}, bar=(1, 0), turn=None)
    match = Game(IRISH, start=position)
    match.start_roll(6, 2)                      # light first; Irish throws afresh
    assert (match.turn, match.phase) == ("light", "throw")
    ruling = match.throw((5, 3))
    assert ruling is not None and ruling.verdict == "legal"
    assert (match.turn, match.phase) == ("dark", "throw")
    assert match.position.physical_key() == position.physical_key()


def test_higher_die_applies_to_entering() -> None:
    """"when a throw of two different numbers allows either die but not both,
    the higher must be played" -- variants.md (higher_die=true).

    Light's last man is on the bar; dark holds light's 17 (dark's 8 point).
    With 6-2 the man enters on 19 or on 23, but cannot go on to 17 either
    way.  Irish lets either die be played; backgammon demands the 6.
    """
    position = board(dark={8: 2}, bar=(1, 0))
    assert_plays(IRISH, position, (6, 2), {"bar/19", "bar/23"})
    assert_plays(rules("backgammon"), position, (6, 2), {"bar/19"})
