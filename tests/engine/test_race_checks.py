"""The race games' step rules are one table (``engine/race_checks.py``): the
fast generator of steps is that table's, the source keys exist, and an
illegal turn is explained by switching the table's checks off one at a time.

The boards here are random: drawn slot by slot as the mover's 54-tuple
(men on the bar and waiting at once, men off, home tables empty or full,
held points and blots), and met along random games of Dutch backgammon.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from willughby.engine.errors import InvalidOptionError
from willughby.engine.moves import Relax, _steps, all_plays, legal_plays
from willughby.engine.options import Rules, preset_rules
from willughby.engine.race_checks import (CHECKS, NAMES, STRICT, first_broken, relaxations, step_violations,
                                          steps_by_table)
from willughby.engine.race_state import (BAR, OFF, OPP, STEPS, TOP, WAITING, Step, apply_step, landing, rank, their,
                                         to_state)
from willughby.engine.referee import judge
from willughby.engine.rules import start_position
from willughby.engine.sampling import random_dice, random_position
from willughby.engine.sources import source

#: every variant of the rules a step's checks read
VARIANTS: list[Rules] = [
    replace(preset_rules("backgammon"), bear_off=bear_off, stakes=stakes, enter_all_first=enter, hit_needs_home=hit)
    for bear_off in ("exact", "over", "modern")
    for stakes in ("single", "fill")
    for enter in (False, True)
    for hit in (False, True)
]


def random_state(rng: random.Random) -> tuple[int, ...]:
    """A mover's 54-tuple, drawn slot by slot (not every one could arise in a game)."""
    mine, theirs = [0] * OPP, [0] * OPP
    top = rng.choice((6, 6, 12, 24, 24, 24))       # often every man home, to bear off
    for k in range(1, 25):
        r = rng.random()
        if k <= top and r < 0.4:
            mine[k] = rng.choice((1, 1, 2, 3, 5))
        elif r < 0.65:
            theirs[25 - k] = rng.choice((1, 1, 1, 2, 3))
    if rng.random() < 0.2:                          # an empty home table (hit_needs_home)
        for k in range(1, 7):
            mine[k] = 0
    mine[BAR] = rng.choice((0, 0, 0, 1, 2))
    mine[WAITING] = rng.choice((0, 0, 0, 1, 4))
    mine[OFF] = rng.choice((0, 0, 3))
    theirs[BAR] = rng.choice((0, 0, 1))
    return tuple(mine + theirs)


def candidates(s: tuple[int, ...], d: int) -> list[Step]:
    """Every step the board allows with die *d*, whatever the rules."""
    out = []
    for src in (BAR, WAITING, *range(24, 0, -1)):
        if s[src]:
            dst = landing(src, d)
            out.append(Step(src, dst, d, bool(dst) and s[their(dst)] == 1))
    return out


# ------------------------------------------------------------ the table
def test_each_check_names_sources_that_exist_and_a_name_of_its_own() -> None:
    assert len(set(NAMES)) == len(CHECKS)
    for check in CHECKS:
        assert check.sources, check.name
        for key in check.sources:
            assert source(key).key == key


def test_a_relaxation_names_only_checks_of_the_table() -> None:
    assert Relax(frozenset(NAMES)).off == frozenset(NAMES)
    with pytest.raises(InvalidOptionError, match="blokced"):
        Relax(frozenset({"blokced"}))


def test_the_key_a_broken_check_cites_is_one_of_its_sources() -> None:
    rng = random.Random(7)
    for _ in range(1500):
        s = random_state(rng)
        for step in candidates(s, rng.randint(1, 6)):
            for check in CHECKS:
                for goes_on in (False, True):
                    assert check.key(s, step, goes_on) in check.sources


# -------------------------------------------- the generator is the table's
@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.bear_off}-{r.stakes}-"
                         f"{'enter' if r.enter_all_first else 'free'}-{'hit' if r.hit_needs_home else 'any'}")
def test_the_fast_generator_is_the_tables_step_for_step(rules: Rules) -> None:
    """``moves._steps`` (specialised by hand) gives what ``steps_by_table`` gives,
    in the same order, from any board, with any die, from any bound of a
    doublet's canonical order; and a step is given exactly when it breaks no rule."""
    rng = random.Random(f"fast-{rules}")
    for _ in range(300):
        s = random_state(rng)
        for d in range(1, 7):
            for bound in (TOP, WAITING, rng.randint(1, 24)):
                fast = _steps(s, d, rules, STRICT, bound)
                assert fast == steps_by_table(s, d, rules, STRICT, bound), (s, d, bound)
            given = {step for step, _ in _steps(s, d, rules, STRICT)}
            for step in candidates(s, d):
                assert (step in given) == (not step_violations(rules, s, step)), (s, step)
                assert (step in given) == (first_broken(rules, s, step) is None)


