"""The rules one man's step keeps in the race games, each written once.

Every rule a step must keep is one entry of :data:`CHECKS`: its name (what
:class:`Relax` switches off), the source keys it cites (``sources.py``),
whether a game's rules hold it at all, what breaks it, and the sentence
that says so (docs/house-conventions.md, convention 4).  Everything about a
step's legality comes from the table, as the unstacking games' actions do
(``unstacking.py``):

- the generator of steps (:func:`steps_by_table`): a step the board allows
  is legal when no check in force is broken; ``moves._steps`` is this
  generator specialised by hand for speed where nothing is relaxed, and
  ``tests/engine/test_race_checks.py`` holds the two equal over many random
  boards and every variant of the rules;
- :func:`step_violations`: the source keys one step breaks;
- the explanation of an illegal turn (``race_referee.py``): the plays found
  with the checks switched off one at a time (:func:`relaxations`), the
  first check the turn broke naming the rule and giving the reason.

>>> from willughby.engine.options import preset_rules
>>> from willughby.engine.position import Position
>>> from willughby.engine.race_state import Step, to_state
>>> s = to_state(Position.from_gnubg_id("4HPwATDgc/ABMA"), "light")
>>> step_violations(preset_rules("backgammon"), s, Step(13, 7, 6))
[]
>>> step_violations(preset_rules("backgammon"), s, Step(6, 1, 5))
['land.blocked']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from .errors import InvalidOptionError
from .options import Rules
from .position import other
from .race_state import BAR, BEYOND_HOME, HOME, OFF, STEPS, TOP, WAITING, Step, apply_step, rank, their

__all__ = ["StepCheck", "CHECKS", "NAMES", "Relax", "STRICT", "step_violations", "first_broken", "relaxations",
           "steps_by_table", "point_name"]

#: the mover's 54-tuple (``race_state.py``)
State = tuple[int, ...]


@dataclass(frozen=True)
class StepCheck:
    """One rule a man's step must keep.

    ``name`` is what :class:`Relax` switches off; ``sources`` the keys of
    ``sources.py`` it may cite, its own first; ``in_force(rules)`` whether
    the game holds the rule at all; ``broken(state, step)`` whether *step*
    from *state* breaks it where it is in force; ``reason(who, state, step,
    goes_on)`` says so in a sentence (*goes_on*: the same man moves on from
    where the step lands); ``cite`` picks the key among ``sources`` where
    the rule has more than one.
    """

    name: str
    sources: tuple[str, ...]
    in_force: Callable[[Rules], bool]
    broken: Callable[[State, Step], bool]
    reason: Callable[[str, State, Step, bool], str]
    cite: Callable[[State, Step, bool], str] | None = None

    def breaks(self, rules: Rules, state: State, step: Step) -> bool:
        """Whether *step* from *state* breaks this rule under *rules*."""
        return self.in_force(rules) and self.broken(state, step)

    def key(self, state: State, step: Step, goes_on: bool = False) -> str:
        """The source key a ruling on a broken step cites."""
        return self.sources[0] if self.cite is None else self.cite(state, step, goes_on)


def point_name(colour: str, own: int) -> str:
    """*colour*'s own point *own* in words: ``light's 5 point``, ``the bar``, ``off``."""
    return f"{colour}'s {own} point" if 1 <= own <= 24 else ("the bar" if own == BAR else "off")


def _always(rules: Rules) -> bool:
    return True


def _lands(step: Step) -> bool:
    return step.dst != 0


def _held(state: State, step: Step) -> int:
    """The opponent's men on the point the step lands on."""
    return state[their(step.dst)] if step.dst else 0


def _blocked_reason(who: str, state: State, step: Step, goes_on: bool) -> str:
    where, held, opp = point_name(who, step.dst), _held(state, step), other(who)
    if goes_on:
        return (f"{who}'s man passed through {where}, which {opp} holds with {held} men: "
                "every landing on the way must be legal")
    return f"{who} landed on {where}, which {opp} holds with {held} men"


