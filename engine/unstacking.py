"""The unstacking games: Doublets, Dames Rabattues, Doblet, Ofanfelling.

Men never travel: each player's men stand in piles on his own six points and
a throw of n acts on his own point n (docs/games.md, "The unstacking games"; seed
002).  A game passes through the phases its rules name (``Rules.phases``):

- ``unstack`` (play down): a die n takes one man off the pile on point n and
  lays it flat beside it; a pile of two is then two flat men ("the player
  takes the upper of the two men on point 2 and places it on the same point
  but above the lower man": Willughby, seed 002);
- ``restack`` (Ofanfelling only): a die n puts a man back onto a pile on
  point n, until every point again holds its pile;
- ``bear_off``: a die n removes one man from point n.

Phases change die by die, in the order the player chooses; a doublet under
``doubles=pip-total`` gives as many actions as its pips, each acting on any
man.  A die that cannot be used is lost, or (``unused_throw=opponent``) used
by the opponent in the same turn, with Dames Rabattues' exception
(``Rules.unstacker_takes_passed``).

Every rule an action must keep is one entry of :data:`CHECKS`, keyed by its
source: the generator of plays keeps the actions no check forbids, and an
illegal turn is explained by switching the checks off one at a time and
naming the first one the turn broke (docs/house-conventions.md, convention 4).

Internally a side is a 14-tuple, read through the slot names below: its men
on own points 1..6, how many of them stand in piles, its men borne off, and
the index of its phase in ``Rules.phases``.

>>> from willughby.engine.rules import preset_rules, start_position
>>> rules = preset_rules("doublets")
>>> start = start_position(rules, "light")
>>> [o.play.notation for o in outcomes(rules, start, (2, 6))]
['down 6, down 2']
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from .errors import InvalidBoardError
from .moves import expand_dice, is_doublet, validate_dice
from .position import COLOURS, DARK, LIGHT, Position, colour_index, other
from .options import Rules
from .rulings import GameOver, Outcome

__all__ = [
    "Action",
    "UnstackPlay",
    "CHECKS",
    "table_point",
    "start_position",
    "phase_of",
    "outcomes",
    "judge",
    "game_over",
]

# Slots of a side's 14-tuple.
MEN = 0          # MEN + i: men on own point i + 1
STACKED = 6      # STACKED + i: how many of them stand in a pile
OFF = 12         # men borne off
PHASE = 13       # index of the side's phase in Rules.phases
POINTS = range(6)

_WORD = {"unstack": "down", "restack": "restack", "bear_off": "off"}


# ------------------------------------------------------------------ layout
def table_point(rules: Rules, colour: str, own: int) -> int:
    """The physical point (light's numbering) of *colour*'s own point *own* (1-6).

    Both players use one table and face each other (``tables=facing``:
    dark's point n is physical 25 - n), except Ofanfelling, where each plays
    in his right-hand table (dark's point n is physical 12 + n: Fiske 1905,
    seed 002, "each player has 12 men which they deploy in their right-hand
    table").

    >>> from willughby.engine.rules import preset_rules
    >>> table_point(preset_rules("doublets"), "dark", 1), table_point(preset_rules("ofanfelling"), "dark", 1)
    (24, 13)
    """
    if colour == LIGHT:
        return own
    return 12 + own if rules.tables == "right-hand" else 25 - own


def start_position(rules: Rules, turn: str | None = None) -> Position:
    """The start: each side's men in piles on its own points (``Rules.start``)."""
    sides = []
    for colour in COLOURS:
        side = [0] * 14
        for own, men in rules.start:
            side[MEN + own - 1] += men
            side[STACKED + own - 1] += men if rules.start_piled and men >= 2 else 0
        sides.append(tuple(side))
    return _position(rules, sides[0], sides[1], turn)


def _piles(side: Sequence[int]) -> bool:
    return any(side[STACKED + i] for i in POINTS)


def _rebuilt(side: Sequence[int]) -> bool:
    """Every point again holds its pile (Ofanfelling's restack is done)."""
    return all(side[STACKED + i] == side[MEN + i] or side[MEN + i] < 2 for i in POINTS)


def _derived_phase(rules: Rules, side: Sequence[int]) -> str:
    """The phase a board shows (docs/board-document.md, ``phase``): a colour with a man
    off is bearing off; in a game with a restack phase one with no pile is
    restacking; otherwise one with a pile is unstacking."""
    if side[OFF]:
        return "bear_off"
    if "restack" in rules.phases:
        return "unstack" if _piles(side) else "restack"
    return "unstack" if _piles(side) else "bear_off"


def phase_of(rules: Rules, position: Position, colour: str) -> str:
    """*colour*'s phase in *position*: as the document says, else as the board shows."""
    given = position.phase[colour_index(colour)]
    if given is not None:
        if given not in rules.phases:
            raise InvalidBoardError(f"phase.{colour} {given!r} is not a phase of this game "
                                    f"({', '.join(rules.phases)})")
        return given
    return _derived_phase(rules, _side(rules, position, colour, phase=False))


def _side(rules: Rules, position: Position, colour: str, *, phase: bool = True) -> tuple[int, ...]:
    """*colour*'s side of *position*; men outside his table are a bad position."""
    i = colour_index(colour)
    if position.bar[i]:
        raise InvalidBoardError(f"{colour} has {position.bar[i]} men on the bar, but in this game "
                                "men never leave their own points")
    own_of = {table_point(rules, colour, own): own for own in range(1, 7)}
    side = [0] * 14
    for p, men in enumerate(position.points(colour), start=1):
        if not men:
            continue
        if p not in own_of:
            raise InvalidBoardError(f"{colour} has {men} men on point {p}, outside his table "
                                    f"(physical points {', '.join(str(k) for k in sorted(own_of))})")
        own = own_of[p]
        side[MEN + own - 1] = men
        side[STACKED + own - 1] = position.stacked[i][p - 1]
    side[OFF] = position.off[i] + position.waiting[i]
    if phase:
        side[PHASE] = rules.phases.index(phase_of(rules, position, colour))
    return tuple(side)


def _position(rules: Rules, light: Sequence[int], dark: Sequence[int], turn: str | None) -> Position:
    pts = {LIGHT: [0] * 24, DARK: [0] * 24}
    stk = {LIGHT: [0] * 24, DARK: [0] * 24}
    phases: list[str | None] = []
    for colour, side in ((LIGHT, light), (DARK, dark)):
        for i in POINTS:
            p = table_point(rules, colour, i + 1) - 1
            pts[colour][p] = side[MEN + i]
            stk[colour][p] = side[STACKED + i]
        phase = rules.phases[side[PHASE]]
        # the document says the phase only where the board cannot show it
        phases.append(None if phase == _derived_phase(rules, side) else phase)
    # built from two valid sides (one table each, no point shared): no need to check again
    return Position._trusted(tuple(pts[LIGHT]), tuple(pts[DARK]), (0, 0), (light[OFF], dark[OFF]), (0, 0),
                             turn, (tuple(stk[LIGHT]), tuple(stk[DARK])), (phases[0], phases[1]))


# ----------------------------------------------------------------- actions
@dataclass(frozen=True)
class Action:
    """One die (or one action of a pip-total doublet) used on own point ``point``:
    ``kind`` is ``unstack``, ``restack`` or ``bear_off``."""

    kind: str
    point: int
    die: int
    any_men: bool = False

    def text(self) -> str:
        return f"{_WORD[self.kind]} {self.point}"


def _feasible(side: Sequence[int], kind: str, i: int) -> bool:
    """What the board allows at all, whatever the rules: a pile to take a man
    from, flat men to pile, a man to bear off."""
    men, stacked = side[MEN + i], side[STACKED + i]
    if kind == "unstack":
        return stacked >= 2
    if kind == "restack":
        return men >= 2 and stacked < men
    return men >= 1


def _act(rules: Rules, side: tuple[int, ...], kind: str, i: int) -> tuple[int, ...]:
    new = list(side)
    men, stacked = side[MEN + i], side[STACKED + i]
    if kind == "unstack":
        new[STACKED + i] = stacked - 1 if stacked - 1 >= 2 else 0
    elif kind == "restack":
        new[STACKED + i] = 2 if stacked == 0 else stacked + 1
    else:
        new[MEN + i] = men - 1
        if men - stacked == 0:  # no flat man: one comes off the pile
            new[STACKED + i] = men - 1 if men - 1 >= 2 else 0
        new[OFF] += 1
    # the phase moves on as soon as it is done (docs/rules-choices.md: "die by die")
    while new[PHASE] < len(rules.phases) - 1:
        phase = rules.phases[new[PHASE]]
        if (phase == "unstack" and not _piles(new)) or (phase == "restack" and _rebuilt(new)):
            new[PHASE] += 1
        else:
            break
    return tuple(new)


@dataclass(frozen=True)
class RuleCheck:
    """One rule an action must keep: ``broken`` says whether *action* breaks it
    from *side*; ``reason`` says so in a sentence; ``key(action)`` names the
    source (``sources.py``)."""

    name: str
    key: Callable[[Action], str]
    broken: Callable[[Rules, Sequence[int], Action], bool]
    reason: Callable[[str, Action, Sequence[int], Rules], str]


def _phase_key(action: Action) -> str:
    return {"bear_off": "unstack.bear_first", "restack": "unstack.restack"}.get(
        action.kind, "unstack.by_die")


CHECKS: tuple[RuleCheck, ...] = (
    RuleCheck(
        "die_point",
        lambda a: {"unstack": "unstack.play_down", "restack": "unstack.restack"}.get(
            a.kind, "unstack.bear_off"),
        lambda rules, side, a: not a.any_men and a.point != a.die,
        lambda who, a, side, rules: (f"{who} used a {a.die} on his {a.point} point: a die of n "
                                     f"acts only on the player's own point n"),
    ),
    RuleCheck(
        "phase",
        _phase_key,
        lambda rules, side, a: rules.phases[side[PHASE]] != a.kind,
        lambda who, a, side, rules: {
            "bear_off": f"{who} bore a man off his {a.point} point while men of his still "
                        f"{'stand in piles' if rules.phases[side[PHASE]] == 'unstack' else 'wait to be restacked'}",
            "restack": f"{who} piled men up again on his {a.point} point before "
                       f"{'every man was played down' if rules.phases[side[PHASE]] == 'unstack' else 'it was time to'}",
        }.get(a.kind, f"{who} played down a man on his {a.point} point, but his men are "
                      f"{'being restacked' if rules.phases[side[PHASE]] == 'restack' else 'all played down'}"),
    ),
)


def _moves(rules: Rules, dice: Sequence[int]) -> tuple[tuple[int, bool], ...]:
    """The throw as (die, acts on any man) pairs: a pip-total doublet gives as
    many actions as its pips, each on any man (seed 003: "if you roll double
    fours, you may play down any eight men")."""
    moves = expand_dice(rules, dice)
    any_men = rules.doubles == "pip-total" and is_doublet(rules, dice)
    pair = None
    if any_men:
        thrown = list(dice)
        pair = max(d for d in set(thrown) if thrown.count(d) >= 2)
    out: list[tuple[int, bool]] = []
    left = 2 * pair if pair else 0
    for d in moves:
        if left and d == pair:
            out.append((d, True))
            left -= 1
        else:
            out.append((d, False))
    return tuple(sorted(out, reverse=True))


def _side_actions(rules: Rules, side: tuple[int, ...], die: int, any_men: bool,
                  relax: frozenset[str]) -> list[tuple[Action, tuple[int, ...]]]:
    if side[PHASE] == len(rules.phases) - 1 and not any(side[MEN + i] for i in POINTS):
        return []  # every man is off: the game is over
    kinds = rules.phases if "phase" in relax else (rules.phases[side[PHASE]],)
    # the die's own point first: an explanation then names the fewest dice misused
    points = ((die, *(p for p in range(1, 7) if p != die)) if (any_men or "die_point" in relax)
              else (die,))
    out = []
    for kind in kinds:
        for point in points:
            if not _feasible(side, kind, point - 1):
                continue
            action = Action(kind, point, die, any_men)
            if any(check.name not in relax and check.broken(rules, side, action) for check in CHECKS):
                continue
            out.append((action, _act(rules, side, kind, point - 1)))
    return out


def _explore(rules: Rules, side: tuple[int, ...], moves: tuple[tuple[int, bool], ...],
             relax: frozenset[str], floor: tuple[int, ...] | None = None
             ) -> dict[tuple[tuple[int, ...], tuple[tuple[int, bool], ...]], tuple[Action, ...]]:
    """Every (side, moves left) reachable using some of *moves*, with one path to it.

    Where every move is alike (a doublet's), the actions are taken in a
    canonical order -- within a phase, never a higher point after a lower
    one -- which reaches every (side, moves left): within one phase, actions
    on different points do not touch each other, and a phase ends after the
    same actions in any order.  A pip-total doublet's ten or twelve actions
    on any men would otherwise be tried in every order.

    With *floor* (each point's men on a board sought), a side with fewer
    men on a point is not explored: men only ever leave a point.
    """
    found: dict[tuple[tuple[int, ...], tuple[tuple[int, bool], ...]], tuple[Action, ...]] = {(side, moves): ()}
    if len(set(moves)) == 1 and "phase" not in relax:
        seen = {(side, moves, (-1, 0))}
        line: deque[tuple[tuple[int, ...], tuple[tuple[int, bool], ...], tuple[Action, ...], tuple[int, int]]] = \
            deque([(side, moves, (), (-1, 0))])
        while line:
            s, left, path, bound = line.popleft()
            if not left:
                continue
            rest = left[1:]
            for action, new in _side_actions(rules, s, left[0][0], left[0][1], relax):
                rank = (s[PHASE], 7 - action.point)
                if rank < bound or (floor is not None and new[MEN + action.point - 1] < floor[action.point - 1]):
                    continue
                node = (new, rest, rank)
                if node in seen:
                    continue
                seen.add(node)
                if (new, rest) not in found:
                    found[(new, rest)] = path + (action,)
                line.append((new, rest, path + (action,), rank))
        return found
    # breadth first: each path found plays the higher die first
    queue: deque[tuple[tuple[int, ...], tuple[tuple[int, bool], ...], tuple[Action, ...]]] = deque([(side, moves, ())])
    while queue:
        s, left, path = queue.popleft()
        tried = set()
        for k, move in enumerate(left):
            if move in tried:
                continue
            tried.add(move)
            rest = left[:k] + left[k + 1:]
            for action, new in _side_actions(rules, s, move[0], move[1], relax):
                if floor is not None and new[MEN + action.point - 1] < floor[action.point - 1]:
                    continue
                key = (new, rest)
                if key not in found:
                    found[key] = path + (action,)
                    queue.append((new, rest, path + (action,)))
    return found


def _capacity(side: Sequence[int], kind: str, i: int) -> int:
    """How many actions of *kind* point *i* can take before it is done."""
    men, stacked = side[MEN + i], side[STACKED + i]
    if kind == "unstack":
        return stacked - 1 if stacked >= 2 else 0
    if kind == "restack":
        return 0 if men < 2 else (men - 1 if stacked == 0 else men - stacked)
    return men


def _shares(caps: Sequence[int], total: int, i: int = 0) -> Iterator[tuple[int, ...]]:
    """Every way to share *total* actions among the points, at most caps[i] to point i."""
    if i == len(caps) - 1:
        if total <= caps[i]:
            yield (total,)
        return
    for n in range(min(caps[i], total) + 1):
        for rest in _shares(caps, total - n, i + 1):
            yield (n, *rest)


def _any_men_found(rules: Rules, side: tuple[int, ...], moves: tuple[tuple[int, bool], ...],
                   most_only: bool) -> dict[tuple[tuple[int, ...], tuple[tuple[int, bool], ...]],
                                            tuple[Action, ...]]:
    """What :func:`_explore` finds for a pip-total doublet's actions on any men,
    counted out directly: within a phase the actions share themselves among
    the points in every way the points allow, and a phase is finished before
    the next begins (the canonical order of :func:`_explore`, whose paths
    these are).  With *most_only*, only the plays that use the most actions."""
    die = moves[0][0]
    k = len(moves)
    found: dict[tuple[tuple[int, ...], tuple[tuple[int, bool], ...]], tuple[Action, ...]] = {}

    def record(s: tuple[int, ...], used: int, path: tuple[Action, ...]) -> None:
        found.setdefault((s, moves[:k - used]), path)

    action_at = {(kind, i): Action(kind, i + 1, die, True) for kind in rules.phases for i in POINTS}

    def apply(s: tuple[int, ...], kind: str, share: Sequence[int]) -> tuple[tuple[int, ...], tuple[Action, ...]]:
        acts: list[Action] = []
        for i in range(5, -1, -1):             # the higher points first, as the canonical order
            if share[i]:
                action = action_at[(kind, i)]
                for _ in range(share[i]):
                    s = _act(rules, s, kind, i)
                acts.extend([action] * share[i])
        return s, tuple(acts)

    def walk(s: tuple[int, ...], used: int, path: tuple[Action, ...]) -> None:
        kind = rules.phases[s[PHASE]]
        caps = [_capacity(s, kind, i) for i in POINTS]
        total = sum(caps)
        left = k - used
        if total == 0 or left == 0 or _over(s):
            record(s, used, path)
            return
        if left <= total:
            for j in ([left] if most_only else range(left + 1)):
                for share in _shares(caps, j):
                    new, acts = apply(s, kind, share)
                    record(new, used + j, path + acts)
            return
        if not most_only:
            for j in range(total):
                for share in _shares(caps, j):
                    new, acts = apply(s, kind, share)
                    record(new, used + j, path + acts)
        new, acts = apply(s, kind, caps)       # the phase finished: the rest act in the next
        if new[PHASE] == s[PHASE]:             # the last phase done: nothing is left to act on
            record(new, used + total, path + acts)
            return
        walk(new, used + total, path + acts)

    walk(side, 0, ())
    return found


def _uses_all(rules: Rules, side: tuple[int, ...], moves: tuple[tuple[int, bool], ...],
              relax: frozenset[str]) -> bool:
    """Whether some order of *moves* uses every one (a search that stops at the first)."""
    seen = set()
    stack = [(side, moves)]
    while stack:
        s, left = stack.pop()
        if not left:
            return True
        for k, move in enumerate(left):
            rest = left[:k] + left[k + 1:]
            for _, new in _side_actions(rules, s, move[0], move[1], relax):
                if (new, rest) not in seen:
                    seen.add((new, rest))
                    stack.append((new, rest))
    return False


def _plays(rules: Rules, side: tuple[int, ...], moves: tuple[tuple[int, bool], ...],
           relax: frozenset[str], enforce_use: bool, floor: tuple[int, ...] | None = None
           ) -> list[tuple[tuple[int, ...], tuple[Action, ...], tuple[tuple[int, bool], ...]]]:
    most_only = enforce_use and rules.must_use == "all"
    if not relax and moves and len(set(moves)) == 1 and moves[0][1]:
        found = _any_men_found(rules, side, moves, most_only)
        return [(s, path, left) for (s, left), path in found.items()]
    # the floor prunes where the most dice used need not be known (nothing enforced), or is known
    # already: every move can be used
    if floor is not None and enforce_use and not _uses_all(rules, side, moves, relax):
        floor = None
    found = _explore(rules, side, moves, relax, floor)
    if floor is not None and enforce_use and rules.must_use == "all":
        # every move can be used (above): the plays are those that use them all, pruned or not
        return [(s, path, left) for (s, left), path in found.items() if not left]
    if enforce_use and rules.must_use == "all":
        # "A die that can be used must be used" (seed 003: unstack.use_all)
        most = max(len(moves) - len(left) for (_, left) in found)
        found = {k: v for k, v in found.items() if len(moves) - len(k[1]) == most}
    return [(s, path, left) for (s, left), path in found.items()]


class UnstackPlay:
    """What one player did with his dice: the actions in order and the dice
    (die values) he left unused.  ``steps`` are the :class:`Action` s;
    ``position`` is the position the whole turn leaves, built when first
    asked for (a pip-total doublet may end in hundreds of ways)."""

    __slots__ = ("steps", "unused", "_final", "_position")

    def __init__(self, steps: tuple[Action, ...], unused: tuple[int, ...]) -> None:
        self.steps = steps
        self.unused = unused
        self._final: Any = None          # (rules, light side, dark side, turn) of the turn's end
        self._position: Position | None = None

    @property
    def position(self) -> Position:
        """The position the turn leaves."""
        if self._position is None:
            rules, light, dark, turn = self._final
            self._position = _position(rules, light, dark, turn)
        return self._position

    @property
    def notation(self) -> str:
        """The play as text: ``down 4, down 6``, ``restack 2``, ``off 5``."""
        return ", ".join(a.text() for a in self.steps)

    def __repr__(self) -> str:
        return f"<UnstackPlay {self.notation or '(nothing)'} unused={list(self.unused)}>"


def _over(side: Sequence[int]) -> bool:
    return side[OFF] > 0 and not any(side[MEN + i] for i in POINTS)


def _mover(rules: Rules, position: Position) -> str:
    if position.turn not in COLOURS:
        raise InvalidBoardError("the position before must say whose turn it is (turn: light or dark)")
    for colour in COLOURS:
        if _over(_side(rules, position, colour)):
            raise InvalidBoardError(f"the game is already over: {colour} has borne off every man")
    return position.turn


def _outcomes(rules: Rules, before: Position, dice: Sequence[int], relax: frozenset[str] = frozenset(),
              enforce_use: bool = True, exception: bool = True,
              target: Position | None = None) -> list[Outcome]:
    """The outcomes of the turn; with *target*, only those leaving its board
    (the explanation of an illegal turn looks for one board only: without
    this, the mover's relaxed plays times the opponent's ran to minutes)."""
    colour = _mover(rules, before)
    thrown = validate_dice(rules, dice)
    turn_after = colour if (rules.doublet_rethrow and is_doublet(rules, thrown)) else other(colour)
    mine, theirs = _side(rules, before, colour), _side(rules, before, other(colour))
    found: dict[Any, Outcome] = {}
    want = None if target is None else {c: _side(rules, target, c, phase=False)[:OFF + 1]
                                        for c in COLOURS}
    # the opponent's plays of the dice passed, by those dice
    replies: dict[tuple[tuple[int, bool], ...],
                  list[tuple[tuple[int, ...], tuple[Action, ...], tuple[tuple[int, bool], ...]]]] = {}

    def add(m: tuple[int, ...], t: tuple[int, ...], play: UnstackPlay, opp: UnstackPlay | None) -> None:
        # the two sides tell the board and the phases (the position is built only when asked for)
        key = (m, t)
        prev = found.get(key)
        if prev is None or (prev.opponent_play is not None and opp is None):
            sides = {colour: m, other(colour): t}
            final = (rules, sides[LIGHT], sides[DARK], turn_after)
            play = UnstackPlay(play.steps, play.unused)
            play._final = final
            if opp is not None:
                opp._final = final
            found[key] = Outcome(play, opp)

    floor = None if want is None else {c: want[c][MEN:MEN + 6] for c in COLOURS}
    for m, path, left in _plays(rules, mine, _moves(rules, thrown), relax, enforce_use,
                                None if floor is None else floor[colour]):
        if want is not None and m[:OFF + 1] != want[colour]:
            continue
        unused = tuple(d for d, _ in left)
        passes = rules.unused_throw == "opponent" and unused and not _over(m)
        if passes and exception and not rules.unstacker_takes_passed:
            # Dames Rabattues: "a player who has not yet unstacked all 15 men may not utilise
            # the throw of an opponent who is in the process of bearing off" (Charpentier 1715)
            if rules.phases[theirs[PHASE]] == "unstack" and rules.phases[m[PHASE]] == "bear_off":
                passes = False
        if not passes:
            add(m, theirs, UnstackPlay(path, unused), None)
            continue
        if left not in replies:
            replies[left] = _plays(rules, theirs, tuple(left), relax, enforce_use,
                                   None if floor is None else floor[other(colour)])
        for t, opp_path, opp_left in replies[left]:
            if want is not None and t[:OFF + 1] != want[other(colour)]:
                continue
            opp_unused = tuple(d for d, _ in opp_left)
            opp = UnstackPlay(opp_path, opp_unused) if opp_path else None
            add(m, t, UnstackPlay(path, unused), opp)
    return list(found.values())


def outcomes(rules: Rules, before: Position, dice: Sequence[int]) -> list[Outcome]:
    """Every legal way the turn can end, distinct by final position.

    >>> from willughby.engine.rules import preset_rules, start_position
    >>> rules = preset_rules("doublets")
    >>> len(outcomes(rules, start_position(rules, "dark"), (3, 3)))  # six actions on any men
    35
    """
    return _outcomes(rules, before, dice)


# -------------------------------------------------------------------- end
def game_over(rules: Rules, position: Position, mover: str, cube: int = 1) -> GameOver | None:
    """The first to bear off all his men wins one stake (seed 002: "The first to
    play off all his or her men wins the game"); the opponent may win on dice
    passed to him (Alfonso X 1283: "may even win in doing so")."""
    for colour in (mover, other(mover)):
        if _over(_side(rules, position, colour, phase=False)):
            return GameOver(colour, "single", cube, "win.unstacking")
    return None
