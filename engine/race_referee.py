"""The race games' referee: the position before, the throw, the position
after -> a :class:`~willughby.engine.rulings.Ruling` (``referee.py`` hands
each game to its family; this is the family whose men travel round the
board: Irish, the backgammons, Dutch, Filling).

An illegal turn is data, not an exception (docs/house-conventions.md, convention 6): the
ruling says ``illegal``, gives a reason a player can read, and names the
rule's source.  A legal turn gives the play that explains the change, what it
did (hits, entering, bearing off, dice lost or used by the opponent, the
table bound) and, when it ends the game, the winner, the kind of win and the
stake.

>>> from willughby.engine.options import preset_rules
>>> from willughby.engine.position import Position
>>> from willughby.engine.moves import legal_plays
>>> bg = preset_rules("backgammon")
>>> before = Position.from_gnubg_id("4HPwATDgc/ABMA")
>>> after = next(p.position for p in legal_plays(bg, before, (3, 1)) if p.notation == "8/5 6/5")
>>> r = RACE.judge(bg, before, (3, 1), after)
>>> r.verdict, r.play
('legal', '8/5 6/5')
"""

from __future__ import annotations

from typing import Any, Sequence

from .errors import InvalidBoardError
from .moves import Play, all_plays, expand_dice, find_long_doublet_play, is_doublet, plays_of_moves, validate_dice
from .race_checks import first_broken, point_name, relaxations
from .race_state import BAR, BEYOND_HOME, ENTRY, OFF, OPP, OPP_BAR, WAITING, Step, apply_step, to_state
from .notation import format_play
from .position import COLOURS, Position, colour_index, other
from .options import Rules
from .rulings import Event, GameOver, Outcome, Ruling
from .sources import source

__all__ = ["RACE", "RaceFamily", "outcomes", "judge", "game_over", "stake_terms", "start_position"]


# ---------------------------------------------------------------- outcomes
def outcomes(rules: Rules, before: Position, dice: Sequence[int]) -> list[Outcome]:
    """Every legal way the turn can end, distinct by final position.

    With ``unused_throw=opponent`` a die the player cannot use passes to the
    opponent, who may use it (any of the passed dice, in any order: in a race
    game with contact a die can harm, so using one is his choice -- the
    choice of this program) in the same turn.
    """
    colour = _mover(before)
    by_board: dict[Any, Outcome] = {}
    for play in all_plays(rules, before, dice):
        if (rules.unused_throw == "opponent" and play.unused
                and game_over(rules, play.position, colour, dice) is None):
            opp_view = play.position.with_turn(other(colour))
            for opp in plays_of_moves(rules, opp_view, play.unused, enforce_use=False,
                                      turn_after=play.position.turn):
                key = opp.position.physical_key()
                prev = by_board.get(key)
                if prev is None or (prev.opponent_play is not None
                                    and len(opp.steps) < len(prev.opponent_play.steps)):
                    by_board[key] = Outcome(play, opp if opp.steps else None, opp.position)
        else:
            # the mover's state tells the board (men beside the board counted together,
            # as the board shows them): no Position is built for the thousands of plays
            # a pip-total doublet may have
            key = (_seen_state(play.state) if rules.unused_throw == "lost"
                   else play.position.physical_key())
            if key not in by_board or by_board[key].opponent_play is not None:
                by_board[key] = Outcome(play, None)
    return list(by_board.values())


def _seen_state(state: Sequence[int]) -> tuple[str, tuple[int, ...]]:
    """What the board shows of a mover's 54-tuple (moves.py): men borne off and men
    waiting to enter lie alike beside the board, so they are added."""
    s = list(state)
    s[OFF] += s[WAITING]
    s[WAITING] = 0
    s[OPP + OFF] += s[OPP + WAITING]
    s[OPP + WAITING] = 0
    return ("seen", tuple(s))


