"""The dice box's wire format (docs/protocol.md), in the subset of Python
that MicroPython runs too: the box's firmware copies this file as it is,
and the Pi's codec (``willughby.firmware_bridge.codec``) builds on it, so
both ends share one definition of every frame.

A frame on the wire is ``00 | COBS(payload | CRC-32) | 00``.  The payload
is one type byte and the message's fields, little-endian.  The zero bytes
around every frame are the only zeros on the wire (COBS removes them from
the inside), so a reader that lost its place finds the next frame at the
next zero, whatever garbage came before.

No annotations, dataclasses or f-string tricks: MicroPython must parse it.
"""

import struct

try:
    from binascii import crc32 as _crc32
except ImportError:  # a MicroPython build without binascii.crc32
    _crc32 = None

PROTOCOL_VERSION = 1

# payload (type byte, fields, CRC) never longer than this; COBS adds one
# byte to a block this short, so an encoded frame (between its zeros) is at
# most MAX_FRAME bytes
MAX_PAYLOAD = 64
MAX_FRAME = MAX_PAYLOAD + 1

# message types: box to Pi below 0x80, Pi to box from 0x80
HELLO = 0x01
THROW = 0x02
PRESS = 0x03
HEARTBEAT = 0x04
SNAPSHOT = 0x05
CONNECT = 0x81
ACK = 0x82
CONFIGURE = 0x83

NAMES = {HELLO: "hello", THROW: "throw", PRESS: "press", HEARTBEAT: "heartbeat",
         SNAPSHOT: "snapshot", CONNECT: "connect", ACK: "ack", CONFIGURE: "configure"}

# codes inside messages
SOURCES = {1: "box", 2: "hand"}          # THROW.source: the box's own dice, or pips entered by hand
BUTTONS = {1: "done", 2: "undo"}         # PRESS.button
TURNS = {0: "none", 1: "light", 2: "dark"}

MAX_DICE = 3
MAX_NAME = 24


class WireError(ValueError):
    """A payload that is not a message of this protocol (the reason says why)."""


def crc32(data):
    """CRC-32 (IEEE 802.3, as zlib computes it) of *data*."""
    if _crc32 is not None:
        return _crc32(data) & 0xFFFFFFFF
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: *data* with every zero byte removed."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data):
    """The bytes *data* encodes; raises WireError for anything COBS cannot produce."""
    out = bytearray()
    i = 0
    n = len(data)
    if n == 0:
        raise WireError("empty frame")
    while i < n:
        code = data[i]
        if code == 0:
            raise WireError("zero byte inside a frame")
        end = i + code
        if end > n:
            raise WireError("COBS block runs past the frame")
        block = data[i + 1:end]
        if 0 in block:
            raise WireError("zero byte inside a frame")
        out.extend(block)
        i = end
        if code < 255 and i < n:
            out.append(0)
    return bytes(out)


def frame(payload):
    """The bytes to send for one *payload* (type byte and fields)."""
    if len(payload) + 4 > MAX_PAYLOAD:
        raise WireError("payload of %d bytes is too long" % len(payload))
    body = bytes(payload) + struct.pack("<I", crc32(payload))
    return b"\x00" + cobs_encode(body) + b"\x00"


def unframe(block):
    """The payload inside *block* (the bytes between two zeros); raises WireError."""
    if len(block) > MAX_FRAME:
        raise WireError("frame of %d bytes is too long" % len(block))
    body = cobs_decode(block)
    if len(body) < 5:
        raise WireError("frame too short for a type and a CRC")
    payload = body[:-4]
    (crc,) = struct.unpack("<I", body[-4:])
    if crc != crc32(payload):
        raise WireError("CRC mismatch")
    return payload


# -- the messages' fields ----------------------------------------------------

def _dice_bytes(dice):
    if not 1 <= len(dice) <= MAX_DICE:
        raise WireError("a throw has 1 to %d dice, not %d" % (MAX_DICE, len(dice)))
    for d in dice:
        if not 1 <= d <= 6:
            raise WireError("a die shows 1 to 6, not %r" % (d,))
    return bytes([len(dice)]) + bytes(dice)


def _pips(data, i, least):
    """A count byte and that many pips from *data* at *i*: (tuple, next index)."""
    if i >= len(data):
        raise WireError("missing dice")
    n = data[i]
    if not least <= n <= MAX_DICE or i + 1 + n > len(data):
        raise WireError("bad count of dice: %d" % n)
    dice = tuple(data[i + 1:i + 1 + n])
    for d in dice:
        if not 1 <= d <= 6:
            raise WireError("a die shows 1 to 6, not %d" % d)
    return dice, i + 1 + n


def _code(table, value, what):
    for k in table:
        if table[k] == value:
            return k
    raise WireError("unknown %s %r" % (what, value))


