"""The Pi's own devices behind small interfaces (docs/house-conventions.md, convention 7).

- :mod:`~willughby.hardware.config` -- :class:`PinConfig`, which BCM pin each
  button, light and the buzzer is wired to, read from the ``[hardware.pins]``
  table of the TOML file by :func:`load_pin_config`.
- :mod:`~willughby.hardware.pins` -- :class:`PiPanel`, the buttons (ROLL,
  DONE, UNDO, PIP1..PIP6), the turn and "illegal turn" lights and the buzzer,
  through gpiozero; its fake is gpiozero's mock pins
  (``GPIOZERO_PIN_FACTORY=mock`` or ``pin_factory=MockFactory()``).
- :mod:`~willughby.hardware.dice` -- where dice come from, each a
  :class:`DiceSource` handing :class:`DiceThrow` values to its listeners:
  :class:`PiDice` (the Pi rolls), :class:`ManualDice` (numbers entered on the
  page), :class:`PipEntry` (the pip buttons), :class:`BoxDice` (the dice box).
- :mod:`~willughby.hardware.errors` -- :class:`HardwareError` and its kin.

>>> import random
>>> from gpiozero.pins.mock import MockFactory
>>> factory = MockFactory()
>>> with PiPanel(pin_factory=factory) as panel, PiDice(rng=random.Random(1), session=1) as dice:
...     dice.attach(panel)
...     dice.add_listener(print)
...     factory.pin(panel.config.roll).drive_low()
DiceThrow(dice=(2, 5), source='pi', ident='pi-00000001-0')
"""

from .config import BUTTONS, OUTPUTS, PinConfig, load_pin_config
from .dice import (
    MAX_DICE,
    SOURCES,
    BoxDice,
    BoxEvents,
    DiceSource,
    DiceThrow,
    ManualDice,
    PiDice,
    PipEntry,
    PressSource,
    RandomSource,
    ThrowListener,
    check_dice,
)
from .errors import (
    DeviceClosedError,
    HardwareConfigError,
    HardwareError,
    InvalidSettingError,
    InvalidThrowError,
    PinUnavailableError,
)
from .pins import PiPanel, PressListener, Turn

__all__ = [
    "PinConfig", "load_pin_config", "BUTTONS", "OUTPUTS",
    "PiPanel", "PressListener", "Turn",
    "DiceThrow", "DiceSource", "PiDice", "ManualDice", "PipEntry", "BoxDice",
    "ThrowListener", "PressSource", "BoxEvents", "RandomSource", "check_dice", "SOURCES", "MAX_DICE",
    "HardwareError", "HardwareConfigError", "InvalidSettingError", "InvalidThrowError", "DeviceClosedError",
    "PinUnavailableError",
]