def _mover(position: Position) -> str:
    turn = position.turn
    if turn is None or turn not in COLOURS:
        raise InvalidBoardError("the position before must say whose turn it is (turn: light or dark)")
    for colour in COLOURS:
        i = colour_index(colour)
        if position.off[i] and not position.bar[i] and not position.waiting[i] and not any(position.points(colour)):
            raise InvalidBoardError(f"the game is already over: {colour} has borne off every man")
    return turn


# ---------------------------------------------------------------- the end
_OPPONENTS_HOME = slice(19, 25)  # a side's points 19..24: the other side's home table

def _home_filled(rules: Rules, s: tuple[int, ...]) -> bool:
    return all(s[k] >= rules.fill_min for k in range(1, 7))


def game_over(rules: Rules, position: Position, mover: str, dice: Sequence[int],
              cube: int = 1) -> GameOver | None:
    """The end of the game in *position*, reached on *mover*'s throw *dice*, or None.

    The first to bear off all his men wins (``stakes=fill``: the first to fill
    his home table); the stake follows the ``stakes`` option, times the cube.
    """
    doublet = is_doublet(rules, dice)
    for winner in (mover, other(mover)):
        s = to_state(position, winner)
        if rules.stakes == "fill":
            if _home_filled(rules, s):
                return GameOver(winner, "fill", cube, "stakes.fill")
            continue
        if sum(s[1:OPP]) == 0 and s[OFF] > 0:
            return _stake(rules, s, winner, doublet and winner == mover, cube)
    return None


#: the old stakes (``stakes.willughby``, ``stakes.cotton``): a plain win, one won with a doublet on the last
#: throw, a backgammon, and a backgammon won with a doublet, in stakes
_OLD_STAKES = {"willughby": (1, 2, 2, 3), "cotton": (1, 2, 3, 4)}
#: the modern stakes (``stakes.gammon``): a single game, a gammon, a backgammon
_GAMMON_STAKES = (1, 2, 3)


def stake_terms(rules: Rules, cube: int = 1) -> list[tuple[str, int, str]]:
    """What a game of *rules* can be won for with the cube at *cube*, as
    ``(kind, stake, source key)``, smallest first: the terms
    :func:`game_over` applies at the end, told before it.

    >>> from willughby.engine.rules import preset_rules
    >>> stake_terms(preset_rules("backgammon"), cube=2)
    [('single', 2, 'stakes.gammon'), ('gammon', 4, 'stakes.gammon'), ('backgammon', 6, 'stakes.gammon')]
    >>> [(k, n) for k, n, _ in stake_terms(preset_rules("backgammon-willughby"))]
    [('single', 1), ('double', 2), ('backgammon', 2), ('backgammon-double', 3)]
    """
    if rules.stakes == "fill":
        return [("fill", cube, "stakes.fill")]
    if rules.stakes == "single":
        return [("single", cube, "win.single")]
    if rules.stakes in _OLD_STAKES:
        kinds = ("single", "double", "backgammon", "backgammon-double")
        return [(k, n * cube, f"stakes.{rules.stakes}") for k, n in zip(kinds, _OLD_STAKES[rules.stakes])]
    return [(k, n * cube, "stakes.gammon") for k, n in zip(("single", "gammon", "backgammon"), _GAMMON_STAKES)]


