"""The companion's configuration: one TOML file, every setting with a default
that runs without hardware (the fakes of ``willughby.hardware``;
``hardware/willughby.example.toml`` names every setting).

```toml
[companion]
data_dir = "~/.local/share/willughby"   # the game store, the calibration, the PIN
preset = "backgammon"
players = { light = "Light", dark = "Dark" }

[web]
host = "0.0.0.0"      # every address, so phones at the table can open the page; "127.0.0.1": this machine only
port = 8080
pin = ""              # the control PIN (4-12 digits, or a passphrase of 16+ characters); generated and
                      # printed at first start when empty
max_watchers = 300    # pages that may follow the game at once; one more is asked to come back later
trusted_hosts = []    # the host names the page answers to, e.g. ["willughby.local", "192.168.1.20"] (empty: any)

[camera]
source = "none"       # "camera:0", "picamera:", "folder:PATH", "video:PATH" (willughby.hardware.camera)
width = 0             # the picture asked of a camera, with height (0: the camera's own)
height = 0
loop = false          # a folder of stills or a video plays again from its start (else a folder's last still
                      # stands, and a video says it ended)
fps = 0               # frames a second asked of a camera (0: the camera's own); a folder shows each still 1/fps s
                      # (0: the next still at each look, about 10 a second)
exposure = "auto"     # "auto", "lock" (metered for about a second, then held) or a fixed time in microseconds
white_balance = "auto"  # "auto", "lock" or a fixed colour temperature in kelvin

[dice]
source = "page"       # "page" (typed on the page), "box" (the dice box), "pi" (the Pi's ROLL button),
                      # "camera" (the players' own dice, read by the camera from the board)
box_port = "auto"     # the box's serial port, or "auto" to look for a Pico

[hardware]
enabled = false       # use the Pi's own buttons and lights ([hardware.pins] sets the GPIO numbers)

[speech]
enabled = "auto"      # "auto" (speak when espeak-ng is installed), "on", "off"

[match]
length = 0            # the configured game is a match to this many points (1 to 64) when nothing is in progress
crawford = true
clock_minutes = 0     # the match's clock: each player's reserve (0: none), a move's allowance, its kind, a flag
clock_delay_s = 12
clock_mode = "bronstein"   # "bronstein" (a delay), "fischer" (an increment) or "none"
clock_flag = "lose-match"  # or "announce"
```
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping

from willughby.engine.errors import EngineError
from willughby.engine.rules import get_preset, preset_rules
from willughby.web_ui.config import MAX_WATCHERS

__all__ = ["CompanionConfig", "ConfigError", "DeviceAbsentError", "load_config", "default_data_dir", "ensure_pin", "host_problem",
           "port_problem", "watchers_problem", "pin_is_good", "WEB_SETTINGS"]

#: where the dice come from: typed on the page, the dice box, the Pi's ROLL button, the players' own dice seen
DICE_SOURCES = ("page", "box", "pi", "camera")
_HOST_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the key and the value."""


class DeviceAbsentError(ConfigError):
    """A device the configuration names that is not there now, though it may be soon (a USB camera found
    late at boot): ``willughby serve`` ends with status 75, which its systemd unit restarts, where a
    :class:`ConfigError` that no retry can mend ends with 2, which it does not."""


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "willughby"


def host_problem(host: object) -> str | None:
    """What is wrong with *host* as an address to listen on, or None when it
    will do: an IP address (``0.0.0.0`` every IPv4 address, ``::`` every
    address, ``127.0.0.1`` this machine only) or a host name.

    >>> host_problem("0.0.0.0") is None, host_problem("willughby.local") is None
    (True, True)
    >>> host_problem("300.1.1.1")
    "must be an address such as 0.0.0.0 (every address) or 127.0.0.1 (this machine only), or a host name, not '300.1.1.1'"
    """
    if isinstance(host, str):
        try:
            ipaddress.ip_address(host)
            return None
        except ValueError:
            labels = host.rstrip(".").split(".")
            numeric = all(label.isdigit() for label in labels)  # 300.1.1.1 is no address and no name
            if 0 < len(host) <= 253 and not numeric and all(_HOST_LABEL.fullmatch(label) for label in labels):
                return None
    return ("must be an address such as 0.0.0.0 (every address) or 127.0.0.1 (this machine only), "
            f"or a host name, not {host!r}")


