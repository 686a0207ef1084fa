"""A brute-force reference move generator, as a test oracle for
``willughby.engine.moves.legal_plays``.

The reference below is written straight from ``docs/games.md``
and ``docs/rules-choices.md``, as plainly as possible, and shares no move
logic with the engine (no ``_steps``, ``_explore``, ``to_state``,
``expand_dice``).  It takes every ORDER of the moves of a throw and plays the
dice one at a time, each step fully checked, allowing a play to stop after any
die; then it applies ``must_use`` and ``higher_die`` and keeps the distinct
resulting positions.  The only economy: within one order, two ways of
reaching the same board after the same dice are kept once (what can follow
depends only on the board and the dice left).

The engine and the reference must give the same set of resulting positions,
and the engine must give each position once.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from willughby.engine.moves import legal_plays
from willughby.engine.position import Position
from willughby.engine.rules import Rules, preset_rules, start_position
from willughby.engine.sampling import KINDS, random_position

LIGHT, DARK = "light", "dark"


# =====================================================================
# The reference
# =====================================================================
# A board is (light, dark, bar, off, waiting): the fields of a Position,
# light/dark 24 counts over physical points 1..24, the others (light, dark).

def phys_index(ci: int, p: int) -> int:
    """Index into the 24 physical counts of player ci's own point p
    (light's own point p is physical p; dark's own point p is physical 25 - p)."""
    return p - 1 if ci == 0 else 24 - p


def own_men(board, ci: int, p: int) -> int:
    """The mover's men on his own point p."""
    return board[ci][phys_index(ci, p)]


def enemy_men(board, ci: int, p: int) -> int:
    """The opponent's men on the mover's own point p."""
    return board[1 - ci][phys_index(ci, p)]


def expand(rules: Rules, dice: tuple[int, ...]) -> list[int]:
    """The moves a throw gives.  A doublet (two thrown dice alike; with three
    dice, two of them alike, three alike being a doublet and one more) is
    played as ``doubles`` says: plain 2 moves, triple 3, fourfold 4,
    pip-total 2 * n moves of n.  ``2+6`` adds a six, which is never thrown,
    so it never makes a doublet."""
    thrown = list(dice)
    moves: list[int] = []
    pairs = [v for v, n in Counter(thrown).items() if n >= 2]
    if pairs:
        v = pairs[0]
        thrown.remove(v)
        thrown.remove(v)
        n = {"plain": 2, "triple": 3, "fourfold": 4, "pip-total": 2 * v}[rules.doubles]
        moves += [v] * n
    moves += thrown
    if rules.dice == "2+6":
        moves.append(6)
    return moves


def single_steps(board, ci: int, d: int, rules: Rules):
    """Every legal move of one man by one die d for player ci: [(step text, new board)]."""
    light, dark, bar, off, waiting = board
    # which men may move
    if bar[ci] > 0:
        sources = ["bar"]                       # the bar first
    elif waiting[ci] > 0 and rules.enter_all_first:
        sources = ["in"]                        # all men entered before any moves on
    else:
        sources = [p for p in range(24, 0, -1) if own_men(board, ci, p) > 0]
        if waiting[ci] > 0:
            sources.append("in")
    out = []
    for src in sources:
        from_point = 25 if src in ("bar", "in") else src   # entering: die n -> own 25 - n
        to_point = from_point - d
        hit = False
        if to_point <= 0:
            # bearing off
            if rules.stakes == "fill":
                continue
            all_home = (bar[ci] == 0 and waiting[ci] == 0
                        and all(own_men(board, ci, p) == 0 for p in range(7, 25)))
            if not all_home:
                continue
            if to_point < 0:
                if rules.bear_off == "exact":
                    continue
                if rules.bear_off == "modern" and any(own_men(board, ci, p) for p in range(src + 1, 7)):
                    continue
                # "over": any man carried past the ace point goes off
        else:
            enemy = enemy_men(board, ci, to_point)
            if enemy >= 2:
                continue                        # a held point
            if enemy == 1:
                if rules.hit_needs_home and not any(own_men(board, ci, p) for p in range(1, 7)):
                    continue                    # no hit before a man is home
                hit = True
        sides = [list(light), list(dark)]
        bar_l, off_l, wait_l = list(bar), list(off), list(waiting)
        if src == "bar":
            bar_l[ci] -= 1
        elif src == "in":
            wait_l[ci] -= 1
        else:
            sides[ci][phys_index(ci, src)] -= 1
        if to_point <= 0:
            off_l[ci] += 1
        else:
            if hit:
                sides[1 - ci][phys_index(ci, to_point)] -= 1
                bar_l[1 - ci] += 1
            sides[ci][phys_index(ci, to_point)] += 1
        text = f"{src}/{'off' if to_point <= 0 else to_point}{'*' if hit else ''}({d})"
        out.append((text, (tuple(sides[0]), tuple(sides[1]), tuple(bar_l), tuple(off_l), tuple(wait_l))))
    return out