def _stake(rules: Rules, s: tuple[int, ...], winner: str, doublet: bool, cube: int) -> GameOver:
    loser = s[OPP:]
    loser_outside = any(loser[BEYOND_HOME])  # a man of the loser's not yet in his home table
    if rules.stakes == "single":
        return GameOver(winner, "single", cube, "win.single")
    if rules.stakes in _OLD_STAKES:
        base = _OLD_STAKES[rules.stakes]
        rule = f"stakes.{rules.stakes}"
        if loser_outside:
            return GameOver(winner, "backgammon-double" if doublet else "backgammon",
                            (base[3] if doublet else base[2]) * cube, rule)
        return GameOver(winner, "double" if doublet else "single",
                        (base[1] if doublet else base[0]) * cube, rule)
    # gammon: the loser has borne off none; backgammon: and has a man on the bar
    # (or waiting to enter -- the choice of this program) or in the winner's home table.
    if loser[OFF] == 0:
        kind = "backgammon" if loser[BAR] or loser[WAITING] or any(loser[_OPPONENTS_HOME]) else "gammon"
        if rules.jacoby and cube == 1:
            # GNU Backgammon manual, 2.8: "Gammons and backgammons count only as a single game if neither
            # player has offered a double" (a double dropped ends the game before this; one taken turns the cube)
            return GameOver(winner, kind, cube, "money.jacoby")
        return GameOver(winner, kind, _GAMMON_STAKES[1 if kind == "gammon" else 2] * cube, "stakes.gammon")
    return GameOver(winner, "single", _GAMMON_STAKES[0] * cube, "stakes.gammon")


# ------------------------------------------------------------------ judge
def judge(rules: Rules, before: Position, dice: Sequence[int], after: Position,
          cube: int = 1) -> Ruling:
    """Rule on one turn seen on the board.

    *before* must say whose turn it is; *after* is compared by what the
    board shows (its ``turn`` is ignored).  *cube* multiplies the stake.
    """
    mover = _mover(before)  # says whose turn it is and that the game is not over
    thrown = validate_dice(rules, dice)
    direct = find_long_doublet_play(rules, before, thrown, after)
    if direct is not None:  # a long doublet's play found without listing thousands
        return _legal_ruling(rules, before, thrown, Outcome(direct, None), None, cube)
    found = outcomes(rules, before, thrown)
    target = after.physical_key()
    try:
        seen: tuple[str, tuple[int, ...]] | None = _seen_state(to_state(after, mover))
    except InvalidBoardError:
        seen = None
    for outcome in found:
        if outcome.opponent_play is None:
            if _seen_state(outcome.play.state) != seen or outcome.position.physical_key() != target:
                continue
        elif outcome.position.physical_key() != target:
            continue
        return _legal_ruling(rules, before, thrown, outcome, len(found), cube)
    return _illegal_ruling(rules, before, thrown, after, found)


def _events_of(steps: Sequence[Step], player: str) -> list[Event]:
    out = []
    for step in steps:
        if step.enters:
            out.append(Event("enter", player, step.dst if step.dst else None))
        if step.hit:
            out.append(Event("hit", player, step.dst))
        if step.dst == 0:
            out.append(Event("bear_off", player, step.src if step.src <= 24 else None))
    return out


def _legal_ruling(rules: Rules, before: Position, dice: tuple[int, ...], outcome: Outcome,
                  count: int | None, cube: int) -> Ruling:
    colour = before.turn
    assert colour is not None
    opponent = other(colour)
    play = outcome.play
    events = _events_of(play.steps, colour)
    if not play.steps:
        events.append(Event("pass", colour))
    passed = list(play.unused)
    opp_text = None
    if outcome.opponent_play is not None:
        used = [s.die for s in outcome.opponent_play.steps]
        for d in used:
            events.append(Event("opponent_uses_die", opponent, None, d))
            passed.remove(d)
        events.extend(_events_of(outcome.opponent_play.steps, opponent))
        opp_text = format_play(outcome.opponent_play.steps)
    for d in passed:
        events.append(Event("lost_die", colour, None, d))
    final = outcome.position
    if rules.binding:
        s = to_state(final, colour)
        if all(s[k] >= 2 for k in range(1, 7)) and (s[OPP_BAR] or s[OPP + WAITING]):
            events.append(Event("bound", colour))
    over = game_over(rules, final, colour, dice, cube)
    if over is not None:
        events.append(Event("win", over.winner))
    return Ruling("legal", colour, dice, format_play(play.steps), tuple(events),
                  game_over=over, after=final, legal_count=count, opponent_play=opp_text)


