"""The serial link to the dice box: finds the box, keeps the line up, and
hands every throw and press to the program exactly once, in order
(docs/protocol.md).

The codec is pure (``codec``); this module only moves bytes, on one thread
of its own (docs/house-conventions.md, convention 8). The port is opened with pySerial's
``serial_for_url``, so a device path, ``/dev/serial/by-id/...`` or any
pySerial URL works; ``"auto"`` looks for a Raspberry Pi Pico among the
serial ports.

>>> from willughby.firmware_bridge.fake import FakeBox
>>> with FakeBox() as box, BoxLink(box.port) as link:
...     link.wait_connected(5.0)
...     box.press("roll")
...     event = link.get(timeout=5.0)
...     (event.source, len(event.dice))
True
('box', 2)
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import serial
from serial.tools import list_ports

from .codec import (Ack, BoxEvent, Configure, Connect, Decoder, DecoderStats, Heartbeat, Hello, Message, Press,
                    Snapshot, Throw, encode)
from .errors import BoxNotFoundError, LinkClosedError
from .firmware.wire import seq_after, seq_next

__all__ = ["BoxLink", "LinkStats", "find_box", "PICO_VID"]

log = logging.getLogger(__name__)

PICO_VID = 0x2E8A           # Raspberry Pi's USB vendor id: the Pico under MicroPython


def find_box() -> str:
    """The device path of the first serial port that looks like the dice box
    (a Raspberry Pi Pico on USB). Raises :class:`BoxNotFoundError` if none."""
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        if port.vid == PICO_VID:
            return port.device
    raise BoxNotFoundError("no dice box found: no serial port of a Raspberry Pi Pico "
                           f"(USB vendor {PICO_VID:04x}); name the port instead of 'auto'")


@dataclass
class LinkStats:
    """What the link has done since it started."""

    connects: int = 0            # HELLOs received on a fresh opening of the port
    disconnects: int = 0         # the port lost or gone silent
    open_failures: int = 0       # openings that failed (the port absent)
    delivered: int = 0           # events handed to the program
    duplicates: int = 0          # events dropped as already delivered
    gaps: int = 0                # events dropped because an earlier one was missing
    foreign: int = 0             # events of a session the link did not (yet) know
    sessions: list[int] = field(default_factory=list)   # the box sessions seen, in order
    decoder: DecoderStats = field(default_factory=DecoderStats)

    def to_json(self) -> dict[str, Any]:
        return {"connects": self.connects, "disconnects": self.disconnects, "open_failures": self.open_failures,
                "delivered": self.delivered, "duplicates": self.duplicates, "gaps": self.gaps,
                "foreign": self.foreign, "sessions": [f"{s:08x}" for s in self.sessions],
                "decoder": self.decoder.to_json()}


class BoxLink:
    """A link to the dice box over a serial port, reconnecting by itself.

    Events (:class:`~.codec.Throw`, :class:`~.codec.Press`) arrive through
    :meth:`get` or listeners (:meth:`add_listener`, called on the link's
    thread: keep them short). ``state`` is ``"connecting"``,
    ``"connected"`` or ``"closed"``.
    """

    def __init__(self, port: str | Callable[[], str] = "auto", *,
                 open_port: Callable[..., Any] | None = None,
                 heartbeat_timeout: float = 1.5, ack_interval: float = 0.5, connect_retry: float = 0.1,
                 backoff: tuple[float, float] = (0.05, 0.5), read_timeout: float = 0.02,
                 configure: Configure | None = None) -> None:
        if isinstance(port, str):
            self._where: Callable[[], str] = find_box if port == "auto" else (lambda: port)
            self.port_name = port
        else:
            self._where = port
            self.port_name = getattr(port, "__name__", "a finder")
        self._open = open_port or (lambda path: serial.serial_for_url(path, baudrate=115200,
                                                                      timeout=read_timeout))
        self.heartbeat_timeout = heartbeat_timeout
        self.ack_interval = ack_interval
        self.connect_retry = connect_retry
        self.backoff = backoff
        self.stats = LinkStats()
        self._events: queue.Queue[BoxEvent] = queue.Queue()
        self._listeners: list[Callable[[BoxEvent], None]] = []
        self._state_listeners: list[Callable[[str], None]] = []
        self._lock = threading.Lock()
        self._connected = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: Any = None
        self._desired = configure
        self.state = "connecting"
        self.session: int | None = None          # the box session whose events are being delivered
        self._expected = 0                       # the seq expected next from that session
        self._hello_here = False                 # the box said HELLO on this opening of the port
        self.hello: Hello | None = None
        self.snapshot: Snapshot | None = None
        self.last_heartbeat: Heartbeat | None = None

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> "BoxLink":
        """Start the link's thread (idempotent)."""
        if self.state == "closed":
            raise LinkClosedError("the link is closed")
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="box-link", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the thread and close the port; harmless twice."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._drop_port()
        if self.state != "closed":
            self.state = "closed"
            self._connected.clear()
            self._tell_state("closed")

    @property
    def closed(self) -> bool:
        return self.state == "closed"

    def __enter__(self) -> "BoxLink":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the program's side ------------------------------------------------
    def add_listener(self, fn: Callable[[BoxEvent], None]) -> None:
        """Call *fn* with every event, on the link's thread."""
        self._listeners.append(fn)

    def add_state_listener(self, fn: Callable[[str], None]) -> None:
        """Call *fn* with the new state whenever it changes."""
        self._state_listeners.append(fn)

    def get(self, timeout: float | None = None) -> BoxEvent | None:
        """The next event, or None when none came within *timeout* seconds."""
        self._check_open()
        try:
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    def wait_connected(self, timeout: float | None = None) -> bool:
        """Wait until the box has said HELLO on the current opening."""
        self._check_open()
        return self._connected.wait(timeout)

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def configure(self, dice_count: int = 2, roll_enabled: bool = True, turn: str = "none") -> None:
        """Ask the box to throw *dice_count* dice, enable or disable ROLL, and
        show whose turn it is; resent until the box's snapshot shows it."""
        self._check_open()
        desired = Configure(dice_count, roll_enabled, turn)
        encode(desired)                              # refuses a value the box cannot take, here
        with self._lock:
            self._desired = desired
        self._send(desired)

    def _check_open(self) -> None:
        if self.state == "closed":
            raise LinkClosedError("the link is closed")

    # -- the thread --------------------------------------------------------
    def _tell_state(self, state: str) -> None:
        for fn in list(self._state_listeners):
            try:
                fn(state)
            except Exception:  # noqa: a listener's fault must not stop the link
                log.exception("box link state listener failed")

    def _set_state(self, state: str) -> None:
        if state != self.state and self.state != "closed":
            self.state = state
            self._tell_state(state)

    def _send(self, msg: Message) -> None:
        port = self._port
        if port is None:
            return
        try:
            with self._lock:
                port.write(encode(msg))
        except (serial.SerialException, OSError) as exc:
            log.info("box link: write failed: %s", exc)

    def _drop_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError):
                pass

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                path = self._where()
                port = self._open(path)
            except (serial.SerialException, OSError, BoxNotFoundError) as exc:
                self.stats.open_failures += 1
                log.debug("box link: cannot open %s: %s", self.port_name, exc)
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            delay = self.backoff[0]
            self._port = port
            try:
                self._serve(port)
            except (serial.SerialException, OSError) as exc:
                log.info("box link: lost the port: %s", exc)
            self._drop_port()
            if self._stop.is_set():       # closing, not lost: close() says "closed"
                return
            if self._connected.is_set() or self.state == "connected":
                self.stats.disconnects += 1
            self._connected.clear()
            self._set_state("connecting")

    def _serve(self, port: Any) -> None:
        """Talk to the box on one opening of the port until it is lost."""
        decoder = Decoder()
        decoder.stats = self.stats.decoder            # keep counting across openings
        self._hello_here = False
        now = time.monotonic()
        last_rx = now
        last_connect = now
        last_ack = now
        self._send(Connect())
        while not self._stop.is_set():
            data = port.read(max(1, port.in_waiting))
            now = time.monotonic()
            if data:
                for msg in decoder.feed(data):
                    last_rx = now
                    if isinstance(msg, (Connect, Ack, Configure)):
                        continue                      # our own kind of message: an echo, not the box
                    self._handle(msg)
            if now - last_rx > self.heartbeat_timeout:
                log.info("box link: nothing from the box for %.1f s", now - last_rx)
                return
            if not self._hello_here and now - last_connect >= self.connect_retry:
                last_connect = now
                self._send(Connect())
            if now - last_ack >= self.ack_interval:
                last_ack = now
                self._heartbeat()

    def _heartbeat(self) -> None:
        if self._hello_here and self.session is not None:
            self._send(Ack(self.session, (self._expected - 1) & 0xFFFF))
        with self._lock:
            desired = self._desired
        if desired is not None and self._hello_here and not self._shows(desired):
            self._send(desired)

    def _shows(self, desired: Configure) -> bool:
        s = self.snapshot
        return s is not None and (s.dice_count, s.roll_enabled, s.turn) == \
            (desired.dice_count, desired.roll_enabled, desired.turn)

    def _handle(self, msg: Message) -> None:
        if isinstance(msg, Hello):
            if msg.session != self.session:
                # a box session new to this link: everything still in its outbox is new
                self.session = msg.session
                self._expected = msg.oldest
                self.stats.sessions.append(msg.session)
            self.hello = msg
            if not self._hello_here:
                self._hello_here = True
                self.stats.connects += 1
                self._connected.set()
                self._set_state("connected")
            self._send(Ack(self.session, (self._expected - 1) & 0xFFFF))
            with self._lock:
                desired = self._desired
            if desired is not None:
                self._send(desired)
        elif isinstance(msg, (Throw, Press)):
            if not self._hello_here or msg.session != self.session:
                self.stats.foreign += 1
                self._send(Connect())
                return
            if msg.seq == self._expected:
                self._expected = seq_next(msg.seq)
                self._deliver(msg)
                self._send(Ack(self.session, msg.seq))
                return
            if seq_after(msg.seq, self._expected):
                self.stats.gaps += 1
            else:
                self.stats.duplicates += 1
            self._send(Ack(self.session, (self._expected - 1) & 0xFFFF))
        elif isinstance(msg, Heartbeat):
            if self._hello_here and msg.session != self.session:
                self._hello_here = False          # the box restarted under us: learn its session
                self._send(Connect())
            else:
                self.last_heartbeat = msg
        elif isinstance(msg, Snapshot):
            if msg.session == self.session:
                self.snapshot = msg

    def _deliver(self, event: BoxEvent) -> None:
        self.stats.delivered += 1
        for fn in list(self._listeners):
            try:
                fn(event)
            except Exception:  # noqa: a listener's fault must not stop the link
                log.exception("box link listener failed on %r", event)
        self._events.put(event)          # last: once get() has it, every listener has had it
