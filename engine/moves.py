"""Legal plays, layered as docs/house-conventions.md asks: one man's step, then a whole play
under the use-all-dice and higher-die rules, distinct by resulting position,
then :func:`is_legal`.

Internally a side's men are seen from the player on roll: the 54-tuple of
``race_state.py``.  Each rule a step keeps is written once, as a named check
of ``race_checks.py``; the generator of steps here is that table's.

>>> from willughby.engine.rules import preset_rules
>>> from willughby.engine.position import Position
>>> bg = preset_rules("backgammon")
>>> start = Position.from_gnubg_id("4HPwATDgc/ABMA")
>>> len(legal_plays(bg, start, (3, 1)))
16
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from .errors import InvalidBoardError, InvalidDiceError
from .notation import format_play
from .position import COLOURS, LIGHT, Position, other
from .race_checks import STRICT, Relax, step_violations, steps_by_table
from .race_state import (BAR, BEYOND_HOME, ENTRY, HOME, OFF, OPP, OPP_BAR, STEPS, TOP, WAITING, Step, from_state,
                         rank, their, to_state)
from .options import Rules

__all__ = [
    "Step",
    "Play",
    "Relax",
    "expand_dice",
    "validate_dice",
    "is_doublet",
    "legal_plays",
    "all_plays",
    "plays_of_moves",
    "is_legal",
    "to_state",
    "from_state",
    "step_violations",
    "sorted_plays",
    "find_long_doublet_play",
    "their",
]


class Play:
    """A legal play: its steps, the position it leaves, the dice left unused.

    The resulting :class:`Position` is built when first asked for, so listing
    many plays to choose one stays cheap.
    """

    __slots__ = ("_steps", "_state", "_colour", "_template", "_turn", "unused", "_position")

    def __init__(self, steps: tuple[Step, ...], state: tuple[int, ...],
                 colour: str, template: Position, turn: str | None, unused: tuple[int, ...]) -> None:
        self._steps = steps
        self._state = state
        self._colour = colour
        self._template = template
        self._turn = turn
        self.unused = unused
        self._position: Position | None = None

    @property
    def steps(self) -> tuple[Step, ...]:
        """The steps, in the order played."""
        return self._steps

    @property
    def state(self) -> tuple[int, ...]:
        """The resulting position as the mover's 54-tuple."""
        return self._state

    @property
    def position(self) -> Position:
        """The position the play leaves (its ``turn`` the next player's)."""
        if self._position is None:
            self._position = from_state(self._state, self._colour, self._template, self._turn)
        return self._position

    @property
    def notation(self) -> str:
        """The play in standard notation (``24/18* 13/11``)."""
        return format_play(self.steps)

    def __repr__(self) -> str:
        return f"<Play {self.notation} unused={list(self.unused)}>"


# ------------------------------------------------------------------ dice
def validate_dice(rules: Rules, dice: Sequence[int]) -> tuple[int, ...]:
    """Check that *dice* is a throw of this game (two dice, or three with dice=3).

    >>> from willughby.engine.rules import Rules
    >>> validate_dice(Rules(), [3, 1])
    (3, 1)
    """
    try:
        thrown = tuple(dice)
    except TypeError:
        raise InvalidDiceError(f"dice must be a list of numbers, not {dice!r}") from None
    for d in thrown:
        if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 6:
            raise InvalidDiceError(f"a die shows 1 to 6, not {d!r}")
    want = rules.dice_thrown
    if len(thrown) != want:
        extra = " (the six of dice=2+6 is implied: give the two thrown)" if rules.dice == "2+6" else ""
        raise InvalidDiceError(
            f"this game throws {want} dice, but {len(thrown)} {'was' if len(thrown) == 1 else 'were'} given: "
            f"{list(thrown)}{extra}"
        )
    return thrown


def is_doublet(rules: Rules, dice: Sequence[int]) -> bool:
    """Whether the throw is a doublet: its two thrown dice alike (with three
    dice, any two alike -- the choice of this program)."""
    thrown = validate_dice(rules, dice)
    return len(set(thrown)) < len(thrown)


