"""The protocol codec (docs/protocol.md): byte fixtures, and properties over
any byte stream: no crash, no false message, every valid frame decoded."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from willughby.firmware_bridge.codec import (MAX_FRAME, Ack, Configure, Connect, Decoder, Hello, Heartbeat, Press,
                                             Snapshot, Throw, WireError, decode_all, encode, from_json, to_json)
from willughby.firmware_bridge.firmware import wire

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "frames.json").read_text())


# -- fixtures ----------------------------------------------------------------

@pytest.mark.parametrize("case", FIXTURES, ids=[c["message"]["type"] for c in FIXTURES])
def test_fixture_decodes_to_its_message_and_back(case):
    data = bytes.fromhex(case["hex"])
    msgs, stats = decode_all([data])
    assert [to_json(m) for m in msgs] == [case["message"]]
    assert stats.rejected_bytes == 0
    assert encode(from_json(case["message"])) == data


def test_the_worked_example_of_protocol_md():
    # docs/protocol.md, "An example": THROW of 6-3, event 7 of session 0x0badcafe
    payload = bytes.fromhex("02 fe ca ad 0b 07 00 01 02 06 03")
    crc = zlib.crc32(payload).to_bytes(4, "little")
    assert crc == bytes.fromhex("f9 ee a6 4a")
    expected = bytes.fromhex("00 07 02 fe ca ad 0b 07 09 01 02 06 03 f9 ee a6 4a 00")
    assert encode(Throw(session=0x0BADCAFE, seq=7, source="box", dice=(6, 3))) == expected


def test_every_fixture_type_is_covered():
    types = {c["message"]["type"] for c in FIXTURES}
    assert types == set(wire.NAMES.values())


# -- what may not be encoded --------------------------------------------------

@pytest.mark.parametrize("msg, words", [
    (Throw(1, 0, "box", (7, 1)), "1 to 6"),
    (Throw(1, 0, "box", (0, 1)), "1 to 6"),
    (Throw(1, 0, "box", (1, 2, 3, 4)), "1 to 3 dice"),
    (Throw(1, 0, "box", ()), "1 to 3 dice"),
    (Throw(1, 0, "cup", (1, 2)), "source"),
    (Press(1, 0, "roll"), "button"),
    (Press(1, 70000, "done"), "out of range"),
    (Configure(2, True, "white"), "turn"),
    (Hello(1, 1, 0, 0, "x" * 25), "firmware name"),
    (Ack(-1, 0), "out of range"),
])
def test_encode_refuses_what_the_protocol_cannot_carry(msg, words):
    with pytest.raises(WireError, match=words):
        encode(msg)


def test_wire_error_is_a_value_error():
    assert issubclass(WireError, ValueError)


# -- what the decoder rejects, and why ----------------------------------------

def _frame_bytes(payload: bytes) -> bytes:
    return wire.frame(payload)


def test_a_flipped_bit_is_a_crc_mismatch():
    good = bytearray(encode(Press(5, 1, "done")))
    good[4] ^= 0x10
    msgs, stats = decode_all([bytes(good)])
    assert msgs == []
    assert stats.reasons["bad CRC"] + stats.reasons["bad COBS"] == 1
    assert stats.rejected_bytes == len(good) - 2      # all but the two delimiters


def test_a_well_framed_payload_of_an_unknown_type_is_rejected():
    msgs, stats = decode_all([_frame_bytes(bytes([0x42, 1, 2, 3]))])
    assert msgs == [] and stats.reasons == {"bad message": 1}


@pytest.mark.parametrize("payload", [
    bytes([wire.THROW]) + (5).to_bytes(4, "little") + b"\x01\x00\x01\x02\x06\x09",   # a die of 9
    bytes([wire.PRESS]) + (5).to_bytes(4, "little") + b"\x01\x00\x07",               # button 7
    bytes([wire.ACK]) + (5).to_bytes(4, "little"),                                    # too short
    bytes([wire.CONFIGURE, 4, 1, 0]),                                                 # four dice
    bytes([wire.CONFIGURE, 2, 2, 0]),                                                 # a flag of 2
])
def test_a_field_out_of_range_is_rejected_whole(payload):
    msgs, stats = decode_all([_frame_bytes(payload)])
    assert msgs == [] and stats.reasons == {"bad message": 1}


def test_garbage_before_a_frame_cannot_swallow_it():
    frame = encode(Throw(9, 3, "hand", (2, 2)))
    msgs, stats = decode_all([b"\xff" * 30 + frame])
    assert msgs == [Throw(9, 3, "hand", (2, 2))]
    assert stats.rejected_bytes == 30


def test_a_long_run_without_a_zero_is_dropped_as_it_comes():
    d = Decoder()
    for _ in range(100):
        assert d.feed(b"\x55" * 10_000) == []
    assert len(d._buf) <= MAX_FRAME                     # memory stays bounded
    assert d.feed(encode(Connect())) == [Connect()]
    assert d.stats.reasons["too long"] == 1
    assert d.stats.rejected_bytes == 1_000_000


def test_a_block_one_byte_over_the_longest_frame_is_rejected_before_decoding():
    # a 65-byte body (over MAX_PAYLOAD) needs a 66-byte block: MAX_FRAME + 1
    body = bytes([wire.HELLO]) + b"\x01" * 60
    block = wire.cobs_encode(body + zlib.crc32(body).to_bytes(4, "little"))
    assert len(block) == MAX_FRAME + 1
    msgs, stats = decode_all([b"\x00" + block + b"\x00"])
    assert msgs == [] and stats.reasons == {"too long": 1}


def test_the_longest_message_fits_a_frame():
    frame = encode(Hello(1, 0xFFFFFFFF, 0xFFFF, 0xFFFF, "x" * 24))
    assert len(frame) - 2 <= MAX_FRAME


def test_an_unfinished_frame_at_the_end_is_counted():
    frame = encode(Ack(1, 2))
    msgs, stats = decode_all([frame[:-3]])
    assert msgs == [] and stats.reasons == {"unfinished": 1}


def test_back_to_back_delimiters_are_not_rejections():
    msgs, stats = decode_all([encode(Connect()) + encode(Connect()) + b"\x00\x00\x00"])
    assert msgs == [Connect(), Connect()]
    assert stats.rejected_bytes == 0 and stats.rejected_frames == 0


def test_from_json_refuses_what_is_not_a_message():
    with pytest.raises(WireError):
        from_json({"type": "shout"})
    with pytest.raises(WireError):
        from_json({"type": "ack", "session": 1})


# -- properties --------------------------------------------------------------

u16 = st.integers(0, 0xFFFF)
u32 = st.integers(0, 0xFFFFFFFF)
dice = st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple)
maybe_dice = st.lists(st.integers(1, 6), min_size=0, max_size=3).map(tuple)
turn = st.sampled_from(["none", "light", "dark"])
messages = st.one_of(
    st.builds(Hello, st.integers(0, 255), u32, u16, u16, st.text(max_size=6)),
    st.builds(Throw, u32, u16, st.sampled_from(["box", "hand"]), dice),
    st.builds(Press, u32, u16, st.sampled_from(["done", "undo"])),
    st.builds(Heartbeat, u32, u32, u16, st.integers(0, 255)),
    st.builds(Snapshot, u32, u16, u16, st.integers(1, 3), st.booleans(), turn, maybe_dice, maybe_dice),
    st.builds(Connect, st.integers(0, 255)),
    st.builds(Ack, u32, u16),
    st.builds(Configure, st.integers(1, 3), st.booleans(), turn),
)


def _chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    out, last = [], 0
    for p in points + [len(data)]:
        out.append(data[last:p])
        last = p
    return out


@given(messages)
def test_every_message_round_trips(msg):
    assert decode_all([encode(msg)])[0] == [msg]


@settings(max_examples=300)
@given(st.binary(max_size=2000), st.lists(st.integers(0, 4000), max_size=20))
def test_any_byte_stream_decodes_without_crash_or_false_message(data, cuts):
    d = Decoder()
    out = []
    for chunk in _chunked(data, cuts):
        out.extend(d.feed(chunk))
    d.close()
    assert out == []                    # random bytes do not pass COBS, a CRC-32 and the field checks
    assert d.stats.bytes_in == len(data)
    assert d.stats.rejected_bytes == len(data) - data.count(0)


@settings(max_examples=300)
@given(st.lists(st.tuples(st.binary(max_size=80), messages), max_size=12), st.binary(max_size=80),
       st.lists(st.integers(0, 4000), max_size=20))
def test_every_valid_frame_among_garbage_is_decoded_in_order(parts, tail, cuts):
    stream = b"".join(garbage + encode(msg) for garbage, msg in parts) + tail
    d = Decoder()
    out = []
    for chunk in _chunked(stream, cuts):
        out.extend(d.feed(chunk))
    d.close()
    assert out == [msg for _, msg in parts]
    frames = sum(len(encode(msg)) for _, msg in parts)
    garbage = sum(len(g) - g.count(0) for g, _ in parts) + len(tail) - tail.count(0)
    assert d.stats.rejected_bytes == garbage
    assert d.stats.bytes_in == len(stream) and frames + sum(len(g) for g, _ in parts) + len(tail) == len(stream)
