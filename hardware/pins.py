"""The Pi's own buttons, lights and buzzer, through gpiozero (docs/house-conventions.md,
conventions 7 and 9).

:class:`PiPanel` opens every device of a :class:`~willughby.hardware.config.PinConfig`:
nine buttons (ROLL, DONE, UNDO and PIP1..PIP6), the two turn lights, the
"illegal turn" light and a buzzer.  Presses reach listeners as names
(``"roll"``, ``"done"``, ``"undo"``, ``"pip1"``..``"pip6"``); the lights and
buzzer are driven by methods.

The real backend is whatever pin library gpiozero finds (lgpio on Raspberry
Pi OS Bookworm).  The fake is gpiozero's own mock pins, which ship with it:
pass ``pin_factory=MockFactory()`` or set ``GPIOZERO_PIN_FACTORY=mock``, and
drive a button with ``factory.pin(17).drive_low()``.

>>> from gpiozero.pins.mock import MockFactory
>>> factory = MockFactory()
>>> with PiPanel(PinConfig(), pin_factory=factory) as panel:
...     panel.add_listener(print)
...     factory.pin(17).drive_low()     # ROLL pressed
...     panel.show_turn("dark")
...     (factory.pin(23).state, factory.pin(24).state)
roll
(False, True)
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from collections.abc import Callable
from typing import Literal, TypeVar

from gpiozero import LED, Buzzer, Device, DigitalInputDevice, OutputDevice
from gpiozero.exc import BadPinFactory, GPIOZeroError, PinFactoryFallback
from gpiozero.pins import Factory

from .config import PinConfig
from ._device import ListenedDevice
from .errors import InvalidSettingError, PinUnavailableError

__all__ = ["PiPanel", "PressListener", "Turn"]

log = logging.getLogger(__name__)

#: A listener for presses: called with the button's name.
PressListener = Callable[[str], None]
#: Whose turn the lights show: ``"light"``, ``"dark"``, or ``None`` for nobody's.
Turn = Literal["light", "dark"] | None

_D = TypeVar("_D", bound=Device)


class PiPanel(ListenedDevice[PressListener]):
    """The buttons, lights and buzzer wired to the Pi's own pins.

    *config* says which pin is which (the defaults when omitted);
    *pin_factory* is handed to every gpiozero device (``None``: gpiozero's
    default, which ``GPIOZERO_PIN_FACTORY`` may choose).  *clock* is the
    monotonic clock presses are timed by (tests pass a fake one).

    Each button is a gpiozero ``DigitalInputDevice`` with the pull-up on
    (pressed = joined to ground = active): a ``Button`` without its hold
    machinery, which would cost a thread per button and nothing here uses.

    Buttons are debounced twice over: the pin library ignores edges within
    ``config.bounce_ms`` of each other, and the panel itself drops a press of
    a button that comes within ``bounce_ms`` of that button's last press (so
    the behaviour is the same on pin libraries, such as the mock pins, that do
    not debounce).  No hand presses a button twice within the default 30 ms.

    Every listener is called, in the order added, on the thread the pin
    library reports presses on.  A listener that raises is logged (with its
    traceback) and the others still run; the buttons keep working.

    A panel is a context manager; :meth:`close` releases the pins (twice is
    harmless, lights and buzzer go off) and any use after it raises
    :class:`~willughby.hardware.errors.DeviceClosedError`.  A pin that cannot
    be opened raises :class:`~willughby.hardware.errors.PinUnavailableError`
    and leaves no pin held.
    """

    what = "the Pi's panel"


    def __init__(self, config: PinConfig | None = None, pin_factory: Factory | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._closed = True           # until every device is open
        self.config: PinConfig = config if config is not None else PinConfig()
        self._clock = clock
        self._bounce_s = self.config.bounce_ms / 1000
        self._last_press: dict[str, float] = {}
        self._devices: list[Device] = []
        bounce_time = self._bounce_s or None
        try:
            for name, pin in self.config.buttons.items():
                button = self._open(name, pin, lambda p: DigitalInputDevice(
                    p, pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory))
                button.when_activated = self._on_press(name)
            self._light_led = self._open("light_led", self.config.light_led, lambda p: LED(p, pin_factory=pin_factory))
            self._dark_led = self._open("dark_led", self.config.dark_led, lambda p: LED(p, pin_factory=pin_factory))
            self._illegal_led = self._open("illegal_led", self.config.illegal_led,
                                           lambda p: LED(p, pin_factory=pin_factory))
            self._buzzer = self._open("buzzer", self.config.buzzer, lambda p: Buzzer(p, pin_factory=pin_factory))
        except BaseException:  # noqa: close what was opened, then re-raise (nothing is hidden)
            self._close()
            raise
        self._closed = False

    # --- lights and buzzer
    def show_turn(self, turn: Turn) -> None:
        """Light the lamp of whose turn it is (``"light"`` or ``"dark"``) and
        put out the other; ``None`` puts out both."""
        self._check_open()
        if turn not in ("light", "dark", None):
            raise InvalidSettingError(f"a turn is 'light', 'dark' or None, not {turn!r}")
        self._light_led.value = turn == "light"
        self._dark_led.value = turn == "dark"

    def signal_illegal(self, on: bool = True) -> None:
        """Light (or put out) the "illegal turn" lamp.  It stays as set until
        the next call: the caller puts it out when the turn is put right."""
        self._check_open()
        self._illegal_led.value = bool(on)

    def beep(self, seconds: float = 0.1) -> None:
        """Sound the buzzer once for *seconds*, without waiting for it (a beep
        still sounding is cut short and started again)."""
        self._check_open()
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not (
                math.isfinite(seconds) and seconds > 0):
            raise InvalidSettingError(f"a beep lasts a positive number of seconds, not {seconds!r}")
        self._buzzer.beep(on_time=seconds, off_time=0, n=1, background=True)

    # --- inside
    def _open(self, name: str, pin: int, make: Callable[[int], _D]) -> _D:
        failure: GPIOZeroError | OSError | None = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PinFactoryFallback)
            try:
                device = make(pin)
            except (GPIOZeroError, OSError) as exc:
                failure = exc
        tried: list[str] = []
        for w in caught:    # gpiozero's note on each pin library it could not use; other warnings as they were
            if issubclass(w.category, PinFactoryFallback):
                tried.append(str(w.message).removeprefix("Falling back from "))
                log.info("%s", w.message)
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if isinstance(failure, BadPinFactory):    # no pin library gpiozero may use: none installed, or no access
            why = f" (tried {'; '.join(tried)})" if tried else ""
            raise PinUnavailableError(
                f"cannot open {name} on GPIO{pin}: {failure}{why}; the Pi needs a pin library: on Raspberry Pi OS "
                "sudo apt install python3-lgpio, with the venv made by python3 -m venv --system-site-packages "
                "(or pip install lgpio in it); and the user that runs it must be in the gpio group "
                "(sudo usermod -aG gpio USER)") from failure
        if failure is not None:
            raise PinUnavailableError(f"cannot open {name} on GPIO{pin}: {failure}") from failure
        self._devices.append(device)
        return device

    def _close(self) -> None:
        while self._devices:
            device = self._devices.pop()
            if isinstance(device, OutputDevice):
                device.off()        # the pin is left an input: make sure nothing stays lit
            device.close()

    def _on_press(self, name: str) -> Callable[[], None]:
        def pressed() -> None:
            self._pressed(name)
        return pressed

    def _pressed(self, name: str) -> None:
        if self._closed:
            return
        now = self._clock()
        with self._lock:
            last = self._last_press.get(name)
            if last is not None and now - last < self._bounce_s:
                log.debug("%s bounced (%.1f ms after the last press)", name, (now - last) * 1000)
                return
            self._last_press[name] = now
            listeners = self._listeners
        for fn in listeners:
            try:
                fn(name)
            except Exception:  # noqa: BLE001 -- a listener's fault must not stop the buttons
                log.error("a listener of the Pi's buttons failed on %r", name, exc_info=True)
