"""The dice sources: the Pi's roll, dice entered as numbers, the pip buttons,
and the dice box's throws."""

from __future__ import annotations

import dataclasses
import random
import re
import secrets
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from willughby.firmware_bridge.codec import Decoder, Heartbeat, Hello, Press, Throw, encode
from willughby.hardware import (
    BoxDice,
    DeviceClosedError,
    DiceSource,
    DiceThrow,
    HardwareError,
    InvalidSettingError,
    InvalidThrowError,
    ManualDice,
    PiDice,
    PinConfig,
    PiPanel,
    PipEntry,
)

from .helpers import FakeClock, press

CONFIG = PinConfig()


# --- DiceThrow

def test_throw_keeps_its_fields_and_makes_the_dice_a_tuple() -> None:
    throw = DiceThrow([4, 1], "box", "box-00000007-3")  # type: ignore[arg-type]
    assert (throw.dice, throw.source, throw.ident) == ((4, 1), "box", "box-00000007-3")
    with pytest.raises(dataclasses.FrozenInstanceError):
        throw.dice = (6, 6)  # type: ignore[misc]


@pytest.mark.parametrize(("args", "message"), [
    (((4, 1), "cup", "x-0"), "a throw's source is one of pi, hand, box, not 'cup'"),
    (((4, 1), "pi", ""), "a throw's ident is a non-empty string, not ''"),
    (((4, 0), "pi", "x-0"), "a die shows a whole number 1..6, not 0, in (4, 0)"),
    (((), "pi", "x-0"), "a throw has 1 to 3 dice, not 0, in ()"),
    (((1, 2, 3, 4), "pi", "x-0"), "a throw has 1 to 3 dice, not 4, in (1, 2, 3, 4)"),
])
def test_throw_that_cannot_be(args: tuple[Any, ...], message: str) -> None:
    with pytest.raises(InvalidThrowError, match=re.escape(message)):
        DiceThrow(*args)


# --- PiDice

def test_seeded_rolls_are_the_seeds_numbers() -> None:
    dice = PiDice(rng=random.Random(7), session=1)
    throws = [dice.roll() for _ in range(4)]
    assert [t.dice for t in throws] == [(3, 2), (4, 6), (1, 1), (5, 1)]
    assert {t.source for t in throws} == {"pi"}
    assert [t.ident for t in throws] == ["pi-00000001-0", "pi-00000001-1", "pi-00000001-2", "pi-00000001-3"]


def test_every_face_comes_up_and_nothing_else() -> None:
    dice = PiDice(rng=random.Random(2024))
    faces = Counter(d for _ in range(600) for d in dice.roll().dice)
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    assert min(faces.values()) > 150        # 1200 dice: about 200 of each


@given(seed=st.integers(min_value=0, max_value=2 ** 64), count=st.integers(min_value=1, max_value=3))
def test_a_roll_has_dice_count_dice_each_1_to_6(seed: int, count: int) -> None:
    throw = PiDice(count, rng=random.Random(seed)).roll()
    assert len(throw.dice) == count
    assert all(1 <= d <= 6 for d in throw.dice)


def test_default_rng_is_the_systems() -> None:
    dice = PiDice()
    assert isinstance(dice.rng, secrets.SystemRandom)
    assert all(1 <= d <= 6 for d in dice.roll().dice)


class OnlyRandint:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        self.calls.append((a, b))
        return b


class OnlyRandrange:
    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []

    def randrange(self, start: int, stop: int) -> int:
        self.calls.append((start, stop))
        return start


def test_an_rng_with_only_randint() -> None:
    rng = OnlyRandint()
    assert PiDice(rng=rng).roll().dice == (6, 6)
    assert rng.calls == [(1, 6), (1, 6)]


def test_an_rng_with_only_randrange() -> None:
    rng = OnlyRandrange()
    assert PiDice(3, rng=rng).roll().dice == (1, 1, 1)
    assert rng.calls == [(1, 7)] * 3


def test_an_rng_with_neither_is_refused() -> None:
    with pytest.raises(InvalidSettingError, match="rng must have randint or randrange"):
        PiDice(rng=object())  # type: ignore[arg-type]


def test_listeners_hear_the_throw_that_roll_returns() -> None:
    dice = PiDice(rng=random.Random(1))
    heard: list[DiceThrow] = []
    dice.add_listener(heard.append)
    first = dice.roll()
    dice.remove_listener(heard.append)
    dice.roll()
    assert heard == [first]


