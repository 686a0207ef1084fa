"""A game's rules: its options and presets (``options.py``) and the position
it starts from, which each family of game sets out in its own way.

This is the module the rest of the program imports a game's rules from.
Inside the engine, the families' own modules import ``options.py``, which
imports none of them, so that this module may import the families without
a circle.

>>> start_position(get_preset("irish").rules).gnubg_id("light")
'4HPwATDgc/ABMA'
"""

from __future__ import annotations

from . import unstacking
from .errors import InvalidOptionError
from .options import FAMILIES, OPTION_NAMES, OPTION_VALUES, PRESETS, Preset, Rules, get_preset, preset_rules
from .position import Position

__all__ = ["Rules", "Preset", "PRESETS", "OPTION_VALUES", "OPTION_NAMES", "FAMILIES", "get_preset", "preset_rules",
           "start_position"]


def start_position(rules: Rules, turn: str | None = None) -> Position:
    """The position a game of *rules* starts from, both sides set out alike:
    the race games' men on their points (``Rules.start``, with any waiting to
    enter), the unstacking games' in piles (``unstacking.start_position``).
    The counting game has no board: its start is a tally."""
    if rules.family == "unstacking":
        return unstacking.start_position(rules, turn)
    if rules.family == "counting":
        raise InvalidOptionError("the counting game has no board: its start is a tally "
                                 "(counting.Tally.start)")
    light = [0] * 24
    dark = [0] * 24
    for own, men in rules.start:
        light[own - 1] += men
        dark[24 - own] += men
    return Position(tuple(light), tuple(dark), waiting=(rules.start_waiting, rules.start_waiting),
                    turn=turn)
