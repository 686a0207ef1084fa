"""The dice box's behaviour (docs/protocol.md), apart from its pins.

``Box`` is handed three functions -- ``write(bytes)`` to send to the Pi,
``now_ms()`` a clock in milliseconds that never goes back, ``random_bytes(n)``
the hardware's random source -- and is told of button presses
(:meth:`Box.press`), bytes from the Pi (:meth:`Box.receive`) and the passing
of time (:meth:`Box.tick`). ``main.py`` joins it to the Pico's pins; the Pi's
fake box (``willughby.firmware_bridge.fake``) runs this same class, so the
tests exercise the firmware's own logic.

MicroPython runs this file: no annotations, no dataclasses.
"""

try:
    from . import wire
except ImportError:          # MicroPython, where the files lie side by side
    import wire

FIRMWARE = "willughby-box 1.0"
HEARTBEAT_MS = 500
RETRANSMIT_MS = 250
RESEND_AT_MOST = 8           # events resent in one round
OUTBOX_SIZE = 16             # unacknowledged events held; full: new throws refused
LINK_TIMEOUT_MS = 1500       # no frame from the Pi for this long: the link light goes off
ERROR_BLINK_MS = 400


def fair_die(random_bytes):
    """One die, 1..6, every face exactly equally likely: a random byte below
    252 (= 6 x 42) taken mod 6, drawn again at 252 or above."""
    while True:
        b = random_bytes(1)[0]
        if b < 252:
            return b % 6 + 1


class Box:
    """The box's state and its side of the protocol."""

    def __init__(self, write, now_ms, random_bytes, session=None, firmware=FIRMWARE, dice_count=2):
        self._write = write
        self._now = now_ms
        self._random = random_bytes
        if session is None:
            b = random_bytes(4)
            session = b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24)
        self.session = session
        self.firmware = firmware
        self.dice_count = dice_count
        self.roll_enabled = True
        self.turn = "none"
        self.shown = ()              # dice on the lights
        self.entry = ()              # pips entered by hand so far
        self.next_seq = 0
        self.outbox = []             # [(seq, payload)], oldest first
        self._rx = bytearray()
        self._rx_overflow = False
        t = now_ms()
        self._last_heartbeat = t
        self._last_resend = t
        self._last_heard = None      # when a valid frame last came from the Pi
        self._error_until = t
        self.rejected = 0            # frames from the Pi that failed a check

    # -- what the lights show ---------------------------------------------
    @property
    def link_ok(self):
        """Whether the Pi has been heard from within LINK_TIMEOUT_MS."""
        return self._last_heard is not None and self._now() - self._last_heard < LINK_TIMEOUT_MS

    @property
    def error(self):
        """Whether the error light is on (a refused press, for a moment)."""
        return self._now() < self._error_until

    @property
    def oldest(self):
        return self.outbox[0][0] if self.outbox else self.next_seq

    # -- sending -----------------------------------------------------------
    def _send(self, msg):
        self._write(wire.frame(wire.pack(msg)))

    def hello(self):
        """Say HELLO, then a SNAPSHOT (at start, and when the Pi sends CONNECT)."""
        self._send({"type": "hello", "protocol": wire.PROTOCOL_VERSION, "session": self.session,
                    "oldest": self.oldest, "next": self.next_seq, "firmware": self.firmware})
        self.snapshot()

    start = hello

    def snapshot(self):
        self._send({"type": "snapshot", "session": self.session, "oldest": self.oldest,
                    "next": self.next_seq, "dice_count": self.dice_count,
                    "roll_enabled": self.roll_enabled, "turn": self.turn,
                    "shown": self.shown, "entry": self.entry})

    def _event(self, msg):
        """Number, keep and send one event; False (and the error light) if the outbox is full."""
        if len(self.outbox) >= OUTBOX_SIZE:
            self._refuse()
            return False
        msg["session"] = self.session
        msg["seq"] = self.next_seq
        payload = wire.pack(msg)
        if not self.outbox:
            self._last_resend = self._now()
        self.outbox.append((self.next_seq, payload))
        self.next_seq = wire.seq_next(self.next_seq)
        self._write(wire.frame(payload))
        return True

    def _refuse(self):
        self._error_until = self._now() + ERROR_BLINK_MS

    # -- buttons -----------------------------------------------------------
    def press(self, button):
        """A button pressed: ``"roll"``, ``"done"``, ``"undo"``, or a pip 1..6."""
        if button == "roll":
            if not self.roll_enabled or len(self.outbox) >= OUTBOX_SIZE:
                self._refuse()
                return
            dice = tuple(fair_die(self._random) for _ in range(self.dice_count))
            if self._event({"type": "throw", "source": "box", "dice": dice}):
                self.shown = dice
                self.entry = ()
        elif button in (1, 2, 3, 4, 5, 6):
            if len(self.outbox) >= OUTBOX_SIZE:
                self._refuse()
                return
            entry = self.entry + (button,)
            if len(entry) < self.dice_count:
                self.entry = entry
            elif self._event({"type": "throw", "source": "hand", "dice": entry}):
                self.shown = entry
                self.entry = ()
        elif button == "undo":
            if self.entry:
                self.entry = ()
            else:
                self._event({"type": "press", "button": "undo"})
        elif button == "done":
            self._event({"type": "press", "button": "done"})
        else:
            raise ValueError("no button %r" % (button,))

    # -- receiving ---------------------------------------------------------
    def receive(self, data):
        """Bytes from the Pi, in any chunks."""
        for b in data:
            if b == 0:
                if self._rx and not self._rx_overflow:
                    self._frame(bytes(self._rx))
                elif self._rx_overflow:
                    self.rejected += 1
                self._rx = bytearray()
                self._rx_overflow = False
            elif not self._rx_overflow:
                self._rx.append(b)
                if len(self._rx) > wire.MAX_FRAME:
                    self._rx_overflow = True
                    self._rx = bytearray()

    def _frame(self, block):
        try:
            msg = wire.unpack(wire.unframe(block))
        except wire.WireError:
            self.rejected += 1
            return
        kind = msg["type"]
        if kind in ("connect", "ack", "configure"):
            self._last_heard = self._now()      # the Pi's messages only: an echo of ours is not the Pi
        if kind == "connect":
            self.hello()
        elif kind == "ack":
            if msg["session"] == self.session:
                self._acked(msg["seq"])
        elif kind == "configure":
            self.dice_count = msg["dice_count"]
            self.roll_enabled = msg["roll_enabled"]
            self.turn = msg["turn"]
            if len(self.entry) >= self.dice_count:
                self.entry = ()
            self.snapshot()
        # anything else is a box-to-Pi message echoed back: ignored

    def _acked(self, seq):
        """Drop every event up to and including *seq*. An ack older than the
        outbox covers nothing new; one of a number never sent is ignored."""
        covered = (seq - self.oldest + 1) & 0xFFFF
        if covered <= len(self.outbox):
            del self.outbox[:covered]

    # -- time --------------------------------------------------------------
    def tick(self):
        """Heartbeat and retransmission; call it often (every few ms)."""
        t = self._now()
        if self.outbox and t - self._last_resend >= RETRANSMIT_MS:
            self._last_resend = t
            for _, payload in self.outbox[:RESEND_AT_MOST]:
                self._write(wire.frame(payload))
        if t - self._last_heartbeat >= HEARTBEAT_MS:
            self._last_heartbeat = t
            self._send({"type": "heartbeat", "session": self.session, "uptime_ms": t & 0xFFFFFFFF,
                        "next": self.next_seq, "unacked": len(self.outbox)})
