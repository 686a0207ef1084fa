"""What the factory hands the blueprints: the settings, the companion and the
login limiter, kept on the app (``app.extensions``), never in a global."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Flask, current_app

from .config import WebConfig
from .contract import CompanionLike
from .errors import TooManyAttemptsError, from_companion

__all__ = ["WebServices", "LoginLimiter", "LoggedOut", "services", "ask"]

T = TypeVar("T")

_KEY = "willughby.web_ui"


class LoginLimiter:
    """Counts wrong PINs per client address; after *attempts* wrong ones the
    address is refused for *lockout_s* seconds, then may try again.

    >>> now = [0.0]
    >>> limiter = LoginLimiter(attempts=2, lockout_s=30, clock=lambda: now[0])
    >>> limiter.failed("10.0.0.7"); limiter.failed("10.0.0.7")
    >>> limiter.check("10.0.0.7")
    Traceback (most recent call last):
    ...
    willughby.web_ui.errors.TooManyAttemptsError: too many wrong PINs: try again in 30 seconds
    >>> now[0] = 30.0; limiter.check("10.0.0.7")  # the lockout is over
    """

    #: forget addresses beyond this many (a phone's address, not a database)
    max_tracked = 1024

    def __init__(self, attempts: int = 5, lockout_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.attempts = attempts
        self.lockout_s = lockout_s
        self.clock = clock
        self._lock = threading.Lock()
        self._wrong: dict[str, int] = {}
        self._until: dict[str, float] = {}

    def check(self, key: str) -> None:
        """Raise :class:`TooManyAttemptsError` while *key* is locked out."""
        with self._lock:
            until = self._until.get(key)
            if until is None:
                return
            left = until - self.clock()
            if left <= 0:
                del self._until[key]
                return
        seconds = max(1, math.ceil(left))
        raise TooManyAttemptsError(f"too many wrong PINs: try again in {seconds} seconds", seconds)

    def failed(self, key: str) -> None:
        """Count a wrong PIN from *key*; the last one allowed starts the lockout."""
        with self._lock:
            if len(self._wrong) >= self.max_tracked and key not in self._wrong:
                self._wrong.clear()
            wrong = self._wrong.get(key, 0) + 1
            if wrong >= self.attempts:
                self._wrong.pop(key, None)
                self._until[key] = self.clock() + self.lockout_s
                self._forget_expired()
            else:
                self._wrong[key] = wrong

    def succeeded(self, key: str) -> None:
        """Forget *key*'s wrong PINs after a right one."""
        with self._lock:
            self._wrong.pop(key, None)

    def _forget_expired(self) -> None:
        now = self.clock()
        for key in [k for k, until in self._until.items() if until <= now]:
            del self._until[key]


class LoggedOut:
    """The logins ended by logging out, by their CSRF token, until their
    session would have expired anyway: the login lives in a signed cookie,
    and without this a copy of the cookie taken before logging out would
    still control the game.

    >>> now = [0.0]
    >>> ended = LoggedOut(lifetime_s=60, clock=lambda: now[0])
    >>> ended.add("t1"); "t1" in ended, "t2" in ended
    (True, False)
    >>> now[0] = 61; "t1" in ended      # the cookie itself has expired by now
    False
    """

    #: at most this many remembered; past it the oldest are forgotten
    max_kept = 4096

    def __init__(self, lifetime_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.lifetime_s = lifetime_s
        self.clock = clock
        self._lock = threading.Lock()
        self._until: dict[str, float] = {}

    def add(self, token: str) -> None:
        """Remember that the login holding *token* has ended."""
        with self._lock:
            now = self.clock()
            for old in [t for t, until in self._until.items() if until <= now]:
                del self._until[old]
            while len(self._until) >= self.max_kept:
                del self._until[next(iter(self._until))]
            self._until[token] = now + self.lifetime_s

    def __contains__(self, token: object) -> bool:
        with self._lock:
            until = self._until.get(token) if isinstance(token, str) else None
            return until is not None and until > self.clock()


@dataclass(frozen=True)
class WebServices:
    """The settings, the companion and the limiter of one app, and the logins ended."""

    config: WebConfig
    companion: CompanionLike
    limiter: LoginLimiter
    logged_out: LoggedOut = field(default_factory=lambda: LoggedOut(12 * 3600.0))

    def install(self, app: Flask) -> None:
        """Keep these services on *app* for :func:`services` to find."""
        app.extensions[_KEY] = self


def services() -> WebServices:
    """The services of the app handling the current request."""
    found: WebServices = current_app.extensions[_KEY]
    return found


def ask(call: Callable[[CompanionLike], T]) -> T:
    """Ask the companion something: *call* is handed it (``ask(lambda c:
    c.dispute(turn, attempt))``), so the type checker holds every request to
    the contract (``contract.py``). The errors it declares
    (``declared_errors``: its answers to bad input, to no such thing and to
    not now) become the page's own, which carry their HTTP status.

    Anything else the companion raises is a fault, not an answer: it goes on
    to Flask, which logs it with its traceback and answers 500, so a
    programming error never reaches the players dressed as "404 'turn'"."""
    companion = services().companion
    declared = tuple(getattr(companion, "declared_errors", ()))
    try:
        return call(companion)
    except declared as exc:
        raise from_companion(exc) from exc
