"""A brute-force reference referee for the unstacking games, as a test oracle
for ``willughby.engine.unstacking.outcomes`` (through ``referee.turn_outcomes``).

The reference below is written from ``specs/variants.md`` ("Unstacking
games" and the options table) and the board-document contract (``stacked``,
``phase``), as plainly as it can be, and shares nothing with the engine
(no ``CHECKS``, ``_act``, ``_moves``, ``expand_dice``, ``_side``): sides are
plain lists, a throw's actions are listed here, and every distinct ORDER of
the actions is played one action at a time, each action trying every point
it may act on, a play stopping after any action.  The only economy: within
one order, two ways of reaching the same side after the same actions are
kept once (what can follow depends only on the side and the actions left).
Then ``must_use``; then the dice left pass to the opponent
(``unused_throw=opponent``), who plays them the same way, except where Dames
Rabattues' exception forbids it.

The engine and the reference must give the same set of final boards (men,
piles, men off and each side's phase, read from the board document as
the board-document contract says), each once, with the right side to throw next.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from willughby.engine.position import Position
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import Rules, preset_rules, start_position

LIGHT, DARK = "light", "dark"
UNSTACKING = ["doublets", "doublets-cotton", "dames-rabattues", "doblet", "ofanfelling"]


# =====================================================================
# The reference
# =====================================================================
# A side is a tuple (men, piled, off, phase): men and piled are 6-tuples over
# the player's own points 1..6 (piled: how many of the men stand in a pile).

def phases_of(preset: str) -> list[str]:
    """variants.md: "unstack, restack, bear off" for Ofanfelling, else two phases."""
    return ["unstack", "restack", "bear_off"] if preset == "ofanfelling" else ["unstack", "bear_off"]


def physical(preset: str, colour: str, own: int) -> int:
    """Light's own point n is physical n.  Dark's is physical 25 - n (both players
    use one table and face each other), except in Ofanfelling, where dark's
    right-hand table is physical 13-18 and his point n is physical 12 + n."""
    if colour == LIGHT:
        return own
    return 12 + own if preset == "ofanfelling" else 25 - own


def throw_actions(rules: Rules, dice: tuple[int, ...]) -> list[tuple[int, bool]]:
    """The actions a throw gives, as (number, acts on any man).

    Each die is one action on its own point.  A doublet (two thrown dice alike;
    with three dice, two of them) is played as ``doubles`` says: plain, its two
    dice; triple, three; fourfold, four; pip-total, as many actions as its pips,
    each acting on any man.  A third die is played once; ``2+6`` adds a six."""
    thrown = list(dice)
    out: list[tuple[int, bool]] = []
    pair = [v for v, n in Counter(thrown).items() if n >= 2]
    if pair:
        v = pair[0]
        thrown.remove(v)
        thrown.remove(v)
        if rules.doubles == "pip-total":
            out += [(v, True)] * (2 * v)
        else:
            out += [(v, False)] * {"plain": 2, "triple": 3, "fourfold": 4}[rules.doubles]
    out += [(d, False) for d in thrown]
    if rules.dice == "2+6":
        out.append((6, False))
    return out


def has_pile(side) -> bool:
    return any(side[1])


def next_phase(preset: str, side):
    """Phases change as soon as one is done: playing down when no man stands in a
    pile; restacking when every point again holds its pile."""
    men, piled, off, phase = side
    order = phases_of(preset)
    while phase != "bear_off":
        if phase == "unstack" and not has_pile(side):
            phase = order[order.index(phase) + 1]
        elif phase == "restack" and all(piled[i] == men[i] for i in range(6) if men[i] >= 2):
            phase = "bear_off"
        else:
            break
        side = (men, piled, off, phase)
    return side


def one_action(preset: str, side, number: int, any_man: bool) -> list:
    """Every side one action can leave."""
    men, piled, off, phase = side
    out = []
    for p in (range(1, 7) if any_man else [number]):
        i = p - 1
        m, s = list(men), list(piled)
        o = off
        if phase == "unstack":
            # a die n takes one man off the pile on point n and lays it flat;
            # a lone man is no pile
            if s[i] < 2:
                continue
            s[i] -= 1
            if s[i] == 1:
                s[i] = 0
        elif phase == "restack":
            # a die n puts a man back onto a pile on point n
            if m[i] - s[i] < 1 or m[i] < 2:
                continue
            s[i] = 2 if s[i] == 0 else s[i] + 1
        else:
            # a die n removes one man from point n (a flat one if there is one)
            if m[i] == 0:
                continue
            if m[i] - s[i] == 0:
                s[i] -= 1
                if s[i] == 1:
                    s[i] = 0
            m[i] -= 1
            o += 1
        out.append(next_phase(preset, (tuple(m), tuple(s), o, phase)))
    return out


def distinct_orders(items: list) -> list[tuple]:
    """Every distinct ordering of a multiset (no two alike orders listed twice)."""
    if not items:
        return [()]
    out = []
    for first in sorted(set(items)):
        rest = list(items)
        rest.remove(first)
        out += [(first,) + tail for tail in distinct_orders(rest)]
    return out


def all_plays(preset: str, rules: Rules, side, actions: list) -> set:
    """{(side after, actions left unused)} for every play of *actions*."""
    found = set()
    for order in distinct_orders(actions):
        layer = {side}
        found.add((side, tuple(sorted(order))))
        for k, (number, any_man) in enumerate(order):
            nxt = set()
            for s in layer:
                nxt.update(one_action(preset, s, number, any_man))
            if not nxt:
                break
            layer = nxt
            for s in layer:
                found.add((s, tuple(sorted(order[k + 1:]))))
    if rules.must_use == "all":
        fewest = min(len(left) for _, left in found)
        found = {f for f in found if len(f[1]) == fewest}
    return found


def finished(side) -> bool:
    return sum(side[0]) == 0


def reference_turn(preset: str, rules: Rules, sides: dict, turn: str, dice: tuple[int, ...]) -> set:
    """Every final (light side, dark side, turn next) of the turn."""
    opp = DARK if turn == LIGHT else LIGHT
    rethrow = rules.doublet_rethrow and len(set(dice)) < len(dice)
    nxt = turn if rethrow else opp
    finals = set()
    for mine, left in all_plays(preset, rules, sides[turn], throw_actions(rules, dice)):
        passes = rules.unused_throw == "opponent" and left and not finished(mine)
        # Dames Rabattues: a player who has not yet unstacked all his men may not
        # use the throw of an opponent who is bearing off
        if (passes and preset == "dames-rabattues" and sides[opp][3] == "unstack"
                and mine[3] == "bear_off"):
            passes = False
        theirs = {sides[opp]}
        if passes:
            theirs = {t for t, _ in all_plays(preset, rules, sides[opp], list(left))}
        for t in theirs:
            pair = {turn: mine, opp: t}
            finals.add((pair[LIGHT], pair[DARK], nxt))
    return finals


# ------------------------------------------------- reading the engine's boards
def derived_phase(preset: str, men, piled, off) -> str:
    """the board-document contract: where ``phase`` is absent, a colour with a man off is in
    bear_off; otherwise, in Ofanfelling, one with no man in a pile is in restack
    and any other in unstack; in the other games, one with a man in a pile is in
    unstack and one with none in bear_off."""
    if off:
        return "bear_off"
    if preset == "ofanfelling":
        return "unstack" if any(piled) else "restack"
    return "unstack" if any(piled) else "bear_off"


def read_side(preset: str, doc: dict, colour: str):
    own = {physical(preset, colour, n): n for n in range(1, 7)}
    men, piled = [0] * 6, [0] * 6
    stacked = doc.get("stacked", {}).get(colour, [0] * 24)
    for p in range(1, 25):
        if doc[colour][p - 1]:
            assert p in own, f"{colour} has men on physical {p}, outside his table"
            men[own[p] - 1] = doc[colour][p - 1]
            piled[own[p] - 1] = stacked[p - 1]
        else:
            assert stacked[p - 1] == 0
    off = doc.get("off", {}).get(colour, 0)
    phase = doc.get("phase", {}).get(colour) or derived_phase(preset, men, piled, off)
    return (tuple(men), tuple(piled), off, phase)


def read_position(preset: str, pos: Position):
    doc = pos.to_board()
    return (read_side(preset, doc, LIGHT), read_side(preset, doc, DARK), doc.get("turn"))


def make_position(preset: str, sides: dict, turn: str, rng: random.Random | None = None) -> Position:
    """The Position of two reference sides; ``phase`` written where the board
    cannot show it (and, with *rng*, sometimes where it can)."""
    pts = {LIGHT: [0] * 24, DARK: [0] * 24}
    stk = {LIGHT: [0] * 24, DARK: [0] * 24}
    phase = []
    for colour in (LIGHT, DARK):
        men, piled, off, ph = sides[colour]
        for n in range(1, 7):
            pts[colour][physical(preset, colour, n) - 1] = men[n - 1]
            stk[colour][physical(preset, colour, n) - 1] = piled[n - 1]
        shown = derived_phase(preset, men, piled, off)
        phase.append(ph if ph != shown or (rng is not None and rng.random() < 0.2) else None)
    return Position(tuple(pts[LIGHT]), tuple(pts[DARK]),
                    off=(sides[LIGHT][2], sides[DARK][2]), turn=turn,
                    stacked=(tuple(stk[LIGHT]), tuple(stk[DARK])), phase=(phase[0], phase[1]))


# ------------------------------------------------------------ positions
def start_counts(preset: str) -> list[int]:
    return [2] * 6 if preset in ("doblet", "ofanfelling") else [2, 2, 2, 3, 3, 3]


def random_side(preset: str, rng: random.Random):
    """A reachable-looking side: still unstacking (every man on its point, some
    in piles), restacking (Ofanfelling: some points piled again), or bearing off
    (some men off, the rest flat; in Ofanfelling piles of two where a point
    still holds both its men)."""
    start = start_counts(preset)
    phase = rng.choice(phases_of(preset) + ["bear_off"])
    if phase == "unstack":
        piled = []
        for m in start:
            piled.append(rng.choice([0, m] + ([2] if m == 3 else [])) if rng.random() < 0.7 else 0)
        if not any(piled):
            i = rng.randrange(6)
            piled[i] = start[i]
        return (tuple(start), tuple(piled), 0, "unstack")
    if phase == "restack":
        piled = [rng.choice([0, 2]) for _ in start]
        if all(piled):
            piled[rng.randrange(6)] = 0
        return (tuple(start), tuple(piled), 0, "restack")
    men = [m if rng.random() < 0.3 else rng.randint(0, m) for m in start]
    if rng.random() < 0.3:  # the end is near
        men = [0] * 6
        for _ in range(rng.randint(1, 3)):
            men[rng.randrange(6)] += 1
    if not any(men):
        men[rng.randrange(6)] = 1
    piled = [0] * 6
    if preset == "ofanfelling":
        piled = [m if m >= 2 else 0 for m in men]
    return (tuple(men), tuple(piled), sum(start) - sum(men), "bear_off")


OPTION_CHOICES = {
    "dice": ["2", "3", "2+6"],
    "doubles": ["plain", "triple", "fourfold", "pip-total"],
    "doublet_rethrow": ["true", "false"],
    "must_use": ["all", "free"],
    "unused_throw": ["lost", "opponent"],
}


def random_rules(preset: str, rng: random.Random) -> Rules:
    """The preset as it stands half the time, else with some options changed."""
    if rng.random() < 0.5:
        return preset_rules(preset)
    options = {k: rng.choice(v) for k, v in OPTION_CHOICES.items() if rng.random() < 0.4}
    rules = preset_rules(preset, options)
    if rules.doubles == "pip-total" and rules.must_use == "free":
        # free pip-total plays are very many: a test of their own below, on small doublets
        rules = rules.with_options({"must_use": "all"})
    return rules


def compare(preset: str, rules: Rules, sides: dict, turn: str, dice: tuple[int, ...],
            rng: random.Random | None = None):
    pos = make_position(preset, sides, turn, rng)
    ref = reference_turn(preset, rules, sides, turn, dice)
    found = turn_outcomes(rules, pos, dice)
    got = [read_position(preset, o.position) for o in found]
    report = None
    if len(got) != len(set(got)) or set(got) != ref:
        missing = sorted(ref - set(got))[:4]
        extra = sorted(set(got) - ref)[:4]
        report = (f"{preset} {rules.options()} dice {dice} turn {turn}\n  sides {sides}\n"
                  f"  id {pos.id()}\n  missing {missing}\n  extra {extra}\n"
                  f"  duplicates {len(got) - len(set(got))}")
    return report, ref, found


# =====================================================================
# The cross-check
# =====================================================================

@pytest.mark.parametrize("preset", UNSTACKING)
def test_engine_matches_the_reference_on_random_positions(preset: str) -> None:
    rng = random.Random(f"unstack-{preset}")
    failures = []
    n = 600
    for _ in range(n):
        rules = random_rules(preset, rng)
        sides = {c: random_side(preset, rng) for c in (LIGHT, DARK)}
        dice = tuple(rng.randint(1, 6) for _ in range(rules.dice_thrown))
        if rng.random() < 0.15:  # doublets often: they are the hard case
            d = rng.randint(1, 6)
            dice = (d, d) + dice[2:]
        report, _, _ = compare(preset, rules, sides, rng.choice([LIGHT, DARK]), dice, rng)
        if report:
            failures.append(report)
    assert not failures, (f"{len(failures)} of {n} disagree; the first:\n\n" + "\n\n".join(failures[:3]))


@pytest.mark.parametrize("preset", UNSTACKING)
def test_engine_matches_the_reference_along_random_games(preset: str) -> None:
    """Positions the game really reaches: random games from the start, each
    turn checked, the next position drawn among the reference's finals."""
    rng = random.Random(f"games-{preset}")
    rules = preset_rules(preset)
    failures, turns, games = [], 0, 0
    while turns < 300:
        start = read_position(preset, start_position(rules, LIGHT))
        sides, turn = {LIGHT: start[0], DARK: start[1]}, rng.choice([LIGHT, DARK])
        games += 1
        while True:
            dice = tuple(rng.randint(1, 6) for _ in range(rules.dice_thrown))
            report, ref, _ = compare(preset, rules, sides, turn, dice)
            turns += 1
            if report:
                failures.append(report)
            light, dark, turn = rng.choice(sorted(ref))
            sides = {LIGHT: light, DARK: dark}
            if finished(light) or finished(dark):
                break
    assert not failures, (f"{len(failures)} of {turns} turns ({games} games) disagree; the first:\n\n"
                          + "\n\n".join(failures[:3]))


