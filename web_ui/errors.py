"""The page's own errors.

Each subclasses the built-in it refines (docs/house-conventions.md, convention 6) and carries
the HTTP status it is answered with, so one handler turns any of them into
``{"error": "one clear sentence"}`` (or a small HTML page, for the pages).
"""

from __future__ import annotations

__all__ = [
    "WebUIError",
    "ConfigError",
    "BadRequestError",
    "UnsupportedMediaError",
    "PayloadTooLargeError",
    "ForbiddenError",
    "UnavailableError",
    "TooManyAttemptsError",
    "NotFoundError",
    "ConflictError",
    "from_companion",
]


class WebUIError(Exception):
    """Base class of every error the page answers itself; ``status`` is the HTTP status."""

    status = 500
    #: more of the answer, beside ``"error"`` (what the companion's error carried)
    fields: dict[str, object] = {}

    @property
    def message(self) -> str:
        """The sentence shown to the user."""
        return str(self.args[0]) if self.args else "the request failed"


class ConfigError(WebUIError, ValueError):
    """A setting of the page that cannot stand (names the setting and the value)."""


class BadRequestError(WebUIError, ValueError):
    """A request whose body or field is malformed (the message names the field)."""

    status = 400


class UnsupportedMediaError(WebUIError, ValueError):
    """A POST whose body is not JSON."""

    status = 415


class PayloadTooLargeError(WebUIError, ValueError):
    """An upload past the size the page takes."""

    status = 413


class ForbiddenError(WebUIError, PermissionError):
    """Not logged in with the PIN, a missing or wrong CSRF token, or a cross-site request."""

    status = 403


class TooManyAttemptsError(WebUIError, PermissionError):
    """Too many wrong PINs from one address: refused for ``retry_after`` seconds."""

    status = 429

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class NotFoundError(WebUIError, LookupError):
    """No such game, turn, question or camera."""

    status = 404


class UnavailableError(WebUIError, OSError):
    """The referee cannot take input now (its store cannot be written: a full disk); nothing was done."""

    status = 503


class ConflictError(WebUIError, RuntimeError):
    """Not now: the game is not at the step the request needs."""

    status = 409


def from_companion(exc: ValueError | LookupError | RuntimeError | OSError) -> WebUIError:
    """The page's error for an error the companion raised (web_ui/contract.py):
    ``ValueError`` is 400, ``LookupError`` 404, ``RuntimeError`` 409, ``OSError`` 503 (nothing was done:
    the referee cannot keep it now).

    >>> from_companion(KeyError("g-9")).status
    404
    """
    text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else ""
    error: WebUIError
    if isinstance(exc, OSError):
        error = UnavailableError(text or str(exc) or "the referee cannot keep that now")
    elif isinstance(exc, LookupError):
        error = NotFoundError(text or "there is no such thing")
    elif isinstance(exc, RuntimeError):
        error = ConflictError(text or "that cannot be done at this step of the game")
    else:
        error = BadRequestError(text or "the request is not valid")
    fields = getattr(exc, "fields", None)
    if isinstance(fields, dict):
        error.fields = {k: v for k, v in fields.items() if k != "error"}
    return error
