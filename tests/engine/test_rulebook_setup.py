"""Rulebook: setting up -- every preset's men and options, the roll for start
(``opening``), and the number of players (``players``).

Positions are drawn in each side's own numbering (``rulebook_helpers.board``).
"""

from __future__ import annotations

import pytest

from willughby.engine.errors import InvalidOptionError
from willughby.engine.game import Game
from willughby.engine.rules import PRESETS, get_preset, start_position

from .rulebook_helpers import board, rules

IRISH_LAYOUT = {6: 5, 8: 3, 13: 5, 24: 2}


@pytest.mark.parametrize("preset", ["irish", "backgammon-willughby", "backgammon-cotton",
                                    "backgammon"])
def test_start_five_three_five_two(preset: str) -> None:
    """"Place five of your men on your 6 point; three on your 8 point; five on
    your 13 point; and two on your 24 point, way deep in your opponent's
    territory." -- Willughby c.1665, seed 000."""
    assert start_position(rules(preset)) == board(light=IRISH_LAYOUT, dark=IRISH_LAYOUT, turn=None)


def test_start_dutch_all_men_off_the_board() -> None:
    """"This is played in the same way as Backgammon but the pieces all start
    off the board" -- Tables or Backgammon (modern rules), seed 003 (Dutch Backgammon)."""
    assert start_position(rules("dutch")) == board(waiting=(15, 15), turn=None)


@pytest.mark.parametrize("preset", ["english", "filling"])
def test_start_five_piles_of_three_on_the_opponents_ace_point(preset: str) -> None:
    """"All your men are set on your opponent’s 1 point in five piles of three"
    -- Tables or Backgammon (modern rules), seed 003 (English Backgammon; Irish Backgammon, second form)."""
    assert start_position(rules(preset)) == board(light={24: 15}, dark={24: 15}, turn=None)


# The presets table of variants.md, row by row (an option a row does not
# name has its default).
DEFAULTS = {"dice": "2", "doubles": "plain", "doublet_rethrow": "false", "must_use": "all",
            "higher_die": "false", "bear_off": "exact", "binding": "false", "stakes": "single",
            "cube": "false", "unused_throw": "lost", "enter_all_first": "false",
            "hit_needs_home": "false", "fill_min": "2", "opening": "rethrow", "players": "2",
            # and the money game's two options of the cube this program adds (docs/games.md, docs/matches.md)
            "jacoby": "false", "beavers": "false"}
TABLE = {
    "irish": dict(bear_off="over", binding="true"),
    "backgammon-willughby": dict(doubles="fourfold", bear_off="over", binding="true",
                                 stakes="willughby"),
    "backgammon-cotton": dict(doubles="fourfold", bear_off="over", stakes="cotton",
                              opening="play"),
    "backgammon": dict(doubles="fourfold", higher_die="true", bear_off="modern",
                       stakes="gammon", cube="true", opening="play"),
    "dutch": dict(doubles="fourfold", higher_die="true", bear_off="modern", stakes="gammon",
                  cube="true", opening="play", enter_all_first="true", hit_needs_home="true"),
    "english": dict(dice="3", bear_off="over"),
    "filling": dict(bear_off="over", stakes="fill"),
}


@pytest.mark.parametrize("preset", sorted(TABLE))
def test_preset_options_are_the_table_of_variants(preset: str) -> None:
    """"Every game the referee knows is a named **preset**: a set of option
    values." -- variants.md (the Presets table; "An option a preset's row does
    not name has its default")."""
    assert get_preset(preset).rules.options() == {**DEFAULTS, **TABLE[preset]}


def test_every_race_preset_is_in_the_table() -> None:
    """"### Race games (men travel round the board)" -- variants.md."""
    race = {name for name, p in PRESETS.items() if p.rules.family == "race"}
    assert race == set(TABLE)


# ------------------------------------------------------------------ opening
def test_opening_the_higher_single_die_goes_first() -> None:
    """"Begin by rolling for start: each player rolls one die, and the highest
    roller gets the first throw." -- Willughby c.1665, seed 000."""
    match = Game.new("irish")
    match.start_roll(2, 5)
    assert match.turn == "dark"


def test_opening_a_tie_throws_again() -> None:
    """"Roll for start: each player throws one die, the higher goes first (ties
    throw again)." -- variants.md."""
    match = Game.new("irish")
    match.start_roll(4, 4)
    assert (match.phase, match.turn) == ("start", None)


def test_opening_rethrow_the_first_player_throws_afresh() -> None:
    """"Begin by rolling for start: each player rolls one die, and the highest
    roller gets the first throw." -- Willughby c.1665, seed 000 (opening=rethrow)."""
    match = Game.new("irish")
    match.start_roll(3, 1)
    assert (match.turn, match.phase, match.dice) == ("light", "throw", None)


def test_opening_play_the_first_player_plays_the_two_numbers() -> None:
    """"Ply begins by each player rolling one die; the player who rolls the most
    plays first and plays the numbers on this first roll." -- Hoyle 1753,
    seed 001 (opening=play)."""
    match = Game.new("backgammon")
    match.start_roll(1, 4)
    assert (match.turn, match.phase, match.dice) == ("dark", "move", (4, 1))
    assert match.play_notation("13/9 6/5").verdict == "legal"


# ------------------------------------------------------------------ players
@pytest.mark.parametrize("players", ["3", "4", "5"])
def test_players_a_race_game_has_two(players: str) -> None:
    """"(counting games only) number of players" -- variants.md (players);
    "Number of Players: 2" -- Willughby c.1665, seed 000."""
    with pytest.raises(InvalidOptionError, match="players"):
        rules("irish", players=players)


def test_players_two_is_the_race_games_number() -> None:
    """"Number of Players: 2 (possibly 4 in variations, according to
    Willughby)" -- Willughby c.1665, seed 000."""
    assert rules("irish", players=2).players == 2
