"""firmware/wire.py, the frame format both ends share: its pure-Python CRC-32
(the path a MicroPython build without ``binascii.crc32`` takes) and its COBS."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from willughby.firmware_bridge import codec
from willughby.firmware_bridge.firmware import wire


@pytest.fixture
def pure_crc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Force wire.crc32 onto its own bit-by-bit loop."""
    monkeypatch.setattr(wire, "_crc32", None)


# -- CRC-32 --------------------------------------------------------------------

def test_pure_crc_check_value(pure_crc: None) -> None:
    # the CRC-32/ISO-HDLC check value of the nine ASCII digits
    assert wire._crc32 is None
    assert wire.crc32(b"123456789") == 0xCBF43926
    assert wire.crc32(b"") == 0


@given(st.binary(max_size=300))
def test_pure_crc_equals_zlib(data: bytes) -> None:
    saved = wire._crc32
    wire._crc32 = None
    try:
        ours = wire.crc32(data)
    finally:
        wire._crc32 = saved
    assert ours == zlib.crc32(data)


def test_frames_made_with_the_pure_crc_are_the_same_bytes(pure_crc: None) -> None:
    payload = bytes.fromhex("02fecaad0b0700010206 03".replace(" ", ""))
    with_pure = wire.frame(payload)
    assert with_pure == b"\x00" + wire.cobs_encode(payload + zlib.crc32(payload).to_bytes(4, "little")) + b"\x00"
    assert wire.unframe(with_pure[1:-1]) == payload


# -- COBS ----------------------------------------------------------------------

@given(st.binary(max_size=600))
@example(b"")
@example(b"\x00")
@example(b"\x00" * 600)
@example(bytes(range(1, 256)))                 # 255 non-zero bytes
@example(b"\x11" * 253)
@example(b"\x11" * 254)
@example(b"\x11" * 255)
@example(b"\x11" * 256)
@example(b"\x11" * 254 + b"\x00")
@example(b"\x00" + b"\x11" * 254)
@example(b"\x11" * 508)
@example(b"\x11" * 509)
@example(b"\x11" * 254 + b"\x00" + b"\x11" * 254)
def test_cobs_round_trips_without_zeros(data: bytes) -> None:
    encoded = wire.cobs_encode(data)
    assert 0 not in encoded
    assert wire.cobs_decode(encoded) == data
    # overhead: one byte, plus one for every full run of 254 non-zero bytes
    assert len(data) < len(encoded) <= len(data) + 1 + len(data) // 254


@pytest.mark.parametrize("n", [252, 253, 254, 255, 256, 507, 508, 509, 510])
def test_cobs_round_trips_near_the_block_limit(n: int) -> None:
    for data in (bytes([0x5A]) * n, bytes((i % 255) + 1 for i in range(n)),
                 bytes(i % 256 for i in range(n))):
        encoded = wire.cobs_encode(data)
        assert 0 not in encoded
        assert wire.cobs_decode(encoded) == data


def test_cobs_known_encodings() -> None:
    # the examples of Cheshire and Baker's paper / the usual tables
    assert wire.cobs_encode(b"\x00") == b"\x01\x01"
    assert wire.cobs_encode(b"\x00\x00") == b"\x01\x01\x01"
    assert wire.cobs_encode(b"\x11\x22\x00\x33") == b"\x03\x11\x22\x02\x33"
    assert wire.cobs_encode(b"\x11\x00\x00\x00") == b"\x02\x11\x01\x01\x01"


@pytest.mark.parametrize("bad", [b"", b"\x00", b"\x03\x11", b"\x02\x00", b"\x03\x11\x00", b"\x05\x01\x02"])
def test_cobs_decode_refuses_what_cobs_cannot_produce(bad: bytes) -> None:
    with pytest.raises(wire.WireError):
        wire.cobs_decode(bad)


# -- frames -------------------------------------------------------------------

def test_the_protocol_documents_example_payload() -> None:
    # docs/protocol.md, "An example": session 0x0badcafe throws 6-3 as its event 7
    payload = wire.pack({"type": "throw", "session": 0x0BADCAFE, "seq": 7, "source": "box", "dice": (6, 3)})
    assert payload == bytes.fromhex("02 fe ca ad 0b 07 00 01 02 06 03")
    data = codec.encode(codec.Throw(session=0x0BADCAFE, seq=7, source="box", dice=(6, 3)))
    assert data == wire.frame(payload)
    assert data[0] == 0 and data[-1] == 0 and 0 not in data[1:-1]


@given(st.binary(min_size=1, max_size=wire.MAX_PAYLOAD - 4))
def test_frame_unframe_round_trip(payload: bytes) -> None:
    data = wire.frame(payload)
    assert len(data) - 2 <= wire.MAX_FRAME
    assert wire.unframe(data[1:-1]) == payload


def test_frame_refuses_a_payload_too_long() -> None:
    wire.frame(b"\x01" * (wire.MAX_PAYLOAD - 4))
    with pytest.raises(wire.WireError):
        wire.frame(b"\x01" * (wire.MAX_PAYLOAD - 3))


@given(st.binary(min_size=1, max_size=wire.MAX_PAYLOAD - 4), st.data())
def test_unframe_refuses_any_single_corrupted_byte(payload: bytes, data: st.DataObject) -> None:
    block = bytearray(wire.frame(payload)[1:-1])
    i = data.draw(st.integers(0, len(block) - 1))
    new = data.draw(st.integers(1, 255).filter(lambda b: b != block[i]))
    block[i] = new
    with pytest.raises(wire.WireError):
        wire.unframe(bytes(block))


def test_seq_arithmetic_across_the_wrap() -> None:
    assert wire.seq_next(65535) == 0
    assert wire.seq_after(0, 65535)
    assert wire.seq_after(5, 65530)
    assert not wire.seq_after(65535, 0)
    assert not wire.seq_after(7, 7)
