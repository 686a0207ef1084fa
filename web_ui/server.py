"""Serving the page: the Flask app behind an asyncio front (uvicorn, h11).

Why not a WSGI server alone: a WSGI server gives each request a thread for
as long as its response lasts, and a live-events stream lasts as long as the
page is open. With sixteen threads, sixteen watchers took them all and the
players' controls waited; with more threads, each open page still costs a
thread and its stack, and nothing stops a crowd from taking them all.

So :class:`PageServer` runs uvicorn (an ASGI server on asyncio, pure Python
with h11) in front of the app, and:

* streams ``/api/events`` itself, in the event loop: one thread follows the
  companion (through the page's contract, ``subscribe()``) and hands each new
  state, encoded once, to the loop; each open page holds only the newest
  encoded state and a timer for its keepalive -- a few kilobytes, no thread;
* passes every other request to the Flask app (WSGI) in a small, bounded pool
  of threads, which no watcher ever holds for longer than the app takes to
  check its request;
* still asks the app about every events request first (in a pool of its own,
  so a storm of watchers queues behind itself, not before the players), so
  the app's host check, security headers and watcher limit
  (``WebConfig.max_watchers``, :mod:`.events`) apply to events as to
  everything else;
* reads a request's body only once the app has checked who sends it
  (:mod:`.bodies`: the login and CSRF token of a control, before a byte of
  its body), within a deadline, into a file past a few kilobytes: never a
  whole upload in memory;
* holds every connection to account (:mod:`.connections`): one that does
  not complete its request's headers within seconds is closed, and when too
  many are open the oldest still sending a request goes, so silent or
  dribbling connections never crowd out the players;
* stops promptly: :meth:`PageServer.stop` (SIGTERM, Ctrl-C) ends every stream
  at once, lets the requests in hand finish, and returns.

>>> server = PageServer(app, host="0.0.0.0", port=8080)  # doctest: +SKIP
>>> server.serve()   # until SIGTERM or Ctrl-C  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import ipaddress
import os
import signal
import socket
import struct
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import uvicorn
from flask import Flask

from .bodies import BODY_TICKET_KEY, BodyTicket
from .connections import ConnectionGuard, ConnectionLimits, guarded_protocol
from .events import (EVENTS_TICKET_KEY, KEEPALIVE, RETRY_MS, EventsTicket, WatcherGate, format_event,
                     watcher_gate)
from .services import services

__all__ = ["PageServer", "PageFront", "lan_addresses", "listens_on_all", "mdns_name", "page_url",
           "DEFAULT_WORKERS"]

#: the threads that run the app's requests (the Pi has four cores, the work is short)
DEFAULT_WORKERS = 4

#: a body past this many bytes is read into a file, not memory
_IN_MEMORY = 64 * 1024

#: how long a stop waits for streams and requests to finish before cancelling them
_GRACE_S = 0.5

_KEEPALIVE = KEEPALIVE.encode("utf-8")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
_Headers = list[tuple[bytes, bytes]]


class _Watcher:
    """One open events stream, as the loop sees it."""

    __slots__ = ("wake", "gone", "keepalive", "last_sent")

    def __init__(self, now: float) -> None:
        self.wake = asyncio.Event()
        self.gone = False            # the client went away
        self.keepalive = False       # nothing sent for a while: send a comment
        self.last_sent = now


class _Hub:
    """The newest state, encoded once, and the streams waiting for it (loop side only)."""

    #: streams woken in one turn of the loop: a request answered meanwhile goes out between turns,
    #: not after the last of hundreds of streams
    BATCH = 32

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.seq = 0                 # how many states have come; a stream sends when it has seen fewer
        self.event = b""             # the newest state as one event
        self.first_event = b""       # the same with ``retry:``, for a stream's first event
        self.closed = False
        self.watchers: set[_Watcher] = set()

    def publish(self, event: bytes, first_event: bytes) -> None:
        if self.closed:
            return
        self.seq += 1
        self.event, self.first_event = event, first_event
        self.wake(list(self.watchers))

    def wake(self, watchers: list[_Watcher], start: int = 0) -> None:
        """Wake *watchers*, a batch per turn of the loop."""
        end = start + self.BATCH
        for watcher in watchers[start:end]:
            watcher.wake.set()
        if end < len(watchers):
            self.loop.call_soon(self.wake, watchers, end)

    def close(self) -> None:
        """End every stream now (their clients reconnect to whatever serves next)."""
        self.closed = True
        for watcher in self.watchers:
            watcher.wake.set()


class _Follower(threading.Thread):
    """Follows the companion's states (``subscribe()``) and hands each one,
    encoded, to the loop. Only the newest matters: the loop keeps one."""

    def __init__(self, companion: Any, loop: asyncio.AbstractEventLoop, hub: _Hub) -> None:
        super().__init__(name="willughby-events", daemon=True)
        self._subscription = companion.subscribe()
        self._loop = loop
        self._hub = hub
        self._quit = threading.Event()

    def run(self) -> None:
        while not self._quit.is_set():
            state = self._subscription.get(timeout=0.2)
            if state is None or self._quit.is_set():
                continue
            event = format_event(state).encode("utf-8")
            first = format_event(state, retry_ms=RETRY_MS).encode("utf-8")
            try:
                self._loop.call_soon_threadsafe(self._hub.publish, event, first)
            except RuntimeError:  # the loop has closed: the server is gone
                return

    def stop(self) -> None:
        self._quit.set()
        self._subscription.close()
        self.join(timeout=2.0)


class PageFront:
    """The ASGI application: ``/api/events`` streamed in the loop, every other
    request handed to the Flask *app* in a pool of *workers* threads."""

    def __init__(self, app: Flask, *, workers: int = DEFAULT_WORKERS) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.app = app
        with app.app_context():
            found = services()
        self.companion = found.companion
        self.keepalive_s = found.config.events_keepalive_s
        self.max_watchers = found.config.max_watchers
        self.gate: WatcherGate = watcher_gate(app)
        config = found.config
        self.limits = ConnectionLimits(header_timeout_s=config.header_timeout_s,
                                       max_connections=config.max_watchers + config.spare_connections,
                                       max_idle_per_address=config.connections_per_address)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="willughby-page")
        self._events_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="willughby-events-check")
        self._hub: _Hub | None = None
        self._follower: _Follower | None = None
        self._ticker: asyncio.Task[None] | None = None

    @property
    def watchers(self) -> int:
        """The events streams open now."""
        return len(self._hub.watchers) if self._hub else 0

    def start(self) -> None:
        """Begin following the companion's states for the streams (call in the loop that serves them)."""
        loop = asyncio.get_running_loop()
        self._hub = _Hub(loop)
        self._follower = _Follower(self.companion, loop, self._hub)
        self._follower.start()
        self._ticker = loop.create_task(self._keepalives())

    def end_streams(self) -> None:
        """End every events stream (call in the loop)."""
        if self._hub is not None:
            self._hub.close()
        if self._ticker is not None:
            self._ticker.cancel()

    async def _keepalives(self) -> None:
        """A comment to each stream that has been quiet for ``keepalive_s`` (checked twice a period,
        for all streams at once rather than with a timer each)."""
        assert self._hub is not None
        hub, loop = self._hub, asyncio.get_running_loop()
        while not hub.closed:
            await asyncio.sleep(self.keepalive_s / 2)
            quiet_since = loop.time() - self.keepalive_s * 0.99
            due = [w for w in hub.watchers if w.last_sent <= quiet_since]
            for watcher in due:
                watcher.keepalive = True
            hub.wake(due)

    def close(self) -> None:
        """Stop following the companion and wait for the app's requests in hand; harmless twice."""
        if self._follower is not None:
            self._follower.stop()
            self._follower = None
        self._events_pool.shutdown(wait=True, cancel_futures=True)
        self._pool.shutdown(wait=True, cancel_futures=True)

    # -- ASGI -------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # no websockets, and the server runs without lifespan events
            return
        if scope["path"] == "/api/events":
            await self._events(scope, receive, send)
        else:
            await self._request(scope, receive, send)

    async def _request(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        body: Any = io.BytesIO()
        if _has_body(scope):
            # the app checks who sends it before a byte of the body is read (bodies.py)
            ticket = BodyTicket()
            environ = self._environ(scope, body, 0)
            environ[BODY_TICKET_KEY] = ticket
            status, headers, content = await loop.run_in_executor(self._pool, self._call_app, environ)
            if ticket.cap is None:  # refused on its headers: answered, the body left unread, the connection closed
                await _answer(send, status, headers + [(b"connection", b"close")], content)
                return
            try:
                body = await self._read_body(receive, ticket.cap, ticket.timeout_s)
            except TimeoutError:
                late = b'{"error": "the request\'s body did not come in time"}'
                await _answer(send, 408, [(b"content-type", b"application/json"), (b"connection", b"close"),
                                          (b"content-length", str(len(late)).encode())], late)
                return
            if body is None:  # the client went before it had sent its request
                return
        with body:
            environ = self._environ(scope, body, body.seek(0, io.SEEK_END))
            body.seek(0)
            status, headers, content = await loop.run_in_executor(self._pool, self._call_app, environ)
        await _answer(send, status, headers, content if scope["method"] != "HEAD" else b"")

    async def _events(self, scope: Scope, receive: Receive, send: Send) -> None:
        ticket = EventsTicket()
        environ = self._environ(scope, io.BytesIO(), 0)
        environ[EVENTS_TICKET_KEY] = ticket
        loop = asyncio.get_running_loop()
        status, headers, content = await loop.run_in_executor(self._events_pool, self._call_app, environ)
        if not ticket.admitted:  # refused (the limit, a bad host, not GET): the app's answer as it is
            if status == 503:
                headers.append((b"connection", b"close"))  # a refused watcher does not keep a connection
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": content})
            return
        try:
            if status != 200 or scope["method"] == "HEAD" or self._hub is None or self._hub.closed:
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": content})
                return
            streamed = [(k, v) for k, v in headers if k not in (b"content-length", b"transfer-encoding")]
            await self._stream(receive, send, streamed)
        finally:
            self.gate.leave()

    async def _stream(self, receive: Receive, send: Send, headers: _Headers) -> None:
        assert self._hub is not None
        hub, loop = self._hub, asyncio.get_running_loop()
        watcher = _Watcher(loop.time())
        hub.watchers.add(watcher)
        listener = loop.create_task(self._until_gone(receive, watcher))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            seen, first = 0, True
            while not (watcher.gone or hub.closed):
                if hub.seq > seen:
                    seen = hub.seq
                    body, first = (hub.first_event if first else hub.event), False
                elif watcher.keepalive:
                    body = _KEEPALIVE
                else:
                    watcher.wake.clear()
                    await watcher.wake.wait()
                    continue
                watcher.keepalive, watcher.last_sent = False, loop.time()
                await send({"type": "http.response.body", "body": body, "more_body": True})
            if not watcher.gone:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:  # the connection broke while sending: the client is gone
            pass
        finally:
            hub.watchers.discard(watcher)
            listener.cancel()

    @staticmethod
    async def _until_gone(receive: Receive, watcher: _Watcher) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        watcher.gone = True
        watcher.wake.set()

    @staticmethod
    async def _read_body(receive: Receive, cap: int, timeout_s: float) -> Any:
        """The request's body in a file (memory up to a few kilobytes), up to one byte more than *cap*,
        what the app takes (it then refuses it, 413); None if the client went first. TimeoutError past
        *timeout_s*."""
        body = tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY)
        size = 0
        try:
            async with asyncio.timeout(timeout_s):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        body.close()
                        return None
                    chunk = message.get("body", b"")[:cap + 1 - size]
                    body.write(chunk)
                    size += len(chunk)
                    if size > cap or not message.get("more_body", False):
                        return body
        except BaseException:  # noqa: the spooled file closed, then re-raised (a timeout, a cancel; nothing is hidden)
            body.close()
            raise

    # -- WSGI -------------------------------------------------------------------
    def _environ(self, scope: Scope, body: Any, length: int) -> dict[str, Any]:
        """The WSGI environ of an ASGI request (PEP 3333: strings are latin-1 of the bytes)."""
        server = scope.get("server") or ("localhost", 80)
        client = scope.get("client") or ("", 0)
        environ: dict[str, Any] = {
            "REQUEST_METHOD": scope["method"],
            "SCRIPT_NAME": scope.get("root_path", "").encode("utf-8").decode("latin-1"),
            "PATH_INFO": scope["path"].encode("utf-8").decode("latin-1"),
            "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
            "SERVER_NAME": str(server[0]),
            "SERVER_PORT": str(server[1]),
            "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
            "REMOTE_ADDR": str(client[0]),
            "REMOTE_PORT": str(client[1]),
            "CONTENT_LENGTH": str(length),
            "wsgi.version": (1, 0),
            "wsgi.url_scheme": scope.get("scheme", "http"),
            "wsgi.input": body,
            "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False,
            "wsgi.run_once": False,
        }
        for raw_name, raw_value in scope["headers"]:
            name = raw_name.decode("latin-1").upper()
            if "_" in name:  # X_Forwarded would read as X-Forwarded: such names are dropped
                continue
            value = raw_value.decode("latin-1")
            if name == "CONTENT-LENGTH":
                if BODY_TICKET_KEY not in environ:
                    continue  # the length of the body read, above
                environ["CONTENT_LENGTH"] = value  # asked before the body is read: the length the client says
            key = "CONTENT_TYPE" if name == "CONTENT-TYPE" else "HTTP_" + name.replace("-", "_")
            environ[key] = f"{environ[key]},{value}" if key in environ else value
        return environ

    def _call_app(self, environ: dict[str, Any]) -> tuple[int, _Headers, bytes]:
        """Run the app on *environ* (in a pool thread); its whole answer."""
        answer: list[Any] = []
        chunks: list[bytes] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], None]:
            if exc_info is not None and answer:
                raise exc_info[1].with_traceback(exc_info[2])
            answer[:] = [status, headers]
            return chunks.append

        result = self.app(environ, start_response)
        try:
            for chunk in result:
                chunks.append(chunk)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        status, headers = answer
        return (int(status.split(" ", 1)[0]),
                [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers],
                b"".join(chunks))


