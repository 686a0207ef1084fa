"""What the factory hands the blueprints: the settings, the companion, the
login limiter and the live sessions, kept on the app (``app.extensions``),
never in a global."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from flask import Flask, current_app

from .config import WebConfig
from .contract import CompanionLike
from .errors import from_companion
from .logins import LiveSessions, LoginLimiter

__all__ = ["WebServices", "LoginLimiter", "LiveSessions", "services", "ask"]

T = TypeVar("T")

_KEY = "willughby.web_ui"


@dataclass(frozen=True)
class WebServices:
    """The settings, the companion, the limiter and the live sessions of one app."""

    config: WebConfig
    companion: CompanionLike
    limiter: LoginLimiter
    sessions: LiveSessions = field(default_factory=lambda: LiveSessions(12 * 3600.0))

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
