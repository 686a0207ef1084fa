"""firmware/main.py, the box's glue to the Pico, run on the host with the fake
``machine`` module (willughby.firmware_bridge.fake_machine): buttons on pins,
LEDs, the USB line and the clock, with time moved by hand."""

from __future__ import annotations

import io
import os
import select
import subprocess
import sys
import time
import types

import pytest

from willughby.firmware_bridge import fake_machine
from willughby.firmware_bridge.codec import Ack, Configure, Connect, Decoder, Hello, Press, Snapshot, Throw, encode
from willughby.firmware_bridge.firmware import box as boxmod
from willughby.firmware_bridge.firmware import main as fwmain
from willughby.firmware_bridge.firmware.main import (BUTTON_PINS, DEBOUNCE_MS, LED_PINS, Button, Firmware,
                                                     PollReader, TicksClock)

from .helpers import Script

SESSION = 0x0BADCAFE
ROLL = BUTTON_PINS["roll"]

class Line:
    """The Pi's end of the USB line: what it sends waits here until the box reads it."""

    def __init__(self) -> None:
        self.waiting = bytearray()

    def send(self, data: bytes) -> None:
        self.waiting += data

    def read(self, n: int) -> bytes:
        out = bytes(self.waiting[:n])
        del self.waiting[:n]
        return out


class Rig:
    """The firmware on fake pins, a fake line, and a clock moved by hand."""

    def __init__(self, random_bytes=os.urandom, ack: bool = False) -> None:
        fake_machine.reset()
        self.ms = 0
        self.line = Line()
        self.stdout = io.BytesIO()
        self.decoder = Decoder()
        self.ack = ack                      # play a Pi that acks every event at once
        self.fw = Firmware(fake_machine, self.line, self.stdout, lambda: self.ms, random_bytes,
                           session=SESSION)
        self.seen: list = []

    def start(self) -> "Rig":
        self.fw.start()
        return self

    def messages(self) -> list:
        """Frames the box wrote since the last call, decoded by the Pi's codec."""
        data = self.stdout.getvalue()
        self.stdout.seek(0)
        self.stdout.truncate()
        msgs = self.decoder.feed(data)
        assert self.decoder.stats.rejected_frames == 0
        self.seen.extend(msgs)
        return msgs

    def run(self, ms: int) -> None:
        """*ms* milliseconds of the loop, one step a millisecond."""
        for _ in range(ms):
            self.ms += 1
            self.fw.step()
            if self.ack:
                for m in self.messages():
                    if isinstance(m, (Throw, Press)):
                        self.line.send(encode(Ack(session=m.session, seq=m.seq)))

    def throws(self) -> list[Throw]:
        self.messages()
        return [m for m in self.seen if isinstance(m, Throw)]

    def press(self, name, ms: int = 60) -> None:
        """Press button *name* for *ms* and let go (and wait as long again)."""
        pin = BUTTON_PINS[name]
        fake_machine.drive(pin, 0)
        self.run(ms)
        fake_machine.release(pin)
        self.run(ms)


def led(n: int) -> int:
    return fake_machine.pins[n].value()


def dice_on_leds() -> list[int]:
    """The number each die's three LEDs show in binary (0: dark)."""
    return [sum(led(pin) << bit for bit, pin in enumerate(bits)) for bits in LED_PINS["dice"]]


@pytest.fixture(autouse=True)
def fresh_pins():
    fake_machine.reset()
    yield
    fake_machine.reset()


# -- importing starts nothing ----------------------------------------------------------

