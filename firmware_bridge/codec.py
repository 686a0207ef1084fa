"""The dice box protocol as values: encode a message to bytes, decode a byte
stream to messages (docs/protocol.md).

Pure: no port, no thread, no clock (docs/house-conventions.md, convention 8). The frame and
field layouts are ``firmware/wire.py``'s, the very file the box runs, so the
two ends cannot drift apart; this module adds typed messages and a stream
decoder that takes bytes in any chunks and counts what it rejects.

>>> from willughby.firmware_bridge.codec import Decoder, Throw, encode
>>> data = encode(Throw(session=7, seq=0, source="box", dice=(6, 3)))
>>> d = Decoder()
>>> d.feed(b"noise" + data[:5]) + d.feed(data[5:])
[Throw(session=7, seq=0, source='box', dice=(6, 3))]
>>> d.stats.rejected_bytes
5
"""

from __future__ import annotations

import dataclasses
import struct
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Union

from .firmware import wire
from .firmware.wire import MAX_FRAME, PROTOCOL_VERSION, WireError

__all__ = ["Hello", "Throw", "Press", "Heartbeat", "Snapshot", "Connect", "Ack", "Configure", "Message",
           "BoxEvent", "encode", "decode_payload", "to_json", "from_json", "Decoder", "DecoderStats",
           "WireError", "PROTOCOL_VERSION", "MAX_FRAME"]


@dataclass(frozen=True)
class Hello:
    """Box to Pi: who the box is and where its numbering stands."""

    protocol: int
    session: int
    oldest: int
    next: int
    firmware: str


@dataclass(frozen=True)
class Throw:
    """Box to Pi (an event): dice thrown, by the box (``"box"``) or entered by hand (``"hand"``)."""

    session: int
    seq: int
    source: str
    dice: tuple[int, ...]


@dataclass(frozen=True)
class Press:
    """Box to Pi (an event): DONE or UNDO pressed (``"done"``, ``"undo"``)."""

    session: int
    seq: int
    button: str


@dataclass(frozen=True)
class Heartbeat:
    """Box to Pi, every 500 ms."""

    session: int
    uptime_ms: int
    next: int
    unacked: int


@dataclass(frozen=True)
class Snapshot:
    """Box to Pi: what the box shows and how it is set (after HELLO and CONFIGURE)."""

    session: int
    oldest: int
    next: int
    dice_count: int
    roll_enabled: bool
    turn: str
    shown: tuple[int, ...] = ()
    entry: tuple[int, ...] = ()


@dataclass(frozen=True)
class Connect:
    """Pi to box: please say HELLO (sent on every opening of the line)."""

    protocol: int = PROTOCOL_VERSION


@dataclass(frozen=True)
class Ack:
    """Pi to box: every event of *session* up to and including *seq* arrived."""

    session: int
    seq: int


@dataclass(frozen=True)
class Configure:
    """Pi to box: how many dice a throw has, whether ROLL works, whose turn the lights show."""

    dice_count: int = 2
    roll_enabled: bool = True
    turn: str = "none"


Message = Union[Hello, Throw, Press, Heartbeat, Snapshot, Connect, Ack, Configure]
BoxEvent = Union[Throw, Press]

_CLASSES: dict[str, type] = {"hello": Hello, "throw": Throw, "press": Press, "heartbeat": Heartbeat,
                             "snapshot": Snapshot, "connect": Connect, "ack": Ack, "configure": Configure}
_NAMES = {cls: name for name, cls in _CLASSES.items()}