def test_free_use_of_small_pip_total_doublets() -> None:
    """``must_use=free`` with pip-total doublets: any number of the actions,
    the rest lost or passed (small doublets: the plays are many)."""
    rng = random.Random(5)
    failures = []
    for preset in ("doublets", "doublets-cotton"):
        rules = preset_rules(preset, {"must_use": "free"})
        for _ in range(40):
            sides = {c: random_side(preset, rng) for c in (LIGHT, DARK)}
            d = rng.randint(1, 3)
            report, _, _ = compare(preset, rules, sides, rng.choice([LIGHT, DARK]), (d, d))
            if report:
                failures.append(report)
    assert not failures, "\n\n".join(failures[:3])


def test_every_pip_total_doublet_from_every_phase() -> None:
    """Pip-total doublets (the largest plays) on positions of every phase."""
    rng = random.Random(11)
    failures = []
    for preset in UNSTACKING:
        rules = preset_rules(preset, {"doubles": "pip-total", "dice": "2"})
        for _ in range(20):
            sides = {c: random_side(preset, rng) for c in (LIGHT, DARK)}
            d = rng.randint(1, 6)
            report, _, _ = compare(preset, rules, sides, LIGHT, (d, d))
            if report:
                failures.append(report)
    assert not failures, "\n\n".join(failures[:3])