def port_problem(port: object, *, allow_any: bool = False) -> str | None:
    """What is wrong with *port* as a port to listen on, or None; *allow_any*: 0 (a free one) too.

    >>> port_problem(8080) is None, port_problem(0, allow_any=True) is None
    (True, True)
    >>> port_problem(99999)
    'must be a port number from 1 to 65535, not 99999'
    """
    low = 0 if allow_any else 1
    if isinstance(port, bool) or not isinstance(port, int) or not low <= port <= 65535:
        return f"must be a port number from {low} to 65535{' (0: any free port)' if allow_any else ''}, not {port!r}"
    return None


def watchers_problem(count: object) -> str | None:
    """What is wrong with *count* as the most pages that may follow the game at once, or None.

    >>> watchers_problem(300) is None, watchers_problem(0)
    (True, 'must be a whole number from 1 to 10000, not 0')
    """
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_WATCHERS:
        return f"must be a whole number from 1 to {MAX_WATCHERS}, not {count!r}"
    return None


#: a board's name or the topics' root at the hub: one level of an MQTT topic, no wildcard
_TOPIC_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")


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
    max_watchers: int = 300
    camera: str = "none"
    camera_width: int = 0         # the picture asked of a camera (0: the camera's own)
    camera_height: int = 0
    camera_loop: bool = False     # a folder of stills or a video plays again from its start at its end
    camera_fps: float = 0         # frames a second asked of a camera (0: the camera's own)
    camera_exposure: str | int = "auto"        # "auto", "lock" or microseconds (willughby.hardware.camera_controls)
    camera_white_balance: str | int = "auto"   # "auto", "lock" or kelvin
    dice: str = "page"
    box_port: str = "auto"
    pins: bool = False
    pin_numbers: Mapping[str, Any] = field(default_factory=dict)
    speech: str = "auto"
    match_length: int = 0         # [match]: the configured game is a match to this many points (0: a single game)
    match_crawford: bool = True
    clock_minutes: int = 0        # the match's clock: each player's reserve (0: no clock), a move's allowance ...
    clock_delay_s: int = 12
    clock_mode: str = "bronstein"
    clock_flag: str = "lose-match"
    hub_broker: str = ""          # [hub]: the club's MQTT broker (empty: this board publishes nothing)
    hub_port: int = 1883
    hub_board: str = ""           # this board's name at the club (its topics: <root>/<board>/...)
    hub_root: str = "willughby"
    hub_tls: bool = False
    hub_ca_file: str = ""         # the club's certificate authority, with hub_tls (empty: the system's)
    hub_username: str = ""        # the password is the data directory's hub-password file, its owner's alone
    vision: Mapping[str, Any] = field(default_factory=dict)   # the [vision] table (willughby.vision.config)
    web: Mapping[str, Any] = field(default_factory=dict)      # the page's other [web] settings (WebConfig's)

    def __post_init__(self) -> None:
        try:
            preset = get_preset(self.preset)
        except EngineError as exc:
            raise ConfigError(f"companion.preset: {exc}") from None
        self._check_game(preset.id)
        for name, problem in (("host", host_problem(self.host)), ("port", port_problem(self.port)),
                              ("max_watchers", watchers_problem(self.max_watchers))):
            if problem:
                raise ConfigError(f"web.{name} {problem}")
        if self.dice not in DICE_SOURCES:
            raise ConfigError(f"dice.source must be page, box, pi or camera, not {self.dice!r}")
        for name, value in (("width", self.camera_width), ("height", self.camera_height)):
            if isinstance(value, bool) or not isinstance(value, int) or not (value == 0 or 16 <= value <= 10000):
                raise ConfigError(f"camera.{name} must be 0 (the camera's own) or 16 to 10000 pixels, not {value!r}")
        if (self.camera_width == 0) != (self.camera_height == 0):
            raise ConfigError("camera.width and camera.height are given together, or neither")
        from willughby.hardware.camera_controls import exposure_problem, fps_problem, white_balance_problem

        for name, problem in (("fps", fps_problem(self.camera_fps)),
                              ("exposure", exposure_problem(self.camera_exposure)),
                              ("white_balance", white_balance_problem(self.camera_white_balance))):
            if problem:
                raise ConfigError(f"camera.{name} {problem}")
        if self.speech not in ("auto", "on", "off"):
            raise ConfigError(f"speech.enabled must be auto, on or off, not {self.speech!r}")
        self._check_match(preset.id)
        self._check_hub()
        if self.pin and not pin_is_good(self.pin):
            raise ConfigError(f"web.pin must be 4 to 12 digits, or a passphrase of {MIN_PASSPHRASE} to "
                              f"{MAX_PASSPHRASE} characters (not all digits, no spaces at its ends)")
        self.web_config(self.pin or "0000", b"a key of sixteen bytes")   # the other [web] settings, checked now
        self.vision_config                 # the [vision] table, checked now: a bad value stops the start
        if self.pin_numbers:
            from willughby.hardware.config import PinConfig
            from willughby.hardware.errors import HardwareConfigError

            try:
                PinConfig.from_mapping(self.pin_numbers)
            except HardwareConfigError as exc:
                raise ConfigError(str(exc)) from None

    def _check_game(self, preset: str) -> None:
        """The configured game must be one that can start: its options and
        players are checked here, at start, whether or not a game in progress
        is resumed, so a bad one never passes silently."""
        from .games import family_of

        try:
            rules = preset_rules(preset, dict(self.options))
        except EngineError as exc:
            raise ConfigError(f"companion.options: {exc}") from None
        try:
            family_of(rules).new_match(preset, rules, dict(self.players), None)
        except EngineError as exc:
            raise ConfigError(f"companion.players: {exc}") from None

    def _check_match(self, preset: str) -> None:
        """A configured match must be one that can start: its length, its game (a race game) and its clock."""
        if not 0 <= self.match_length <= 64:
            raise ConfigError(f"match.length is the points a match is played to, 1 to 64 (0: a single game), not "
                              f"{self.match_length}")
        if not 0 <= self.clock_minutes <= 1440:
            raise ConfigError(f"match.clock_minutes is each player's reserve, 0 (no clock) to 1440, not "
                              f"{self.clock_minutes}")
        if self.match_length:
            from willughby.engine.families import family_of

            if not family_of(preset_rules(preset, dict(self.options))).matches:
                raise ConfigError(f"match.length: a match is played with a race game, not {preset} "
                                  "(docs/matches.md)")
        elif self.clock_minutes:
            raise ConfigError("match.clock_minutes: a clock is for a match: give match.length too")
        try:
            self.clock_terms()
        except ValueError as exc:
            raise ConfigError(f"match: {exc}") from None

    def _check_hub(self) -> None:
        """A board that publishes names its broker, a name of its own, and a port."""
        if not self.hub_broker:
            if self.hub_board or self.hub_username or self.hub_tls:
                raise ConfigError("hub.broker: the club's broker is needed for the board to publish (or leave "
                                  "[hub] out)")
            return
        problem = host_problem(self.hub_broker)
        if problem:
            raise ConfigError(f"hub.broker {problem}")
        problem = port_problem(self.hub_port)
        if problem:
            raise ConfigError(f"hub.port {problem}")
        for key, value in (("board", self.hub_board), ("root", self.hub_root)):
            if not _TOPIC_NAME.fullmatch(value):
                raise ConfigError(f"hub.{key} is 1 to 40 letters, digits, '-' and '_' (a topic's level), not {value!r}")

    @property
    def hub_password_path(self) -> Path:
        """The board's password at the broker, kept private in the data directory."""
        return Path(self.data_dir) / "hub-password"

    def clock_terms(self) -> dict[str, Any] | None:
        """The configured match's clock as ``Companion.new_match`` takes it, or None (no clock)."""
        if not self.clock_minutes:
            return None
        from .clock import ClockTerms

        return ClockTerms(reserve_s=self.clock_minutes * 60.0, delay_s=self.clock_delay_s, mode=self.clock_mode,
                          on_flag=self.clock_flag).to_json()

    @property
    def camera_controls(self) -> Any:
        """The frame rate, exposure and white balance asked of the camera, as
        :class:`willughby.hardware.camera_controls.CameraControls`."""
        from willughby.hardware.camera_controls import CameraControls

        return CameraControls(fps=self.camera_fps, exposure=self.camera_exposure,
                              white_balance=self.camera_white_balance)

    def web_config(self, pin: str, secret_key: bytes) -> Any:
        """The page's settings: *pin* and *secret_key* with ``host``/``port`` aside, ``max_watchers`` and
        the ``[web]`` table's other values (:class:`willughby.web_ui.WebConfig`)."""
        from willughby.web_ui.config import ConfigError as WebConfigError
        from willughby.web_ui.config import WebConfig

        try:
            return WebConfig(pin=pin, secret_key=secret_key, max_watchers=self.max_watchers, **dict(self.web))
        except WebConfigError as exc:
            raise ConfigError(f"web.{exc}") from None

    @property
    def vision_config(self) -> Any:
        """The camera's reading settings: the defaults with the ``[vision]``
        table's values (:class:`willughby.vision.config.VisionConfig`)."""
        from willughby.vision.config import VisionConfig, VisionConfigError

        if not self.vision:
            return VisionConfig.default()
        try:
            return VisionConfig.default().with_values(self.vision)
        except VisionConfigError as exc:
            raise ConfigError(str(exc)) from None

    @property
    def store_path(self) -> Path:
        return Path(self.data_dir) / "games.sqlite"

    @property
    def calibration_path(self) -> Path:
        return Path(self.data_dir) / "calibration.json"


