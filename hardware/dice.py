"""Where dice come from: one small interface and four sources (docs/house-conventions.md,
conventions 5, 7 and 9).

Every source is a :class:`DiceSource`: listeners added with
:meth:`~DiceSource.add_listener` receive each :class:`DiceThrow` as it is
made; :meth:`~DiceSource.close` lets go (twice is harmless); a source is a
context manager, and using one after ``close()`` raises
:class:`~willughby.hardware.errors.DeviceClosedError`.

- :class:`PiDice` -- the Pi rolls, with :class:`secrets.SystemRandom` (or a
  random source handed in, for tests); the ROLL button can roll it.
- :class:`ManualDice` -- dice thrown by hand on the table and entered as
  numbers (by the web page).
- :class:`PipEntry` -- dice thrown by hand and entered one die at a time on
  the pip buttons PIP1..PIP6.
- :class:`BoxDice` -- throws reported by the dice box over its link
  (:mod:`willughby.firmware_bridge.codec` messages).

Every throw carries an ``ident`` unique to it: the source's prefix, a 32-bit
session number in hex (random unless given) and a running count from 0, as
the box numbers its own events (``"pi-0000002a-0"``, ``"box-00000007-12"``).

>>> import random
>>> dice = PiDice(rng=random.Random(1), session=0x2a)
>>> dice.roll()
DiceThrow(dice=(2, 5), source='pi', ident='pi-0000002a-0')
>>> dice.dice_count = 3
>>> dice.roll().dice
(1, 3, 1)
"""

from __future__ import annotations

import logging
import numbers
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any, ClassVar, Protocol

from willughby.firmware_bridge.codec import Throw

from ._device import ListenedDevice
from .errors import InvalidSettingError, InvalidThrowError

__all__ = [
    "DiceThrow",
    "DiceSource",
    "PiDice",
    "ManualDice",
    "PipEntry",
    "BoxDice",
    "ThrowListener",
    "PressSource",
    "BoxEvents",
    "RandomSource",
    "check_dice",
    "SOURCES",
    "MAX_DICE",
]

log = logging.getLogger(__name__)

#: Where a throw came from: the Pi's own roll, dice thrown by hand and entered, the dice box.
SOURCES: tuple[str, ...] = ("pi", "hand", "box")
#: The most dice one throw has (games throw two, some three).
MAX_DICE = 3


def check_dice(dice: Sequence[int], count: int | None = None) -> tuple[int, ...]:
    """*dice* as a tuple of ints, if they can be one throw: 1 to 3 dice (or
    exactly *count*), each a whole number 1..6.  Otherwise
    :class:`~willughby.hardware.errors.InvalidThrowError`, whose message
    quotes the whole entry.

    >>> check_dice([6, 3])
    (6, 3)
    >>> try:
    ...     check_dice([6, 7])
    ... except InvalidThrowError as exc:
    ...     print(exc)
    a die shows a whole number 1..6, not 7, in [6, 7]
    """
    if isinstance(dice, (str, bytes)) or not isinstance(dice, Sequence):
        raise InvalidThrowError(f"dice are a sequence of whole numbers 1..6, not {dice!r}")
    if count is not None and len(dice) != count:
        raise InvalidThrowError(f"a throw here has {count} {'die' if count == 1 else 'dice'}, "
                                f"not {len(dice)}, in {dice!r}")
    if not 1 <= len(dice) <= MAX_DICE:
        raise InvalidThrowError(f"a throw has 1 to {MAX_DICE} dice, not {len(dice)}, in {dice!r}")
    for die in dice:
        if isinstance(die, bool) or not isinstance(die, numbers.Integral) or not 1 <= die <= 6:
            raise InvalidThrowError(f"a die shows a whole number 1..6, not {die!r}, in {dice!r}")
    return tuple(int(die) for die in dice)


