"""PiPanel on gpiozero's mock pins: presses reach listeners by name, bounces
are dropped, lights and buzzer follow the calls, and the lifecycle holds."""

from __future__ import annotations

import logging

import pytest
from gpiozero.pins.mock import MockFactory

from willughby.hardware import (
    BUTTONS,
    DeviceClosedError,
    HardwareError,
    InvalidSettingError,
    PinConfig,
    PinUnavailableError,
    PiPanel,
)

from .helpers import FakeClock, press, wait_until

CONFIG = PinConfig()


# --- presses

@pytest.mark.parametrize("name", BUTTONS)
def test_each_button_reports_its_name(panel: PiPanel, factory: MockFactory, clock: FakeClock, name: str) -> None:
    heard: list[str] = []
    panel.add_listener(heard.append)
    press(factory, CONFIG.buttons[name], clock)
    assert heard == [name]


def test_buttons_are_pulled_up_and_active_low(panel: PiPanel, factory: MockFactory) -> None:
    heard: list[str] = []
    panel.add_listener(heard.append)
    pin = factory.pin(CONFIG.done)
    assert pin.pull == "up"
    assert pin.state is True            # not pressed: held high
    pin.drive_low()
    assert heard == ["done"]            # the press is the fall to ground ...
    pin.drive_high()
    assert heard == ["done"]            # ... and the release is not a press


def test_every_listener_hears_every_press_in_order(panel: PiPanel, factory: MockFactory, clock: FakeClock) -> None:
    heard: list[tuple[str, str]] = []
    panel.add_listener(lambda name: heard.append(("first", name)))
    panel.add_listener(lambda name: heard.append(("second", name)))
    press(factory, CONFIG.roll, clock)
    press(factory, CONFIG.pip4, clock)
    assert heard == [("first", "roll"), ("second", "roll"), ("first", "pip4"), ("second", "pip4")]


def test_removed_listener_hears_nothing(panel: PiPanel, factory: MockFactory, clock: FakeClock) -> None:
    heard: list[str] = []
    panel.add_listener(heard.append)
    press(factory, CONFIG.roll, clock)
    panel.remove_listener(heard.append)
    press(factory, CONFIG.roll, clock)
    assert heard == ["roll"]


# --- bounce

def test_debounce_time_reaches_the_pins(factory: MockFactory, clock: FakeClock) -> None:
    with PiPanel(PinConfig(bounce_ms=45), pin_factory=factory, clock=clock):
        assert all(factory.pin(pin).bounce == pytest.approx(0.045) for pin in CONFIG.buttons.values())


def test_bounce_of_zero_turns_debouncing_off(factory: MockFactory, clock: FakeClock) -> None:
    heard: list[str] = []
    with PiPanel(PinConfig(bounce_ms=0), pin_factory=factory, clock=clock) as panel:
        assert factory.pin(CONFIG.roll).bounce is None
        panel.add_listener(heard.append)
        pin = factory.pin(CONFIG.roll)
        for _ in range(3):
            pin.drive_low()
            pin.drive_high()
    assert heard == ["roll", "roll", "roll"]


def test_a_contact_bouncing_within_bounce_ms_is_one_press(panel: PiPanel, factory: MockFactory,
                                                          clock: FakeClock) -> None:
    heard: list[str] = []
    panel.add_listener(heard.append)
    pin = factory.pin(CONFIG.pip6)
    pin.drive_low()                 # pressed ...
    for _ in range(3):              # ... and the contact chatters for 15 ms
        clock.advance(0.005)
        pin.drive_high()
        pin.drive_low()
    pin.drive_high()
    assert heard == ["pip6"]
    clock.advance(0.030)            # 30 ms after the last chatter, 45 ms after the press
    pin.drive_low()
    assert heard == ["pip6", "pip6"]