def board_of(pos: Position):
    return (pos.light, pos.dark, pos.bar, pos.off, pos.waiting)


def reference_plays(rules: Rules, pos: Position, dice: tuple[int, ...]) -> dict:
    """{resulting board: one sequence of steps leaving it}, for every legal play."""
    ci = 0 if pos.turn == LIGHT else 1
    moves = expand(rules, dice)
    start = board_of(pos)
    # every play: (board, moves used, the dice used in order, the steps)
    found = [(start, 0, (), ())]
    for order in sorted(set(itertools.permutations(moves))):
        layer = {start: ()}
        for k, d in enumerate(order, 1):
            after = {}
            for b, path in layer.items():
                for text, nb in single_steps(b, ci, d, rules):
                    after.setdefault(nb, path + (text,))
            layer = after
            for b, path in layer.items():
                found.append((b, k, order[:k], path))
    if rules.must_use == "all":
        most = max(n for _, n, _, _ in found)
        found = [f for f in found if f[1] == most]
        if rules.higher_die and rules.dice == "2" and dice[0] != dice[1] and most == 1:
            with_high = [f for f in found if f[2][0] == max(dice)]
            if with_high:
                found = with_high
    result: dict = {}
    for b, _, _, path in found:
        result.setdefault(b, path)
    return result


# =====================================================================
# Positions
# =====================================================================

def other(colour: str) -> str:
    return DARK if colour == LIGHT else LIGHT


def custom_position(rng: random.Random, max_waiting: int = 15, no_home: float = 0.3) -> Position:
    """A position with men waiting to enter (or none, with max_waiting 0) and
    often men on the bar; with probability no_home a side has no man in his
    home table (for hit_needs_home)."""
    counts = [[0] * 24, [0] * 24]
    bar, waiting = [0, 0], [0, 0]
    for ci in (0, 1):
        waiting[ci] = rng.choice([0, rng.randint(0, max_waiting), max_waiting]) if max_waiting else 0
        if rng.random() < 0.3:
            bar[ci] = min(rng.randint(1, 2), 15 - waiting[ci])
        rest = 15 - waiting[ci] - bar[ci]
        points = list(range(7, 25)) if rng.random() < no_home else list(range(1, 25))
        free = [p for p in points if counts[1 - ci][phys_index(ci, p)] == 0]
        chosen = rng.sample(free, min(len(free), rng.randint(2, 7)))
        for _ in range(rest):
            p = rng.choice(chosen)
            if counts[ci][phys_index(ci, p)] < 15:
                counts[ci][phys_index(ci, p)] += 1
            else:
                waiting[ci] += 1
    return Position(tuple(counts[0]), tuple(counts[1]), tuple(bar), (0, 0), tuple(waiting),
                    rng.choice([LIGHT, DARK]))


def random_throw(rng: random.Random, rules: Rules, cap: int) -> tuple[int, ...]:
    """A throw of the game's dice whose moves number at most cap."""
    while True:
        dice = tuple(rng.randint(1, 6) for _ in range(3 if rules.dice == "3" else 2))
        if len(expand(rules, dice)) <= cap:
            return dice


# =====================================================================
# The comparison
# =====================================================================

def compare(preset: str, rules: Rules, pos: Position, dice: tuple[int, ...]) -> tuple[str | None, dict]:
    """(None or a mismatch report, the reference's plays)."""
    ref = reference_plays(rules, pos, dice)
    engine: dict = {}
    duplicates = []
    for play in legal_plays(rules, pos, dice):
        b = board_of(play.position)
        if b in engine:
            duplicates.append(play.notation)
        engine[b] = play.notation
    physical = Counter(play.position.physical_key() for play in legal_plays(rules, pos, dice))
    duplicates += [f"physical key x{n}" for n in physical.values() if n > 1]
    only_engine = set(engine) - set(ref)
    only_ref = set(ref) - set(engine)
    if not (only_engine or only_ref or duplicates):
        return None, ref

    def show(b, how: str) -> str:
        after = Position(*b, turn=other(pos.turn))
        return f"  {how}\n" + "\n".join("    " + line for line in str(after).splitlines())

    lines = [
        f"preset {preset}, options {rules.options()}",
        f"dice {dice} (moves {expand(rules, dice)}), {pos.turn} to play, position id {pos.id()}",
        str(pos),
        f"engine {len(engine)} plays, reference {len(ref)}",
    ]
    if duplicates:
        lines.append(f"engine gives one position more than once: {duplicates}")
    for b in sorted(only_engine)[:5]:
        lines.append(show(b, f"only the engine: {engine[b]}"))
    for b in sorted(only_ref)[:5]:
        lines.append(show(b, f"only the reference: {' '.join(ref[b]) or '(no move)'}"))
    return "\n".join(lines), ref


