"""The referee of the unstacking games: a turn's board after judged legal, or
illegal with the rule it broke.

A legal turn is found among the outcomes leaving the board after
(:func:`~willughby.engine.unstacking.outcomes`).  An illegal one is explained
as docs/house-conventions.md asks (convention 4): men made or lost, men moved from point to
point, the opponent's men changed with no die passed to him, then the checks
of :data:`~willughby.engine.unstacking.CHECKS` switched off one at a time, the
first the turn broke being named with its source.
"""

from __future__ import annotations

from typing import Sequence

from .errors import InvalidBoardError
from .moves import validate_dice
from .position import COLOURS, Position, other
from .options import Rules
from .rulings import Event, GameOver, Outcome, Ruling
from .sources import source
from .unstacking import (CHECKS, MEN, OFF, PHASE, POINTS, Action, _act, _mover, _outcomes, _side, game_over, outcomes,
                         start_position)

__all__ = ["judge", "UNSTACKING", "UnstackingFamily"]


def judge(rules: Rules, before: Position, dice: Sequence[int], after: Position, cube: int = 1) -> Ruling:
    """Rule on one turn of an unstacking game (the board after is compared by
    what the board shows; its ``phase``, where given, must agree).

    >>> from willughby.engine.rules import preset_rules, start_position
    >>> from willughby.engine.unstacking import outcomes
    >>> rules = preset_rules("doublets")
    >>> start = start_position(rules, "light")
    >>> after = outcomes(rules, start, (4, 1))[0].position
    >>> judge(rules, start, (4, 1), after).events[0].to_json()
    {'type': 'unstack', 'player': 'light', 'point': 4}
    """
    colour = _mover(rules, before)
    thrown = validate_dice(rules, dice)
    target = after.physical_key()
    try:
        # only the outcomes that leave the board after (a pip-total doublet may have thousands)
        leading = _outcomes(rules, before, thrown, target=after)
    except InvalidBoardError:  # men off their own points: no play leads there
        leading = []
    for o in leading:
        if o.position.physical_key() == target and _phase_agrees(after, o.position):
            return _legal(rules, colour, thrown, o, None, cube)
    return _illegal(rules, before, thrown, after, _outcomes(rules, before, thrown))


def _phase_agrees(after: Position, settled: Position) -> bool:
    return all(a is None or a == b for a, b in zip(after.phase, settled.phase))


def _events(steps: Sequence[Action], player: str) -> list[Event]:
    return [Event(a.kind, player, a.point) for a in steps]


def _legal(rules: Rules, colour: str, dice: tuple[int, ...], o: Outcome, count: int | None,
           cube: int) -> Ruling:
    opponent = other(colour)
    events = _events(o.play.steps, colour)
    if not o.play.steps:
        events.append(Event("pass", colour))
    passed = list(o.play.unused)
    opp_text = None
    if o.opponent_play is not None:
        for a in o.opponent_play.steps:
            events.append(Event("opponent_uses_die", opponent, None, a.die))
            passed.remove(a.die)
        events.extend(_events(o.opponent_play.steps, opponent))
        opp_text = o.opponent_play.notation
    for d in passed:
        events.append(Event("lost_die", colour, None, d))
    over = game_over(rules, o.position, colour, cube)
    if over is not None:
        events.append(Event("win", over.winner))
    return Ruling("legal", colour, dice, o.play.notation, tuple(events), game_over=over,
                  after=o.position, legal_count=count, opponent_play=opp_text)