# ----------------------------------------------------------- illegal turns
def _illegal(colour: str, dice: tuple[int, ...], reason: str, rule: str,
             closest: tuple[str, ...], count: int) -> Ruling:
    src = source(rule)
    return Ruling("illegal", colour, dice, None, (), reason, src.citation, rule,
                  closest=closest, legal_count=count)


def _closest(outcomes: Sequence[Outcome], after: Position, mover: str, n: int = 3) -> tuple[str, ...]:
    """The *n* legal plays whose boards lie nearest *after* (men out of place,
    counted point by point), ties by notation."""
    seen = _seen_state(to_state(after, mover))

    def distance(o: Outcome) -> int:
        if seen is not None and o.opponent_play is None and isinstance(o.play, Play):
            # the mover's state is the board point by point: no Position built for each of thousands
            return sum(abs(x - y) for x, y in zip(_seen_state(o.play.state)[1], seen[1]))
        a: Position = o.position
        b = after
        d = sum(abs(x - y) for x, y in zip(a.light, b.light)) + sum(abs(x - y) for x, y in zip(a.dark, b.dark))
        d += sum(abs(x - y) for x, y in zip(a.bar, b.bar))
        d += sum(abs((a.off[i] + a.waiting[i]) - (b.off[i] + b.waiting[i])) for i in (0, 1))
        return d
    far = [(distance(o), k) for k, o in enumerate(outcomes)]
    if not far:
        return ()
    cut = sorted(d for d, _ in far)[min(n, len(far)) - 1]
    near = [(d, format_play(outcomes[k].play.steps)) for d, k in far if d <= cut]  # only these are written
    return tuple(text for _, text in sorted(near)[:n])


def _illegal_ruling(rules: Rules, before: Position, dice: tuple[int, ...], after: Position,
                    outcomes: Sequence[Outcome]) -> Ruling:
    colour = before.turn
    assert colour is not None
    opponent = other(colour)
    closest = _closest(outcomes, after, colour)
    count = len(outcomes)
    def illegal(reason: str, rule: str) -> Ruling:
        return _illegal(colour, dice, reason, rule, closest, count)

    # 1. men are neither made nor lost
    for c in (colour, opponent):
        was, now = before.men(c), after.men(c)
        if was != now:
            return illegal(f"{c} had {was} men before the turn and {now} after it", "conservation")
    # 2. the opponent's men move only when hit (or with passed dice)
    if rules.unused_throw == "lost":
        b, a = to_state(before, opponent), to_state(after, opponent)
        mine = to_state(after, colour)
        for k in range(1, 25):
            if b[k] >= 2 and a[k] == 0 and mine[25 - k] and a[BAR] > b[BAR]:
                # both men gone to the bar and the mover standing there: he blotted a held point
                return illegal(f"{colour} landed on {point_name(colour, 25 - k)}, which {opponent} "
                               f"held with {b[k]} men: a point of two or more cannot be blotted",
                               "land.blocked")
            if a[k] > b[k] or (a[k] < b[k] and not (b[k] == 1 and a[k] == 0)):
                return illegal(f"{opponent}'s men on {point_name(opponent, k)} changed during "
                               f"{colour}'s turn", "turn.order")
        if a[OFF] != b[OFF] or a[WAITING] != b[WAITING]:
            return illegal(f"{opponent}'s men beside the board changed during {colour}'s turn",
                           "turn.order")
    target = after.physical_key()
    # 3. reachable, but with fewer dice than the rules demand
    loose = [p for p in all_plays(rules, before, dice, enforce_use=False, toward=after)
             if p.position.physical_key() == target]
    if loose:
        most = max(len(o.play.steps) for o in outcomes)
        used = min(len(p.steps) for p in loose)
        if used < most:
            return illegal(f"{colour} played {_count(used)} of the throw but {_count(most)} "
                           "could be played", "use.all")
        high = max(dice)
        low_die = loose[0].steps[0].die if loose[0].steps else high
        return illegal(f"{colour} played the {low_die}, but when either die can be played and "
                       f"not both, the higher ({high}) must be played", "higher.die")
    # 4. reachable only by breaking one rule: switch the checks off one at a time (race_checks.py)
    for relax in relaxations(rules):
        for play in all_plays(rules, before, dice, relax=relax, enforce_use=False, toward=after):
            if play.position.physical_key() == target:
                explained = _explain(rules, before, colour, play)
                if explained is not None:
                    return illegal(*explained)
    expanded = expand_dice(rules, dice)
    b, a = to_state(before, colour), to_state(after, colour)
    def pips(s: tuple[int, ...]) -> int:
        return sum(k * s[k] for k in range(1, 25)) + ENTRY * (s[BAR] + s[WAITING])
    moved = pips(b) - pips(a)
    if a[0] == b[0]:  # nothing borne off: the pips moved must add up to the dice used
        highest = ENTRY if (b[BAR] or b[WAITING]) else max((k for k in range(1, 25) if b[k]), default=0)
        if moved < 0 or any(a[k] for k in range(highest + 1, 25)):
            return illegal(f"{colour} moved a man backwards: men move only towards the home "
                           "table", "move.direction")
        if moved > sum(expanded):
            return illegal(f"{colour}'s men moved {moved} points in all, but the throw "
                           f"{'-'.join(map(str, dice))} moves at most {sum(expanded)}", "move.dice")
    return illegal(f"no play of {'-'.join(map(str, dice))} leads from the board before to the "
                   "board after: each die moves one man that many points", "move.dice")


