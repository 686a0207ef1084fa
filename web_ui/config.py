"""The page's settings: a frozen record, built directly or from a mapping
(a ``[web]`` table of the companion's TOML file, say)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from .errors import ConfigError

__all__ = ["WebConfig", "ConfigError", "MAX_WATCHERS"]

#: the most live-event watchers any configuration may allow (each holds an open connection)
MAX_WATCHERS = 10000

#: the fewest connections that may be left beyond the watchers, for the players' requests
MIN_SPARE_CONNECTIONS = 16


@dataclass(frozen=True)
class WebConfig:
    """What the page needs to run.

    ``pin`` is the control PIN players type before they may enter dice, fix
    the board or start a game; an empty PIN turns control from the page off
    (the page is then read-only). ``secret_key`` signs the session cookie and
    must be kept secret; the caller supplies it (at least 16 bytes; a string
    is encoded as UTF-8).
    ``trusted_hosts``, when given, lists the host names the page answers to
    (Flask's ``TRUSTED_HOSTS``). After ``login_attempts`` wrong PINs from one
    address, logins from it are refused for ``login_lockout_s`` seconds; past
    ``wrong_pins_per_hour`` from anyone in an hour, every login waits, twice
    as long after each further one (:mod:`.logins`).
    At most ``max_watchers`` pages may follow the live events at once; one
    more is refused politely (503, try again later), so that a crowd of
    watchers never crowds out the players. A connection must complete its
    request's headers within ``header_timeout_s`` of opening (or of its last
    answer) and its body within ``body_timeout_s`` (a photo's upload is given
    longer, by its size); past ``max_watchers + spare_connections`` open at
    once, the oldest of those still sending a request goes, and one address
    may hold at most ``connections_per_address`` of those (:mod:`.connections`).

    >>> WebConfig(pin="1234", secret_key=b"0123456789abcdef").events_keepalive_s
    15.0
    >>> WebConfig(pin="1234", secret_key=b"0123456789abcdef")  # the secrets stay out of logs
    WebConfig(title='Willughby', events_keepalive_s=15.0, trusted_hosts=None, login_attempts=5, login_lockout_s=30.0, wrong_pins_per_hour=10, max_watchers=300, header_timeout_s=10.0, body_timeout_s=20.0, spare_connections=300, connections_per_address=32)
    """

    pin: str = field(repr=False)
    secret_key: bytes = field(repr=False)
    title: str = "Willughby"
    events_keepalive_s: float = 15.0
    trusted_hosts: tuple[str, ...] | None = None
    login_attempts: int = 5
    login_lockout_s: float = 30.0
    wrong_pins_per_hour: int = 10
    max_watchers: int = 300
    header_timeout_s: float = 10.0
    body_timeout_s: float = 20.0
    spare_connections: int = 300
    connections_per_address: int = 32

    def __post_init__(self) -> None:
        if not isinstance(self.pin, str):
            raise ConfigError(f"pin must be a string, not {type(self.pin).__name__}")
        if isinstance(self.secret_key, str):
            object.__setattr__(self, "secret_key", self.secret_key.encode("utf-8"))
        if not isinstance(self.secret_key, bytes) or len(self.secret_key) < 16:
            raise ConfigError("secret_key must be at least 16 bytes")
        if not isinstance(self.title, str) or not self.title.strip():
            raise ConfigError(f"title must be a non-empty string, not {self.title!r}")
        for name in ("events_keepalive_s", "login_lockout_s", "header_timeout_s", "body_timeout_s"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or value <= 0:
                raise ConfigError(f"{name} must be a positive number of seconds, not {value!r}")
            object.__setattr__(self, name, float(value))
        for name in ("login_attempts", "wrong_pins_per_hour"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} must be a whole number of at least 1, not {value!r}")
        if isinstance(self.max_watchers, bool) or not isinstance(self.max_watchers, int) \
                or not 1 <= self.max_watchers <= MAX_WATCHERS:
            raise ConfigError(f"max_watchers must be a whole number from 1 to {MAX_WATCHERS}, "
                              f"not {self.max_watchers!r}")
        if isinstance(self.spare_connections, bool) or not isinstance(self.spare_connections, int) \
                or not MIN_SPARE_CONNECTIONS <= self.spare_connections <= MAX_WATCHERS:
            raise ConfigError(f"spare_connections must be a whole number from {MIN_SPARE_CONNECTIONS} to "
                              f"{MAX_WATCHERS}, not {self.spare_connections!r}")
        if isinstance(self.connections_per_address, bool) or not isinstance(self.connections_per_address, int) \
                or not 4 <= self.connections_per_address <= MAX_WATCHERS:
            raise ConfigError(f"connections_per_address must be a whole number from 4 to {MAX_WATCHERS}, "
                              f"not {self.connections_per_address!r}")
        if self.trusted_hosts is not None:
            hosts = (self.trusted_hosts,) if isinstance(self.trusted_hosts, str) else tuple(self.trusted_hosts)
            if not hosts or not all(isinstance(h, str) and h for h in hosts):
                raise ConfigError(f"trusted_hosts must be a list of host names, not {self.trusted_hosts!r}")
            object.__setattr__(self, "trusted_hosts", hosts)

    @property
    def control_enabled(self) -> bool:
        """Whether a PIN is set, so that players may log in to control the game."""
        return bool(self.pin)

    @classmethod
    def from_mapping(cls, settings: Mapping[str, Any]) -> WebConfig:
        """A config from a mapping of the same names (unknown names are refused).

        >>> WebConfig.from_mapping({"pin": "42", "secret_key": "a long enough secret"}).title
        'Willughby'
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise ConfigError(f"unknown web setting {unknown[0]!r} (settings: {', '.join(sorted(known))})")
        for name in ("pin", "secret_key"):
            if name not in settings:
                raise ConfigError(f"the web settings need {name!r}")
        return cls(**dict(settings))