def _illegal(rules: Rules, before: Position, dice: tuple[int, ...], after: Position,
             found: Sequence[Outcome]) -> Ruling:
    colour = before.turn
    assert colour is not None
    opponent = other(colour)
    closest = tuple(o.play.notation or "(nothing)" for o in
                    sorted(found, key=lambda o: _distance(o.position, after))[:3])

    def illegal(reason: str, rule: str) -> Ruling:
        return Ruling("illegal", colour, dice, None, (), reason, source(rule).citation, rule,
                      closest=closest, legal_count=len(found))

    # 1. men are neither made nor lost
    for c in COLOURS:
        if before.men(c) != after.men(c):
            return illegal(f"{c} had {before.men(c)} men before the turn and {after.men(c)} after it",
                           "conservation")
    # 2. men stay on their own points
    for c in COLOURS:
        try:
            _side(rules, after, c, phase=False)
        except InvalidBoardError as exc:
            return illegal(f"{exc}: men never leave their own points in this game", "unstack.stay")
    # a point gains men only if a man moved to it (every action keeps or lowers a point's men)
    for c in COLOURS:
        was, now = _side(rules, before, c, phase=False), _side(rules, after, c, phase=False)
        for i in POINTS:
            if now[MEN + i] > was[MEN + i]:
                return illegal(f"{c} has {now[MEN + i]} men on his {i + 1} point, {was[MEN + i]} "
                               "before the turn: men never move from point to point in this game",
                               "unstack.stay")
    target = after.physical_key()
    # 3. the opponent's men change only with dice passed to him
    theirs_before = _side(rules, before, opponent, phase=False)[:OFF + 1]
    theirs_after = _side(rules, after, opponent, phase=False)[:OFF + 1]
    if theirs_before != theirs_after and not any(o.opponent_play for o in found):
        if rules.unused_throw == "opponent" and any(
                o.position.physical_key() == target
                for o in _outcomes(rules, before, dice, exception=False, target=after)):
            return illegal(f"{opponent} used a die {colour} could not use, but a player still "
                           f"unstacking may not use the throw of an opponent bearing off",
                           "unstack.dames_exception")
        if rules.unused_throw == "lost":
            return illegal(f"{opponent}'s men changed during {colour}'s turn: in this game a die "
                           "the player cannot use is lost", "unused.lost")
    # 4. the dice, the phases, and using every die that can be used
    for relax, enforce in ((frozenset(), False), (frozenset({"die_point"}), True),
                           (frozenset({"phase"}), True), (frozenset({"die_point", "phase"}), True),
                           (frozenset({"die_point", "phase"}), False)):
        for o in _outcomes(rules, before, dice, relax, enforce, target=after):
            if o.position.physical_key() != target:
                continue
            if not relax:
                most = max(len(x.play.steps) for x in found)
                if len(o.play.steps) < most:
                    # where the dice that could all be used need a phase to end between them, the
                    # ruling rests on this program's reading that phases change die by die
                    start_phase = _side(rules, before, colour)[PHASE]
                    crossed = any(_side(rules, x.position, colour)[PHASE] != start_phase
                                  for x in found if len(x.play.steps) == most)
                    rule = "unstack.order_of_dice" if crossed else "unstack.use_all"
                    return illegal(f"{colour} used {_count(len(o.play.steps))} of the throw but "
                                   f"{_count(most)} could be used"
                                   + (", played in another order" if crossed else ""), rule)
                # the mover did his part: the opponent left passed dice unused
                mine = _side(rules, after, colour, phase=False)
                could = max((len(x.opponent_play.steps) for x in found if x.opponent_play is not None
                             and _side(rules, x.position, colour, phase=False) == mine), default=0)
                used = len(o.opponent_play.steps) if o.opponent_play is not None else 0
                return illegal(f"{opponent} used {_count(used)} of the {_count(len(o.play.unused))} "
                               f"{colour} could not use, but {_count(could)} could be used: the "
                               "opponent uses the dice the player cannot", "unused.opponent_all")
            explained = _explain(rules, before, colour, o)
            if explained is not None:
                return illegal(*explained)
    if theirs_before != theirs_after:
        return illegal(f"{opponent}'s men changed during {colour}'s turn in a way no die passed "
                       f"to him explains", "unstack.turn_order")
    return illegal(f"no play of {'-'.join(map(str, dice))} leads from the board before to the board "
                   "after: each die acts once, on the player's own point of that number",
                   "unstack.play_down")


def _explain(rules: Rules, before: Position, colour: str, o: Outcome) -> tuple[str, str] | None:
    for who, play in ((colour, o.play), (other(colour), o.opponent_play)):
        if play is None:
            continue
        # the mover's play never touches the opponent's men: his side before is his side when dice pass
        side = _side(rules, before, who)
        for action in play.steps:
            for check in CHECKS:
                if check.broken(rules, side, action):
                    return check.reason(who, action, side, rules), check.key(action)
            side = _act(rules, side, action.kind, action.point - 1)
    return None


def _count(n: int) -> str:
    return {0: "no die", 1: "one die"}.get(n, f"{n} dice")


def _distance(a: Position, b: Position) -> int:
    d = sum(abs(x - y) for x, y in zip(a.light, b.light)) + sum(abs(x - y) for x, y in zip(a.dark, b.dark))
    d += sum(abs(x - y) for x, y in zip(a.stacked[0], b.stacked[0]))
    d += sum(abs(x - y) for x, y in zip(a.stacked[1], b.stacked[1]))
    return d


# ------------------------------------------------------------------ the family
class UnstackingFamily:
    """The unstacking games (Doublets, Dames Rabattues, Ofanfelling, Doblet),
    as the engine's families answer (``families.py``)."""

    name = "unstacking"
    #: what the page draws: men in piles on each side's own table
    board = "piles"
    matches = False  # a single stake a game (the unstacking games); up to five players (the counting game)

    def start(self, rules: Rules, turn: str | None = None) -> Position:
        return start_position(rules, turn)

    def outcomes(self, rules: Rules, before: Position, dice: Sequence[int]) -> list[Outcome]:
        return outcomes(rules, before, dice)

    def judge(self, rules: Rules, before: Position, dice: Sequence[int], after: Position, cube: int = 1) -> Ruling:
        return judge(rules, before, dice, after, cube)

    def game_over(self, rules: Rules, position: Position, mover: str, dice: Sequence[int],
                  cube: int = 1) -> GameOver | None:
        return game_over(rules, position, mover, cube)

    def stake_terms(self, rules: Rules, cube: int = 1) -> list[tuple[str, int, str]]:
        # seed 002: "The first to play off all his or her men wins the game": one stake, times the cube
        return [("single", cube, "win.unstacking")]


#: the unstacking family
UNSTACKING = UnstackingFamily()