# =====================================================================
# The matrix
# =====================================================================
# (preset, overrides, source, pairs, cap on moves per throw)
# source: a kind of sampling.random_position ("mixed" = any kind), "custom"
# (men waiting and on the bar), "walk" (random games from the start position,
# each turn checked, the next position drawn from the reference's plays).

BEAROFF = ("bearoff", "bearoff", "race", "contact")
MATRIX = [
    ("irish", {}, KINDS, 250, 4),
    ("irish", {}, "walk", 150, 4),
    ("backgammon", {}, KINDS, 250, 4),
    ("backgammon", {}, "walk", 150, 4),
    ("backgammon-willughby", {}, KINDS, 200, 4),
    ("backgammon", {"bear_off": "exact"}, BEAROFF, 150, 4),
    ("backgammon", {"bear_off": "over"}, BEAROFF, 150, 4),
    ("backgammon", {"bear_off": "modern"}, BEAROFF, 150, 4),
    ("backgammon", {"must_use": "free"}, KINDS, 150, 4),
    ("backgammon", {"must_use": "free", "higher_die": "false"}, KINDS, 80, 4),
    ("irish", {"higher_die": "true"}, KINDS, 150, 4),
    ("backgammon", {"higher_die": "false"}, KINDS, 100, 4),
    ("backgammon", {"doubles": "plain"}, KINDS, 100, 4),
    ("backgammon", {"doubles": "triple"}, KINDS, 100, 4),
    ("irish", {"doubles": "fourfold"}, KINDS, 100, 4),
    ("irish", {"doubles": "pip-total"}, KINDS, 80, 4),
    ("backgammon", {"hit_needs_home": "true"}, "custom0", 150, 4),
    ("backgammon", {"hit_needs_home": "true", "must_use": "free"}, "custom0", 80, 4),
    ("english", {}, KINDS, 120, 5),
    ("english", {}, "walk", 120, 5),
    ("english", {"dice": "2+6"}, KINDS, 100, 5),
    ("english", {"dice": "2+6"}, "walk", 80, 5),
    ("english", {"doubles": "triple"}, KINDS, 60, 5),
    ("english", {"doubles": "fourfold"}, KINDS, 40, 5),
    ("english", {"dice": "2+6", "doubles": "fourfold"}, KINDS, 40, 5),
    ("filling", {}, KINDS, 150, 4),
    ("filling", {}, "walk", 150, 4),
    ("filling", {"bear_off": "exact", "must_use": "free"}, BEAROFF, 60, 4),
    ("dutch", {}, "custom", 200, 4),
    ("dutch", {}, "walk", 200, 4),
    ("dutch", {"enter_all_first": "false"}, "custom", 120, 4),
    ("dutch", {"enter_all_first": "false"}, "walk", 100, 4),
    ("dutch", {"hit_needs_home": "false"}, "custom", 120, 4),
    ("dutch", {"enter_all_first": "false", "hit_needs_home": "false"}, "custom", 200, 4),
    ("dutch", {"enter_all_first": "false", "must_use": "free"}, "custom", 60, 4),
    ("dutch", {"higher_die": "false", "bear_off": "exact"}, "walk", 100, 4),
]


def _id(row) -> str:
    preset, overrides, source, pairs, _ = row
    src = source if isinstance(source, str) else ("kinds" if source == KINDS else "bearoff")
    opts = ",".join(f"{k}={v}" for k, v in overrides.items())
    return f"{preset}[{opts}]-{src}-{pairs}"


def pairs_of(rng: random.Random, preset: str, rules: Rules, source, n: int, cap: int):
    """n (position, throw) pairs; a walk checks as it goes, so it is driven by the caller."""
    for _ in range(n):
        if source == "custom":
            pos = custom_position(rng)
        elif source == "custom0":
            pos = custom_position(rng, max_waiting=0, no_home=0.6)
        else:
            pos = random_position(rng, rng.choice(source), turn=rng.choice([LIGHT, DARK]))
        yield pos, random_throw(rng, rules, cap)


