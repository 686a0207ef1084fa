"""The box's behaviour (firmware/box.py) through the Pi's own codec: every frame
the box writes must decode with the host's Decoder, and every frame the host
encodes must be accepted by the box (docs/protocol.md)."""

from __future__ import annotations

import os
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from willughby.firmware_bridge.codec import (Ack, Configure, Connect, Decoder, Heartbeat, Hello, Press,
                                             Snapshot, Throw, encode)
from willughby.firmware_bridge.firmware import box as boxmod
from willughby.firmware_bridge.firmware import wire
from willughby.firmware_bridge.firmware.box import (HEARTBEAT_MS, LINK_TIMEOUT_MS, OUTBOX_SIZE,
                                                    RESEND_AT_MOST, RETRANSMIT_MS, Box, fair_die)

from .helpers import Script

SESSION = 0x0BADCAFE


class Rig:
    """A Box on a hand-moved clock, its output read by the Pi's Decoder."""

    def __init__(self, random_bytes=os.urandom, session: int | None = SESSION, **kw) -> None:
        self.ms = 0
        self.out = bytearray()
        self.decoder = Decoder()
        self.box = Box(self.out.extend, lambda: self.ms, random_bytes, session=session, **kw)

    def messages(self) -> list:
        """What the box wrote since the last call, decoded (nothing may be rejected)."""
        data = bytes(self.out)
        self.out.clear()
        msgs = self.decoder.feed(data)
        assert self.decoder.stats.rejected_frames == 0, self.decoder.stats.reasons
        return msgs

    def send(self, *msgs) -> None:
        """The Pi sends these to the box."""
        for m in msgs:
            self.box.receive(encode(m))

    def advance(self, ms: int) -> None:
        """Let *ms* milliseconds pass, one at a time, ticking the box each one."""
        for _ in range(ms):
            self.ms += 1
            self.box.tick()

    def events(self) -> list:
        return [m for m in self.messages() if isinstance(m, (Throw, Press))]


@pytest.fixture
def rig() -> Rig:
    r = Rig()
    r.box.start()
    r.messages()
    return r


def held_seqs(b: Box) -> list[int]:
    return [seq for seq, _ in b.outbox]


# -- HELLO and SNAPSHOT ----------------------------------------------------------

def test_start_says_hello_then_snapshot() -> None:
    r = Rig()
    r.box.start()
    assert r.messages() == [
        Hello(protocol=1, session=SESSION, oldest=0, next=0, firmware=boxmod.FIRMWARE),
        Snapshot(session=SESSION, oldest=0, next=0, dice_count=2, roll_enabled=True, turn="none",
                 shown=(), entry=()),
    ]


def test_a_random_session_comes_from_the_random_source() -> None:
    r = Rig(random_bytes=Script(b"\x78\x56\x34\x12"), session=None)
    assert r.box.session == 0x12345678
    r.box.start()
    assert r.messages()[0].session == 0x12345678


def test_connect_brings_hello_and_snapshot_with_the_numbering(rig: Rig) -> None:
    rig.box.press("done")
    rig.box.press(4)
    rig.messages()
    rig.send(Connect())
    assert rig.messages() == [
        Hello(protocol=1, session=SESSION, oldest=0, next=1, firmware=boxmod.FIRMWARE),
        Snapshot(session=SESSION, oldest=0, next=1, dice_count=2, roll_enabled=True, turn="none",
                 shown=(), entry=(4,)),
    ]
    assert rig.box.link_ok


# -- ROLL ------------------------------------------------------------------------

@pytest.mark.parametrize("count", [1, 2, 3])
def test_roll_throws_dice_count_dice(rig: Rig, count: int) -> None:
    rig.send(Configure(dice_count=count, roll_enabled=True, turn="light"))
    (snap,) = rig.messages()
    assert snap.dice_count == count and snap.turn == "light"
    for seq in range(40):
        rig.box.press("roll")
        (throw,) = rig.messages()
        assert throw.source == "box" and throw.seq == seq and throw.session == SESSION
        assert len(throw.dice) == count
        assert all(1 <= d <= 6 for d in throw.dice)
        assert rig.box.shown == throw.dice
        rig.send(Ack(session=SESSION, seq=seq))


