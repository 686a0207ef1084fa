"""The serial link against the fake box (a pseudo-terminal running the
firmware's own logic), under each fault the line can suffer: every event
arrives exactly once, in order (docs/protocol.md)."""

from __future__ import annotations

import time

import pytest

from willughby.firmware_bridge.codec import Press, Throw
from willughby.firmware_bridge.errors import LinkClosedError
from willughby.firmware_bridge.fake import FakeBox, Faults
from willughby.firmware_bridge.link import BoxLink

WAIT = 10.0        # generous: a shared machine may be slow; the tests finish as soon as things arrive


def _pips(i: int) -> tuple[int, int]:
    """The hand-entered throw of event i: every event is distinct within 36."""
    return (i % 6 + 1, (i // 6) % 6 + 1)


def _enter(box: FakeBox, i: int) -> None:
    for p in _pips(i):
        box.press(p)


def _collect(link: BoxLink, n: int, timeout: float = WAIT) -> list:
    got = []
    end = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < end:
        ev = link.get(timeout=0.05)
        if ev is not None:
            got.append(ev)
    return got


def _wait_for(cond, timeout: float = WAIT) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.005)
    return cond()


def _play(box: FakeBox, link: BoxLink, count: int, batch: int = 6, between=None) -> list:
    """Enter *count* hand throws, a batch at a time (the box holds 16 unacknowledged)."""
    got = []
    for start in range(0, count, batch):
        n = min(batch, count - start)
        for i in range(start, start + n):
            _enter(box, i)
        if between is not None:
            between(start)
        got += _collect(link, n)
    return got


def _expect_in_order(got: list, count: int) -> None:
    assert [ev.dice for ev in got] == [_pips(i) for i in range(count)]
    seqs = [ev.seq for ev in got]
    assert seqs == list(range(seqs[0], seqs[0] + count))


@pytest.fixture
def clean():
    with FakeBox(seed=1) as box, BoxLink(box.port) as link:
        assert link.wait_connected(WAIT)
        yield box, link


def test_a_throw_and_the_buttons_arrive(clean):
    box, link = clean
    box.press("roll")
    ev = link.get(timeout=WAIT)
    assert isinstance(ev, Throw) and ev.source == "box" and len(ev.dice) == 2
    assert all(1 <= d <= 6 for d in ev.dice)
    box.press("done")
    box.press("undo")
    presses = _collect(link, 2)
    assert [(type(p), p.button) for p in presses] == [(Press, "done"), (Press, "undo")]
    assert link.hello is not None and link.hello.session == box.box.session
    assert _wait_for(lambda: not box.box.outbox)            # every event acknowledged


def test_configure_reaches_the_box_and_its_snapshot(clean):
    box, link = clean
    link.configure(dice_count=3, roll_enabled=True, turn="dark")
    assert _wait_for(lambda: link.snapshot is not None and link.snapshot.dice_count == 3
                     and link.snapshot.turn == "dark")
    box.press("roll")
    ev = link.get(timeout=WAIT)
    assert len(ev.dice) == 3
    link.configure(dice_count=2, roll_enabled=False, turn="light")
    assert _wait_for(lambda: link.snapshot.roll_enabled is False)
    box.press("roll")                                         # refused by the box: nothing arrives
    assert _wait_for(lambda: box.box.error, 1.0)              # its error light blinks
    assert link.get(timeout=0.5) is None


def test_configure_refuses_what_the_box_cannot_take(clean):
    _, link = clean
    with pytest.raises(ValueError):
        link.configure(dice_count=4)


FAULTS = {
    "garbage": Faults(garbage=0.5),
    "dropped bytes": Faults(drop_byte=0.3),
    "lost frames": Faults(drop_frame=0.3),
    "duplicate frames": Faults(duplicate=0.5),
    "flipped bits": Faults(corrupt=0.3),
}


@pytest.mark.parametrize("name", list(FAULTS))
def test_each_fault_loses_and_doubles_nothing(name):
    with FakeBox(faults=FAULTS[name], seed=7) as box, BoxLink(box.port) as link:
        assert link.wait_connected(WAIT)
        got = _play(box, link, 24)
        _expect_in_order(got, 24)
        assert link.get(timeout=0.3) is None                  # nothing more, nothing twice
        stats = link.stats
        if name in ("duplicate frames",):
            assert stats.duplicates > 0
        if name in ("garbage", "dropped bytes", "flipped bits"):
            assert stats.decoder.rejected_bytes > 0


def test_closing_the_link_is_not_losing_the_box():
    # the page showed "box lost" at every shutdown: the link said "connecting" on its way to "closed"
    with FakeBox(seed=1) as box:
        link = BoxLink(box.port)
        states: list[str] = []
        link.add_state_listener(states.append)
        link.start()
        assert link.wait_connected(WAIT)
        link.close()
        assert states == ["connected", "closed"] and link.stats.disconnects == 0


def test_a_pulled_cable_loses_nothing_and_doubles_nothing(clean):
    box, link = clean
    got = _collect(link, 0)
    for i in range(3):
        _enter(box, i)
    got += _collect(link, 3)
    box.vanish()
    assert _wait_for(lambda: not link.connected)
    for i in range(3, 8):                                     # thrown while the cable is out
        _enter(box, i)
    assert _wait_for(lambda: box.box.next_seq == 8)
    assert link.get(timeout=0.2) is None
    box.reappear()
    got += _collect(link, 5)
    _expect_in_order(got, 8)
    assert link.get(timeout=0.3) is None
    assert link.stats.disconnects == 1 and link.stats.connects == 2
    assert link.stats.sessions == [box.box.session]           # the same session, resumed


def test_a_restarted_box_is_a_new_session(clean):
    box, link = clean
    _enter(box, 0)
    first = _collect(link, 1)
    old = box.box.session
    with FakeBox(seed=2) as other:                            # another box, as after a power cut
        link._where = lambda: other.port
        box.vanish()
        _enter(other, 1)
        again = _collect(link, 1)
        assert again and again[0].session == other.box.session != old
        assert again[0].seq == 0
    assert [e.dice for e in first + again] == [_pips(0), _pips(1)]
    assert link.stats.sessions == [old, other.box.session]


def test_the_link_waits_for_a_box_that_is_not_there_yet():
    box = FakeBox(seed=3)
    try:
        with BoxLink(box.port, backoff=(0.01, 0.05)) as link:
            assert not link.wait_connected(0.3)
            assert link.stats.open_failures >= 2
            box.start()
            assert link.wait_connected(WAIT)
    finally:
        box.close()


def test_close_is_harmless_twice_and_use_after_close_raises():
    with FakeBox(seed=4) as box:
        link = BoxLink(box.port).start()
        assert link.wait_connected(WAIT)
        link.close()
        link.close()
        assert link.closed and link.state == "closed"
        with pytest.raises(LinkClosedError):
            link.get(timeout=0.1)
        with pytest.raises(LinkClosedError):
            link.start()


def test_a_listener_that_fails_does_not_stop_the_link(clean, caplog):
    box, link = clean
    seen = []

    def bad(ev):
        raise RuntimeError("listener broke")

    link.add_listener(bad)
    link.add_listener(seen.append)
    _enter(box, 0)
    _enter(box, 1)
    got = _collect(link, 2)
    assert [e.dice for e in got] == [_pips(0), _pips(1)]
    assert [e.dice for e in seen] == [_pips(0), _pips(1)]
    assert "listener failed" in caplog.text


def test_before_and_after_every_fault_at_once_with_the_cable_pulled_twice():
    """The issue's before/after: a sequence of throws with faults injected
    arrives exactly once, in order."""
    faults = Faults(garbage=0.2, drop_byte=0.1, drop_frame=0.15, duplicate=0.2, corrupt=0.1)
    with FakeBox(faults=faults, seed=11) as box, BoxLink(box.port) as link:
        assert link.wait_connected(WAIT)

        def pull(start: int) -> None:
            if start in (12, 30):
                box.vanish()
                time.sleep(0.2)
                box.reappear()

        got = _play(box, link, 48, between=pull)
        _expect_in_order(got, 48)
        assert link.get(timeout=0.3) is None
        assert link.stats.disconnects >= 2
        assert link.stats.sessions == [box.box.session]