@pytest.mark.parametrize("row", MATRIX, ids=[_id(r) for r in MATRIX])
def test_engine_agrees_with_reference(row) -> None:
    preset, overrides, source, n, cap = row
    rules = preset_rules(preset, overrides)
    rng = random.Random(f"reference-movegen {_id(row)}")
    failures: list[str] = []
    if source == "walk":
        pos = start_position(rules, rng.choice([LIGHT, DARK]))
        turns = 0
        for _ in range(n):
            dice = random_throw(rng, rules, cap)
            report, ref = compare(preset, rules, pos, dice)
            if report:
                failures.append(report)
            turns += 1
            board = rng.choice(sorted(ref))
            if turns >= 120 or max(board[3]) == rules.men:
                pos, turns = start_position(rules, rng.choice([LIGHT, DARK])), 0
            else:
                pos = Position(*board, turn=other(pos.turn))
    else:
        for pos, dice in pairs_of(rng, preset, rules, source, n, cap):
            report, _ = compare(preset, rules, pos, dice)
            if report:
                failures.append(report)
    assert not failures, (f"{len(failures)} of {n} (position, throw) pairs disagree; the first:\n\n"
                          + "\n\n".join(failures[:3]))


# =====================================================================
# The reference checked on a few hand-made cases (it must be right too)
# =====================================================================

def _board(light=None, dark=None, *, bar=(0, 0), waiting=(0, 0), turn=LIGHT) -> Position:
    lt, dk = [0] * 24, [0] * 24
    for p, n in (light or {}).items():
        lt[p - 1] += n
    for p, n in (dark or {}).items():       # dark's own numbering
        dk[24 - p] += n
    off = (15 - sum(lt) - bar[0] - waiting[0], 15 - sum(dk) - bar[1] - waiting[1])
    return Position(tuple(lt), tuple(dk), bar, off, waiting, turn)


def test_reference_opening_31_has_16_plays() -> None:
    start = start_position(preset_rules("backgammon"), LIGHT)
    assert len(reference_plays(preset_rules("backgammon"), start, (3, 1))) == 16


def test_reference_higher_die_and_blocked_throw() -> None:
    # light's last man on his 24 point; dark holds light's 13: 6-5 plays one die only
    pos = _board({24: 1}, {12: 2, 2: 13})
    assert {b[0].index(1) + 1 for b in reference_plays(preset_rules("irish"), pos, (6, 5))} == {18, 19}
    assert {b[0].index(1) + 1 for b in reference_plays(preset_rules("backgammon"), pos, (6, 5))} == {18}
    # 6-6 from 24 lands on light's 18, held by dark: no move at all
    blocked = _board({24: 2, 1: 13}, {7: 2, 6: 13})
    assert list(reference_plays(preset_rules("backgammon"), blocked, (6, 6))) == [board_of(blocked)]


def test_reference_enter_all_first_and_hit_needs_home() -> None:
    dutch = preset_rules("dutch")
    pos = _board({}, {6: 1, 1: 14}, waiting=(15, 0))  # a dark blot on light's 19 point
    # the 6 would hit on 19 before a light man is home: only in/20 with the 5
    (after,) = reference_plays(dutch, pos, (6, 5))
    assert after[4][0] == 14 and after[0][19] == 1 and after[2] == (0, 0)
    # without hit_needs_home: in/19* in/20
    (after,) = reference_plays(dutch.with_options({"hit_needs_home": "false"}), pos, (6, 5))
    assert after[4][0] == 13 and after[2] == (0, 1)
    # without enter_all_first the entered man may go on: in/20/14 is the one play
    free = dutch.with_options({"enter_all_first": "false"})
    (after,) = reference_plays(free, pos, (6, 5))
    assert after[4][0] == 14 and after[0][13] == 1


def test_engine_doublet_enters_waiting_men_after_the_bar() -> None:
    """The smallest case the matrix found: light has a man on the bar and 14
    waiting (Dutch, hit_needs_home=false); 3-3 enters the man from the bar,
    then three waiting men (bar/22 in/22(3)): all four moves can be played."""
    rules = preset_rules("dutch", {"hit_needs_home": "false"})
    pos = _board({}, {6: 2, 1: 13}, bar=(1, 0), waiting=(14, 0))
    report, ref = compare("dutch", rules, pos, (3, 3))
    assert len(ref) == 1 and next(iter(ref))[4][0] == 11
    assert report is None, report