def test_roll_uses_fair_die_redrawing_high_bytes() -> None:
    script = Script(b"\xff\x00\xfd\xfc\x05")      # 255 redrawn, 0 -> 1; 253, 252 redrawn, 5 -> 6
    r = Rig(random_bytes=script)
    r.box.press("roll")
    (throw,) = r.events()
    assert throw.dice == (1, 6)
    assert script.taken == 5


def test_roll_clears_a_hand_entry(rig: Rig) -> None:
    rig.box.press(2)
    rig.box.press("roll")
    assert rig.box.entry == ()
    (throw,) = rig.events()
    assert throw.source == "box"


def test_roll_refused_when_disabled(rig: Rig) -> None:
    rig.send(Configure(dice_count=2, roll_enabled=False, turn="none"))
    (snap,) = rig.messages()
    assert snap.roll_enabled is False
    rig.box.press("roll")
    assert rig.messages() == []
    assert rig.box.error
    assert rig.box.outbox == []
    rig.advance(boxmod.ERROR_BLINK_MS)
    assert not rig.box.error


# -- pips, UNDO, DONE --------------------------------------------------------------

def test_hand_entry_sends_one_throw_when_complete(rig: Rig) -> None:
    rig.box.press(5)
    assert rig.box.entry == (5,)
    assert rig.messages() == []
    rig.box.press(2)
    assert rig.messages() == [Throw(session=SESSION, seq=0, source="hand", dice=(5, 2))]
    assert rig.box.entry == () and rig.box.shown == (5, 2)


def test_hand_entry_of_three_dice(rig: Rig) -> None:
    rig.send(Configure(dice_count=3))
    rig.messages()
    for p in (6, 6, 1):
        rig.box.press(p)
    assert rig.messages() == [Throw(session=SESSION, seq=0, source="hand", dice=(6, 6, 1))]


def test_undo_clears_an_entry_in_progress_without_sending(rig: Rig) -> None:
    rig.box.press(3)
    rig.box.press("undo")
    assert rig.box.entry == ()
    assert rig.messages() == []
    assert rig.box.outbox == []
    # the next pips start a fresh entry
    rig.box.press(1)
    rig.box.press(2)
    assert rig.events() == [Throw(session=SESSION, seq=0, source="hand", dice=(1, 2))]


def test_undo_with_no_entry_sends_press_undo(rig: Rig) -> None:
    rig.box.press("undo")
    assert rig.messages() == [Press(session=SESSION, seq=0, button="undo")]


def test_done_sends_press_done(rig: Rig) -> None:
    rig.box.press("done")
    rig.box.press("done")
    assert rig.messages() == [Press(session=SESSION, seq=0, button="done"),
                              Press(session=SESSION, seq=1, button="done")]


def test_an_unknown_button_is_misuse(rig: Rig) -> None:
    with pytest.raises(ValueError):
        rig.box.press(7)


def test_configure_to_fewer_dice_drops_an_entry_that_no_longer_fits(rig: Rig) -> None:
    rig.send(Configure(dice_count=3))
    rig.box.press(4)
    rig.box.press(4)
    rig.send(Configure(dice_count=2))
    assert rig.box.entry == ()
    assert rig.messages()[-1].entry == ()


# -- ACK --------------------------------------------------------------------------

def make_events(r: Rig, n: int) -> None:
    for _ in range(n):
        r.box.press("done")
    r.messages()


def test_ack_removes_events_cumulatively(rig: Rig) -> None:
    make_events(rig, 5)
    assert held_seqs(rig.box) == [0, 1, 2, 3, 4]
    rig.send(Ack(session=SESSION, seq=2))
    assert held_seqs(rig.box) == [3, 4]
    rig.send(Ack(session=SESSION, seq=2))          # a duplicate ack changes nothing
    assert held_seqs(rig.box) == [3, 4]
    rig.send(Ack(session=SESSION, seq=4))
    assert rig.box.outbox == []
    assert rig.box.oldest == rig.box.next_seq == 5
    rig.advance(RETRANSMIT_MS * 4)
    assert rig.events() == []                       # nothing left to resend


