"""Which of the Pi's pins the buttons, lights and buzzer are wired to, in one
frozen record (docs/house-conventions.md, convention 10).  A TOML file may override any of
them in its ``[hardware.pins]`` table::

    [hardware.pins]
    roll = 4
    bounce_ms = 50

Pins are BCM (``GPIO17``) numbers.  Every button joins its pin to ground when
pressed (the Pi's internal pull-up holds it high otherwise); every light and
the buzzer are driven high to turn on.  The defaults leave free the I2C pins
(2, 3), the UART (14, 15), the ID EEPROM pins (0, 1) and SPI0 (7 to 11)::

    roll 17, done 27, undo 22                  (header pins 11, 13, 15)
    pip1..pip6  5, 6, 13, 19, 26, 16           (header pins 29-37 and 36)
    light_led 23, dark_led 24, illegal_led 25  (header pins 16, 18, 22)
    buzzer 18                                  (header pin 12)

>>> PinConfig().roll
17
>>> PinConfig.from_mapping({"roll": 4}).buttons["roll"]
4
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .errors import HardwareConfigError

__all__ = ["PinConfig", "load_pin_config", "BUTTONS", "OUTPUTS", "MAX_PIN", "MAX_BOUNCE_MS"]

#: The buttons' names, as the panel reports presses, in header order.
BUTTONS: tuple[str, ...] = ("roll", "done", "undo", "pip1", "pip2", "pip3", "pip4", "pip5", "pip6")
#: The outputs' names (lights and buzzer).
OUTPUTS: tuple[str, ...] = ("light_led", "dark_led", "illegal_led", "buzzer")
#: The highest BCM number of a GPIO on the 40-pin header.
MAX_PIN = 27
#: The longest debounce time accepted, in milliseconds.
MAX_BOUNCE_MS = 1000

_PREFIX = "hardware.pins"


@dataclass(frozen=True)
class PinConfig:
    """BCM pin numbers of every button and output, and the debounce time.

    Construction checks every value: a pin must be a whole number 0..27 and
    no pin may serve twice; ``bounce_ms`` is a whole number 0..1000 (0: no
    debouncing).  A bad value raises :class:`HardwareConfigError` naming the
    setting and the value.
    """

    # --- buttons (pressed: pin joined to ground)
    roll: int = 17
    done: int = 27
    undo: int = 22
    pip1: int = 5
    pip2: int = 6
    pip3: int = 13
    pip4: int = 19
    pip5: int = 26
    pip6: int = 16
    # --- outputs (high: on)
    light_led: int = 23      # lit while it is light's turn
    dark_led: int = 24       # lit while it is dark's turn
    illegal_led: int = 25    # lit while the turn on the board is not legal
    buzzer: int = 18
    # --- buttons' debounce
    bounce_ms: int = 30

    def __post_init__(self) -> None:
        used: dict[int, str] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise HardwareConfigError(f"{_PREFIX}.{f.name} must be a whole number, not {value!r}")
            if f.name == "bounce_ms":
                if not 0 <= value <= MAX_BOUNCE_MS:
                    raise HardwareConfigError(
                        f"{_PREFIX}.bounce_ms = {value} is out of range (0..{MAX_BOUNCE_MS} milliseconds)")
                continue
            if not 0 <= value <= MAX_PIN:
                raise HardwareConfigError(f"{_PREFIX}.{f.name} = {value} is not a GPIO pin (0..{MAX_PIN})")
            if value in used:
                raise HardwareConfigError(
                    f"{_PREFIX}.{f.name} = {value}: pin {value} is already {_PREFIX}.{used[value]}")
            used[value] = f.name

    @property
    def buttons(self) -> dict[str, int]:
        """Each button's name (``"roll"``, ``"done"``, ``"undo"``, ``"pip1"``..``"pip6"``) and pin."""
        return {name: getattr(self, name) for name in BUTTONS}

    @property
    def outputs(self) -> dict[str, int]:
        """Each output's name (``"light_led"``, ``"dark_led"``, ``"illegal_led"``, ``"buzzer"``) and pin."""
        return {name: getattr(self, name) for name in OUTPUTS}

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> PinConfig:
        """The defaults with the settings of *values* (the ``[hardware.pins]``
        table) in their place; an unknown key is an error.

        >>> PinConfig.from_mapping({"bounce_ms": 50}).bounce_ms
        50
        """
        known = {f.name for f in fields(cls)}
        for key, value in values.items():
            if key not in known:
                raise HardwareConfigError(
                    f"unknown setting {_PREFIX}.{key} = {value!r} (known: {', '.join(f.name for f in fields(cls))})")
        return cls(**values)


def load_pin_config(path: str | Path) -> PinConfig:
    """Read the ``[hardware.pins]`` table of the TOML file at *path*; a file
    without that table gives the defaults.

    A file that cannot be read or is not TOML, a ``hardware`` or
    ``hardware.pins`` that is not a table, and any bad setting raise
    :class:`HardwareConfigError`.
    """
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise HardwareConfigError(f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise HardwareConfigError(f"{path} is not valid TOML: {exc}") from None
    hardware = data.get("hardware", {})
    if not isinstance(hardware, dict):
        raise HardwareConfigError(f"{path}: hardware = {hardware!r} must be a table")
    pins = hardware.get("pins", {})
    if not isinstance(pins, dict):
        raise HardwareConfigError(f"{path}: {_PREFIX} = {pins!r} must be a table")
    try:
        return PinConfig.from_mapping(pins)
    except HardwareConfigError as exc:
        raise HardwareConfigError(f"{path}: {exc}") from None