def test_bounce_is_timed_per_button(panel: PiPanel, factory: MockFactory, clock: FakeClock) -> None:
    heard: list[str] = []
    panel.add_listener(heard.append)
    factory.pin(CONFIG.pip1).drive_low()
    clock.advance(0.001)
    factory.pin(CONFIG.pip2).drive_low()
    assert heard == ["pip1", "pip2"]


def test_same_button_twice_in_quick_but_human_succession(panel: PiPanel, factory: MockFactory,
                                                          clock: FakeClock) -> None:
    heard: list[str] = []
    panel.add_listener(heard.append)
    pin = factory.pin(CONFIG.pip5)
    pin.drive_low()
    clock.advance(0.029)
    pin.drive_high()
    pin.drive_low()
    clock.advance(0.002)            # 31 ms after the first press: a new press
    pin.drive_high()
    pin.drive_low()
    assert heard == ["pip5", "pip5"]


# --- a faulty listener

def test_a_listener_that_raises_is_logged_and_the_buttons_carry_on(
        panel: PiPanel, factory: MockFactory, clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    heard: list[str] = []

    def faulty(name: str) -> None:
        raise KeyError(name)

    panel.add_listener(faulty)
    panel.add_listener(heard.append)
    with caplog.at_level(logging.ERROR, logger="willughby.hardware.pins"):
        press(factory, CONFIG.undo, clock)
        press(factory, CONFIG.done, clock)
    assert heard == ["undo", "done"]
    failures = [r for r in caplog.records if r.name == "willughby.hardware.pins"]
    assert len(failures) == 2
    assert "'undo'" in failures[0].getMessage()
    assert failures[0].exc_info is not None and failures[0].exc_info[0] is KeyError


# --- lights

def lit(factory: MockFactory) -> dict[str, bool]:
    return {name: factory.pin(pin).state for name, pin in CONFIG.outputs.items() if name != "buzzer"}


def test_lights_start_out(panel: PiPanel, factory: MockFactory) -> None:
    assert lit(factory) == {"light_led": False, "dark_led": False, "illegal_led": False}


def test_show_turn_lights_one_lamp_and_puts_out_the_other(panel: PiPanel, factory: MockFactory) -> None:
    panel.show_turn("light")
    assert lit(factory) == {"light_led": True, "dark_led": False, "illegal_led": False}
    panel.show_turn("dark")
    assert lit(factory) == {"light_led": False, "dark_led": True, "illegal_led": False}
    panel.show_turn("dark")
    assert lit(factory) == {"light_led": False, "dark_led": True, "illegal_led": False}
    panel.show_turn(None)
    assert lit(factory) == {"light_led": False, "dark_led": False, "illegal_led": False}


def test_show_turn_refuses_an_unknown_side_and_changes_nothing(panel: PiPanel, factory: MockFactory) -> None:
    panel.show_turn("dark")
    with pytest.raises(InvalidSettingError, match="a turn is 'light', 'dark' or None, not 'white'"):
        panel.show_turn("white")  # type: ignore[arg-type]
    assert lit(factory)["dark_led"] is True


def test_illegal_lamp_stays_as_set(panel: PiPanel, factory: MockFactory) -> None:
    panel.show_turn("light")
    panel.signal_illegal(True)
    assert lit(factory) == {"light_led": True, "dark_led": False, "illegal_led": True}
    panel.show_turn("dark")
    assert lit(factory)["illegal_led"] is True
    panel.signal_illegal(False)
    assert lit(factory) == {"light_led": False, "dark_led": True, "illegal_led": False}


# --- buzzer

def test_beep_sounds_the_buzzer_once_without_waiting(panel: PiPanel, factory: MockFactory) -> None:
    pin = factory.pin(CONFIG.buzzer)
    pin.clear_states()
    panel.beep(0.05)
    assert wait_until(lambda: [s.state for s in pin.states] == [False, True, False])
    on_for = pin.states[2].timestamp
    assert 0.04 <= on_for < 1.0


def test_beep_returns_before_the_beep_ends(panel: PiPanel, factory: MockFactory) -> None:
    pin = factory.pin(CONFIG.buzzer)
    panel.beep(5.0)
    assert wait_until(lambda: pin.state is True)
    panel.close()                   # cut short: the buzzer falls silent
    assert pin.state is False


@pytest.mark.parametrize("seconds", [0, -0.1, float("nan"), float("inf"), "0.1", True])
def test_beep_needs_a_positive_length(panel: PiPanel, seconds: object) -> None:
    with pytest.raises(InvalidSettingError, match="a beep lasts a positive number of seconds"):
        panel.beep(seconds)  # type: ignore[arg-type]


# --- lifecycle

def test_close_twice_is_harmless(factory: MockFactory, clock: FakeClock) -> None:
    panel = PiPanel(CONFIG, pin_factory=factory, clock=clock)
    assert not panel.closed
    panel.close()
    panel.close()
    assert panel.closed


def test_close_puts_out_the_lights(factory: MockFactory, clock: FakeClock) -> None:
    panel = PiPanel(CONFIG, pin_factory=factory, clock=clock)
    panel.show_turn("light")
    panel.signal_illegal()
    panel.close()
    assert lit(factory) == {"light_led": False, "dark_led": False, "illegal_led": False}


@pytest.mark.parametrize("use", [
    lambda p: p.add_listener(print),
    lambda p: p.show_turn("light"),
    lambda p: p.signal_illegal(True),
    lambda p: p.beep(),
    lambda p: p.__enter__(),
])
def test_use_after_close_raises(factory: MockFactory, clock: FakeClock, use) -> None:  # type: ignore[no-untyped-def]
    panel = PiPanel(CONFIG, pin_factory=factory, clock=clock)
    panel.close()
    with pytest.raises(DeviceClosedError, match="the Pi's panel is closed") as info:
        use(panel)
    assert isinstance(info.value, HardwareError) and isinstance(info.value, RuntimeError)


def test_remove_listener_after_close_is_harmless(factory: MockFactory, clock: FakeClock) -> None:
    panel = PiPanel(CONFIG, pin_factory=factory, clock=clock)
    panel.close()
    panel.remove_listener(print)
    assert panel.closed


def test_context_manager_closes_and_presses_stop(factory: MockFactory, clock: FakeClock) -> None:
    heard: list[str] = []
    with PiPanel(CONFIG, pin_factory=factory, clock=clock) as panel:
        panel.add_listener(heard.append)
        press(factory, CONFIG.roll, clock)
    assert panel.closed
    press(factory, CONFIG.roll, clock)
    assert heard == ["roll"]


def test_close_releases_the_pins(factory: MockFactory, clock: FakeClock) -> None:
    PiPanel(CONFIG, pin_factory=factory, clock=clock).close()
    with PiPanel(CONFIG, pin_factory=factory, clock=clock) as again:
        assert not again.closed


def test_a_pin_in_use_is_named_and_nothing_stays_held(factory: MockFactory, clock: FakeClock) -> None:
    first = PiPanel(CONFIG, pin_factory=factory, clock=clock)
    # every pin of the second panel is free but its buzzer's, the first panel's ROLL
    free = [4, 7, 8, 9, 10, 11, 12, 20, 21, 0, 1, 2]
    names = list(CONFIG.buttons) + ["light_led", "dark_led", "illegal_led"]
    clash = PinConfig(**dict(zip(names, free, strict=True)), buzzer=CONFIG.roll)
    with pytest.raises(PinUnavailableError, match="cannot open buzzer on GPIO17") as info:
        PiPanel(clash, pin_factory=factory, clock=clock)
    assert isinstance(info.value, OSError)
    first.close()
    with PiPanel(clash, pin_factory=factory, clock=clock) as second:   # the failed one let go of its pins
        assert not second.closed
