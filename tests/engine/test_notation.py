"""Standard notation: format and parse (issue 2: ``24/18* 13/11``, ``bar/22``,
``6/off``, ``(2)``)."""

import pytest

from willughby.engine.errors import NotationError
from willughby.engine.moves import Step, legal_plays
from willughby.engine.notation import format_play, parse_moves, parse_play
from willughby.engine.position import Position
from willughby.engine.rules import preset_rules

START = Position.from_gnubg_id("4HPwATDgc/ABMA")


@pytest.mark.parametrize(
    "steps, text",
    [
        ((Step(24, 18, 6, True), Step(13, 11, 2)), "24/18* 13/11"),
        ((Step(25, 22, 3),), "bar/22"),
        ((Step(6, 0, 6),), "6/off"),
        ((Step(8, 5, 3), Step(8, 5, 3)), "8/5(2)"),
        ((Step(13, 8, 5, True), Step(8, 4, 4)), "13/8*/4"),
        ((Step(13, 8, 5), Step(8, 4, 4)), "13/4"),
        ((Step(26, 20, 5),), "in/20"),
        ((Step(8, 5, 3), Step(13, 8, 5)), "13/5"),           # men are alike: one journey
        ((Step(6, 4, 2), Step(4, 3, 1)), "6/3"),
        ((Step(6, 4, 2), Step(6, 0, 6)), "6/4 6/off"),
        ((), "(no play)"),
    ],
)
def test_format(steps, text):
    assert format_play(steps) == text


@pytest.mark.parametrize(
    "text, moves",
    [
        ("24/18* 13/11", [(24, [], 18), (13, [], 11)]),
        ("bar/22", [(25, [], 22)]),
        ("6/off(2)", [(6, [], 0), (6, [], 0)]),
        ("13/8*/4", [(13, [8], 4)]),
        ("in/20", [(26, [], 20)]),
        ("", []),
    ],
)
def test_parse(text, moves):
    assert parse_moves(text) == moves


@pytest.mark.parametrize("bad", ["24-18", "25/20", "6/8", "off/3", "13/off/4", "8/5(0)", "x"])
def test_parse_rejects_malformed_notation(bad):
    with pytest.raises(NotationError):
        parse_moves(bad)


def test_every_legal_play_parses_back_to_its_own_position():
    rules = preset_rules("backgammon")
    for dice in [(3, 1), (6, 6), (5, 2), (4, 4), (6, 1)]:
        for play in legal_plays(rules, START, dice):
            assert parse_play(START, play.notation).physical_key() == play.position.physical_key(), play.notation


def test_parse_play_moving_a_man_that_is_not_there_is_an_error():
    with pytest.raises(NotationError, match="no man on 7"):
        parse_play(START, "7/4")
