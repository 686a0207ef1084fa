"""Server-sent events (``GET /api/events``): the whole state on connect, then
once per change, with a comment now and then to keep the line open.

Each client gets its own subscription from the companion, opened when the
stream starts and closed when it ends: when the client goes away, the WSGI
server closes the response, which closes the generator, whose ``finally``
closes the subscription. Nothing is shared between clients, so any threaded
WSGI server will do (one thread per open page).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response

from .contract import CompanionLike
from .services import services

__all__ = ["bp", "format_event", "stream_states", "KEEPALIVE", "RETRY_MS"]

bp = Blueprint("events", __name__, url_prefix="/api")

#: the comment line sent when nothing changed for a while
KEEPALIVE = ": keepalive\n\n"

#: how long a browser waits before reconnecting a dropped stream
RETRY_MS = 3000


def format_event(state: dict[str, Any], *, retry_ms: int | None = None) -> str:
    """One ``state`` event carrying *state*, with ``id:`` its version.

    >>> print(format_event({"version": 7, "phase": "move"}), end="")
    id: 7
    event: state
    data: {"version":7,"phase":"move"}
    <BLANKLINE>
    """
    lines = []
    if retry_ms is not None:
        lines.append(f"retry: {retry_ms}")
    version = state.get("version")
    if isinstance(version, int):
        lines.append(f"id: {version}")
    lines.append("event: state")
    # json.dumps writes no newline (those in strings are escaped), so one data line
    lines.append("data: " + json.dumps(state, separators=(",", ":"), ensure_ascii=False))
    return "\n".join(lines) + "\n\n"


def stream_states(companion: CompanionLike, keepalive_s: float) -> Iterator[str]:
    """The event stream of one client: subscribes on the first step, closes
    the subscription however the stream ends (the client gone included)."""
    subscription = companion.subscribe()
    try:
        first = True
        while True:
            state = subscription.get(timeout=keepalive_s)
            if state is None:
                yield KEEPALIVE
            else:
                yield format_event(state, retry_ms=RETRY_MS if first else None)
                first = False
    finally:
        subscription.close()


@bp.get("/events")
def events() -> Response:
    """The live state as ``text/event-stream``."""
    found = services()  # the stream runs after the request context is gone
    return Response(stream_states(found.companion, found.config.events_keepalive_s),
                    mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
