"""A board the players place: the match goes on from it, and its record says so.

House conventions, 18, "The referee finds its way back": "a board two plays
away, an early throw, an answer the referee cannot reach are states it
knows, not errors; the players' board always wins, and the record says what
happened."
"""

import pytest

from willughby.engine.errors import InvalidRecordError, MatchStateError
from willughby.engine.game import Game
from willughby.engine.placing import moved_alone, two_plays
from willughby.engine.position import Position


def _missed() -> tuple[Game, Position, Position]:
    """Light played 8/5 6/5; dark threw 6-4 and played 24/18 13/9, which the referee missed;
    light (with some throw: 5-2) played 13/8 13/11. Returns the match (dark to move the 6-4),
    the board after dark's play and the board after light's."""
    m = Game.new("backgammon")
    m.start_roll(3, 1)
    m.play_notation("8/5 6/5")
    m.throw((6, 4))
    dark = m.position
    for o in m.legal_outcomes():
        if o.play.notation == "24/18 13/9":
            dark = o.position
    assert dark != m.position
    from willughby.engine.notation import parse_play
    light = parse_play(dark, "13/8 13/11")
    return m, dark, light


def test_one_play_moves_only_the_movers_men_and_hits_blots():
    m, dark, light = _missed()
    assert moved_alone(m.position, dark, "dark")
    assert not moved_alone(m.position, light, "dark")      # light's men moved too: two plays
    assert moved_alone(dark, light, "light")


def test_two_plays_finds_the_missed_play_before_the_next_players():
    m, dark, light = _missed()
    first = two_plays(m.rules, m.position, (6, 4), light)
    assert first is not None and first.position.physical_key() == dark.physical_key()
    assert two_plays(m.rules, m.position, (1, 1), light) is None    # dark's 1-1 cannot make that board


def test_a_placed_board_two_turns_on_gives_the_turn_back_to_the_mover_and_replays():
    m, _dark, light = _missed()
    m.place(light, turns=2)
    assert m.phase == "throw" and m.turn == "dark" and m.dice is None
    assert m.position.physical_key() == light.physical_key()
    assert m.actions[-1] == {"type": "placed", "player": "dark", "after": light.with_turn("dark").id(),
                             "dice": [6, 4], "turns": 2}
    m.throw((2, 1))                                          # the game goes on from it
    again = Game.from_record(m.record())
    assert again.position == m.position and again.actions == m.actions and again.phase == "move"


def test_a_placed_board_one_turn_on_passes_the_turn_once():
    m, dark, _light = _missed()
    m.place(dark, turns=1)
    assert m.turn == "light" and m.phase == "throw"
    assert Game.from_record(m.record()).position == m.position


def test_a_board_may_be_placed_before_the_throw_without_dice():
    m, _dark, light = _missed()
    m.play(next(o.position for o in m.legal_outcomes()))
    assert m.phase == "throw" and m.turn == "light"
    m.place(light.with_turn(None), turns=1)
    assert m.actions[-1]["dice"] is None and m.turn == "dark"


def test_a_placed_board_keeps_every_man():
    m, _dark, light = _missed()
    fewer = Position(light.light[:5] + (light.light[5] - 1,) + light.light[6:], light.dark, turn="dark")
    with pytest.raises(MatchStateError, match="men"):
        m.place(fewer, turns=2)
    with pytest.raises(MatchStateError, match="one to three turns"):
        m.place(light, turns=4)
    assert m.phase == "move" and m.actions[-1]["type"] == "throw"


def test_a_placed_record_whose_turn_does_not_follow_does_not_replay():
    m, _dark, light = _missed()
    m.place(light, turns=2)
    record = m.record()
    record["actions"][-1] = dict(record["actions"][-1], turns=1)     # says light throws next; the board says dark
    with pytest.raises(InvalidRecordError):
        Game.from_record(record)


def test_placing_is_only_for_a_game_at_a_throw_or_a_move():
    m = Game.new("backgammon")
    with pytest.raises(MatchStateError):
        m.place(m.position.with_turn("light"))       # before the roll for the start nobody is on turn
    assert m.actions == []


def test_landing_on_a_held_point_is_still_one_illegal_play_of_the_mover():
    """Hoyle 1753 (the race games' rule "land.blocked"): a point of two or more cannot be blotted; a
    board where the mover did so anyway is his one play, for his dice to judge, not two plays."""
    m, _dark, _light = _missed()
    before = m.position                                   # dark to move; light holds his 5 point with two
    light = list(before.light)
    dark = list(before.dark)
    assert light[4] == 2
    light[4] = 0
    dark[4] += 1
    dark[0] -= 1                                          # a dark man from his 24 point onto the held point
    blotted = Position(tuple(light), tuple(dark), (2, 0), turn="light")
    assert moved_alone(before, blotted, "dark")
    assert m.play(blotted).rule == "land.blocked"


def test_no_second_play_follows_a_play_that_ends_the_game():
    rules = Game.new("backgammon").rules
    before = Position((1,) + (0,) * 23, (0,) * 23 + (1,), off=(14, 14), turn="light")
    # light bears off his last man: the game is over, nobody plays after it (and asking is no error)
    assert two_plays(rules, before, (2, 1), Position((0,) * 24, (0,) * 24, off=(15, 15))) is None


def test_three_turns_placed_leave_the_other_player_to_throw():
    """A board of the mover's men alone, two of his plays on, the other's throw between not playable:
    three turns, so the other throws next (docs/house-conventions.md, convention 18)."""
    m, _dark, light = _missed()
    mover = m.turn
    m.place(light, turns=3)
    assert m.phase == "throw" and m.turn != mover and m.actions[-1]["turns"] == 3
    assert Game.from_record(m.record()).position == m.position
