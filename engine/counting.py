"""The counting game, Sice-Ace, refereed from the dice alone: each throw
read on a :class:`~willughby.engine.tally.Tally` (``counting_throw.py``)
and the whole game (``counting_game.py``), gathered here, the module the
rest of the program imports the counting game from.

>>> m = CountingGame.new(options={"players": "3"})
>>> count_throw(m.rules, m.tally, [6, 1]).after.men
(4, 7, 6)
"""

from __future__ import annotations

from .counting_game import CountingGame
from .counting_throw import (EVENT_TYPES, MAX_PLAYERS, MEN_EACH, MIN_PLAYERS, RECORD_FORMAT, TALLY_FORMAT, Tally,
                             TallyEvent, TallyOutcome, TallyOver, TallyRuling, count_throw, judge_tally,
                             reading_order, validate_tally_dice)

__all__ = [
    "MEN_EACH", "MIN_PLAYERS", "MAX_PLAYERS", "TALLY_FORMAT", "EVENT_TYPES", "RECORD_FORMAT",
    "Tally", "TallyEvent", "TallyOver", "TallyOutcome", "TallyRuling",
    "validate_tally_dice", "reading_order", "count_throw", "judge_tally", "CountingGame",
]
