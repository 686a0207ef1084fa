"""Server-sent events (``GET /api/events``): the whole state on connect, then
once per change, with a comment now and then to keep the line open.

At most ``WebConfig.max_watchers`` streams are open at once (:class:`WatcherGate`);
one more is refused with 503, ``Retry-After`` and ``{"error": ...}``, so a
crowd of watchers cannot crowd out the players.

Two ways to serve a stream:

* ``willughby serve`` and ``demo`` run the page behind :mod:`.server`, which
  streams the events itself in asyncio (an open page costs a few kilobytes,
  not a thread). The server still sends every events request through this
  view, with an :class:`EventsTicket` in the WSGI environ, so the request
  meets the same checks and gets the same headers as any other; the view
  only takes a watcher's place and says so on the ticket, and the server
  streams and gives the place back when the client goes.
* Under any other WSGI server (and Flask's test client) the view streams
  itself: each client gets its own subscription from the companion, opened
  when the stream starts and closed when it ends (when the client goes away
  the server closes the response, which closes the subscription and gives
  the place back). Each open page then holds one thread.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Mapping

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from .config import WebConfig
from .contract import CompanionLike
from .services import services

__all__ = ["bp", "format_event", "stream_states", "install", "watcher_gate", "WatcherGate", "EventsTicket",
           "EVENTS_TICKET_KEY", "EVENT_HEADERS", "KEEPALIVE", "RETRY_MS", "WATCHERS_RETRY_AFTER_S"]

bp = Blueprint("events", __name__, url_prefix="/api")

#: the comment line sent when nothing changed for a while
KEEPALIVE = ": keepalive\n\n"

#: how long a browser waits before reconnecting a dropped stream
RETRY_MS = 3000

#: how long a watcher refused for the limit is asked to wait (``Retry-After``)
WATCHERS_RETRY_AFTER_S = 30

#: the headers of an events stream (besides the app's security headers)
EVENT_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}

#: where a server that streams the events itself puts its :class:`EventsTicket` in the WSGI environ
EVENTS_TICKET_KEY = "willughby.events_ticket"

_GATE_KEY = "willughby.web_ui.watchers"


class WatcherGate:
    """How many pages follow the live events, and the most that may (thread-safe).

    >>> gate = WatcherGate(limit=2)
    >>> gate.try_enter(), gate.try_enter(), gate.try_enter()
    (True, True, False)
    >>> gate.leave(); gate.count
    1
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._count = 0
        self._lock = threading.Lock()

    @property
    def count(self) -> int:
        """The streams open now."""
        return self._count

    def try_enter(self) -> bool:
        """Take a place for one more stream; False when all are taken."""
        with self._lock:
            if self._count >= self.limit:
                return False
            self._count += 1
            return True

    def leave(self) -> None:
        """Give back a place taken by :meth:`try_enter`."""
        with self._lock:
            if self._count <= 0:
                raise RuntimeError("a watcher left that never entered")
            self._count -= 1


@dataclass
class EventsTicket:
    """Put in the WSGI environ (:data:`EVENTS_TICKET_KEY`) by a server that
    streams the events itself: the view sets ``admitted`` when it has taken a
    watcher's place for this request, answering with the stream's headers and
    no body; the server then streams, and calls ``WatcherGate.leave`` when
    the stream ends."""

    admitted: bool = False


def install(app: Flask, config: WebConfig) -> WatcherGate:
    """Give *app* its watcher gate (``create_app`` does this)."""
    gate = WatcherGate(config.max_watchers)
    app.extensions[_GATE_KEY] = gate
    return gate


def watcher_gate(app: Flask | None = None) -> WatcherGate:
    """The watcher gate of *app* (default: the app of the current request)."""
    found: WatcherGate = (app or current_app).extensions[_GATE_KEY]
    return found


def format_event(state: Mapping[str, Any], *, retry_ms: int | None = None) -> str:
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


class _GatedStream:
    """A stream that gives its watcher's place back when it is closed, even
    if it never started (a WSGI server closes every response it was given)."""

    def __init__(self, stream: Iterator[str], gate: WatcherGate) -> None:
        self._stream = stream
        self._gate: WatcherGate | None = gate

    def __iter__(self) -> Iterator[str]:
        return self._stream

    def close(self) -> None:
        self._stream.close()  # type: ignore[attr-defined]  # a generator
        gate, self._gate = self._gate, None
        if gate is not None:
            gate.leave()


def _refuse_watcher(limit: int) -> Response:
    response = jsonify({"error": f"{limit} pages are following the game already, the most this "
                                 f"table allows: try again in a while"})
    response.status_code = 503
    response.headers["Retry-After"] = str(WATCHERS_RETRY_AFTER_S)
    return response


@bp.get("/events")
def events() -> Response:
    """The live state as ``text/event-stream`` (503 when ``max_watchers`` pages follow it already)."""
    found = services()  # the stream runs after the request context is gone
    gate = watcher_gate()
    if not gate.try_enter():
        return _refuse_watcher(gate.limit)
    ticket = request.environ.get(EVENTS_TICKET_KEY)
    if isinstance(ticket, EventsTicket):  # the server streams: only the headers here
        ticket.admitted = True
        return Response(iter(()), mimetype="text/event-stream", headers=EVENT_HEADERS)
    stream = _GatedStream(stream_states(found.companion, found.config.events_keepalive_s), gate)
    return Response(stream, mimetype="text/event-stream", headers=EVENT_HEADERS)
