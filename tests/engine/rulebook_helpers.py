"""Helpers for the rulebook tests (``test_rulebook_*.py``).

Positions are drawn in each side's OWN numbering, as a player reads the
board (the board-document contract): light's own point k is physical point k; dark's
own point k is physical point ``25 - k``.

>>> p = board(light={6: 2}, dark={6: 2}, turn="light")
>>> p.light[5], p.dark[18]
(2, 2)

Men not drawn on a point, on the bar or waiting are off the board (borne
off), so every side has its 15 men.
"""

from __future__ import annotations

from typing import Iterable, Mapping

from willughby.engine.moves import legal_plays
from willughby.engine.notation import parse_play
from willughby.engine.position import Position
from willughby.engine.referee import Ruling, judge
from willughby.engine.rules import Rules, preset_rules

__all__ = ["board", "rules", "plays", "assert_plays", "after", "judged", "events"]


def board(light: Mapping[int, int] | None = None, dark: Mapping[int, int] | None = None, *,
          bar: tuple[int, int] = (0, 0), waiting: tuple[int, int] = (0, 0),
          off: tuple[int, int] | None = None, turn: str | None = "light",
          men: int = 15) -> Position:
    """A position drawn in own numbering: ``light={6: 5}`` is five light men on
    light's 6 point; ``dark={6: 5}`` five dark men on DARK's 6 point (physical
    19).  ``bar``, ``waiting`` and ``off`` are (light, dark) pairs; ``off``
    defaults to the men of the 15 not drawn anywhere else."""
    light = dict(light or {})
    dark = dict(dark or {})
    lt = [0] * 24
    dk = [0] * 24
    for own, n in light.items():
        assert 1 <= own <= 24, own
        lt[own - 1] += n
    for own, n in dark.items():
        assert 1 <= own <= 24, own
        dk[(25 - own) - 1] += n
    if off is None:
        off = (men - sum(lt) - bar[0] - waiting[0], men - sum(dk) - bar[1] - waiting[1])
    assert min(off) >= 0, "more than 15 men drawn"
    return Position(tuple(lt), tuple(dk), tuple(bar), tuple(off), tuple(waiting), turn)


def rules(preset: str, **options: object) -> Rules:
    """The rules of *preset* with options overridden (``bear_off="exact"``)."""
    text = {k: (("true" if v else "false") if isinstance(v, bool) else str(v))
            for k, v in options.items()}
    return preset_rules(preset, text)


def plays(rules: Rules, position: Position, dice: Iterable[int]) -> set[str]:
    """The notation of every legal play, as a set."""
    return {p.notation for p in legal_plays(rules, position, tuple(dice))}


def assert_plays(rules: Rules, position: Position, dice: Iterable[int], expected: set[str]) -> None:
    """The legal plays are exactly *expected* (notation worked out by hand),
    one play per distinct resulting position.

    Plays are compared by the position they leave (the referee judges a turn
    by the position it leaves), so ``13/5`` and ``13/8 8/5`` -- one play --
    match each other.  Each listed play's notation must also read back to the
    position it leaves.
    """
    found = legal_plays(rules, position, tuple(dice))
    names = sorted(p.notation for p in found)
    keys = [p.position.physical_key() for p in found]
    assert len(keys) == len(set(keys)), f"two listed plays leave the same position: {names}"
    for p in found:
        assert after(position, p.notation).physical_key() == p.position.physical_key(), (
            f"{p.notation!r} does not read back to the position it leaves")
    want: dict = {}
    for text in expected:
        key = after(position, text).physical_key()
        assert key not in want, f"{text!r} and {want[key]!r} are one play (same position)"
        want[key] = text
    got = {k: p.notation for k, p in zip(keys, found)}
    missing = sorted(want[k] for k in set(want) - set(got))
    unexpected = sorted(got[k] for k in set(got) - set(want))
    assert not missing and not unexpected, (
        f"\n  missing:    {missing}\n  unexpected: {unexpected}\n  engine:     {names}")


def after(position: Position, notation: str) -> Position:
    """The board after the men are moved as *notation* says (legality unchecked)."""
    return parse_play(position, notation)


def judged(rules: Rules, before: Position, dice: Iterable[int], after_: Position | str,
           cube: int = 1) -> Ruling:
    """The referee's ruling; *after_* may be a position or notation."""
    if isinstance(after_, str):
        after_ = after(before, after_)
    return judge(rules, before, tuple(dice), after_, cube=cube)


def events(ruling: Ruling) -> list[tuple]:
    """The ruling's events as (type, player, point, die) tuples."""
    return [(e.type, e.player, e.point, e.die) for e in ruling.events]