def to_json(msg: Message) -> dict[str, Any]:
    """The message as a JSON-ready dict with its ``"type"``."""
    out: dict[str, Any] = {"type": _NAMES[type(msg)]}
    for f in dataclasses.fields(msg):
        value = getattr(msg, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def from_json(data: dict[str, Any]) -> Message:
    """The message a dict of :func:`to_json`'s form describes."""
    try:
        cls = _CLASSES[data["type"]]
    except (KeyError, TypeError):
        raise WireError(f"not a message: {data!r}") from None
    kwargs = {k: v for k, v in data.items() if k != "type"}
    for name in ("dice", "shown", "entry"):
        if name in kwargs:
            kwargs[name] = tuple(kwargs[name])
    try:
        msg: Message = cls(**kwargs)
    except TypeError as exc:
        raise WireError(f"bad fields for {data['type']}: {exc}") from None
    return msg


def encode(msg: Message) -> bytes:
    """The bytes that carry *msg* on the wire, delimiters included.

    Raises :class:`WireError` (a ``ValueError``) for a value the protocol
    cannot carry (a die of 7, four dice, an unknown button)."""
    try:
        payload = wire.pack(to_json(msg))
    except (KeyError, TypeError) as exc:
        raise WireError(f"cannot encode {msg!r}: {exc}") from None
    except (OverflowError, struct.error) as exc:   # a field too large for its bytes
        raise WireError(f"cannot encode {msg!r}: a number out of range ({exc})") from None
    return wire.frame(payload)


def decode_payload(payload: bytes) -> Message:
    """The message in one payload (type byte and fields, without CRC)."""
    return from_json(wire.unpack(payload))


@dataclass
class DecoderStats:
    """What a :class:`Decoder` has seen: bytes in, messages out, what it threw away and why."""

    bytes_in: int = 0
    messages: int = 0
    rejected_bytes: int = 0
    rejected_frames: int = 0
    reasons: Counter[str] = field(default_factory=Counter)

    def to_json(self) -> dict[str, Any]:
        return {"bytes_in": self.bytes_in, "messages": self.messages, "rejected_bytes": self.rejected_bytes,
                "rejected_frames": self.rejected_frames, "reasons": dict(self.reasons)}


class Decoder:
    """Turns a byte stream, fed in chunks of any size, into messages.

    Everything between two zero bytes is one candidate frame; a candidate
    that fails any check is dropped whole and counted in :attr:`stats` (its
    bytes, and the reason), never half-delivered. A run of more than
    ``MAX_FRAME`` bytes without a zero is dropped as it comes, so memory
    stays bounded whatever the input.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = 0          # bytes of an over-long run already dropped
        self.stats = DecoderStats()

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Message]:
        """The messages completed by *chunk*, in order."""
        self.stats.bytes_in += len(chunk)
        if not chunk:
            return []
        parts = bytes(chunk).split(b"\x00")
        out: list[Message] = []
        # parts[0] continues what is buffered; each later part starts after a zero
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            if i == 0:
                if self._overflow:
                    self._overflow += len(part)
                else:
                    self._buf += part
                    if len(self._buf) > MAX_FRAME:
                        self._overflow = len(self._buf)
                        self._buf = bytearray()
                if last:
                    break
                self._end_candidate(out)
                continue
            if last:
                if len(part) > MAX_FRAME:
                    self._overflow = len(part)
                else:
                    self._buf += part
                break
            if part:
                self._candidate(part, out)
        return out

    def close(self) -> None:
        """The stream has ended: whatever is buffered is an unfinished frame, counted as rejected."""
        if self._overflow:
            self._reject(self._overflow, "too long")
        elif self._buf:
            self._reject(len(self._buf), "unfinished")
        self._buf = bytearray()
        self._overflow = 0

    def _end_candidate(self, out: list[Message]) -> None:
        if self._overflow:
            self._reject(self._overflow, "too long")
            self._overflow = 0
        elif self._buf:
            block = bytes(self._buf)
            self._buf = bytearray()
            self._candidate(block, out)

    def _reject(self, n: int, reason: str) -> None:
        self.stats.rejected_bytes += n
        self.stats.rejected_frames += 1
        self.stats.reasons[reason] += 1

    def _candidate(self, block: bytes, out: list[Message]) -> None:
        n = len(block)
        if n > MAX_FRAME:
            self._reject(n, "too long")
            return
        try:
            body = wire.cobs_decode(block)
        except WireError:
            self._reject(n, "bad COBS")
            return
        if len(body) < 5:
            self._reject(n, "too short")
            return
        payload = body[:-4]
        if int.from_bytes(body[-4:], "little") != wire.crc32(payload):
            self._reject(n, "bad CRC")
            return
        try:
            msg = decode_payload(payload)
        except WireError:
            self._reject(n, "bad message")
            return
        self.stats.messages += 1
        out.append(msg)


def decode_all(data: Iterable[bytes]) -> tuple[list[Message], DecoderStats]:
    """Decode a whole stream given as chunks; the stream's end closes the decoder."""
    d = Decoder()
    out: list[Message] = []
    for chunk in data:
        out.extend(d.feed(chunk))
    d.close()
    return out, d.stats