#: the [web] settings the page's own configuration checks (willughby.web_ui.WebConfig)
WEB_SETTINGS = ("title", "trusted_hosts", "login_attempts", "login_lockout_s", "wrong_pins_per_hour",
                "header_timeout_s", "body_timeout_s", "spare_connections", "connections_per_address",
                "events_keepalive_s")

#: a passphrase given as the PIN: at least this many characters (about 60 bits in four common words)
MIN_PASSPHRASE = 16
MAX_PASSPHRASE = 128


def pin_is_good(pin: str) -> bool:
    """Whether *pin* may be the control PIN: 4 to 12 digits, or a passphrase.

    >>> pin_is_good("2468"), pin_is_good("24"), pin_is_good("correct horse battery staple"), pin_is_good(" x" * 9)
    (True, False, True, False)
    """
    if pin.isdigit():
        return 4 <= len(pin) <= 12
    return MIN_PASSPHRASE <= len(pin) <= MAX_PASSPHRASE and pin == pin.strip() and pin.isprintable()


_TABLES: dict[str, dict[str, str]] = {
    "companion": {"data_dir": "data_dir", "preset": "preset", "options": "options", "players": "players"},
    "web": {"host": "host", "port": "port", "pin": "pin", "max_watchers": "max_watchers"},
    "camera": {"source": "camera", "width": "camera_width", "height": "camera_height", "loop": "camera_loop",
               "fps": "camera_fps", "exposure": "camera_exposure", "white_balance": "camera_white_balance"},
    "dice": {"source": "dice", "box_port": "box_port"},
    "hardware": {"enabled": "pins"},
    "speech": {"enabled": "speech"},
    "hub": {"broker": "hub_broker", "port": "hub_port", "board": "hub_board", "root": "hub_root", "tls": "hub_tls",
            "ca_file": "hub_ca_file", "username": "hub_username"},
    "match": {"length": "match_length", "crawford": "match_crawford", "clock_minutes": "clock_minutes",
              "clock_delay_s": "clock_delay_s", "clock_mode": "clock_mode", "clock_flag": "clock_flag"},
    "vision": {},                     # the camera's reading settings: every key is VisionConfig's to check
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
            if table == "vision":             # checked whole by the camera's own configuration
                values.setdefault("vision", {})[key] = value
                continue
            if table == "web" and key in WEB_SETTINGS:     # checked by the page's own configuration
                if key == "trusted_hosts" and value == []:
                    continue                               # none listed: any host name (the default)
                values.setdefault("web", {})[key] = tuple(value) if isinstance(value, list) else value
                continue
            if key not in _TABLES[table]:
                known = [*_TABLES[table], *(WEB_SETTINGS if table == "web" else ())]
                raise ConfigError(f"{where}: unknown key {table}.{key} (known: {', '.join(known)})")
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
        if pin_is_good(saved):
            return replace(config, pin=saved), False
    except FileNotFoundError:
        pass
    pin = f"{secrets.randbelow(10 ** 6):06d}"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(pin + "\n")
    return replace(config, pin=pin), True
