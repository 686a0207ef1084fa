"""Helpers for the hardware tests: a clock moved by hand, a button press on
mock pins, and a wait for a background thread's effect."""

from __future__ import annotations

import time
from collections.abc import Callable

from gpiozero.pins.mock import MockFactory


class FakeClock:
    """A monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def press(factory: MockFactory, pin: int, clock: FakeClock) -> None:
    """Press and release the button on *pin*, then let a second pass (so the
    next press is not taken for a bounce)."""
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()
    clock.advance(1.0)


def wait_until(condition: Callable[[], bool], timeout: float = 2.0) -> bool:
    """Whether *condition* became true within *timeout* seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()
