"""The engine's own errors.

Each is a subclass of the built-in it refines (docs/house-conventions.md, convention 6), so a
caller may catch ``ValueError`` or the precise class.  What players do on the
board is never an exception: an illegal turn is a recorded
:class:`~willughby.engine.referee.Ruling`.  These are for malformed input and
for misuse of the API.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises."""


class InvalidBoardError(EngineError, ValueError):
    """A board document or position that cannot stand (names the field and value)."""


class InvalidOptionError(EngineError, ValueError):
    """An unknown preset, an unknown option, or a value an option does not take."""


class InvalidDiceError(EngineError, ValueError):
    """Dice that the game cannot throw (a 7, three dice where two are thrown...)."""


class NotationError(EngineError, ValueError):
    """Play notation that cannot be read."""


class InvalidRecordError(EngineError, ValueError):
    """A game record that is malformed or does not replay."""


class MatchStateError(EngineError, RuntimeError):
    """A match was asked to do something its state does not allow (take a cube
    nobody offered, play before the dice are thrown)."""
