"""The hardware part's own errors.

Each is a subclass of :class:`HardwareError` and of the built-in it refines
(docs/house-conventions.md, convention 6), so a caller may catch the built-in, every error of
the hardware part at once, or the precise class.  Messages name the bad value.

>>> issubclass(InvalidThrowError, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "HardwareError",
    "HardwareConfigError",
    "InvalidSettingError",
    "InvalidThrowError",
    "DeviceClosedError",
    "PinUnavailableError",
]


class HardwareError(Exception):
    """Base class of every error the hardware part raises."""


class HardwareConfigError(HardwareError, ValueError):
    """A ``[hardware.pins]`` setting that cannot be used: an unknown key, a
    value that is not a whole number, a pin outside 0..27, a pin given twice,
    or a file that cannot be read (names the key and the value)."""


class InvalidSettingError(HardwareError, ValueError):
    """A value a device cannot be set to: a turn other than ``"light"``,
    ``"dark"`` or ``None``, a dice count outside 1..3, a beep of no length,
    a random source without ``randint`` or ``randrange``."""


class InvalidThrowError(HardwareError, ValueError):
    """Dice that cannot be a throw: a die outside 1..6 or not a whole number,
    the wrong number of dice, an unknown source."""


class DeviceClosedError(HardwareError, RuntimeError):
    """A device or dice source was used after ``close()`` (misuse of the API,
    so also a :class:`RuntimeError`)."""


class PinUnavailableError(HardwareError, OSError):
    """The Pi's pins cannot be opened: no pin library is installed, or a pin
    is held by another device or program (names the button or light and its
    pin)."""