def pack(msg):
    """The payload of a message given as a dict: ``{"type": "throw", ...}``."""
    kind = msg["type"]
    if kind == "hello":
        name = msg["firmware"].encode()
        if len(name) > MAX_NAME:
            raise WireError("firmware name longer than %d bytes" % MAX_NAME)
        return struct.pack("<BBIHHB", HELLO, msg["protocol"], msg["session"], msg["oldest"],
                           msg["next"], len(name)) + name
    if kind == "throw":
        return struct.pack("<BIHB", THROW, msg["session"], msg["seq"],
                           _code(SOURCES, msg["source"], "source")) + _dice_bytes(msg["dice"])
    if kind == "press":
        return struct.pack("<BIHB", PRESS, msg["session"], msg["seq"],
                           _code(BUTTONS, msg["button"], "button"))
    if kind == "heartbeat":
        return struct.pack("<BIIHB", HEARTBEAT, msg["session"], msg["uptime_ms"], msg["next"],
                           msg["unacked"])
    if kind == "snapshot":
        head = struct.pack("<BIHHBBB", SNAPSHOT, msg["session"], msg["oldest"], msg["next"],
                           _dice_count(msg["dice_count"]), 1 if msg["roll_enabled"] else 0,
                           _code(TURNS, msg["turn"], "turn"))
        shown = msg["shown"]
        entry = msg["entry"]
        return head + (_dice_bytes(shown) if shown else b"\x00") + \
            (_dice_bytes(entry) if entry else b"\x00")
    if kind == "connect":
        return struct.pack("<BB", CONNECT, msg["protocol"])
    if kind == "ack":
        return struct.pack("<BIH", ACK, msg["session"], msg["seq"])
    if kind == "configure":
        return struct.pack("<BBBB", CONFIGURE, _dice_count(msg["dice_count"]), 1 if msg["roll_enabled"] else 0,
                           _code(TURNS, msg["turn"], "turn"))
    raise WireError("unknown message type %r" % (kind,))


def _fixed(payload, fmt):
    size = struct.calcsize(fmt)
    if len(payload) != size:
        raise WireError("%s payload of %d bytes, not %d" % (NAMES[payload[0]], len(payload), size))
    return struct.unpack(fmt, payload)


def _flag(value):
    if value not in (0, 1):
        raise WireError("a flag is 0 or 1, not %d" % value)
    return value == 1


def _dice_count(value):
    if not 1 <= value <= MAX_DICE:
        raise WireError("dice count 1 to %d, not %d" % (MAX_DICE, value))
    return value


def unpack(payload):
    """The message (a dict) in *payload*; raises WireError for anything else."""
    if len(payload) == 0:
        raise WireError("empty payload")
    t = payload[0]
    if t == HELLO:
        if len(payload) < 11:
            raise WireError("hello payload too short")
        _, proto, session, oldest, nxt, n = struct.unpack("<BBIHHB", payload[:11])
        if len(payload) != 11 + n or n > MAX_NAME:
            raise WireError("hello firmware name of the wrong length")
        try:
            name = bytes(payload[11:]).decode()
        except UnicodeError:
            raise WireError("hello firmware name is not UTF-8")
        return {"type": "hello", "protocol": proto, "session": session, "oldest": oldest,
                "next": nxt, "firmware": name}
    if t == THROW:
        if len(payload) < 8:
            raise WireError("throw payload too short")
        _, session, seq, source = struct.unpack("<BIHB", payload[:8])
        if source not in SOURCES:
            raise WireError("unknown throw source %d" % source)
        dice, end = _pips(payload, 8, 1)
        if end != len(payload):
            raise WireError("throw payload of the wrong length")
        return {"type": "throw", "session": session, "seq": seq, "source": SOURCES[source], "dice": dice}
    if t == PRESS:
        _, session, seq, button = _fixed(payload, "<BIHB")
        if button not in BUTTONS:
            raise WireError("unknown button %d" % button)
        return {"type": "press", "session": session, "seq": seq, "button": BUTTONS[button]}
    if t == HEARTBEAT:
        _, session, uptime, nxt, unacked = _fixed(payload, "<BIIHB")
        return {"type": "heartbeat", "session": session, "uptime_ms": uptime, "next": nxt,
                "unacked": unacked}
    if t == SNAPSHOT:
        if len(payload) < 12:
            raise WireError("snapshot payload too short")
        _, session, oldest, nxt, count, roll, turn = struct.unpack("<BIHHBBB", payload[:12])
        if turn not in TURNS:
            raise WireError("unknown turn %d" % turn)
        shown, i = _pips(payload, 12, 0)
        entry, i = _pips(payload, i, 0)
        if i != len(payload):
            raise WireError("snapshot payload of the wrong length")
        return {"type": "snapshot", "session": session, "oldest": oldest, "next": nxt,
                "dice_count": _dice_count(count), "roll_enabled": _flag(roll), "turn": TURNS[turn],
                "shown": shown, "entry": entry}
    if t == CONNECT:
        _, proto = _fixed(payload, "<BB")
        return {"type": "connect", "protocol": proto}
    if t == ACK:
        _, session, seq = _fixed(payload, "<BIH")
        return {"type": "ack", "session": session, "seq": seq}
    if t == CONFIGURE:
        _, count, roll, turn = _fixed(payload, "<BBBB")
        if turn not in TURNS:
            raise WireError("unknown turn %d" % turn)
        return {"type": "configure", "dice_count": _dice_count(count), "roll_enabled": _flag(roll),
                "turn": TURNS[turn]}
    raise WireError("unknown message type 0x%02x" % t)


def seq_after(a, b):
    """Whether sequence number *a* comes after *b* (16-bit serial arithmetic)."""
    return 0 < ((a - b) & 0xFFFF) < 0x8000


def seq_next(a):
    return (a + 1) & 0xFFFF