def test_ack_of_another_session_is_ignored(rig: Rig) -> None:
    make_events(rig, 3)
    rig.send(Ack(session=SESSION ^ 1, seq=2))
    assert held_seqs(rig.box) == [0, 1, 2]
    assert rig.box.rejected == 0


@pytest.mark.parametrize("seq", [3, 10, 1000, 32767, 40000, 65534])
def test_ack_of_a_seq_never_sent_is_ignored(rig: Rig, seq: int) -> None:
    make_events(rig, 3)                              # seqs 0, 1, 2
    rig.send(Ack(session=SESSION, seq=seq))
    assert held_seqs(rig.box) == [0, 1, 2]


def test_ack_of_the_number_before_the_outbox_covers_nothing(rig: Rig) -> None:
    make_events(rig, 3)
    rig.send(Ack(session=SESSION, seq=65535))       # "nothing delivered yet"
    assert held_seqs(rig.box) == [0, 1, 2]


# -- retransmission and heartbeat --------------------------------------------------

def test_unacked_events_are_resent_every_retransmit_ms(rig: Rig) -> None:
    make_events(rig, 3)
    rig.advance(RETRANSMIT_MS - 1)
    assert rig.events() == []
    rig.advance(1)
    assert [e.seq for e in rig.events()] == [0, 1, 2]
    rig.advance(RETRANSMIT_MS)
    assert [e.seq for e in rig.events()] == [0, 1, 2]
    rig.send(Ack(session=SESSION, seq=0))
    rig.advance(RETRANSMIT_MS)
    assert [e.seq for e in rig.events()] == [1, 2]


def test_resend_is_oldest_first_and_at_most_resend_at_most(rig: Rig) -> None:
    make_events(rig, OUTBOX_SIZE)
    rig.advance(RETRANSMIT_MS)
    assert [e.seq for e in rig.events()] == list(range(RESEND_AT_MOST))
    rig.send(Ack(session=SESSION, seq=5))
    rig.advance(RETRANSMIT_MS)
    assert [e.seq for e in rig.events()] == list(range(6, 6 + RESEND_AT_MOST))


def test_resent_frames_are_the_same_events(rig: Rig) -> None:
    rig.box.press(3)
    rig.box.press(1)
    first = rig.events()
    rig.advance(RETRANSMIT_MS)
    assert rig.events() == first == [Throw(session=SESSION, seq=0, source="hand", dice=(3, 1))]


def test_heartbeat_every_heartbeat_ms(rig: Rig) -> None:
    rig.box.press("done")
    rig.messages()
    rig.advance(HEARTBEAT_MS - 1)
    assert [m for m in rig.messages() if isinstance(m, Heartbeat)] == []
    rig.advance(1)
    beats = [m for m in rig.messages() if isinstance(m, Heartbeat)]
    assert beats == [Heartbeat(session=SESSION, uptime_ms=HEARTBEAT_MS, next=1, unacked=1)]
    rig.send(Ack(session=SESSION, seq=0))
    rig.advance(HEARTBEAT_MS * 3)
    beats = [m for m in rig.messages() if isinstance(m, Heartbeat)]
    assert [b.uptime_ms for b in beats] == [HEARTBEAT_MS * 2, HEARTBEAT_MS * 3, HEARTBEAT_MS * 4]
    assert all(b.unacked == 0 and b.next == 1 for b in beats)


def test_link_light_follows_frames_from_the_pi(rig: Rig) -> None:
    assert not rig.box.link_ok
    rig.send(Ack(session=SESSION, seq=65535))
    assert rig.box.link_ok
    rig.advance(LINK_TIMEOUT_MS - 1)
    assert rig.box.link_ok
    rig.advance(1)
    assert not rig.box.link_ok


# -- a full outbox -----------------------------------------------------------------