def test_three_dice() -> None:
    dice = PiDice(rng=random.Random(7), session=1)
    dice.dice_count = 3
    assert dice.dice_count == 3
    assert dice.roll().dice == (3, 2, 4)


@pytest.mark.parametrize("count", [0, 4, -1, True, 2.0, "2"])
def test_dice_count_is_1_to_3(count: Any) -> None:
    with pytest.raises(InvalidSettingError, match=re.escape(f"dice_count cannot be {count!r}")):
        PiDice(count)
    dice = PiDice()
    with pytest.raises(InvalidSettingError):
        dice.dice_count = count
    assert dice.dice_count == 2


def test_sessions_are_random_unless_given() -> None:
    assert len({PiDice().session for _ in range(5)}) == 5
    assert PiDice(session=0xDEADBEEF).roll().ident == "pi-deadbeef-0"


@pytest.mark.parametrize("session", [-1, 2 ** 32, "1", 1.0])
def test_session_is_32_bits(session: Any) -> None:
    with pytest.raises(InvalidSettingError, match="a session is a whole number"):
        PiDice(session=session)


def test_roll_button_rolls(factory: MockFactory, clock: FakeClock) -> None:
    with PiPanel(CONFIG, pin_factory=factory, clock=clock) as panel:
        dice = PiDice(rng=random.Random(7), session=1)
        dice.attach(panel)
        dice.attach(panel)                      # again: still one roll a press
        heard: list[DiceThrow] = []
        dice.add_listener(heard.append)
        press(factory, CONFIG.roll, clock)
        press(factory, CONFIG.done, clock)      # other buttons do not roll
        press(factory, CONFIG.pip3, clock)
        press(factory, CONFIG.roll, clock)
        assert [t.dice for t in heard] == [(3, 2), (4, 6)]
        dice.close()
        press(factory, CONFIG.roll, clock)      # a closed source has let go of the panel
        assert len(heard) == 2