def test_a_relaxed_check_lets_exactly_its_steps_through() -> None:
    """Switching one check off adds the steps that break it alone, and nothing else."""
    rng = random.Random(11)
    for _ in range(600):
        rules = rng.choice(VARIANTS)
        s = random_state(rng)
        d = rng.randint(1, 6)
        strict = {step for step, _ in _steps(s, d, rules, STRICT)}
        for check in CHECKS:
            relaxed = {step for step, _ in _steps(s, d, rules, Relax(frozenset({check.name})))}
            for step in candidates(s, d):
                broken = {c.name for c in CHECKS if c.breaks(rules, s, step)}
                assert (step in relaxed) == (broken <= {check.name}), (check.name, s, step)
                assert (step in strict) == (not broken)


def test_the_ready_made_steps_are_the_steps_a_die_makes() -> None:
    for die in range(1, 7):
        for src in (BAR, WAITING, *range(1, 25)):
            plain, hitting = STEPS[die][src]
            assert plain == Step(src, landing(src, die), die, False)
            assert hitting == Step(src, landing(src, die), die, True)


def test_steps_leave_the_board_apply_step_makes() -> None:
    rng = random.Random(3)
    for _ in range(800):
        rules = rng.choice(VARIANTS)
        s = random_state(rng)
        for step, new in _steps(s, rng.randint(1, 6), rules, STRICT):
            assert new == apply_step(s, step)
            assert rank(step.src) <= TOP


# --------------------------------------- the explanation of an illegal turn
def dutch_positions(rng: random.Random, rules: Rules, turns: int) -> list:
    """Positions met along a random game of *rules* from its start."""
    pos = start_position(rules, rng.choice(("light", "dark")))
    out = []
    for _ in range(turns):
        plays = legal_plays(rules, pos, random_dice(rng, rules))
        pos = rng.choice(plays).position
        out.append(pos)
    return out


#: for each check, a game that holds it and the kind of board where breaking it is common
CASES = {
    "bar_first": ("backgammon", {}, "bar"),
    "enter_all_first": ("dutch", {}, "dutch"),
    "blocked": ("backgammon", {}, "contact"),
    "bear_fill": ("filling", {}, "bearoff"),
    "bear_home": ("backgammon", {}, "race"),
    "bear_exact": ("irish", {"bear_off": "exact"}, "bearoff"),
    "bear_modern": ("backgammon", {}, "bearoff"),
    "hit_needs_home": ("dutch", {}, "dutch"),
}


def test_every_check_has_a_case() -> None:
    assert set(CASES) == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_relaxing_a_check_is_what_explains_a_turn_that_breaks_it(name: str) -> None:
    """A board reached only by switching *name* off (and by no relaxation tried
    before it) is ruled illegal under that check's source, with its reason."""
    preset, options, kind = CASES[name]
    rules = preset_rules(preset, options)
    check = next(c for c in CHECKS if c.name == name)
    order = relaxations(rules)
    mine = order.index(Relax(frozenset({name})))
    rng = random.Random(f"explain-{name}")
    pool: list = []
    for _ in range(300):
        if not pool:
            pool = (dutch_positions(rng, rules, 12) if kind == "dutch"
                    else [random_position(rng, kind, turn=rng.choice(("light", "dark")))])
        before = pool.pop()
        dice = random_dice(rng, rules)
        strict = {p.position.physical_key() for p in all_plays(rules, before, dice, enforce_use=False)}
        for play in all_plays(rules, before, dice, relax=order[mine], enforce_use=False):
            after = play.position
            key = after.physical_key()
            if key in strict or any(p.position.physical_key() == key for r in order[:mine]
                                    for p in all_plays(rules, before, dice, relax=r, enforce_use=False,
                                                       toward=after)):
                continue
            ruling = judge(rules, before, dice, after)
            assert ruling.verdict == "illegal"
            assert ruling.rule in check.sources, (ruling.rule, ruling.reason)
            # the reason is the check's own sentence for one of the play's steps
            colour = before.turn
            state = to_state(before, colour)
            said = set()
            for step in play.steps:
                said |= {check.reason(colour, state, step, on) for on in (False, True)}
                state = apply_step(state, step)
            assert ruling.reason in said
            return
    pytest.fail(f"no board found that only relaxing {name} reaches")
