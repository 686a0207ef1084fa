"""The companion's configuration: one TOML file, every setting with a default
that runs without hardware (DESIGN.md).

```toml
[companion]
data_dir = "~/.local/share/willughby"   # the game store, the calibration, the PIN
preset = "backgammon"
players = { light = "Light", dark = "Dark" }

[web]
host = "0.0.0.0"
port = 8080
pin = ""              # the control PIN; generated and printed at first start when empty

[camera]
source = "none"       # "camera:0", "picamera:", "folder:PATH", "video:PATH" (willughby.vision.sources)

[dice]
source = "page"       # "page" (typed on the page), "box" (the dice box), "pi" (the Pi's ROLL button)
box_port = "auto"     # the box's serial port, or "auto" to look for a Pico

[hardware]
enabled = false       # use the Pi's own buttons and lights ([hardware.pins] sets the GPIO numbers)

[speech]
enabled = "auto"      # "auto" (speak when espeak-ng is installed), "on", "off"
```
"""

from __future__ import annotations

import os
import secrets
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from willughby.engine.errors import EngineError
from willughby.engine.rules import get_preset

__all__ = ["CompanionConfig", "ConfigError", "load_config", "default_data_dir", "ensure_pin"]


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the key and the value."""


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "willughby"


@dataclass(frozen=True)
class CompanionConfig:
    """Every setting of the companion (see the module docstring)."""

    data_dir: Path = field(default_factory=default_data_dir)
    preset: str = "backgammon"
    options: Mapping[str, str] = field(default_factory=dict)
    players: Mapping[str, str] = field(default_factory=lambda: {"light": "Light", "dark": "Dark"})
    host: str = "0.0.0.0"
    port: int = 8080
    pin: str = ""
    camera: str = "none"
    dice: str = "page"
    box_port: str = "auto"
    pins: bool = False
    pin_numbers: Mapping[str, Any] = field(default_factory=dict)
    speech: str = "auto"

    def __post_init__(self) -> None:
        try:
            get_preset(self.preset)
        except EngineError as exc:
            raise ConfigError(f"companion.preset: {exc}") from None
        if not isinstance(self.port, int) or not 1 <= self.port <= 65535:
            raise ConfigError(f"web.port must be a port number 1-65535, not {self.port!r}")
        if self.dice not in ("page", "box", "pi"):
            raise ConfigError(f"dice.source must be page, box or pi, not {self.dice!r}")
        if self.speech not in ("auto", "on", "off"):
            raise ConfigError(f"speech.enabled must be auto, on or off, not {self.speech!r}")
        if self.pin and not (self.pin.isdigit() and 4 <= len(self.pin) <= 12):
            raise ConfigError("web.pin must be 4 to 12 digits")

    @property
    def store_path(self) -> Path:
        return Path(self.data_dir) / "games.sqlite"

    @property
    def calibration_path(self) -> Path:
        return Path(self.data_dir) / "calibration.json"


_TABLES: dict[str, dict[str, str]] = {
    "companion": {"data_dir": "data_dir", "preset": "preset", "options": "options", "players": "players"},
    "web": {"host": "host", "port": "port", "pin": "pin"},
    "camera": {"source": "camera"},
    "dice": {"source": "dice", "box_port": "box_port"},
    "hardware": {"enabled": "pins"},
    "speech": {"enabled": "speech"},
}


def config_from_mapping(doc: Mapping[str, Any], where: str = "the configuration") -> CompanionConfig:
    """A configuration from a parsed TOML document; unknown tables and keys are refused."""
    values: dict[str, Any] = {}
    types = {f.name: f.type for f in fields(CompanionConfig)}
    for table, body in doc.items():
        if table not in _TABLES:
            raise ConfigError(f"{where}: unknown table [{table}] (known: {', '.join(_TABLES)})")
        if not isinstance(body, Mapping):
            raise ConfigError(f"{where}: [{table}] must be a table")
        for key, value in body.items():
            if table == "hardware" and key == "pins" and isinstance(value, Mapping):
                values["pin_numbers"] = dict(value)
                continue
            if key not in _TABLES[table]:
                raise ConfigError(f"{where}: unknown key {table}.{key} (known: {', '.join(_TABLES[table])})")
            name = _TABLES[table][key]
            expected = types[name]
            if name == "data_dir":
                if not isinstance(value, str):
                    raise ConfigError(f"{where}: {table}.{key} must be a path, not {value!r}")
                value = Path(os.path.expanduser(value))
            elif "Mapping" in str(expected):
                if not isinstance(value, Mapping) or not all(isinstance(v, (str, int, bool)) for v in value.values()):
                    raise ConfigError(f"{where}: {table}.{key} must be a table of names and values, not {value!r}")
                value = {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in value.items()}
            elif expected in ("int", int) and (not isinstance(value, int) or isinstance(value, bool)):
                raise ConfigError(f"{where}: {table}.{key} must be a whole number, not {value!r}")
            elif expected in ("bool", bool) and not isinstance(value, bool):
                raise ConfigError(f"{where}: {table}.{key} must be true or false, not {value!r}")
            elif expected in ("str", str) and not isinstance(value, str):
                raise ConfigError(f"{where}: {table}.{key} must be a string, not {value!r}")
            values[name] = value
    try:
        return CompanionConfig(**values)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def load_config(path: str | os.PathLike[str] | None) -> CompanionConfig:
    """Read a TOML configuration file (None: every default)."""
    if path is None:
        return CompanionConfig()
    p = Path(path)
    try:
        doc = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"no configuration file at {p}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {p}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p} is not valid TOML: {exc}") from None
    return config_from_mapping(doc, str(p))


def ensure_pin(config: CompanionConfig) -> tuple[CompanionConfig, bool]:
    """The configuration with a control PIN: the configured one, or the one
    saved under the data directory, or a new one (saved there, readable by
    its owner only). Returns whether it was just made, so it can be printed."""
    if config.pin:
        return config, False
    path = Path(config.data_dir) / "pin"
    try:
        saved = path.read_text(encoding="utf-8").strip()
        if saved.isdigit() and 4 <= len(saved) <= 12:
            return replace(config, pin=saved), False
    except FileNotFoundError:
        pass
    pin = f"{secrets.randbelow(10 ** 6):06d}"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(pin + "\n")
    return replace(config, pin=pin), True