def _count(n: int) -> str:
    return {0: "no die", 1: "one die"}.get(n, f"{n} dice")


def _explain(rules: Rules, before: Position, colour: str, play: Play) -> tuple[str, str] | None:
    """The first check of ``race_checks.CHECKS`` the play breaks, step by step:
    its reason and the source key it cites."""
    state = to_state(before, colour)
    for k, step in enumerate(play.steps):
        check = first_broken(rules, state, step)
        if check is not None:
            goes_on = any(later.src == step.dst for later in play.steps[k + 1:])
            return check.reason(colour, state, step, goes_on), check.key(state, step, goes_on)
        state = apply_step(state, step)
    return None


# ------------------------------------------------------------------ the family
def start_position(rules: Rules, turn: str | None = None) -> Position:
    """The start: each side's men on its own points (``Rules.start``), any
    others waiting to enter (``Rules.start_waiting``), both sides alike."""
    light = [0] * 24
    dark = [0] * 24
    for own, men in rules.start:
        light[own - 1] += men
        dark[24 - own] += men
    return Position(tuple(light), tuple(dark), waiting=(rules.start_waiting, rules.start_waiting), turn=turn)


class RaceFamily:
    """The race games, as the engine's families answer (``families.py``)."""

    name = "race"
    #: what the page draws: men on the 24 points, the bar and beside the board
    board = "points"
    matches = True   # a race to bear off between two, each game won for its stake

    def start(self, rules: Rules, turn: str | None = None) -> Position:
        return start_position(rules, turn)

    def outcomes(self, rules: Rules, before: Position, dice: Sequence[int]) -> list[Outcome]:
        return outcomes(rules, before, dice)

    def judge(self, rules: Rules, before: Position, dice: Sequence[int], after: Position, cube: int = 1) -> Ruling:
        return judge(rules, before, dice, after, cube)

    def game_over(self, rules: Rules, position: Position, mover: str, dice: Sequence[int],
                  cube: int = 1) -> GameOver | None:
        return game_over(rules, position, mover, dice, cube)

    def stake_terms(self, rules: Rules, cube: int = 1) -> list[tuple[str, int, str]]:
        return stake_terms(rules, cube)


#: the race family
RACE = RaceFamily()
