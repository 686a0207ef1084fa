"""The dice box's firmware on a Raspberry Pi Pico: joins ``box.Box`` (the
protocol and the buttons' meaning) to the Pico's pins, its USB serial line,
its clock and its random source. See README.md beside this file for the
wiring and how to put it on a Pico.

On the Pico, MicroPython runs the file named ``main.py`` at boot, as
``__main__``, and the last line below starts :func:`main`, which loops
forever. Imported anywhere else (the host's tests import it as
``willughby.firmware_bridge.firmware.main``) it starts nothing: everything
here takes its ``machine`` module, streams, clock and random source as
arguments, so the tests hand it ``willughby.firmware_bridge.fake_machine``
and a clock they move by hand.

MicroPython runs this file: no annotations, no dataclasses, no typing.
"""

try:
    from . import box as _box
except ImportError:          # MicroPython, where the files lie side by side
    import box as _box

# -- the pins ------------------------------------------------------------------
# GPIO numbers (the "GPn" names on the Pico's pinout, not the physical pin
# numbers; README.md has both). GP0/GP1 (UART0) are left free for a UART
# line; GP23-GP25 are not on the header (GP25 is the on-board LED).

# Buttons: a push button from the GPIO to GND. The pin's internal pull-up
# holds it at 1; pressed, it reads 0.
BUTTON_PINS = {
    "roll": 2,
    "done": 3,
    "undo": 4,               # held at power-up: safe mode (the REPL, see main())
    1: 5,                    # pip buttons, for dice thrown by hand
    2: 6,
    3: 7,
    4: 8,
    5: 9,
    6: 10,
}

# LEDs: GPIO -> resistor (about 1 kOhm) -> LED anode, cathode to GND; on = 1.
LED_PINS = {
    # each die in binary on three LEDs (bit 0 = 1, bit 1 = 2, bit 2 = 4):
    # 1 = o o *, 6 = * * o reading bit 2 to bit 0; all dark: no die there
    "dice": ((11, 12, 13), (14, 15, 16), (17, 18, 19)),
    "light": 20,             # the turn is light's
    "dark": 21,              # the turn is dark's
    "link": 22,              # a valid frame from the Pi within the last 1.5 s
    "error": 26,             # a press refused (for 0.4 s); steady in safe mode
}

# the order in which the buttons are polled (MicroPython's dicts keep no order)
BUTTON_ORDER = ("roll", "done", "undo", 1, 2, 3, 4, 5, 6)

DEBOUNCE_MS = 25             # a level must hold this long to count
LOOP_MS = 1                  # sleep between two steps of the loop
READ_AT_MOST = 128           # bytes taken from the USB line in one step


class Button:
    """One push button, polled, debounced both ways.

    The pin's level counts only once it has held for ``debounce_ms``: a
    press fires once, when the pin has read 0 for that long, and the button
    must then read 1 for that long (released) before it can fire again. A
    button already held when the box starts does not fire until it has been
    released and pressed again.
    """

    def __init__(self, pin, now, debounce_ms=DEBOUNCE_MS):
        self.pin = pin
        self.debounce_ms = debounce_ms
        level = pin.value()
        self._raw = level          # the level last read
        self._since = now          # when the pin last changed level
        self._stable = level       # the level that counts

    def poll(self, now):
        """Read the pin; True exactly once per debounced press."""
        level = self.pin.value()
        if level != self._raw:
            self._raw = level
            self._since = now
        if level != self._stable and now - self._since >= self.debounce_ms:
            self._stable = level
            return level == 0
        return False

    @property
    def held(self):
        """Whether the pin reads pressed right now (no debouncing)."""
        return self.pin.value() == 0


class TicksClock:
    """A millisecond clock that never wraps nor goes back, from MicroPython's
    ``time.ticks_ms`` (which wraps, every 2**30 ms on the Pico) and
    ``time.ticks_diff``. Each call adds the ticks since the call before, so
    it must be called more often than every half period (about six days);
    the loop calls it every few milliseconds."""

    def __init__(self, ticks_ms, ticks_diff):
        self._ticks_ms = ticks_ms
        self._ticks_diff = ticks_diff
        self._last = ticks_ms()
        self._ms = 0

    def __call__(self):
        t = self._ticks_ms()
        d = self._ticks_diff(t, self._last)
        self._last = t
        if d > 0:
            self._ms += d
        return self._ms


class PollReader:
    """Non-blocking reads from a stream that ``select.poll`` can watch (on the
    Pico, ``sys.stdin``: the USB serial line). ``read(n)`` returns the bytes
    waiting now, at most *n*, possibly none; it never blocks."""

    def __init__(self, stream, select_module):
        self._raw = getattr(stream, "buffer", stream)
        self._poll = select_module.poll()
        self._poll.register(stream, select_module.POLLIN)

    def read(self, n):
        out = bytearray()
        while len(out) < n and self._poll.poll(0):
            b = self._raw.read(1)
            if not b:
                break
            out.extend(b)
        return bytes(out)


