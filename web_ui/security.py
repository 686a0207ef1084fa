"""Who may control the game, and how requests prove it.

A player logs in with the PIN (compared in constant time, wrong tries
limited per address and across them all: ``logins.py``); the signed session
cookie then carries the login's random id (kept alive in memory only, so
logging out or a restart truly ends it), a keyed hash of the PIN (so a new
PIN logs everyone out), the name given at login and a random CSRF token. Every POST must be JSON, must not come from another site
(``Origin``), and, but for the login itself, must carry the token in
``X-CSRF-Token``. The cookie is ``SameSite=Strict`` and
``HttpOnly``. Every response carries headers that keep the page to itself.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any
from urllib.parse import urlsplit

from flask import Response, request, session

from willughby.engine.bounds import MAX_DEPTH, depth_problem

from .errors import BadRequestError, ForbiddenError, UnsupportedMediaError
from .services import services

__all__ = [
    "CSRF_HEADER",
    "DEFAULT_WHO",
    "CONTENT_SECURITY_POLICY",
    "pin_matches",
    "client_key",
    "log_in",
    "log_out",
    "logged_in",
    "current_user",
    "csrf_token",
    "check_origin",
    "check_csrf",
    "json_body",
    "control_check",
    "control_request",
    "add_security_headers",
]

CSRF_HEADER = "X-CSRF-Token"

#: who is acting when the player gave no name at login
DEFAULT_WHO = "page"

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

_LOGGED_IN, _NAME, _CSRF, _SID = "pin_mark", "name", "csrf", "sid"


def _pin_mark() -> str:
    """What a logged-in session holds of the PIN: a keyed hash, so a session
    outlives neither a change of PIN nor of secret key, and never shows the PIN."""
    config = services().config
    return hmac.new(config.secret_key, config.pin.encode("utf-8"), hashlib.sha256).hexdigest()


def pin_matches(given: str) -> bool:
    """Whether *given* is the control PIN (in constant time; never with no PIN set)."""
    pin = services().config.pin
    return bool(pin) and hmac.compare_digest(given.encode("utf-8"), pin.encode("utf-8"))


def client_key() -> str:
    """What wrong PINs are counted against: the client's address."""
    return request.remote_addr or "unknown"


def log_in(name: str | None) -> str:
    """Mark this session as logged in as *name* (or the page); returns its new CSRF token."""
    session.clear()  # a fresh session: nothing carried over from before the PIN
    session.permanent = True
    token = secrets.token_urlsafe(32)
    session.update({_LOGGED_IN: _pin_mark(), _NAME: name or DEFAULT_WHO, _CSRF: token,
                    _SID: services().sessions.start()})
    return token


def log_out() -> None:
    """End this session's login, wherever a copy of the cookie turns up."""
    services().sessions.end(session.get(_SID))
    session.clear()


def logged_in() -> bool:
    """Whether this session has given the PIN."""
    if not services().config.control_enabled:
        return False
    mark = session.get(_LOGGED_IN)
    if not (isinstance(mark, str) and hmac.compare_digest(mark, _pin_mark())):
        return False
    return session.get(_SID) in services().sessions


def current_user() -> str | None:
    """The name given at login (``"page"`` if none), or None when not logged in."""
    return str(session.get(_NAME, DEFAULT_WHO)) if logged_in() else None


def csrf_token() -> str:
    """This session's CSRF token, or ``""`` when not logged in."""
    return str(session.get(_CSRF, "")) if logged_in() else ""


def check_origin() -> None:
    """Refuse a request another site's page made (its ``Origin`` is not this host)."""
    origin = request.headers.get("Origin")
    if origin is not None and urlsplit(origin).netloc.lower() != request.host.lower():
        raise ForbiddenError("requests from another site are refused")
    if request.headers.get("Sec-Fetch-Site") == "cross-site":
        raise ForbiddenError("requests from another site are refused")


def check_csrf() -> None:
    """Refuse a POST without this session's token in ``X-CSRF-Token``."""
    expected = csrf_token()
    given = request.headers.get(CSRF_HEADER, "")
    if not given:
        raise ForbiddenError(f"the {CSRF_HEADER} header is missing: reload the page")
    if not expected or not hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8")):
        raise ForbiddenError(f"the {CSRF_HEADER} header is wrong: reload the page")


def json_body() -> dict[str, Any]:
    """The request's JSON object (an empty body counts as ``{}``)."""
    if not request.is_json:
        raise UnsupportedMediaError("send the body as JSON (Content-Type: application/json)")
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except RecursionError:
        raise BadRequestError(f"the body nests deeper than {MAX_DEPTH} levels") from None
    except ValueError:
        raise BadRequestError("the body is not valid JSON") from None
    problem = depth_problem(body)               # the bounds an imported game is held to as well
    if problem:
        raise BadRequestError(problem.replace("the document", "the body"))
    if not isinstance(body, dict):
        raise BadRequestError(f"the body must be a JSON object, not {type(body).__name__}")
    return body


def control_check() -> str:
    """For a control POST of any body: check the login and the CSRF token,
    and return who is acting."""
    if not services().config.control_enabled:
        raise ForbiddenError("control from the page is off: no PIN is set")
    if not logged_in():
        raise ForbiddenError("log in with the PIN first")
    check_csrf()
    return current_user() or DEFAULT_WHO


def control_request() -> tuple[dict[str, Any], str]:
    """For a control POST: check the login and the CSRF token, and return the
    JSON body and who is acting."""
    who = control_check()
    return json_body(), who


def add_security_headers(response: Response) -> Response:
    """Keep the page to itself: no scripts, frames or referrers from elsewhere."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("X-Frame-Options", "DENY")
    if request.path.startswith("/api/"):
        headers.setdefault("Cache-Control", "no-store")
    return response