def test_a_listener_fault_on_a_roll_press_is_logged_by_the_panel(
        factory: MockFactory, clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    with PiPanel(CONFIG, pin_factory=factory, clock=clock) as panel:
        dice = PiDice(rng=random.Random(7))
        dice.attach(panel)
        rolled: list[DiceThrow] = []

        def faulty(throw: DiceThrow) -> None:
            rolled.append(throw)
            raise RuntimeError("the game refused")

        dice.add_listener(faulty)
        press(factory, CONFIG.roll, clock)
        press(factory, CONFIG.roll, clock)
    assert len(rolled) == 2
    assert sum("'roll'" in r.getMessage() for r in caplog.records) == 2


def test_a_listener_fault_reaches_the_caller_of_roll() -> None:
    dice = PiDice(rng=random.Random(7))
    dice.add_listener(lambda throw: 1 / 0)   # type: ignore[func-returns-value]
    with pytest.raises(ZeroDivisionError):
        dice.roll()


def test_closing_the_panel_first_then_the_dice(factory: MockFactory, clock: FakeClock) -> None:
    panel = PiPanel(CONFIG, pin_factory=factory, clock=clock)
    dice = PiDice()
    dice.attach(panel)
    panel.close()
    dice.close()
    assert panel.closed and dice.closed


# --- every source's lifecycle

SOURCES: list[Callable[[], DiceSource]] = [
    PiDice,
    ManualDice,
    PipEntry,
    lambda: BoxDice(FakeLink()),
]


@pytest.mark.parametrize("make", SOURCES)
def test_close_twice_is_harmless_and_use_after_raises(make: Callable[[], DiceSource]) -> None:
    source = make()
    with source as same:
        assert same is source and not source.closed
    assert source.closed
    source.close()
    assert source.closed
    with pytest.raises(DeviceClosedError, match="is closed") as info:
        source.add_listener(print)
    assert isinstance(info.value, HardwareError) and isinstance(info.value, RuntimeError)
    with pytest.raises(DeviceClosedError):
        source.__enter__()


@pytest.mark.parametrize("use", [
    lambda d: PiDice.roll(d),
    lambda d: setattr(d, "dice_count", 3),
    lambda d: d.attach(FakePanel()),
])
def test_pi_dice_after_close(use: Callable[[PiDice], object]) -> None:
    dice = PiDice()
    dice.close()
    with pytest.raises(DeviceClosedError):
        use(dice)


# --- ManualDice

def test_entered_dice_are_a_hand_throw() -> None:
    dice = ManualDice(session=5)
    heard: list[DiceThrow] = []
    dice.add_listener(heard.append)
    throw = dice.enter([6, 4])
    assert throw == DiceThrow((6, 4), "hand", "manual-00000005-0")
    assert heard == [throw]
    assert dice.enter((3, 3)).ident == "manual-00000005-1"


def test_three_entered_dice() -> None:
    dice = ManualDice(3)
    assert dice.enter([1, 2, 6]).dice == (1, 2, 6)
    with pytest.raises(InvalidThrowError, match=re.escape("a throw here has 3 dice, not 2, in [1, 2]")):
        dice.enter([1, 2])


@pytest.mark.parametrize(("dice", "message"), [
    ([0, 3], "a die shows a whole number 1..6, not 0, in [0, 3]"),
    ([3, 7], "a die shows a whole number 1..6, not 7, in [3, 7]"),
    ([5], "a throw here has 2 dice, not 1, in [5]"),
    ([5, 5, 5], "a throw here has 2 dice, not 3, in [5, 5, 5]"),
    ([], "a throw here has 2 dice, not 0, in []"),
    (["3", 4], "a die shows a whole number 1..6, not '3', in ['3', 4]"),
    ([2.0, 4], "a die shows a whole number 1..6, not 2.0, in [2.0, 4]"),
    ([True, 4], "a die shows a whole number 1..6, not True, in [True, 4]"),
    ([None, 4], "a die shows a whole number 1..6, not None, in [None, 4]"),
    ("34", "dice are a sequence of whole numbers 1..6, not '34'"),
    (34, "dice are a sequence of whole numbers 1..6, not 34"),
])
def test_entered_dice_that_cannot_be(dice: Any, message: str) -> None:
    source = ManualDice(session=5)
    heard: list[DiceThrow] = []
    source.add_listener(heard.append)
    with pytest.raises(InvalidThrowError, match=re.escape(message)) as info:
        source.enter(dice)
    assert isinstance(info.value, ValueError) and isinstance(info.value, HardwareError)
    assert heard == []
    assert source.enter([2, 1]).ident == "manual-00000005-0"     # the refusal used up nothing


def test_enter_after_close() -> None:
    dice = ManualDice()
    dice.close()
    with pytest.raises(DeviceClosedError):
        dice.enter([1, 2])


# --- PipEntry

def test_two_pips_make_one_throw() -> None:
    entry = PipEntry(session=9)
    heard: list[DiceThrow] = []
    entry.add_listener(heard.append)
    assert entry.press(6) is None
    assert entry.entry == (6,)
    assert heard == []
    throw = entry.press(3)
    assert throw == DiceThrow((6, 3), "hand", "pips-00000009-0")
    assert heard == [throw]
    assert entry.entry == ()


def test_undo_mid_entry_clears_it() -> None:
    entry = PipEntry(session=9)
    heard: list[DiceThrow] = []
    entry.add_listener(heard.append)
    entry.press(2)
    assert entry.undo() is True
    assert entry.entry == ()
    entry.press(5)
    entry.press(4)
    assert [t.dice for t in heard] == [(5, 4)]


def test_undo_with_no_entry_is_the_games() -> None:
    entry = PipEntry()
    assert entry.undo() is False
    entry.press(1)
    entry.press(1)                  # complete: nothing left to take back
    assert entry.undo() is False


def test_three_dice_entry() -> None:
    entry = PipEntry(3, session=9)
    assert entry.press(4) is None
    assert entry.press(4) is None
    assert entry.entry == (4, 4)
    throw = entry.press(2)
    assert throw is not None and throw.dice == (4, 4, 2)


def test_changing_the_count_starts_a_new_entry() -> None:
    entry = PipEntry()
    entry.press(6)
    entry.dice_count = 3
    assert entry.entry == ()
    assert entry.press(1) is None and entry.press(2) is None
    throw = entry.press(3)
    assert throw is not None and throw.dice == (1, 2, 3)


@pytest.mark.parametrize("pip", [0, 7, True, "3", 2.0])
def test_a_pip_is_1_to_6(pip: Any) -> None:
    entry = PipEntry()
    entry.press(4)
    with pytest.raises(InvalidThrowError, match=re.escape(f"a pip button is 1..6, not {pip!r}")):
        entry.press(pip)
    assert entry.entry == (4,)


def test_pip_buttons_enter_dice(factory: MockFactory, clock: FakeClock) -> None:
    with PiPanel(CONFIG, pin_factory=factory, clock=clock) as panel:
        entry = PipEntry(session=9)
        entry.attach(panel)
        heard: list[DiceThrow] = []
        entry.add_listener(heard.append)
        for name in ("pip3", "pip5", "pip6", "pip6", "pip1"):
            press(factory, CONFIG.buttons[name], clock)
        assert [t.dice for t in heard] == [(3, 5), (6, 6)]
        assert entry.entry == (1,)
        press(factory, CONFIG.roll, clock)      # ROLL, DONE and UNDO are not the entry's
        press(factory, CONFIG.done, clock)
        press(factory, CONFIG.undo, clock)      # UNDO is the caller's to pass on (entry.undo())
        assert entry.entry == (1,)
        assert entry.undo() is True


def test_undo_button_goes_to_the_entry_first_then_the_game(factory: MockFactory, clock: FakeClock) -> None:
    """The wiring the class documents: the caller asks the entry, then the game."""
    with PiPanel(CONFIG, pin_factory=factory, clock=clock) as panel:
        entry = PipEntry()
        entry.attach(panel)
        game_undos: list[str] = []

        def on_press(name: str) -> None:
            if name == "undo" and not entry.undo():
                game_undos.append(name)

        panel.add_listener(on_press)
        press(factory, CONFIG.pip2, clock)
        press(factory, CONFIG.undo, clock)      # takes back the 2
        assert entry.entry == () and game_undos == []
        press(factory, CONFIG.undo, clock)      # nothing to take back: the game's
        assert game_undos == ["undo"]


# --- BoxDice

class FakeLink:
    """The least a box link does: hand messages to its listeners."""

    def __init__(self) -> None:
        self.listeners: list[Callable[[object], None]] = []

    def add_listener(self, fn: Callable[[object], None]) -> None:
        self.listeners.append(fn)

    def remove_listener(self, fn: Callable[[object], None]) -> None:
        self.listeners.remove(fn)

    def send(self, msg: object) -> None:
        for fn in list(self.listeners):
            fn(msg)


class FakePanel:
    def add_listener(self, fn: Callable[[str], None]) -> None:
        pass

    def remove_listener(self, fn: Callable[[str], None]) -> None:
        pass


def test_box_throw_becomes_a_dice_throw() -> None:
    link = FakeLink()
    box = BoxDice(link)
    heard: list[DiceThrow] = []
    box.add_listener(heard.append)
    link.send(Throw(session=0x1234ABCD, seq=41, source="box", dice=(6, 3)))
    assert heard == [DiceThrow((6, 3), "box", "box-1234abcd-41")]


def test_pips_entered_on_the_box_keep_the_boxs_source() -> None:
    link = FakeLink()
    box = BoxDice(link)
    heard: list[DiceThrow] = []
    box.add_listener(heard.append)
    link.send(Throw(session=7, seq=0, source="hand", dice=(2, 2, 5)))
    assert heard == [DiceThrow((2, 2, 5), "hand", "box-00000007-0")]


def test_presses_and_other_messages_are_ignored() -> None:
    link = FakeLink()
    box = BoxDice(link)
    heard: list[DiceThrow] = []
    box.add_listener(heard.append)
    link.send(Press(session=7, seq=1, button="done"))
    link.send(Heartbeat(session=7, uptime_ms=500, next=2, unacked=0))
    link.send(Hello(protocol=1, session=7, oldest=0, next=2, firmware="1.0"))
    link.send(Throw(session=7, seq=2, source="box", dice=(1, 4)))
    assert [t.ident for t in heard] == ["box-00000007-2"]


def test_bytes_from_the_box_through_the_codec() -> None:
    link = FakeLink()
    box = BoxDice(link)
    heard: list[DiceThrow] = []
    box.add_listener(heard.append)
    data = encode(Throw(session=3, seq=9, source="box", dice=(5, 6))) + encode(Press(session=3, seq=10,
                                                                                     button="undo"))
    for msg in Decoder().feed(data):
        link.send(msg)
    assert heard == [DiceThrow((5, 6), "box", "box-00000003-9")]


def test_closed_box_dice_let_go_of_the_link() -> None:
    link = FakeLink()
    box = BoxDice(link)
    heard: list[DiceThrow] = []
    box.add_listener(heard.append)
    box.close()
    assert link.listeners == []
    link.send(Throw(session=7, seq=0, source="box", dice=(1, 4)))
    assert heard == []


def test_a_link_without_remove_listener_is_ignored_after_close() -> None:
    class BareLink:
        def add_listener(self, fn: Callable[[object], None]) -> None:
            self.fn = fn

    link = BareLink()
    box = BoxDice(link)
    box.close()
    link.fn(Throw(session=7, seq=0, source="box", dice=(1, 4)))     # nobody to hear it, and no error
    assert box.closed