@dataclass(frozen=True)
class DiceThrow:
    """One throw of the dice: the dice in the order given, where they came
    from (one of :data:`SOURCES`), and an ident no other throw has.

    The dice are checked (:func:`check_dice`) and a list becomes a tuple.

    >>> DiceThrow([5, 5], "hand", "manual-00000001-0")
    DiceThrow(dice=(5, 5), source='hand', ident='manual-00000001-0')
    """

    dice: tuple[int, ...]
    source: str
    ident: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", check_dice(self.dice))
        if self.source not in SOURCES:
            raise InvalidThrowError(f"a throw's source is one of {', '.join(SOURCES)}, not {self.source!r}")
        if not isinstance(self.ident, str) or not self.ident:
            raise InvalidThrowError(f"a throw's ident is a non-empty string, not {self.ident!r}")


#: A listener for throws.
ThrowListener = Callable[[DiceThrow], None]


class PressSource(Protocol):
    """Anything that reports button presses by name, as
    :class:`~willughby.hardware.pins.PiPanel` does (``remove_listener`` must
    be harmless once the panel is closed)."""

    def add_listener(self, fn: Callable[[str], None]) -> None: ...

    def remove_listener(self, fn: Callable[[str], None]) -> None: ...


class BoxEvents(Protocol):
    """Anything that hands on the dice box's messages (a link to the box).
    A ``remove_listener`` method, if it has one, is used on close."""

    def add_listener(self, fn: Callable[[Any], None]) -> None: ...


class _HasRandint(Protocol):
    def randint(self, a: int, b: int) -> int: ...


class _HasRandrange(Protocol):
    def randrange(self, start: int, stop: int) -> int: ...


#: A random number generator with ``randint`` or ``randrange``, such as :class:`random.Random`.
RandomSource = _HasRandint | _HasRandrange


class DiceSource(ListenedDevice[ThrowListener]):
    """The interface every dice source has, and its lifecycle: the base class
    of the sources below, which make the throws.

    Listeners are called in the order added, on the thread that made the
    throw, after the source's own state is updated.  A listener that raises
    stops the call that made the throw (later listeners are not called) and
    its error reaches that call's caller; for a button press, the panel logs
    it and carries on.
    """

    @property
    def what(self) -> str:  # type: ignore[override]
        return type(self).__name__

    def _emit(self, throw: DiceThrow) -> DiceThrow:
        for fn in self._listeners:
            fn(throw)
        return throw


class _CountedDice(DiceSource):
    """A source that makes its own throws: a settable dice count and idents
    ``f"{prefix}-{session:08x}-{n}"``."""

    #: Prefix of this source's idents.
    prefix: ClassVar[str]

    def __init__(self, dice_count: int, *, session: int | None) -> None:
        super().__init__()
        if session is None:
            session = secrets.randbits(32)
        elif isinstance(session, bool) or not isinstance(session, int) or not 0 <= session < 2 ** 32:
            raise InvalidSettingError(f"a session is a whole number 0..2**32-1, not {session!r}")
        self._session = session
        self._counter = count()
        self._dice_count = _check_count(dice_count)

    @property
    def session(self) -> int:
        """The number the idents of this source's throws carry."""
        return self._session

    @property
    def dice_count(self) -> int:
        """How many dice a throw has (1 to 3; games throw 2, some 3)."""
        return self._dice_count

    @dice_count.setter
    def dice_count(self, value: int) -> None:
        self._check_open()
        value = _check_count(value)
        with self._lock:
            self._dice_count = value
            self._count_changed()

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self._dice_count} dice, session {self._session:08x} "
                f"({'closed' if self._closed else 'open'})>")

    def _count_changed(self) -> None:
        """Called (holding the lock) when the dice count is set."""

    def _next_ident(self) -> str:
        return f"{self.prefix}-{self._session:08x}-{next(self._counter)}"