def test_importing_main_on_the_host_starts_nothing() -> None:
    code = ("import sys, willughby.firmware_bridge.firmware.main as m; "
            "assert 'machine' not in sys.modules; print('imported', m.Firmware.__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "imported Firmware\n"


# -- the pins ----------------------------------------------------------------------------

def test_pins_are_set_up_as_the_table_says() -> None:
    Rig()
    for name, n in BUTTON_PINS.items():
        pin = fake_machine.pins[n]
        assert pin.mode() == fake_machine.Pin.IN and pin.pull() == fake_machine.Pin.PULL_UP, name
        assert pin.value() == 1                     # released: the pull-up holds it high
    leds = [n for bits in LED_PINS["dice"] for n in bits] + [LED_PINS[k] for k in ("light", "dark", "link", "error")]
    for n in leds:
        assert fake_machine.pins[n].mode() == fake_machine.Pin.OUT
        assert fake_machine.pins[n].value() == 0
    every = list(BUTTON_PINS.values()) + leds
    assert len(set(every)) == len(every) == 22      # no pin used twice
    assert all(0 <= n <= 22 or 26 <= n <= 28 for n in every)   # GPIOs on the Pico's header


# -- ROLL and the debounce --------------------------------------------------------------

def test_start_says_hello_and_snapshot() -> None:
    r = Rig().start()
    msgs = r.messages()
    assert [type(m) for m in msgs] == [Hello, Snapshot]
    assert msgs[0].session == SESSION


def test_a_held_roll_button_throws_exactly_once() -> None:
    r = Rig(ack=True).start()
    fake_machine.drive(ROLL, 0)
    r.run(3000)                                      # held three seconds
    throws = r.throws()
    assert len(throws) == 1
    assert throws[0].source == "box" and len(throws[0].dice) == 2
    fake_machine.release(ROLL)
    r.run(100)
    assert len(r.throws()) == 1                      # letting go sends nothing
    r.press("roll")
    assert [t.seq for t in r.throws()] == [0, 1]     # a second press, a second throw


def test_a_press_counts_after_debounce_ms_low() -> None:
    r = Rig().start()
    fake_machine.drive(ROLL, 0)
    r.run(DEBOUNCE_MS)                               # first read low at ms 1
    assert r.throws() == []
    r.run(1)
    assert len(r.throws()) == 1


def test_a_bounce_shorter_than_the_debounce_throws_nothing() -> None:
    r = Rig().start()
    for low, high in [(3, 2), (10, 1), (DEBOUNCE_MS - 1, 1), (1, 5), (DEBOUNCE_MS - 2, 3)]:
        fake_machine.drive(ROLL, 0)
        r.run(low)
        fake_machine.release(ROLL)
        r.run(high)
    r.run(500)
    assert r.throws() == []
    assert r.fw.box.outbox == []


def test_bounces_on_release_do_not_press_again() -> None:
    r = Rig(ack=True).start()
    fake_machine.drive(ROLL, 0)
    r.run(80)
    for high, low in [(2, 3), (1, 10), (4, DEBOUNCE_MS - 1), (3, 2)]:   # contact chatter
        fake_machine.release(ROLL)
        r.run(high)
        fake_machine.drive(ROLL, 0)
        r.run(low)
    fake_machine.release(ROLL)
    r.run(200)
    assert len(r.throws()) == 1


def test_a_button_held_at_power_up_does_not_fire_until_pressed_again() -> None:
    fake_machine.drive(ROLL, 0)
    r = Rig().start()
    r.run(500)
    assert r.throws() == []
    fake_machine.release(ROLL)
    r.run(100)
    r.press("roll")
    assert len(r.throws()) == 1


def test_button_debounce_alone() -> None:
    fake_machine.reset()
    pin = fake_machine.Pin(2, fake_machine.Pin.IN, fake_machine.Pin.PULL_UP)
    b = Button(pin, now=0, debounce_ms=20)
    fired = []
    levels = [1] * 5 + [0] * 19 + [1] + [0] * 25 + [1] * 3 + [0] * 30 + [1] * 40
    for t, level in enumerate(levels):
        fake_machine.drive(2, level)
        if b.poll(t):
            fired.append(t)
    # the first run of 19 lows is too short; the next fires once, 20 ms after it began;
    # the 3 highs are not a release, so the lows after them do not fire again
    assert fired == [25 + 20]


# -- pips, UNDO, DONE ---------------------------------------------------------------------

def test_pip_presses_make_a_hand_throw() -> None:
    r = Rig(ack=True).start()
    r.press(3)
    assert r.throws() == []
    assert dice_on_leds() == [3, 0, 0]               # the entry so far, the rest dark
    r.press(5)
    assert [(t.source, t.dice) for t in r.throws()] == [("hand", (3, 5))]
    assert dice_on_leds() == [3, 5, 0]


def test_undo_and_done_buttons() -> None:
    r = Rig(ack=True).start()
    r.press(6)
    r.press("undo")                                  # clears the entry: nothing sent
    assert dice_on_leds() == [0, 0, 0]
    r.press("undo")
    r.press("done")
    r.messages()
    assert [m.button for m in r.seen if isinstance(m, Press)] == ["undo", "done"]
    assert r.throws() == []


# -- the LEDs ------------------------------------------------------------------------------

def test_leds_show_the_dice_in_binary() -> None:
    script = Script(b"\x05\x02")                     # 5 -> 6, 2 -> 3
    r = Rig(random_bytes=script).start()
    r.press("roll")
    (throw,) = r.throws()
    assert throw.dice == (6, 3)
    d1, d2, d3 = LED_PINS["dice"]
    assert [led(n) for n in d1] == [0, 1, 1]         # 6 = 110, bit 0 first
    assert [led(n) for n in d2] == [1, 1, 0]         # 3 = 011
    assert [led(n) for n in d3] == [0, 0, 0]
    assert dice_on_leds() == [6, 3, 0]


def test_leds_show_an_entry_in_progress_then_the_last_throw_after_undo() -> None:
    r = Rig(random_bytes=Script(b"\x03\x00"), ack=True).start()   # 4, 1
    r.press("roll")
    assert dice_on_leds() == [4, 1, 0]
    r.press(2)
    assert dice_on_leds() == [2, 0, 0]
    r.press("undo")
    assert dice_on_leds() == [4, 1, 0]
    assert len(r.throws()) == 1


@pytest.mark.parametrize("dice", [(1, 2, 4), (5, 6, 1), (4, 4, 4)])
def test_leds_show_three_dice(dice: tuple[int, int, int]) -> None:
    script = Script(bytes(d - 1 for d in dice))
    r = Rig(random_bytes=script).start()
    r.line.send(encode(Configure(dice_count=3)))
    r.run(5)
    r.press("roll")
    assert r.throws()[0].dice == dice
    assert dice_on_leds() == list(dice)


def test_turn_leds_follow_configure() -> None:
    r = Rig().start()
    light, dark = LED_PINS["light"], LED_PINS["dark"]
    assert (led(light), led(dark)) == (0, 0)
    for turn, want in [("light", (1, 0)), ("dark", (0, 1)), ("none", (0, 0))]:
        r.line.send(encode(Configure(dice_count=2, roll_enabled=True, turn=turn)))
        r.run(2)
        assert (led(light), led(dark)) == want, turn


def test_link_led_follows_frames_from_the_pi() -> None:
    r = Rig().start()
    link = LED_PINS["link"]
    r.messages()
    r.run(10)
    assert led(link) == 0                            # nothing heard yet
    r.line.send(b"\x00noise\x00")
    r.run(10)
    assert led(link) == 0                            # garbage is not the Pi
    assert r.fw.box.rejected == 1
    r.line.send(encode(Connect()))
    r.run(1)
    assert led(link) == 1
    assert [type(m) for m in r.messages()] == [Hello, Snapshot]
    r.run(boxmod.LINK_TIMEOUT_MS - 1)
    assert led(link) == 1
    r.run(1)
    assert led(link) == 0                            # 1.5 s without a frame
    r.line.send(encode(Ack(session=SESSION, seq=65535)))
    r.run(1)
    assert led(link) == 1


def test_error_led_lights_on_a_refused_roll() -> None:
    r = Rig().start()
    error = LED_PINS["error"]
    r.line.send(encode(Configure(dice_count=2, roll_enabled=False, turn="none")))
    r.run(5)
    snap = [m for m in r.messages() if isinstance(m, Snapshot)][-1]
    assert snap.roll_enabled is False
    fake_machine.drive(ROLL, 0)
    r.run(DEBOUNCE_MS + 1)
    assert led(error) == 1
    assert r.throws() == []
    fake_machine.release(ROLL)
    r.run(boxmod.ERROR_BLINK_MS)
    assert led(error) == 0


def test_leds_are_written_only_when_they_change() -> None:
    r = Rig().start()
    r.run(300)
    link = fake_machine.pins[LED_PINS["link"]]
    assert link.writes == [0]                        # set dark once, at construction


# -- the clock and the line ------------------------------------------------------------------

def test_ticks_clock_does_not_wrap_with_ticks_ms() -> None:
    t = fake_machine.FakeTime(start=fake_machine.TICKS_PERIOD - 300)
    clock = TicksClock(t.ticks_ms, t.ticks_diff)
    readings = []
    for _ in range(7):
        t.advance(100)
        readings.append(clock())
    assert readings == [100, 200, 300, 400, 500, 600, 700]
    assert t.ticks_ms() < 500                        # the ticks did wrap


def test_the_firmware_keeps_time_across_the_wrap() -> None:
    t = fake_machine.FakeTime(start=fake_machine.TICKS_PERIOD - 10)
    line, out = Line(), io.BytesIO()
    fw = Firmware(fake_machine, line, out, TicksClock(t.ticks_ms, t.ticks_diff), os.urandom, session=SESSION)
    fw.start()
    fake_machine.drive(ROLL, 0)                      # pressed 5 ms before the wrap
    for _ in range(200):
        t.sleep_ms(1)
        fw.step()
    msgs = Decoder().feed(out.getvalue())
    assert len([m for m in msgs if isinstance(m, Throw)]) == 1
    assert len(fw.box.outbox) == 1


def test_poll_reader_returns_what_waits_and_never_blocks() -> None:
    r, w = os.pipe()
    try:
        with open(r, "rb", buffering=0) as stdin:
            reader = PollReader(stdin, select)
            assert reader.read(64) == b""            # nothing waiting: at once
            os.write(w, b"\x00abc\x00def")
            assert reader.read(4) == b"\x00abc"
            assert reader.read(64) == b"\x00def"
            assert reader.read(64) == b""
    finally:
        os.close(w)


# -- boot() and main() --------------------------------------------------------------------

class FakeMicropython:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def kbd_intr(self, c: int) -> None:
        self.calls.append(c)


def test_boot_runs_the_box_on_the_pico_modules() -> None:
    r, w = os.pipe()
    out = io.BytesIO()
    t = fake_machine.FakeTime(start=12345)
    mp = FakeMicropython()

    def world(ms: int) -> None:                      # the outside world, each loop
        if t.slept == 100:
            os.write(w, encode(Connect()))
            fake_machine.drive(BUTTON_PINS["done"], 0)
        if t.slept == 200:
            fake_machine.release(BUTTON_PINS["done"])
    t.on_sleep = world
    try:
        with open(r, "rb", buffering=0) as stdin:
            sys_module = types.SimpleNamespace(stdin=stdin, stdout=out)
            fw = fwmain.boot(fake_machine, sys_module, select, Script(b"\x01\x02\x03\x04"), t, mp, steps=300)
    finally:
        os.close(w)
    assert mp.calls == [-1, 3]                       # Ctrl-C off while running, back on after
    assert fw.box.session == 0x04030201
    msgs = Decoder().feed(out.getvalue())
    kinds = [type(m).__name__ for m in msgs]
    assert kinds[:2] == ["Hello", "Snapshot"]
    assert kinds.count("Hello") == 2                 # at start, and after CONNECT
    assert Press(session=0x04030201, seq=0, button="done") in msgs
    assert fake_machine.pins[LED_PINS["link"]].value() == 1


def test_boot_with_undo_held_is_safe_mode() -> None:
    r, w = os.pipe()
    out = io.BytesIO()
    mp = FakeMicropython()
    fake_machine.drive(BUTTON_PINS["undo"], 0)
    try:
        with open(r, "rb", buffering=0) as stdin:
            fw = fwmain.boot(fake_machine, types.SimpleNamespace(stdin=stdin, stdout=out), select,
                             os.urandom, fake_machine.FakeTime(), mp, steps=50)
    finally:
        os.close(w)
    assert out.getvalue() == b""                     # never started
    assert mp.calls == []                            # Ctrl-C still works: the REPL is reachable
    assert fake_machine.pins[LED_PINS["error"]].value() == 1
    assert fw.box.outbox == []


class _Stop(Exception):
    pass


def test_main_with_the_fake_machine_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """main() imports machine, sys, select, os, time: give it the fakes and stop its loop."""
    r, w = os.pipe()
    stdin = open(r, "rb", buffering=0)
    stdout = types.SimpleNamespace(buffer=io.BytesIO())
    t = fake_machine.FakeTime()

    def stop_after(ms: int) -> None:
        if t.slept == 50:
            fake_machine.drive(ROLL, 0)
        if t.slept >= 120:
            raise _Stop

    t.on_sleep = stop_after
    for name in ("ticks_ms", "ticks_diff", "sleep_ms"):
        monkeypatch.setattr(time, name, getattr(t, name), raising=False)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    try:
        with fake_machine.installed() as machine:
            import machine as imported              # what main() will find

            assert imported is machine is fake_machine
            with pytest.raises(_Stop):
                fwmain.main()
            assert "machine" in sys.modules
    finally:
        stdin.close()
        os.close(w)
    assert "machine" not in sys.modules              # installed() took it out again
    msgs = Decoder().feed(stdout.buffer.getvalue())
    assert [type(m).__name__ for m in msgs][:2] == ["Hello", "Snapshot"]
    assert len([m for m in msgs if isinstance(m, Throw)]) == 1
