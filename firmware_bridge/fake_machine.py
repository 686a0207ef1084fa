"""A stand-in for MicroPython's ``machine`` module, so the dice box's firmware
(``firmware/main.py``) runs on a laptop (docs/house-conventions.md, convention 7: the fakes
ship in the package).

It has what ``main.py`` uses and a little more: :class:`Pin` with the rp2
port's constants (``IN``, ``OUT``, ``OPEN_DRAIN``, ``PULL_UP``,
``PULL_DOWN``), ``value()`` / ``value(v)`` / ``on()`` / ``off()`` /
``toggle()`` / calling the pin, and :func:`unique_id`. A test plays the
world outside the chip through the registry :data:`pins` (pin number to the
:class:`Pin` last made for it): ``pins[2].drive(0)`` closes a button to
ground, ``pins[2].release()`` lets the pull-up have it again, and
``pins[11].value()`` reads what an LED shows. :func:`drive` does the same by
number, also for a pin the firmware has not made yet (a button held at
power-up).

Two ways to hand it to the firmware:

- pass the module itself where the firmware takes a ``machine`` module:
  ``Firmware(fake_machine, ...)`` (call :func:`reset` first, or use
  :func:`installed`, so no pin of an earlier test lingers in :data:`pins`);
- or put it in ``sys.modules`` so that ``import machine`` finds it, and take
  it out again afterwards::

      with fake_machine.installed() as machine:
          import machine as m      # this module
          ...

:class:`FakeTime` stands in for the ``time`` functions MicroPython adds
(``ticks_ms``, ``ticks_diff``, ``ticks_add``, ``sleep_ms``), with a clock moved
by hand that wraps as the Pico's does (period 2**30 ms), so tests never sleep.

>>> from willughby.firmware_bridge import fake_machine
>>> fake_machine.reset()
>>> button = fake_machine.Pin(2, fake_machine.Pin.IN, fake_machine.Pin.PULL_UP)
>>> button.value()
1
>>> fake_machine.pins[2].drive(0)
>>> button.value()
0
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

__all__ = ["Pin", "pins", "levels", "drive", "release", "reset", "unique_id", "freq", "installed", "FakeTime", "TICKS_PERIOD"]

#: Every pin made since the last :func:`reset`, by number (the last one made wins).
pins: dict[int | str, "Pin"] = {}

#: What the world outside drives each pin to, by number (a button held: 0).
#: It belongs to the wire, not to a :class:`Pin` object, so it holds before
#: the firmware makes the pin and across a pin made again.
levels: dict[int | str, int] = {}

_UNIQUE_ID = b"\xe6\x61\x41\x04\x03\x2b\x2c\x2f"   # any 8 bytes, as the RP2040's flash gives


class Pin:
    """One GPIO, as MicroPython's ``machine.Pin`` (rp2 port) behaves for
    plain digital input and output.

    An input reads what the outside drives (:meth:`drive`), else its pull
    (1 with ``PULL_UP``, 0 with ``PULL_DOWN``), else 0 (a floating pin; a
    real one reads noise). An output reads back what was last written.
    """

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id: int | str, mode: int = -1, pull: int = -1, *, value: int | None = None) -> None:
        self.id = id
        self._mode = self.IN
        self._pull: int | None = None
        self._out = 0
        #: every value written to the pin as an output, in order (for tests)
        self.writes: list[int] = []
        self.init(mode, pull, value=value)
        pins[id] = self

    def init(self, mode: int = -1, pull: int = -1, *, value: int | None = None) -> None:
        """Set the mode, pull and (for an output) the level; -1 leaves one as it is."""
        if mode != -1:
            if mode not in (self.IN, self.OUT, self.OPEN_DRAIN):
                raise ValueError(f"invalid pin mode {mode!r}")
            self._mode = mode
        if pull != -1:
            if pull not in (None, self.PULL_UP, self.PULL_DOWN):
                raise ValueError(f"invalid pull {pull!r}")
            self._pull = pull
        if value is not None:
            self._set(value)

    def mode(self) -> int:
        return self._mode

    def pull(self) -> int | None:
        return self._pull

    def value(self, v: Any = None) -> int | None:
        """``value()`` reads the pin; ``value(v)`` sets an output (a truthy *v* is 1)."""
        if v is None:
            return self._read()
        self._set(v)
        return None

    __call__ = value

    def on(self) -> None:
        self._set(1)

    def off(self) -> None:
        self._set(0)

    def low(self) -> None:
        self._set(0)

    def high(self) -> None:
        self._set(1)

    def toggle(self) -> None:
        self._set(0 if self._out else 1)

    # -- the world outside the chip (tests) ----------------------------------
    def drive(self, v: int) -> None:
        """Hold the pin at *v* from outside: ``drive(0)`` is a button closed to ground."""
        drive(self.id, v)

    def release(self) -> None:
        """Stop driving the pin: it reads its pull again (a button let go)."""
        release(self.id)

    @property
    def is_output(self) -> bool:
        return self._mode in (self.OUT, self.OPEN_DRAIN)

    # -- inside ---------------------------------------------------------------
    def _set(self, v: Any) -> None:
        self._out = 1 if v else 0
        self.writes.append(self._out)

    def _read(self) -> int:
        if self._mode == self.OUT:
            return self._out
        if self._mode == self.OPEN_DRAIN and self._out == 0:
            return 0
        driven = levels.get(self.id)
        if driven is not None:
            return driven
        if self._pull == self.PULL_UP:
            return 1
        return 0

    def __repr__(self) -> str:
        return f"Pin({self.id!r}, mode={self._mode}, pull={self._pull}, value={self._read()})"


def drive(id: int | str, v: int) -> None:
    """Hold pin *id* at *v* from outside, whether or not the firmware has made it yet."""
    if v not in (0, 1):
        raise ValueError(f"a pin is driven to 0 or 1, not {v!r}")
    levels[id] = v


def release(id: int | str) -> None:
    """Stop driving pin *id* from outside."""
    levels.pop(id, None)


def reset() -> None:
    """Forget every pin and every level driven from outside (a fresh chip on a bare board)."""
    pins.clear()
    levels.clear()


def unique_id() -> bytes:
    """The board's 8-byte id, always the same here."""
    return _UNIQUE_ID