class Firmware:
    """The box on its pins: buttons in, LEDs out, bytes both ways.

    *machine* is MicroPython's ``machine`` module (or the fake one);
    *stdin* has ``read(n)`` that returns at once with what is waiting
    (:class:`PollReader`); *stdout* has ``write(bytes)``; *clock* is a
    millisecond clock that never goes back (:class:`TicksClock`);
    *random_bytes* is ``os.urandom``. :meth:`start` says HELLO, then call
    :meth:`step` over and over (:meth:`run` does).
    """

    def __init__(self, machine, stdin, stdout, clock, random_bytes, session=None,
                 button_pins=None, led_pins=None, debounce_ms=DEBOUNCE_MS):
        if button_pins is None:
            button_pins = BUTTON_PINS
        if led_pins is None:
            led_pins = LED_PINS
        Pin = machine.Pin
        self.stdin = stdin
        self.stdout = stdout
        self.clock = clock
        now = clock()
        self.buttons = []                    # [(name, Button)] in BUTTON_ORDER
        for name in BUTTON_ORDER:
            pin = Pin(button_pins[name], Pin.IN, Pin.PULL_UP)
            self.buttons.append((name, Button(pin, now, debounce_ms)))
        self._by_name = dict(self.buttons)

        self._lit = {}                       # id(pin) -> the value last written

        def led(n):
            pin = Pin(n, Pin.OUT, value=0)
            self._lit[id(pin)] = 0
            return pin

        self.dice_leds = [[led(n) for n in bits] for bits in led_pins["dice"]]
        self.light_led = led(led_pins["light"])
        self.dark_led = led(led_pins["dark"])
        self.link_led = led(led_pins["link"])
        self.error_led = led(led_pins["error"])
        self.box = _box.Box(self.write, clock, random_bytes, session=session)

    def write(self, data):
        self.stdout.write(data)

    def held(self, name):
        """Whether button *name* is pressed right now (read once, not debounced)."""
        return self._by_name[name].held

    def start(self):
        """Say HELLO and SNAPSHOT to the Pi, and light the LEDs."""
        self.box.start()
        self.show()

    def step(self):
        """One turn of the loop: bytes from the Pi, the buttons, the box's
        timers, the LEDs."""
        data = self.stdin.read(READ_AT_MOST)
        if data:
            self.box.receive(data)
        now = self.clock()
        for name, button in self.buttons:
            if button.poll(now):
                self.box.press(name)
        self.box.tick()
        self.show()

    def run(self, sleep_ms, steps=None):
        """Step, then sleep LOOP_MS, *steps* times or (None) forever."""
        n = 0
        while steps is None or n < steps:
            self.step()
            sleep_ms(LOOP_MS)
            n += 1

    # -- the lights --------------------------------------------------------
    def dice_on_lights(self):
        """The pips the dice LEDs show: the hand entry while one is in
        progress (its dice so far, the other places dark), else the dice
        last thrown or entered."""
        box = self.box
        return box.entry if box.entry else box.shown

    def show(self):
        """Set every LED from the box's state (each pin written only when it changes)."""
        box = self.box
        dice = self.dice_on_lights()
        for i in range(len(self.dice_leds)):
            pips = dice[i] if i < len(dice) else 0
            bits = self.dice_leds[i]
            for k in range(len(bits)):
                self._light(bits[k], (pips >> k) & 1)
        self._light(self.light_led, box.turn == "light")
        self._light(self.dark_led, box.turn == "dark")
        self._light(self.link_led, box.link_ok)
        self._light(self.error_led, box.error)

    def _light(self, pin, on):
        v = 1 if on else 0
        if self._lit.get(id(pin)) != v:
            pin.value(v)
            self._lit[id(pin)] = v


def boot(machine, sys_module, select_module, random_bytes, time_module, micropython_module=None,
         steps=None):
    """Build the firmware from MicroPython's modules and run it (forever when
    *steps* is None). Returns the :class:`Firmware` when it stops.

    Safe mode: with UNDO held at power-up it lights the error LED, does not
    start, and returns, so the REPL stays reachable (``mpremote`` can then
    replace the files). Otherwise Ctrl-C on the line is switched off while
    the box runs (``micropython.kbd_intr(-1)``): a 0x03 byte inside a frame
    from the Pi must not stop the firmware.
    """
    stdin = PollReader(sys_module.stdin, select_module)
    stdout = getattr(sys_module.stdout, "buffer", sys_module.stdout)
    clock = TicksClock(time_module.ticks_ms, time_module.ticks_diff)
    fw = Firmware(machine, stdin, stdout, clock, random_bytes)
    if fw.held("undo"):
        fw.error_led.value(1)
        return fw
    if micropython_module is not None:
        micropython_module.kbd_intr(-1)
    try:
        fw.start()
        fw.run(time_module.sleep_ms, steps)
    finally:
        if micropython_module is not None:
            micropython_module.kbd_intr(3)
    return fw


def main():
    """The Pico's entry point: the real modules, forever."""
    import machine
    import os
    import select
    import sys
    import time
    try:
        import micropython
    except ImportError:
        micropython = None
    boot(machine, sys, select, os.urandom, time, micropython)


if __name__ == "__main__":
    main()