def expand_dice(rules: Rules, dice: Sequence[int]) -> tuple[int, ...]:
    """The moves a throw gives, after the doublet rule and the imaginary six.

    >>> from willughby.engine.rules import Rules
    >>> expand_dice(Rules(doubles="fourfold"), (5, 5))
    (5, 5, 5, 5)
    >>> expand_dice(Rules(doubles="pip-total"), (2, 2))
    (2, 2, 2, 2)
    >>> expand_dice(Rules(dice="2+6"), (4, 1))
    (4, 1, 6)
    """
    thrown = validate_dice(rules, dice)
    moves: list[int] = []
    rest = list(thrown)
    pair = next((d for d in sorted(set(thrown), reverse=True) if thrown.count(d) >= 2), None)
    if pair is not None:
        rest.remove(pair)
        rest.remove(pair)
        count = rules.doublet_moves if rules.doublet_moves is not None else 2 * pair
        moves.extend([pair] * count)
    moves.extend(rest)
    if rules.dice == "2+6":
        moves.append(6)
    return tuple(moves)


# ------------------------------------------------------------------ steps
#: the steps of a play so far
Path = tuple[Step, ...]
#: a node of the search: (the mover's 54-tuple, the dice still to play)
Node = tuple[tuple[int, ...], tuple[int, ...]]


def _steps(s: tuple[int, ...], d: int, rules: Rules, relax: Relax,
           bound: int = TOP) -> list[tuple[Step, tuple[int, ...]]]:
    """Every legal step of one die *d* from state *s*, as (step, new state):
    those no check of ``race_checks.CHECKS`` in force and not relaxed forbids.

    Only sources ranked at or below *bound* are tried (a doublet's canonical
    order, :func:`~willughby.engine.race_state.rank`).  Where a check is
    relaxed (to explain an illegal turn) the table's own generator answers
    (``race_checks.steps_by_table``); where none is, this is that generator
    specialised by hand for speed, and ``tests/engine/test_race_checks.py``
    holds the two equal, step for step and in order, over many random
    boards and every variant of the rules.
    """
    if relax.off:
        return steps_by_table(s, d, rules, relax, bound)
    out: list[tuple[Step, tuple[int, ...]]] = []
    # bar_first: only the bar; enter_all_first: only men waiting; else the bar is empty
    if s[BAR]:
        sources: Iterable[int] = (BAR,) if bound >= TOP else ()
    elif s[WAITING] and rules.enter_all_first:
        sources = (WAITING,) if bound >= WAITING else ()
    else:
        sources = [k for k in range(min(bound, WAITING), 0, -1) if s[k]]
    all_home = None
    has_home = None
    made = STEPS[d]
    for src in sources:
        dst = ENTRY - d if src >= BAR else src - d
        if dst <= 0:
            if rules.stakes == "fill":                     # bear_fill
                continue
            if all_home is None:
                all_home = not any(s[BEYOND_HOME])
            if not all_home:                               # bear_home
                continue
            if dst < 0:
                mode = rules.bear_off
                if mode == "exact":                        # bear_exact
                    continue
                if mode == "modern" and any(s[src + 1:7]):  # bear_modern
                    continue
            new = list(s)
            new[src] -= 1
            new[OFF] += 1
            out.append((made[src][0], tuple(new)))
            continue
        opp = s[their(dst)]
        if opp:
            if opp >= 2:                                   # blocked
                continue
            if rules.hit_needs_home:
                if has_home is None:
                    has_home = any(s[HOME])
                if not has_home:                           # hit_needs_home
                    continue
            new = list(s)
            new[src] -= 1
            new[dst] += 1
            new[their(dst)] = 0
            new[OPP_BAR] += 1
            out.append((made[src][1], tuple(new)))
            continue
        new = list(s)
        new[src] -= 1
        new[dst] += 1
        out.append((made[src][0], tuple(new)))
    return out


