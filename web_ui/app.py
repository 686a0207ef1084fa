"""The factory: ``create_app(config, companion)`` builds the Flask app of the
players' page around the companion it is handed (docs/house-conventions.md, convention 11).
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, current_app, jsonify, make_response, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError, SecurityError

from willughby.engine.bounds import MAX_ENTRY_BYTES

from . import api, bodies, events, pages, security
from .config import WebConfig
from .contract import CompanionLike
from .errors import TooManyAttemptsError, WebUIError
from .logins import GuessingNotice
from .services import LoginLimiter, WebServices, services

__all__ = ["create_app"]

#: the largest request body taken (a board document is a few hundred bytes; an imported log entry has the same bound)
MAX_BODY = MAX_ENTRY_BYTES

#: how long a login lasts without being used
SESSION_LIFETIME = dt.timedelta(hours=12)

_HTTP_SENTENCES = {
    400: "the request is malformed",
    404: "there is nothing at this address",
    405: "this address does not take that method",
}


def create_app(config: WebConfig | Mapping[str, Any] | None = None,
               companion: CompanionLike | None = None) -> Flask:
    """The players' page, JSON API and live events, serving *companion*.

    *config* is a :class:`WebConfig` or a mapping of its fields; None gives a
    read-only page (no PIN, so no control, and a random session key).

    Serve it with :class:`willughby.web_ui.server.PageServer`, which streams
    the live events in asyncio so that an open page costs no thread::

    >>> app = create_app(WebConfig(pin="2468", secret_key=secret), companion)  # doctest: +SKIP
    >>> PageServer(app, host="0.0.0.0", port=8080).serve()  # doctest: +SKIP

    It is a plain WSGI app too: any threaded WSGI server will do, with one
    thread held by each open page.
    """
    if companion is None:
        raise TypeError("create_app needs the companion the page serves")
    if config is None:
        config = WebConfig(pin="", secret_key=secrets.token_bytes(32))
    elif not isinstance(config, WebConfig):
        config = WebConfig.from_mapping(config)

    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=config.secret_key,
        SESSION_COOKIE_NAME="willughby_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=SESSION_LIFETIME,
        MAX_CONTENT_LENGTH=MAX_BODY,
        TRUSTED_HOSTS=list(config.trusted_hosts) if config.trusted_hosts else None,
    )
    limiter = LoginLimiter(config.login_attempts, config.login_lockout_s, config.wrong_pins_per_hour)
    GuessingNotice(limiter, lambda notice: companion.set_device("logins", notice))
    WebServices(config, companion, limiter).install(app)
    bodies.install(app)
    events.install(app, config)

    app.register_blueprint(api.bp)
    app.register_blueprint(events.bp)
    app.register_blueprint(pages.bp)
    app.after_request(security.add_security_headers)
    app.register_error_handler(WebUIError, _page_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(SecurityError, _untrusted_host)
    return app


def _error(status: int, message: str, *, page: bool = True, fields: dict[str, object] | None = None) -> Response:
    """``{"error": message}`` (and *fields*) under ``/api/``, a small page
    elsewhere (or plain text, where no page can be built)."""
    if request.path.startswith("/api/"):
        response = jsonify({**(fields or {}), "error": message})
    elif page:
        response = make_response(render_template("error.html", status=status, message=message))
    else:
        response = make_response(message + "\n")
        response.mimetype = "text/plain"
    response.status_code = status
    return response


def _page_error(exc: WebUIError) -> Response:
    response = _error(exc.status, exc.message, fields=exc.fields)
    if isinstance(exc, TooManyAttemptsError):
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


def _untrusted_host(exc: SecurityError) -> Response:
    # the request names a host not in trusted_hosts: no URL can be built for it, so no page
    return _error(400, "this host name is not served here", page=False)


def _http_error(exc: HTTPException) -> Response:
    status = exc.code or 500
    if isinstance(exc, InternalServerError):  # a fault: Flask has logged it with its traceback
        return _error(500, "the server failed; the fault is in its log")
    if status == 413:
        return _error(413, _too_large())
    return _error(status, _HTTP_SENTENCES.get(status, (exc.description or exc.name).rstrip(".")))


def _too_large() -> str:
    """Why a body was refused, naming the limit: a dispute photo's own, or the one every other body has."""
    if api.PHOTO_UPLOAD_PATH.fullmatch(request.path):
        photo_limit = int(getattr(services().companion, "max_photo_bytes", 0) or 0)
        if photo_limit > 0:
            return api.photo_too_large(photo_limit)
    limit = api.size_text(int(current_app.config["MAX_CONTENT_LENGTH"]))
    return f"the request body is larger than {limit}, the most taken"
