"""The bridge's own errors (docs/house-conventions.md, convention 6).

Bytes that are not a message of the protocol raise ``WireError`` (a
``ValueError``, from ``firmware/wire.py``, which the box shares); the
stream decoder never raises on bad input: it counts what it drops."""

from __future__ import annotations

from .firmware.wire import WireError

__all__ = ["BridgeError", "BoxNotFoundError", "LinkClosedError", "WireError"]


class BridgeError(Exception):
    """Base of the bridge's errors."""


class BoxNotFoundError(BridgeError, LookupError):
    """No serial port looks like the dice box."""


class LinkClosedError(BridgeError, RuntimeError):
    """The link was used after :meth:`BoxLink.close`."""