def _explore(rules: Rules, start: tuple[int, ...], moves: tuple[int, ...], relax: Relax,
             viable: Callable[[tuple[int, ...]], bool] | None = None) -> dict[Node, Path]:
    """Every node reachable using some of *moves*: {(state, unused dice): the steps to it}.

    Nodes are explored once each (a memo on state and dice left).  For a
    doublet the men are moved in a canonical order -- never from a higher
    point after a lower one -- which reaches every position exactly when the
    order of moves cannot matter; it can matter under ``hit_needs_home`` (a
    man brought home first allows a hit), so there every order is tried.
    With *viable*, a node it refuses is not explored (a search for one board).
    """
    found: dict[Node, Path] = {}
    remaining0 = tuple(sorted(moves, reverse=True))
    found[(start, remaining0)] = ()
    canonical = len(set(moves)) == 1 and not rules.hit_needs_home
    if canonical:
        seen = {(start, remaining0, TOP)}
        stack: list[tuple[tuple[int, ...], tuple[int, ...], Path, int]] = [(start, remaining0, (), TOP)]
        while stack:
            s, remaining, path, bound = stack.pop()
            if not remaining:
                continue
            rest = remaining[1:]
            for step, new in _steps(s, remaining[0], rules, relax, bound):
                place = rank(step.src)
                node = (new, rest, place)
                if node in seen or (viable is not None and not viable(new)):
                    continue
                seen.add(node)
                p = path + (step,)
                key = (new, rest)
                if key not in found:
                    found[key] = p
                stack.append((new, rest, p, place))
        return found
    stack2: list[tuple[tuple[int, ...], tuple[int, ...], Path]] = [(start, remaining0, ())]
    while stack2:
        s, remaining, path = stack2.pop()
        tried = set()
        for i, d in enumerate(remaining):
            if d in tried:
                continue
            tried.add(d)
            rest = remaining[:i] + remaining[i + 1:]
            for step, new in _steps(s, d, rules, relax):
                key = (new, rest)
                if key not in found and (viable is None or viable(new)):
                    p = path + (step,)
                    found[key] = p
                    stack2.append((new, rest, p))
    return found


def _select(rules: Rules, thrown: tuple[int, ...], moves: tuple[int, ...],
            found: dict[Node, Path], enforce: bool = True) -> dict[Node, Path]:
    """Keep the nodes the use-all-dice and higher-die rules allow."""
    if not enforce or rules.must_use == "free":
        return found
    most = max(len(moves) - len(rest) for (_, rest) in found)
    kept = {k: v for k, v in found.items() if len(moves) - len(k[1]) == most}
    if (rules.higher_die and len(thrown) == 2 and rules.dice == "2" and thrown[0] != thrown[1]
            and most == 1):
        high = max(thrown)
        with_high = {k: v for k, v in kept.items() if v[0].die == high}
        if with_high:
            kept = with_high
    return kept


def all_plays(rules: Rules, position: Position, dice: Sequence[int], *,
              relax: Relax = STRICT, enforce_use: bool = True, toward: Position | None = None) -> list[Play]:
    """Every play of *dice*, one per distinct (resulting position, dice unused).

    With ``enforce_use=False`` the use-all-dice and higher-die rules are not
    applied (used to explain an illegal turn); then *toward* may name the one
    board sought, and only plays that can still lead to it are followed.
    """
    colour = _turn_of(position)
    thrown = validate_dice(rules, dice)
    turn = colour if (rules.doublet_rethrow and is_doublet(rules, thrown)) else other(colour)
    return plays_of_moves(rules, position, expand_dice(rules, thrown), thrown=thrown,
                          relax=relax, enforce_use=enforce_use, turn_after=turn, toward=toward)


def plays_of_moves(rules: Rules, position: Position, moves: Sequence[int], *,
                   thrown: Sequence[int] | None = None, relax: Relax = STRICT,
                   enforce_use: bool = True, turn_after: str | None = None,
                   toward: Position | None = None) -> list[Play]:
    """Every play of an explicit list of *moves* (die values) for the player
    whose turn it is; *thrown* is the throw they came from (for the higher-die
    rule), *turn_after* the turn the resulting positions carry; *toward* as
    for :func:`all_plays` (only where nothing is enforced)."""
    colour = _turn_of(position)
    moves = tuple(moves)
    start = to_state(position, colour)
    viable = None
    if toward is not None and not enforce_use:
        try:
            viable = _leads_to(to_state(toward, colour))
        except InvalidBoardError:
            viable = None
    found = _explore(rules, start, moves, relax, viable)
    kept = _select(rules, tuple(thrown) if thrown is not None else moves, moves, found, enforce_use)
    plays = []
    for (state, rest), path in kept.items():
        if relax.off and any(state[k] and state[their(k)] for k in range(1, 25)):
            continue  # a relaxed landing on a held point: no board can show it
        plays.append(Play(path, state, colour, position, turn_after, rest))
    return plays


def legal_plays(rules: Rules, position: Position, dice: Sequence[int]) -> list[Play]:
    """Every legal play of *dice* for the player whose turn it is, one per
    distinct resulting position ("Plays that leave the same position are one
    play": docs/games.md).  A throw that cannot be played gives the one empty
    play that leaves the board as it was.
    """
    seen: dict[tuple[int, ...], Play] = {}
    for play in all_plays(rules, position, dice):
        if play.state not in seen:
            seen[play.state] = play
    return list(seen.values())