CHECKS: tuple[StepCheck, ...] = (
    # "No other pieces can move until all of the pieces belonging to that player are removed
    # from the center" (Hoyle 1753)
    StepCheck(
        "bar_first", ("bar.first",), _always,
        lambda s, step: bool(s[BAR]) and step.src != BAR,
        lambda who, s, step, on: f"{who} moved a man while one stands on the bar",
    ),
    # enter_all_first: "all men must be entered before any entered man moves on" (Dutch, today)
    StepCheck(
        "enter_all_first", ("enter.all_first",), lambda rules: rules.enter_all_first,
        lambda s, step: bool(s[WAITING]) and not step.enters,
        lambda who, s, step, on: f"{who} moved an entered man on while men still wait to enter",
    ),
    # "if there are two or more opposing men on a space ... you can not land on the space"
    # (Willughby); a man moving on with the next die must land legally on the way too
    StepCheck(
        "blocked", ("land.blocked", "move.intermediate"), _always,
        lambda s, step: _held(s, step) >= 2,
        _blocked_reason,
        lambda s, step, on: "move.intermediate" if on else "land.blocked",
    ),
    # stakes=fill: the game is won by filling the home table, and no man is borne off
    StepCheck(
        "bear_fill", ("bear.fill",), lambda rules: rules.stakes == "fill",
        lambda s, step: step.bears_off,
        lambda who, s, step, on: (f"{who} bore off a man, but this game is won by filling the home "
                                  "table and no man is borne off"),
    ),
    # "When all of a player's pieces are on their final 6 points, they may start removing
    # pieces" (Hoyle 1753); a man hit after bearing off began suspends it
    StepCheck(
        "bear_home", ("bear.home", "bear.suspended"), _always,
        lambda s, step: step.bears_off and any(s[BEYOND_HOME]),
        lambda who, s, step, on: f"{who} bore off a man while not all his men were in his home table",
        lambda s, step, on: "bear.suspended" if s[OFF] or s[BAR] else "bear.home",
    ),
    # bear_off=exact: "a player must get the exact number of moves to reach the side of the board"
    StepCheck(
        "bear_exact", ("bear.exact",), lambda rules: rules.bear_off == "exact",
        lambda s, step: step.overshoots,
        lambda who, s, step, on: (f"{who} bore off from his {step.src} point with a {step.die}: a die "
                                  "bears off only a man on exactly that point"),
    ),
    # bear_off=modern: a higher die bears off "the next highest piece" only where none stands higher
    StepCheck(
        "bear_modern", ("bear.modern",), lambda rules: rules.bear_off == "modern",
        lambda s, step: step.overshoots and any(s[step.src + 1:7]),
        lambda who, s, step, on: (f"{who} bore off from his {step.src} point with a {step.die} while a "
                                  "man stands on a higher point"),
    ),
    # hit_needs_home: "a player may not hit a blot until he has a man in his own home table"
    StepCheck(
        "hit_needs_home", ("hit.needs_home",), lambda rules: rules.hit_needs_home,
        lambda s, step: _held(s, step) == 1 and not any(s[HOME]),
        lambda who, s, step, on: (f"{who} hit the blot on {point_name(who, step.dst)} before having a "
                                  "man in his home table"),
    ),
)

#: the names of the checks, in the table's order
NAMES: tuple[str, ...] = tuple(c.name for c in CHECKS)


@dataclass(frozen=True)
class Relax:
    """Checks of :data:`CHECKS` switched off, by name, to find *which* rule an
    illegal turn broke.

    >>> Relax(frozenset({"blocked"})).off
    frozenset({'blocked'})

    A name that is not a check's is refused (``InvalidOptionError``).
    """

    off: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unknown = sorted(self.off.difference(NAMES))
        if unknown:
            raise InvalidOptionError(f"no race check is named {unknown[0]!r} ({', '.join(NAMES)})")


#: nothing relaxed: the rules as they are
STRICT = Relax()


def step_violations(rules: Rules, state: State, step: Step) -> list[str]:
    """The source keys (``sources.py``) one step breaks, from *state*, under *rules*,
    in the order of :data:`CHECKS`."""
    return [c.key(state, step) for c in CHECKS if c.breaks(rules, state, step)]


def first_broken(rules: Rules, state: State, step: Step) -> StepCheck | None:
    """The first check of :data:`CHECKS` that *step* from *state* breaks, or None."""
    return next((c for c in CHECKS if c.breaks(rules, state, step)), None)


def relaxations(rules: Rules) -> list[Relax]:
    """The relaxations an illegal turn is explained by: each check the rules hold
    switched off alone, in the table's order, then all of them at once."""
    live = [c.name for c in CHECKS if c.in_force(rules)]
    out = [Relax(frozenset({name})) for name in live]
    if len(live) > 1:
        out.append(Relax(frozenset(live)))
    return out


@lru_cache(maxsize=64)
def _live(rules: Rules, relax: Relax) -> tuple[StepCheck, ...]:
    """The checks in force under *rules* and not switched off by *relax*."""
    return tuple(c for c in CHECKS if c.name not in relax.off and c.in_force(rules))


#: every place a man may start from, in the order men are taken (:func:`~willughby.engine.race_state.rank`)
_SOURCES = (BAR, WAITING, *range(24, 0, -1))


def steps_by_table(s: State, d: int, rules: Rules, relax: Relax = STRICT,
                   bound: int = TOP) -> list[tuple[Step, State]]:
    """Every step of one die *d* from state *s* that no check in force and not
    relaxed forbids, as (step, new state), the sources taken
    from the bar down; only sources ranked at or below *bound* are tried (a
    doublet's canonical order, ``moves._explore``).

    A step the board allows is a man on its source moved *d* points on
    (:func:`~willughby.engine.race_state.landing`), hitting a lone man of the
    opponent's where it lands; where ``blocked`` is relaxed it may land on
    a held point, and then hits nothing.
    """
    live = _live(rules, relax)
    made = STEPS[d]
    out: list[tuple[Step, State]] = []
    for src in _SOURCES:
        if not s[src] or rank(src) > bound:
            continue
        plain, hitting = made[src]
        step = hitting if plain.dst and s[their(plain.dst)] == 1 else plain
        if any(c.broken(s, step) for c in live):
            continue
        out.append((step, apply_step(s, step)))
    return out
