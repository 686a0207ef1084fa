"""A game's rules: its options and presets (``options.py``) and the position
it starts from, which each family of game sets out in its own way
(``families.py``).

This is the module the rest of the program imports a game's rules from.
Inside the engine, the families' own modules import ``options.py``, which
imports none of them, so that this module may import the families without
a circle.

>>> start_position(get_preset("irish").rules).gnubg_id("light")
'4HPwATDgc/ABMA'
"""

from __future__ import annotations

from .errors import InvalidOptionError
from .families import family_of
from .options import FAMILIES, OPTION_NAMES, OPTION_VALUES, PRESETS, Preset, Rules, get_preset, preset_rules
from .position import Position

__all__ = ["Rules", "Preset", "PRESETS", "OPTION_VALUES", "OPTION_NAMES", "FAMILIES", "get_preset", "preset_rules",
           "start_position"]


def start_position(rules: Rules, turn: str | None = None) -> Position:
    """The position a game of *rules* starts from, both sides set out alike,
    as its family sets them out (the race games' men on their points, the
    unstacking games' in piles). A game with no board (the counting game,
    whose start is a tally) has no position."""
    family = family_of(rules)
    if family.board == "tally":
        raise InvalidOptionError(f"the {family.name} game has no board: its start is a tally "
                                 "(counting.Tally.start)")
    start: Position = family.start(rules, turn)
    return start