def is_legal(rules: Rules, position: Position, dice: Sequence[int], after: Position) -> bool:
    """Whether *after* is a position some legal play of *dice* leaves."""
    key = after.physical_key()
    return any(p.position.physical_key() == key for p in legal_plays(rules, position, dice))


def _turn_of(position: Position) -> str:
    if position.turn not in COLOURS:
        raise InvalidBoardError("the position must say whose turn it is (turn: light or dark)")
    return position.turn


def sorted_plays(plays: Iterable[Play]) -> list[Play]:
    """Plays in a stable reading order: by their men's starting points, highest first."""
    return sorted(plays, key=_play_order)


def _play_order(play: Play) -> tuple[list[tuple[int, int]], tuple[int, ...]]:
    return sorted(((-s.src, -s.dst) for s in play.steps)), play.unused


# ------------------------------------------------- one play, found directly
def _cumulative(s: Sequence[int]) -> tuple[int, ...]:
    """For each own point k (1..24, and :data:`~willughby.engine.race_state.ENTRY`
    standing for the bar and men waiting), the mover's men on k or above it:
    men only move down, so a node can reach a target only while it has at
    least as many men above every point."""
    out = [0] * (ENTRY + 1)
    run = s[BAR] + s[WAITING]
    out[ENTRY] = run
    for k in range(24, 0, -1):
        run += s[k]
        out[k] = run
    return tuple(out)


def _leads_to(target: tuple[int, ...]) -> Callable[[tuple[int, ...]], bool]:
    """Whether a node can still lead to *target* (both the mover's 54-tuples):
    the mover's men only move down, so he needs at least as many men above
    every point as *target* has; the opponent's men only go to the bar, so
    each point needs at least its men in *target*, and the bar at most."""
    want = _cumulative(target)
    opp_points = [target[OPP + j] for j in range(1, 25)]
    opp_bar = target[OPP_BAR]

    def viable(s: tuple[int, ...]) -> bool:
        if s[OPP_BAR] > opp_bar:
            return False
        if any(s[OPP + j] < opp_points[j - 1] for j in range(1, 25)):
            return False
        have = _cumulative(s)
        return all(have[k] >= want[k] for k in range(1, ENTRY + 1))

    return viable


def find_long_doublet_play(rules: Rules, position: Position, dice: Sequence[int],
                           after: Position) -> Play | None:
    """The legal play of a doublet of more than four moves (``doubles=pip-total``)
    that leaves *after*, or None where there is none or this search cannot
    tell (the caller then lists every play, as :func:`legal_plays` does).

    A doublet's plays may number thousands; a judge needs one.  The search
    walks the doublet's canonical order (see :func:`_explore`) and never
    enters a board that cannot lead to *after*: one with fewer of the mover's
    men above some point than *after* has, fewer of the opponent's men on a
    point, or more of them on the bar.  It answers only where the play found
    uses every move (so the use-all-dice rule holds whatever else is possible).
    """
    colour = _turn_of(position)
    thrown = validate_dice(rules, dice)
    moves = expand_dice(rules, thrown)
    if (len(moves) <= 4 or len(set(moves)) != 1 or rules.hit_needs_home
            or rules.unused_throw != "lost"):
        return None
    try:
        target = to_state(after, colour)
    except InvalidBoardError:
        return None
    start = to_state(position, colour)
    if sum(start[:OPP]) != sum(target[:OPP]) or sum(start[OPP:]) != sum(target[OPP:]):
        return None
    viable = _leads_to(target)

    die = moves[0]
    total = len(moves)
    seen = {(start, 0, TOP)}
    stack: list[tuple[tuple[int, ...], int, Path, int]] = [(start, 0, (), TOP)]
    while stack:
        s, used, path, bound = stack.pop()
        if used == total:
            if s == target:
                turn = colour if (rules.doublet_rethrow and is_doublet(rules, thrown)) else other(colour)
                return Play(path, s, colour, position, turn, ())
            continue
        for step, new in _steps(s, die, rules, STRICT, bound):
            place = rank(step.src)
            node = (new, used + 1, place)
            if node in seen or not viable(new):
                continue
            seen.add(node)
            stack.append((new, used + 1, path + (step,), place))
    return None
