"""A request's body is read only once it is known who sends it.

Anyone on the network can send a POST; only the players (who gave the PIN)
have any business sending more than a few bytes. So a server that reads
bodies itself (:mod:`.server`) first hands the app the request's headers
alone, with a :class:`BodyTicket` in the WSGI environ; :func:`ask_first`
(run before every request) makes the checks that need no body -- the host,
the origin, and for every POST but the login and logout the login and the
CSRF token -- and writes on the ticket how much body it will take and how
long it may take to come. Refused, the request is answered at once and its
body never read: a crowd sending twenty megabytes each without the PIN
costs the server nothing.

Under any other WSGI server (and Flask's test client) there is no ticket,
and the same checks happen in the views, after the server has read the
body (within ``MAX_CONTENT_LENGTH``).
"""

from __future__ import annotations

from flask import Flask, Response, current_app, request

from . import security
from .api import PHOTO_UPLOAD_PATH, UPLOAD_OVERHEAD
from .services import services

__all__ = ["BodyTicket", "BODY_TICKET_KEY", "SMALL_BODY", "UPLOAD_RATE", "install", "ask_first"]

#: where a server that asks before it reads a body puts its :class:`BodyTicket` in the WSGI environ
BODY_TICKET_KEY = "willughby.body_ticket"

#: the body taken without a login: a PIN and a name, or nothing (logout)
SMALL_BODY = 4 * 1024

#: the slowest a photo's upload may come, in bytes a second, beyond ``body_timeout_s``
UPLOAD_RATE = 128 * 1024


class BodyTicket:
    """Written on by the app (:func:`ask_first`) when a request's body may be
    read: at most ``cap`` bytes (one more tells the app it was too large),
    within ``timeout_s`` seconds. ``cap`` stays None when it may not."""

    __slots__ = ("cap", "timeout_s")

    def __init__(self) -> None:
        self.cap: int | None = None
        self.timeout_s = 0.0


def install(app: Flask) -> None:
    app.before_request(ask_first)


def ask_first() -> Response | None:
    """With a :class:`BodyTicket` in the environ: check what can be checked
    without the body, and answer 204 with the ticket filled in (errors are
    raised, and answered as any other)."""
    ticket = request.environ.get(BODY_TICKET_KEY)
    if not isinstance(ticket, BodyTicket):
        return None
    config = services().config
    _ = request.host                 # a host not trusted is refused here (SecurityError), as anywhere
    security.check_origin()
    cap, timeout_s = SMALL_BODY, config.body_timeout_s
    if request.method not in ("GET", "HEAD") and request.path not in ("/api/login", "/api/logout") \
            and request.url_rule is not None:
        security.control_check()
        cap = int(current_app.config["MAX_CONTENT_LENGTH"])
        photo_limit = int(getattr(services().companion, "max_photo_bytes", 0) or 0)
        if PHOTO_UPLOAD_PATH.fullmatch(request.path) and photo_limit > 0:
            cap = photo_limit + UPLOAD_OVERHEAD
            timeout_s += cap / UPLOAD_RATE
    ticket.cap, ticket.timeout_s = cap, timeout_s
    return Response(status=204)