def _check_count(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DICE:
        raise InvalidSettingError(f"a throw has 1 to {MAX_DICE} dice, so dice_count cannot be {value!r}")
    return value


class _ButtonDice(_CountedDice, ABC):
    """A source the panel's buttons may drive."""

    def __init__(self, dice_count: int, *, session: int | None) -> None:
        super().__init__(dice_count, session=session)
        self._panels: list[PressSource] = []

    def attach(self, panel: PressSource) -> None:
        """Listen to *panel*'s buttons until :meth:`close` (see the class for
        which buttons).  Attaching to the same panel again changes nothing."""
        self._check_open()
        if any(p is panel for p in self._panels):
            return
        panel.add_listener(self._on_press)
        self._panels.append(panel)

    def _close(self) -> None:
        for panel in self._panels:
            panel.remove_listener(self._on_press)
        self._panels.clear()

    @abstractmethod
    def _on_press(self, name: str) -> None:
        """A button called *name* was pressed on an attached panel."""


class PiDice(_ButtonDice):
    """The Pi's own dice: each :meth:`roll` throws *dice_count* dice.

    *rng* is where the numbers come from: :class:`secrets.SystemRandom` by
    default; a test hands in a seeded :class:`random.Random`.  Anything with
    ``randint(a, b)`` will do, or failing that ``randrange(start, stop)``.
    *session* fixes the idents' session number (random by default).

    :meth:`attach` makes a panel's ROLL button roll.

    >>> import random
    >>> dice = PiDice(rng=random.Random(7), session=1)
    >>> [dice.roll().dice for _ in range(3)]
    [(3, 2), (4, 6), (1, 1)]
    """

    prefix = "pi"

    def __init__(self, dice_count: int = 2, rng: RandomSource | None = None, *,
                 session: int | None = None) -> None:
        super().__init__(dice_count, session=session)
        self._rng: RandomSource = secrets.SystemRandom() if rng is None else rng
        randint = getattr(self._rng, "randint", None)
        randrange = getattr(self._rng, "randrange", None)
        if callable(randint):
            self._die: Callable[[], int] = lambda: randint(1, 6)
        elif callable(randrange):
            self._die = lambda: randrange(1, 7)
        else:
            raise InvalidSettingError(f"rng must have randint or randrange, and {self._rng!r} has neither")

    @property
    def rng(self) -> RandomSource:
        """Where the numbers come from."""
        return self._rng

    def roll(self) -> DiceThrow:
        """Throw the dice, tell the listeners, and return the throw."""
        self._check_open()
        with self._lock:
            throw = DiceThrow(tuple(self._die() for _ in range(self._dice_count)), "pi", self._next_ident())
        return self._emit(throw)

    def _on_press(self, name: str) -> None:
        if name == "roll" and not self._closed:
            self.roll()


class ManualDice(_CountedDice):
    """Dice thrown by hand on the table, entered as numbers (by the web page).

    >>> dice = ManualDice(session=1)
    >>> dice.enter([6, 6])
    DiceThrow(dice=(6, 6), source='hand', ident='manual-00000001-0')
    >>> try:
    ...     dice.enter([6])
    ... except InvalidThrowError as exc:
    ...     print(exc)
    a throw here has 2 dice, not 1, in [6]
    """

    prefix = "manual"

    def __init__(self, dice_count: int = 2, *, session: int | None = None) -> None:
        super().__init__(dice_count, session=session)

    def enter(self, dice: Sequence[int]) -> DiceThrow:
        """Take *dice* as a throw, tell the listeners, and return it.

        Dice that cannot be a throw here (not *dice_count* of them, one not a
        whole number 1..6) raise
        :class:`~willughby.hardware.errors.InvalidThrowError` quoting the
        whole entry; nothing is counted and no listener hears of it.
        """
        self._check_open()
        checked = check_dice(dice, self._dice_count)
        with self._lock:
            throw = DiceThrow(checked, "hand", self._next_ident())
        return self._emit(throw)


class PipEntry(_ButtonDice):
    """Dice thrown by hand, entered one die at a time on PIP1..PIP6.

    Each :meth:`press` adds a die to the entry; the press that completes
    *dice_count* dice makes a throw (source ``"hand"``), tells the listeners
    and clears the entry.  :meth:`undo` takes back an unfinished entry.

    :meth:`attach` makes a panel's pip buttons :meth:`press`.  UNDO is left
    to the caller, which asks the entry first and otherwise takes the press
    as the game's UNDO::

        def on_press(name):
            if name == "undo" and not entry.undo():
                ...  # undo in the game

    >>> entry = PipEntry(session=1)
    >>> entry.press(5) is None, entry.entry
    (True, (5,))
    >>> entry.press(2)
    DiceThrow(dice=(5, 2), source='hand', ident='pips-00000001-0')
    >>> entry.entry, entry.undo()
    ((), False)
    """

    prefix = "pips"

    _PIPS: ClassVar[dict[str, int]] = {f"pip{n}": n for n in range(1, 7)}

    def __init__(self, dice_count: int = 2, *, session: int | None = None) -> None:
        super().__init__(dice_count, session=session)
        self._entry: tuple[int, ...] = ()

    @property
    def entry(self) -> tuple[int, ...]:
        """The dice entered so far of a throw not yet complete."""
        return self._entry

    def _count_changed(self) -> None:
        self._entry = ()        # a new count starts a new entry

    def press(self, pip: int) -> DiceThrow | None:
        """Add a die showing *pip* (1..6).  Returns the throw if this die
        completed one (the listeners have heard of it), else ``None``."""
        self._check_open()
        if isinstance(pip, bool) or not isinstance(pip, int) or not 1 <= pip <= 6:
            raise InvalidThrowError(f"a pip button is 1..6, not {pip!r}")
        with self._lock:
            entry = self._entry + (pip,)
            if len(entry) < self._dice_count:
                self._entry = entry
                return None
            self._entry = ()
            throw = DiceThrow(entry, "hand", self._next_ident())
        return self._emit(throw)

    def undo(self) -> bool:
        """Clear an unfinished entry and return ``True``; with none under
        way, change nothing and return ``False`` (the UNDO is the game's)."""
        self._check_open()
        with self._lock:
            if not self._entry:
                return False
            log.debug("pip entry %s undone", self._entry)
            self._entry = ()
            return True

    def _on_press(self, name: str) -> None:
        pip = self._PIPS.get(name)
        if pip is not None and not self._closed:
            self.press(pip)


class BoxDice(DiceSource):
    """Throws reported by the dice box, from any *events* object that hands
    on the box's messages (:mod:`willughby.firmware_bridge.codec`).

    Each :class:`~willughby.firmware_bridge.codec.Throw` becomes a
    :class:`DiceThrow` with the box's source (``"box"``, or ``"hand"`` when
    the pips were entered on the box) and the ident
    ``f"box-{session:08x}-{seq}"``, so a throw the box sends twice has the
    same ident both times.  Every other message (a press, a heartbeat) is
    ignored.  After :meth:`close` messages are ignored too.

    >>> from willughby.firmware_bridge.codec import Press, Throw
    >>> class Link:
    ...     def add_listener(self, fn): self.fn = fn
    >>> link = Link()
    >>> box = BoxDice(link)
    >>> box.add_listener(print)
    >>> link.fn(Throw(session=7, seq=12, source="box", dice=(6, 3)))
    DiceThrow(dice=(6, 3), source='box', ident='box-00000007-12')
    >>> link.fn(Press(session=7, seq=13, button="done"))
    """

    def __init__(self, events: BoxEvents) -> None:
        super().__init__()
        self._events = events
        events.add_listener(self._on_message)

    def _on_message(self, msg: object) -> None:
        if self._closed or not isinstance(msg, Throw):
            return
        self._emit(DiceThrow(tuple(msg.dice), msg.source, f"box-{msg.session:08x}-{msg.seq}"))

    def _close(self) -> None:
        remove = getattr(self._events, "remove_listener", None)
        if callable(remove) and not getattr(self._events, "closed", False):
            remove(self._on_message)