def test_full_outbox_refuses_new_throws_and_keeps_the_held_ones(rig: Rig) -> None:
    for _ in range(OUTBOX_SIZE):
        rig.box.press("roll")
    sent = rig.events()
    assert [e.seq for e in sent] == list(range(OUTBOX_SIZE))
    shown = rig.box.shown

    rig.box.press("roll")
    assert rig.messages() == []
    assert rig.box.error
    assert rig.box.shown == shown                   # the refused roll shows nothing new
    rig.box.press(4)
    rig.box.press(4)
    assert rig.messages() == []
    assert held_seqs(rig.box) == list(range(OUTBOX_SIZE))

    # every held event still reaches the Pi, unchanged, as the acks come
    delivered = []
    while rig.box.outbox:
        rig.advance(RETRANSMIT_MS)
        resent = rig.events()
        assert resent and resent[0].seq == len(delivered)
        delivered.append(resent[0])
        rig.send(Ack(session=SESSION, seq=resent[0].seq))
    assert delivered == sent

    rig.box.press("roll")
    (throw,) = rig.events()
    assert throw.seq == OUTBOX_SIZE


# -- sequence numbers wrap ------------------------------------------------------------

def test_seq_wraps_from_65535_to_0_and_acks_still_work() -> None:
    r = Rig()
    r.box.next_seq = 65534
    r.box.start()
    hello = r.messages()[0]
    assert (hello.oldest, hello.next) == (65534, 65534)
    make_events(r, 4)
    assert held_seqs(r.box) == [65534, 65535, 0, 1]
    r.send(Ack(session=SESSION, seq=65533))         # before the outbox: nothing
    assert held_seqs(r.box) == [65534, 65535, 0, 1]
    r.send(Ack(session=SESSION, seq=65535))
    assert held_seqs(r.box) == [0, 1]
    r.send(Ack(session=SESSION, seq=1))
    assert r.box.outbox == []
    assert r.box.oldest == r.box.next_seq == 2


def test_ack_across_the_wrap_in_one_step() -> None:
    r = Rig()
    r.box.next_seq = 65530
    make_events(r, 10)                               # 65530 .. 65535, 0 .. 3
    r.send(Ack(session=SESSION, seq=2))
    assert held_seqs(r.box) == [3]
    r.send(Ack(session=SESSION, seq=10))             # never sent
    assert held_seqs(r.box) == [3]


# -- what the Pi sends that is not a frame -------------------------------------------

def framed_with_crc_cut(payload: bytes) -> bytes:
    body = payload + wire.crc32(payload).to_bytes(4, "little")[:2]
    return b"\x00" + wire.cobs_encode(body) + b"\x00"


def test_garbage_and_corrupt_frames_are_counted_and_change_nothing(rig: Rig) -> None:
    make_events(rig, 3)
    good = encode(Ack(session=SESSION, seq=0))
    corrupt = bytearray(good)
    corrupt[4] = corrupt[4] ^ 0x40 or 1           # one byte changed, still not zero
    cases = [
        b"\x00hello there\x00",                      # not COBS
        b"\x00\x01\x02\x03\x00",                     # too short
        b"\x00" + b"\xaa" * 100 + b"\x00",           # too long a run
        bytes(corrupt),                              # CRC mismatch
        encode(Ack(session=SESSION, seq=0))[:-3] + b"\x00",  # cut short
        b"\x00" + wire.cobs_encode(b"\x99\x01" + wire.crc32(b"\x99\x01").to_bytes(4, "little")) + b"\x00",
        framed_with_crc_cut(wire.pack({"type": "configure", "dice_count": 3, "roll_enabled": False,
                                       "turn": "dark"})),  # rejected, so not applied
    ]
    for n, data in enumerate(cases, start=1):
        rig.box.receive(data)
        assert rig.box.rejected == n, data
    assert held_seqs(rig.box) == [0, 1, 2]
    assert (rig.box.dice_count, rig.box.roll_enabled, rig.box.turn) == (2, True, "none")
    assert not rig.box.link_ok                       # nothing valid was heard
    assert rig.messages() == []                      # nor answered
    # and the line is in step again: the next good frame is taken
    rig.box.receive(b"\x17\x23" + good)              # garbage with no zero before the frame
    assert held_seqs(rig.box) == [1, 2]
    assert rig.box.rejected == len(cases) + 1
    assert rig.box.link_ok


def test_empty_frames_are_not_rejections(rig: Rig) -> None:
    rig.box.receive(b"\x00\x00\x00" + encode(Connect()) + encode(Connect()))
    assert rig.box.rejected == 0
    assert len(rig.messages()) == 4


