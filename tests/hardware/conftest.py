"""Fixtures for the hardware tests: gpiozero's mock pins, one factory per test
(handed to every device, so no global pin factory is set), and a clock the
test moves by hand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from willughby.hardware import PinConfig, PiPanel

from .helpers import FakeClock


@pytest.fixture(autouse=True)
def no_global_pin_factory() -> Iterator[None]:
    """Every device gets its factory by argument: none is left behind globally."""
    before = Device.pin_factory
    yield
    assert Device.pin_factory is before


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def panel(factory: MockFactory, clock: FakeClock) -> Iterator[PiPanel]:
    with PiPanel(PinConfig(), pin_factory=factory, clock=clock) as p:
        yield p
