"""The server's connections held to account, so that no client without the PIN can crowd out the players.

The page is open to everyone on the club's network. A connection costs the
server a file and a little memory whether or not a request ever comes on it,
so the server keeps every connection in one of three phases:

* **waiting**: open, but its request's headers have not all come (a new
  connection, or a kept-alive one between requests). It must complete them
  within ``header_timeout_s`` or it is closed;
* **reading**: the headers came, the body is still coming (the front reads it
  within its own deadline, ``body_timeout_s``);
* **working**: the request is with the app, or its answer is being sent (an
  open events stream stays here while it lasts; the watcher limit bounds
  those).

When more than ``max_connections`` are open, the one that goes is a waiting
or reading connection (never a working one): the oldest of the address
holding most of them. And no address may hold more than
``max_idle_per_address`` waiting or reading connections: its oldest goes
first. So a crowd of silent or dribbling connections from one address or
many only ever pushes out its own kind, and a player's request, whose
headers come at once, always finds room and is answered.

The guard lives in the event loop; :func:`guarded_protocol` gives the
server's HTTP protocol class (uvicorn's h11 protocol) that reports each
connection's phases to it.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Protocol

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["ConnectionLimits", "ConnectionGuard", "Guarded", "guarded_protocol"]

WAITING, READING, WORKING = "waiting", "reading", "working"


@dataclass(frozen=True)
class ConnectionLimits:
    """How long a connection may take over its request, and how many may be open."""

    header_timeout_s: float = 10.0
    max_connections: int = 600
    max_idle_per_address: int = 32


class Guarded(Protocol):
    """What the guard needs of a connection: to close it."""

    def close_idle(self) -> None: ...


class _Held:
    __slots__ = ("address", "phase", "since", "deadline")

    def __init__(self, address: str, since: float) -> None:
        self.address = address
        self.phase = WAITING
        self.since = since
        self.deadline: asyncio.TimerHandle | None = None


class ConnectionGuard:
    """Every open connection's phase, its deadline while it waits, and who goes when too many are open."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self._held: dict[Guarded, _Held] = {}
        self.shed = 0          # connections closed to make room
        self.timed_out = 0     # connections closed for not completing their request's headers in time

    def __len__(self) -> int:
        return len(self._held)

    def phases(self) -> Counter[str]:
        """How many connections are in each phase now."""
        return Counter(h.phase for h in self._held.values())

    def opened(self, conn: Guarded, address: str) -> None:
        held = _Held(address, time.monotonic())
        self._held[conn] = held
        self._wait(conn, held)
        idle_here = [c for c, h in self._held.items() if h.address == address and h.phase != WORKING]
        if len(idle_here) > self.limits.max_idle_per_address:
            self._close(min(idle_here, key=lambda c: self._held[c].since))
        if len(self._held) > self.limits.max_connections:
            self._make_room()

    def began(self, conn: Guarded, complete: bool) -> None:
        """A request's headers came on *conn*; *complete*: its body too."""
        held = self._held.get(conn)
        if held is None:
            return
        self._cancel(held)
        held.phase = WORKING if complete else READING
        held.since = time.monotonic()

    def body_read(self, conn: Guarded) -> None:
        held = self._held.get(conn)
        if held is not None and held.phase == READING:
            held.phase = WORKING

    def answered(self, conn: Guarded) -> None:
        """*conn*'s answer went out; it waits for the next request."""
        held = self._held.get(conn)
        if held is not None:
            held.phase, held.since = WAITING, time.monotonic()
            self._wait(conn, held)

    def closed(self, conn: Guarded) -> None:
        held = self._held.pop(conn, None)
        if held is not None:
            self._cancel(held)

    # -- inside ---------------------------------------------------------------------------
    def _wait(self, conn: Guarded, held: _Held) -> None:
        self._cancel(held)
        loop = asyncio.get_running_loop()
        held.deadline = loop.call_later(self.limits.header_timeout_s, self._too_slow, conn)

    @staticmethod
    def _cancel(held: _Held) -> None:
        if held.deadline is not None:
            held.deadline.cancel()
            held.deadline = None

    def _too_slow(self, conn: Guarded) -> None:
        held = self._held.get(conn)
        if held is not None and held.phase == WAITING:
            self.timed_out += 1
            self._close(conn, counted=False)

    def _make_room(self) -> None:
        idle = [(c, h) for c, h in self._held.items() if h.phase != WORKING]
        if not idle:
            return
        most = Counter(h.address for _, h in idle).most_common(1)[0][0]
        self._close(min((c for c, h in idle if h.address == most), key=lambda c: self._held[c].since))

    def _close(self, conn: Guarded, *, counted: bool = True) -> None:
        held = self._held.pop(conn, None)
        if held is None:
            return
        self._cancel(held)
        if counted:
            self.shed += 1
        conn.close_idle()


def guarded_protocol(guard: ConnectionGuard) -> type[H11Protocol]:
    """uvicorn's h11 protocol, reporting each connection's phases to *guard*."""

    class GuardedH11Protocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            guard.opened(self, str(self.client[0]) if self.client else "")

        def connection_lost(self, exc: Exception | None) -> None:
            guard.closed(self)
            super().connection_lost(exc)

        def handle_events(self) -> None:
            before = self.cycle
            super().handle_events()
            cycle: Any = self.cycle
            if cycle is not None and cycle is not before:
                guard.began(self, complete=not cycle.more_body)
            elif cycle is not None and not cycle.more_body:
                guard.body_read(self)

        def on_response_complete(self) -> None:
            guard.answered(self)   # first: the next pipelined request may begin inside
            super().on_response_complete()

        def close_idle(self) -> None:
            """Close this connection now (it holds no request the app is working on)."""
            if self.cycle is not None and not self.cycle.response_complete:
                self.cycle.disconnected = True
                self.cycle.message_event.set()
            self.transport.abort()

    return GuardedH11Protocol