def freq() -> int:
    """The CPU clock in Hz (the RP2040's default)."""
    return 125_000_000


@contextmanager
def installed() -> Iterator[Any]:
    """Make ``import machine`` find this module (with no pins yet) inside the block,
    and put back whatever ``sys.modules["machine"]`` was afterwards."""
    module = sys.modules[__name__]
    missing = object()
    saved = sys.modules.get("machine", missing)
    reset()
    sys.modules["machine"] = module
    try:
        yield module
    finally:
        if saved is missing:
            sys.modules.pop("machine", None)
        else:
            sys.modules["machine"] = saved  # type: ignore[assignment]
        reset()


#: MicroPython's ticks wrap at this period on the rp2 port (a small int's range)
TICKS_PERIOD = 1 << 30


class FakeTime:
    """MicroPython's ``time.ticks_ms`` / ``ticks_diff`` / ``ticks_add`` /
    ``sleep_ms`` over a clock that moves only when told (:meth:`advance`, or
    ``sleep_ms``). :attr:`ms` is the true time; ``ticks_ms()`` is it wrapped.

    *on_sleep*, if given, is called with the milliseconds of every
    ``sleep_ms`` (a test may raise from it to end a loop that runs forever).

    >>> t = FakeTime(start=TICKS_PERIOD - 5)
    >>> a = t.ticks_ms(); t.advance(10); b = t.ticks_ms()
    >>> b < a, t.ticks_diff(b, a)
    (True, 10)
    """

    def __init__(self, start: int = 0, period: int = TICKS_PERIOD,
                 on_sleep: Callable[[int], None] | None = None) -> None:
        self.ms = start
        self.period = period
        self.on_sleep = on_sleep
        self.slept = 0

    def ticks_ms(self) -> int:
        return self.ms % self.period

    def ticks_diff(self, a: int, b: int) -> int:
        """Signed ``a - b`` on the ticks circle, as MicroPython computes it."""
        half = self.period // 2
        return ((a - b + half) % self.period) - half

    def ticks_add(self, t: int, delta: int) -> int:
        return (t + delta) % self.period

    def advance(self, ms: int) -> None:
        if ms < 0:
            raise ValueError("time does not go back")
        self.ms += ms

    def sleep_ms(self, ms: int) -> None:
        self.slept += ms
        self.advance(ms)
        if self.on_sleep is not None:
            self.on_sleep(ms)