def _has_body(scope: Scope) -> bool:
    """Whether the request says a body follows (or may: any method but GET and HEAD)."""
    if scope["method"] not in ("GET", "HEAD"):
        return True
    for name, value in scope["headers"]:
        if (name == b"content-length" and value.strip() not in (b"", b"0")) or name == b"transfer-encoding":
            return True
    return False


async def _answer(send: Send, status: int, headers: _Headers, content: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, leaving the signals to :class:`PageServer` (uvicorn's
    own handlers raise the signal again once it has stopped, which would end
    the process with the signal's status rather than 0)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class PageServer:
    """The page served on *host*:*port* (0 picks a free port) until :meth:`stop`.

    Binding happens here, so a port in use fails at once with ``OSError``;
    :meth:`serve` then runs until SIGTERM, Ctrl-C or :meth:`stop`.
    """

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 8080, *,
                 workers: int = DEFAULT_WORKERS) -> None:
        self.front = PageFront(app, workers=workers)
        self.host = host
        self.guard = ConnectionGuard(self.front.limits)
        _allow_open_files(self.front.limits.max_connections + 64)
        try:
            self._socket = _bind(host, port)
        except OSError:
            self.front.close()
            raise
        self.port: int = self._socket.getsockname()[1]
        config = uvicorn.Config(self.front, lifespan="off", http=guarded_protocol(self.guard), ws="none",
                                loop="asyncio",
                                interface="asgi3", proxy_headers=False, server_header=False,
                                access_log=False, log_config=None, log_level="warning",
                                # uvicorn's annotation says int; it waits with asyncio.wait_for, which takes seconds
                                # as a float, and half a second is the grace wanted here
                                timeout_graceful_shutdown=_GRACE_S,  # type: ignore[arg-type]
                                # the guard closes a connection idle between requests (header_timeout_s);
                                # uvicorn's own keep-alive timer only as a backstop
                                timeout_keep_alive=int(self.front.limits.header_timeout_s) + 1,
                                limit_concurrency=None)
        self._server = _Uvicorn(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_asked = False
        self._stopping = False

    def serve(self, *, handle_signals: bool = True) -> None:
        """Serve until stopped; *handle_signals*: SIGTERM and SIGINT stop it
        (only from the main thread)."""
        try:
            asyncio.run(self._serve(handle_signals and threading.current_thread() is threading.main_thread()))
        finally:
            self.front.close()
            self._socket.close()

    def stop(self) -> None:
        """Stop serving (from any thread): the streams end now, the requests in hand finish."""
        loop = self._loop
        self._stop_asked = True
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: stopped already
                loop.call_soon_threadsafe(self._begin_stop)

    async def _serve(self, handle_signals: bool) -> None:
        loop = asyncio.get_running_loop()
        self._loop = loop
        signals = (signal.SIGTERM, signal.SIGINT) if handle_signals else ()
        for sig in signals:
            loop.add_signal_handler(sig, self._begin_stop)
        self.front.start()
        if self._stop_asked:
            self._begin_stop()
        try:
            await self._server.serve(sockets=[self._socket])
        finally:
            for sig in signals:
                loop.remove_signal_handler(sig)

    def _begin_stop(self) -> None:
        if self._stopping:  # asked twice (a second Ctrl-C): stop waiting for anything
            self._server.force_exit = True
        self._stopping = True
        self.front.end_streams()
        self._server.should_exit = True


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on *host*:*port* (IPv6 ``::`` takes IPv4 too, where it can)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None and address.version == 6:
        dual = address.is_unspecified and socket.has_dualstack_ipv6()
        sock = socket.create_server((host, port), family=socket.AF_INET6, dualstack_ipv6=dual, backlog=1024)
    else:
        sock = socket.create_server((host, port), backlog=1024)
    sock.set_inheritable(True)
    return sock


def _allow_open_files(wanted: int) -> None:
    """Raise the soft limit on open files towards *wanted* (each watcher holds one), within the hard limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def page_url(host: str, port: int) -> str:
    """The page's address on *host*.

    >>> page_url("192.168.1.20", 8080), page_url("::1", 80)
    ('http://192.168.1.20:8080/', 'http://[::1]:80/')
    """
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def listens_on_all(host: str) -> bool:
    """Whether *host* means every address of the machine (``0.0.0.0``, ``::``, empty)."""
    if host == "":
        return True
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def lan_addresses() -> list[str]:
    """The IPv4 addresses of this machine's network interfaces, but loopback,
    read from the interfaces themselves (Linux; nothing is sent anywhere).
    Empty where they cannot be read this way.

    >>> all(not a.startswith("127.") for a in lan_addresses())
    True
    """
    if not sys.platform.startswith("linux"):
        return []
    SIOCGIFADDR = 0x8915
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # only a handle for ioctl: never used to send
        for _, name in socket.if_nameindex():
            try:
                packed = fcntl.ioctl(probe.fileno(), SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:  # no IPv4 address on this interface
                continue
            address = ipaddress.IPv4Address(packed[20:24])
            if not address.is_loopback and str(address) not in found:
                found.append(str(address))
    return found


def mdns_name() -> str | None:
    """``host.local``, where this machine answers to it (avahi runs, as on
    Raspberry Pi OS); None otherwise."""
    if not os.path.exists("/run/avahi-daemon/socket"):
        return None
    name = socket.gethostname().split(".")[0]
    return f"{name}.local" if name else None
