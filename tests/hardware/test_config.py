"""PinConfig: the defaults, reading ``[hardware.pins]`` from TOML, and every
way a setting can be wrong."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from willughby.hardware import BUTTONS, OUTPUTS, HardwareConfigError, HardwareError, PinConfig, load_pin_config

RESERVED = {0, 1, 2, 3, 14, 15}     # ID EEPROM, I2C, UART


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "willughby.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- defaults

def test_default_pins() -> None:
    config = PinConfig()
    assert config.buttons == {"roll": 17, "done": 27, "undo": 22, "pip1": 5, "pip2": 6, "pip3": 13,
                              "pip4": 19, "pip5": 26, "pip6": 16}
    assert config.outputs == {"light_led": 23, "dark_led": 24, "illegal_led": 25, "buzzer": 18}
    assert config.bounce_ms == 30


def test_defaults_use_thirteen_distinct_pins_clear_of_i2c_and_uart() -> None:
    pins = list(PinConfig().buttons.values()) + list(PinConfig().outputs.values())
    assert len(pins) == len(BUTTONS) + len(OUTPUTS) == 13
    assert len(set(pins)) == 13
    assert not set(pins) & RESERVED
    assert all(0 <= p <= 27 for p in pins)


def test_config_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PinConfig().roll = 4  # type: ignore[misc]


def test_buttons_are_named_as_the_panel_reports_them() -> None:
    assert tuple(PinConfig().buttons) == BUTTONS == (
        "roll", "done", "undo", "pip1", "pip2", "pip3", "pip4", "pip5", "pip6")


# --- loading

def test_empty_file_gives_the_defaults(tmp_path: Path) -> None:
    assert load_pin_config(write(tmp_path, "")) == PinConfig()


def test_file_without_the_table_gives_the_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, '[vision]\nscale = 1.5\n[hardware.box]\nport = "/dev/ttyACM0"\n')
    assert load_pin_config(path) == PinConfig()


def test_settings_replace_defaults_and_leave_the_rest(tmp_path: Path) -> None:
    path = write(tmp_path, "[hardware.pins]\nroll = 4\nbuzzer = 12\nbounce_ms = 50\n")
    config = load_pin_config(path)
    assert (config.roll, config.buzzer, config.bounce_ms) == (4, 12, 50)
    assert config == dataclasses.replace(PinConfig(), roll=4, buzzer=12, bounce_ms=50)


def test_a_pin_may_move_to_a_pin_freed_by_another(tmp_path: Path) -> None:
    path = write(tmp_path, "[hardware.pins]\nroll = 27\ndone = 17\n")
    config = load_pin_config(path)
    assert (config.roll, config.done) == (27, 17)


def test_bounce_of_zero_is_allowed() -> None:
    assert PinConfig.from_mapping({"bounce_ms": 0}).bounce_ms == 0


def test_from_mapping_of_nothing_is_the_defaults() -> None:
    assert PinConfig.from_mapping({}) == PinConfig()


# --- bad settings: each names the key and the value

@pytest.mark.parametrize(("values", "message"), [
    ({"rol": 17}, "unknown setting hardware.pins.rol = 17"),
    ({"led": 23}, "unknown setting hardware.pins.led = 23"),
    ({"roll": "17"}, "hardware.pins.roll must be a whole number, not '17'"),
    ({"done": 27.0}, "hardware.pins.done must be a whole number, not 27.0"),
    ({"buzzer": True}, "hardware.pins.buzzer must be a whole number, not True"),
    ({"bounce_ms": 0.5}, "hardware.pins.bounce_ms must be a whole number, not 0.5"),
    ({"pip3": 28}, "hardware.pins.pip3 = 28 is not a GPIO pin (0..27)"),
    ({"light_led": -1}, "hardware.pins.light_led = -1 is not a GPIO pin (0..27)"),
    ({"done": 17}, "hardware.pins.done = 17: pin 17 is already hardware.pins.roll"),
    ({"buzzer": 5}, "hardware.pins.buzzer = 5: pin 5 is already hardware.pins.pip1"),
    ({"bounce_ms": -1}, "hardware.pins.bounce_ms = -1 is out of range (0..1000 milliseconds)"),
    ({"bounce_ms": 1001}, "hardware.pins.bounce_ms = 1001 is out of range (0..1000 milliseconds)"),
])
def test_bad_setting(values: dict[str, object], message: str) -> None:
    with pytest.raises(HardwareConfigError, match=re.escape(message)):
        PinConfig.from_mapping(values)


def test_unknown_key_lists_the_known_ones() -> None:
    with pytest.raises(HardwareConfigError, match=r"known: roll, done, undo, pip1, .*buzzer, bounce_ms"):
        PinConfig.from_mapping({"rool": 17})


def test_construction_checks_too() -> None:
    with pytest.raises(HardwareConfigError, match=re.escape("hardware.pins.undo = 99 is not a GPIO pin")):
        PinConfig(undo=99)


def test_config_error_is_a_value_error_and_a_hardware_error() -> None:
    with pytest.raises(ValueError) as info:
        PinConfig(roll=40)
    assert isinstance(info.value, HardwareError)


def test_bad_setting_in_a_file_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "[hardware.pins]\npip6 = 5\n")
    with pytest.raises(HardwareConfigError) as info:
        load_pin_config(path)
    assert str(info.value) == f"{path}: hardware.pins.pip6 = 5: pin 5 is already hardware.pins.pip1"


@pytest.mark.parametrize(("text", "message"), [
    ("[hardware\n", "is not valid TOML"),
    ("hardware = 3\n", "hardware = 3 must be a table"),
    ("[hardware]\npins = [17, 27]\n", "hardware.pins = [17, 27] must be a table"),
])
def test_bad_file(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(HardwareConfigError, match=re.escape(message)) as info:
        load_pin_config(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(HardwareConfigError, match=re.escape(f"cannot read {path}")):
        load_pin_config(path)