def test_box_messages_echoed_back_are_ignored(rig: Rig) -> None:
    make_events(rig, 1)
    rig.send(Throw(session=SESSION, seq=0, source="box", dice=(1, 1)),
             Heartbeat(session=SESSION, uptime_ms=1, next=0, unacked=0))
    assert rig.box.rejected == 0
    assert held_seqs(rig.box) == [0]
    assert rig.messages() == []


@settings(max_examples=150, deadline=None)
@given(garbage=st.lists(st.binary(max_size=90), max_size=6), chunk=st.integers(1, 20))
def test_any_garbage_leaves_the_box_in_step(garbage: list[bytes], chunk: int) -> None:
    r = Rig()
    make_events(r, 4)
    stream = b"".join(garbage) + encode(Ack(session=SESSION, seq=1)) + b"\xff\x01" \
        + encode(Configure(dice_count=3, roll_enabled=False, turn="dark"))
    for i in range(0, len(stream), chunk):          # in chunks of any size
        r.box.receive(stream[i:i + chunk])
    assert held_seqs(r.box) == [2, 3]
    assert (r.box.dice_count, r.box.roll_enabled, r.box.turn) == (3, False, "dark")
    assert r.box.rejected >= 1                       # at least the b"\xff\x01" block
    assert isinstance(r.messages()[-1], Snapshot)


# -- interop: what the host encodes, the box takes ------------------------------------

@given(count=st.integers(1, 3), roll=st.booleans(), turn=st.sampled_from(["none", "light", "dark"]))
def test_every_configure_the_host_encodes_the_box_accepts(count: int, roll: bool, turn: str) -> None:
    r = Rig()
    r.send(Configure(dice_count=count, roll_enabled=roll, turn=turn))
    assert r.box.rejected == 0
    (snap,) = r.messages()
    assert (snap.dice_count, snap.roll_enabled, snap.turn) == (count, roll, turn)


@given(session=st.integers(0, 2**32 - 1), seq=st.integers(0, 65535))
def test_every_ack_the_host_encodes_the_box_accepts(session: int, seq: int) -> None:
    r = Rig(session=session)
    r.box.next_seq = seq
    make_events(r, 2)
    r.send(Ack(session=session, seq=seq))
    assert r.box.rejected == 0
    assert held_seqs(r.box) == [(seq + 1) & 0xFFFF]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["roll", "done", "undo", 1, 2, 3, 4, 5, 6, "tick", "connect", "ack",
                                 "configure"]), max_size=60),
       st.integers(1, 3))
def test_everything_the_box_writes_decodes_on_the_host(actions: list, count: int) -> None:
    r = Rig()
    r.box.start()
    r.send(Configure(dice_count=count))
    for a in actions:
        if a == "tick":
            r.advance(137)
        elif a == "connect":
            r.send(Connect())
        elif a == "ack":
            r.send(Ack(session=SESSION, seq=(r.box.next_seq - 1) & 0xFFFF))
        elif a == "configure":
            r.send(Configure(dice_count=count, roll_enabled=True, turn="light"))
        else:
            r.box.press(a)
    r.advance(600)
    msgs = r.messages()                              # asserts nothing was rejected
    assert r.decoder.stats.messages == len(msgs) >= 3
    assert r.box.rejected == 0
    for m in msgs:
        if isinstance(m, Throw):
            assert len(m.dice) == count and all(1 <= d <= 6 for d in m.dice)


# -- fair_die -----------------------------------------------------------------------

def test_fair_die_maps_bytes_exactly_uniformly() -> None:
    faces: Counter[int] = Counter()
    redrawn = []
    for b in range(256):
        script = Script(bytes([b, 7]))              # 7 is taken if b is redrawn: face 2
        face = fair_die(script)
        if script.taken == 1:
            faces[face] += 1
            assert face == b % 6 + 1
        else:
            assert script.taken == 2 and face == 2
            redrawn.append(b)
    assert redrawn == [252, 253, 254, 255]
    assert faces == {1: 42, 2: 42, 3: 42, 4: 42, 5: 42, 6: 42}


def test_fair_die_redraws_until_a_byte_below_252() -> None:
    script = Script(bytes([255, 252, 254, 253, 251]))
    assert fair_die(script) == 251 % 6 + 1
    assert script.taken == 5
