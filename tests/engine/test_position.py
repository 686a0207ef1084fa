"""Positions: the board document (the board-document contract), the compact id, GNU
Backgammon Position IDs, and the drawing."""

import json

import pytest

from willughby.engine.errors import InvalidBoardError
from willughby.engine.position import Position, decode_gnubg_id, encode_gnubg_id
from willughby.engine.rules import get_preset, start_position

START_DOC = {
    "format": "board/1",
    "light": [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
    "dark": [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, 0],
    "bar": {"light": 0, "dark": 0},
    "off": {"light": 0, "dark": 0},
    "turn": "light",
}


def doc(**changes):
    d = json.loads(json.dumps(START_DOC))
    d.update(changes)
    return d


def test_spec_example_is_the_start_of_modern_backgammon():
    """the board-document contract: "The example above is the start of modern backgammon with
    light on the near side" -- and every race preset but dutch, english and
    filling starts there."""
    p = Position.from_board(START_DOC, men=15)
    assert p == start_position(get_preset("backgammon").rules, "light")
    assert p.to_board() == START_DOC


def test_dark_own_point_k_is_physical_25_minus_k():
    """the board-document contract: "dark's own point k is physical point 25 - k"."""
    p = Position.from_board(START_DOC, men=15)
    assert p.dark[25 - 24 - 1] == 2   # dark's 24 point is physical 1
    assert p.dark[25 - 6 - 1] == 5    # dark's 6 point is physical 19


def test_off_is_derived_from_the_variant_count_of_men():
    """the board-document contract: off is "derived where the variant knows its count of men"."""
    d = doc()
    del d["off"]
    d["light"] = [0] * 5 + [3] + [0] * 18
    p = Position.from_board(d, men=15)
    assert p.off == (12, 0)


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"light": [0] * 23}, "light must have 24 counts, not 23"),
        ({"dark": [0] * 25}, "dark must have 24 counts, not 25"),
        ({"light": [-1] + [0] * 23}, "light[0] is negative (-1)"),
        ({"bar": {"light": -2, "dark": 0}}, "bar.light is negative (-2)"),
        ({"format": "board/2"}, "format must be"),
        ({"turn": "white"}, "turn must be 'light' or 'dark', not 'white'"),
        ({"light": [1.5] + [0] * 23}, "light[0] must be a whole number, not 1.5"),
        ({"stacked": {"light": [6] + [0] * 23}}, "stacked.light[0] is 6 but point 1 holds 0 light men"),
        ({"colour": 1}, "unknown field 'colour'"),
    ],
)
def test_malformed_documents_are_rejected_naming_field_and_value(changes, field):
    """the board-document contract: "A reader must reject, with a message that names the field
    and the value, a document whose counts are negative, whose lists are not 24
    long, whose stacked count exceeds the men on a point, or whose colour
    totals exceed the variant's men per side." """
    with pytest.raises(InvalidBoardError, match=field.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.").replace("[", r"\[").replace("]", r"\]")):
        Position.from_board(doc(**changes), men=15)


def test_colour_totals_above_the_variant_are_rejected():
    """the board-document contract: reject a document "whose colour totals exceed the variant's men per side"."""
    d = doc(off={"light": 1, "dark": 0})
    with pytest.raises(InvalidBoardError, match="light has 16 men"):
        Position.from_board(d, men=15)
    d = doc()
    del d["off"]
    d["light"] = [16] + [0] * 23
    with pytest.raises(InvalidBoardError, match="more than 15"):
        Position.from_board(d, men=15)


def test_a_point_cannot_hold_both_colours():
    d = doc()
    d["light"] = list(START_DOC["light"])
    d["light"][0] = 1
    d["off"] = {"light": 0, "dark": 0}
    d["light"][5] = 4
    with pytest.raises(InvalidBoardError, match="point 1 holds men of both colours"):
        Position.from_board(d, men=15)


def test_not_json_and_not_an_object_are_clear_errors():
    with pytest.raises(InvalidBoardError, match="not valid JSON"):
        Position.from_board("{light:", men=15)
    with pytest.raises(InvalidBoardError, match="must be a JSON object"):
        Position.from_board("[1, 2]", men=15)


def test_turn_required_for_a_position_to_judge():
    """the board-document contract: turn is required "for a position to judge"."""
    d = doc()
    del d["turn"]
    with pytest.raises(InvalidBoardError, match="turn is required"):
        Position.from_board(d, men=15, require_turn=True)


def test_dutch_men_beside_the_board_wait_to_enter():
    """the board-document contract: off counts men "never yet entered where a game starts off the board"."""
    d = {"format": "board/1", "light": [0] * 24, "dark": [0] * 24, "turn": "light"}
    p = Position.from_board(d, men=15, starts_off_board=True)
    assert p.waiting == (15, 15) and p.off == (0, 0)
    # all light's men on the board are home: light's men beside it were borne off
    d["light"] = [2] + [0] * 23
    p = Position.from_board(d, men=15, starts_off_board=True)
    assert p.off == (13, 0) and p.waiting == (0, 15)


def test_id_round_trips_and_repr_pastes_back():
    p = Position.from_board(doc(stacked={"light": [0] * 5 + [2] + [0] * 18, "dark": [0] * 24},
                                phase={"light": "unstack"}), men=15)
    assert Position.from_id(p.id()) == p
    assert eval(repr(p), {"Position": Position}) == p


@pytest.mark.parametrize("bad", ["", "!!!", "AQ", "AgEAAA", 42])
def test_bad_ids_are_rejected(bad):
    with pytest.raises(InvalidBoardError):
        Position.from_id(bad)


def test_gnubg_id_of_the_start_is_gnubgs():
    """GNU Backgammon's manual gives 4HPwATDgc/ABMA as the starting position."""
    p = Position.from_board(START_DOC, men=15)
    assert p.gnubg_id() == "4HPwATDgc/ABMA"
    assert Position.from_gnubg_id("4HPwATDgc/ABMA") == p


def test_gnubg_id_sides_are_opponent_then_player_on_roll():
    light_bar = Position.from_board(doc(light=[0, 0, 0, 0, 0, 4] + START_DOC["light"][6:],
                                        bar={"light": 1, "dark": 0}), men=15)
    opponent, on_roll = decode_gnubg_id(light_bar.gnubg_id("light"))
    assert on_roll[24] == 1 and opponent[24] == 0
    assert encode_gnubg_id((opponent, on_roll)) == light_bar.gnubg_id("light")
    assert Position.from_gnubg_id(light_bar.gnubg_id("dark"), on_roll="dark").bar == (1, 0)


@pytest.mark.parametrize("bad", ["4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////"])
def test_bad_gnubg_ids_are_rejected(bad):
    with pytest.raises(InvalidBoardError):
        Position.from_gnubg_id(bad)


def test_drawing_shows_points_bar_off_and_turn():
    text = str(Position.from_board(START_DOC, men=15))
    assert " 13 14 15 16 17 18 | 19 20 21 22 23 24" in text
    assert "5L  .  .  . 3D  . | 5D  .  .  .  . 2L" in text
    assert "turn light" in text