# =====================================================================
# The reference checked by hand (it must be right too)
# =====================================================================

def test_reference_start_of_doublets() -> None:
    rules = preset_rules("doublets")
    start = read_position("doublets", start_position(rules, LIGHT))
    sides = {LIGHT: start[0], DARK: start[1]}
    assert start[0] == ((2, 2, 2, 3, 3, 3), (2, 2, 2, 3, 3, 3), 0, "unstack")
    # 2-6: a pile of two lies flat, a pile of three leaves two in a pile
    (final,) = reference_turn("doublets", rules, sides, LIGHT, (2, 6))
    assert final[0] == ((2, 2, 2, 3, 3, 3), (2, 0, 2, 3, 3, 2), 0, "unstack") and final[2] == DARK
    # 1-1 (pip total 2): two actions on any men: C(6+2-1, 2) less the 3 ways of
    # two actions on one pile of two = 21 - 3 = 18
    assert len(reference_turn("doublets", rules, sides, LIGHT, (1, 1))) == 18


def test_reference_passes_dice_and_keeps_the_exception() -> None:
    rules = preset_rules("dames-rabattues")
    flat = ((2, 2, 2, 3, 3, 3), (0,) * 6, 0, "bear_off")
    piled = ((2, 2, 2, 3, 3, 3), (2, 2, 2, 3, 3, 3), 0, "unstack")
    gone4 = ((2, 2, 2, 0, 3, 3), (0,) * 6, 3, "bear_off")
    # light bears off and cannot use the 4: dark, still unstacking, may not take it
    (final,) = reference_turn("dames-rabattues", rules, {LIGHT: gone4, DARK: piled}, LIGHT, (4, 1))
    assert final[1] == piled and final[0][0] == (1, 2, 2, 0, 3, 3)
    # the other way round, dark (bearing off) takes light's lost die
    light = ((2, 2, 2, 3, 3, 3), (2, 2, 0, 3, 3, 3), 0, "unstack")
    (final,) = reference_turn("dames-rabattues", rules, {LIGHT: light, DARK: flat}, LIGHT, (3, 1))
    assert final[1][0] == (2, 2, 1, 3, 3, 3) and final[2] == DARK
