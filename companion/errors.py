"""The companion's own errors: bad input, no such thing, and not now.

The page answers them as 400, 404 and 409 (``Companion.declared_errors``,
``web_ui/contract.py``); anything else the companion raises is a fault.
Each refines the built-in it is a kind of, so a caller that catches the
built-in catches it too.

>>> issubclass(CompanionError, ValueError), issubclass(UnknownError, LookupError)
(True, True)
"""

from __future__ import annotations

__all__ = ["CompanionError", "NotNowError", "CornerOrderNotKnown", "UnknownError"]


class CompanionError(ValueError):
    """Bad input to the companion (a malformed board, impossible dice)."""


class NotNowError(RuntimeError):
    """The game is not at the step that input is for."""


class CornerOrderNotKnown(NotNowError):
    """Corners to calibrate with whose order nothing tells: the players must
    first confirm which corner is C1. ``fields`` go into the page's answer."""

    fields = {"order_known": False}


class UnknownError(LookupError):
    """No such game, turn or question."""
