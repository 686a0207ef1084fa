"""The counting game's throws: Sice-Ace, refereed from the dice alone
(``counting.py`` gathers this module and the match, ``counting_game.py``).

Seed 003 (Games - Tables or Backgammon) describes it: two to five players take
six men each, and each throw of two dice is read die by die -- a 1 hands a man
to the player on the left, a 6 bears one off, a 5 puts one into the pool in
the middle, a 2 takes one from the pool (the player drinks and throws again),
3 and 4 count nothing; a doublet counts die by die and gives another throw,
except 2-2, which takes two from the pool and gives none.  The last player
with men on the board pays for the drinks.

Its state is not a board but a :class:`Tally` of each player's men and the
pool (``docs/board-document.md``, "The tally document").  As everywhere in the engine,
rules, tallies and dice are values:
:func:`count_throw` reads one throw, :func:`judge_tally` rules on a tally the
players kept, and only :class:`CountingGame` keeps history.

Where the seed leaves a point open this module decides it, each a *choice of
this program* (``sources.PROGRAM_CHOICE``):

- **The order of the dice.**  The order in which the two dice are read
  matters (5 then 2 takes back the man just pooled; 2 then 5 does not), and a
  throw has no order on the table.  This program reads the higher die first,
  so ``[2, 5]`` and ``[5, 2]`` give the same result (as the example in ``docs/command-line.md``).
- **The player on the left** is the next player in turn order who is still
  in; a man is never handed to a player who is out.
- **Out is final.**  A player whose men reach none is out at once: the rest
  of his throw counts nothing (a 2 read after his last man went does not take
  a man from the pool) and he throws no more.  So a player is out exactly
  when his count is 0, and the tally alone says who is out.
- **A die that cannot act does nothing**: a 1, 5 or 6 with no man left, a 2
  on an empty pool.  A 2 that takes nothing gives no further throw (the
  player has nothing to drink for); a doublet other than 2-2 gives another
  throw whatever its dice did.
- **Whose throw next**: the same player after a throw again, else the next
  player in turn order who is still in; nobody once the game is over.
- Players are numbered from 0 in turn order, as in the tally document, and a
  ruling's sentence names them so ("player 1").

>>> from willughby.engine.rules import preset_rules
>>> rules = preset_rules("sice-ace", {"players": "3"})
>>> outcome = count_throw(rules, Tally.start(3), [6, 1])
>>> str(outcome.after.men), outcome.after.turn
('(4, 7, 6)', 1)
>>> [e.type for e in outcome.events]
['bear_off', 'hand_left']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .errors import InvalidBoardError, InvalidDiceError, InvalidOptionError
from .options import Rules
from .sources import source
from .tally import MAX_PLAYERS, MEN_EACH, MIN_PLAYERS, TALLY_FORMAT, Tally, _is_int

__all__ = [
    "MEN_EACH", "MIN_PLAYERS", "MAX_PLAYERS", "TALLY_FORMAT", "EVENT_TYPES",
    "Tally", "TallyEvent", "TallyOver", "TallyOutcome", "TallyRuling",
    "validate_tally_dice", "reading_order", "count_throw", "judge_tally", "COUNTING", "CountingFamily",
]

RECORD_FORMAT = "willughby-game/1"
EVENT_TYPES = ("hand_left", "bear_off", "pool_in", "pool_out", "throw_again", "out")

# The rule each die applies (keys of ``sources.SOURCES``).
_DIE_RULE = {1: "sice.one", 2: "sice.two", 3: "sice.nothing", 4: "sice.nothing",
             5: "sice.five", 6: "sice.six"}

# ------------------------------------------------------------------ events
@dataclass(frozen=True)
class TallyEvent:
    """One thing a throw did: ``hand_left`` (a 1; ``to`` is the receiver),
    ``bear_off`` (a 6), ``pool_in`` (a 5), ``pool_out`` (a 2),
    ``throw_again``, or ``out`` (the player has no men left).  ``die`` is the
    die that did it (None for ``throw_again`` and ``out``); it is kept for
    explanations and not written to JSON, whose shape ``docs/command-line.md`` fixes.

    >>> TallyEvent("hand_left", 0, to=1, die=1).to_json()
    {'type': 'hand_left', 'player': 0, 'to': 1}
    """

    type: str
    player: int
    to: int | None = None
    die: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "player": self.player}
        if self.type == "hand_left":
            out["to"] = self.to
        return out


@dataclass(frozen=True)
class TallyOver:
    """The end of a game: *loser* is the last player with men ("pays for the
    drinks").

    >>> TallyOver(1).to_json()
    {'loser': 1, 'kind': 'single', 'stake': 1}
    """

    loser: int
    kind: str = "single"
    stake: int = 1
    rule: str = "sice.loser"

    def to_json(self) -> dict[str, Any]:
        return {"loser": self.loser, "kind": self.kind, "stake": self.stake}


@dataclass(frozen=True)
class TallyOutcome:
    """What one throw does: the tally *after* (its ``turn`` is who throws
    next), the *events* in order, the end of the game if it came, and whether
    the player throws again.  *player* and *dice* (in reading order) say whose
    throw it was."""

    after: Tally
    events: tuple[TallyEvent, ...]
    game_over: TallyOver | None
    throws_again: bool
    player: int = -1
    dice: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """One entry of ``willughby moves``' ``plays`` (docs/command-line.md)."""
        return {
            "board": self.after.to_doc(),
            "events": [e.to_json() for e in self.events],
            "game_over": self.game_over.to_json() if self.game_over else None,
        }


# --------------------------------------------------------------- the throw
def _check_rules(rules: Rules) -> None:
    if rules.family != "counting":
        raise InvalidOptionError(
            f"these are the rules of a {rules.family} game, not of a counting game (sice-ace)"
        )


def validate_tally_dice(rules: Rules, dice: Sequence[int]) -> tuple[int, int]:
    """Check that *dice* is a throw of two dice, each 1 to 6; return them as given.

    >>> from willughby.engine.rules import preset_rules
    >>> validate_tally_dice(preset_rules("sice-ace"), [2, 5])
    (2, 5)
    """
    _check_rules(rules)
    if isinstance(dice, (str, bytes)):
        raise InvalidDiceError(f"dice must be a list of two numbers, not {dice!r}")
    try:
        thrown = tuple(dice)
    except TypeError:
        raise InvalidDiceError(f"dice must be a list of two numbers, not {dice!r}") from None
    for d in thrown:
        if not _is_int(d) or not 1 <= d <= 6:
            raise InvalidDiceError(f"a die shows 1 to 6, not {d!r}")
    if len(thrown) != 2:
        raise InvalidDiceError(
            f"Sice-Ace throws 2 dice, but {len(thrown)} {'was' if len(thrown) == 1 else 'were'} "
            f"given: {list(thrown)}"
        )
    return thrown[0], thrown[1]


def reading_order(dice: Sequence[int]) -> tuple[int, ...]:
    """The order in which the dice are read: the higher first (choice of this
    program: the seed does not say, and a 5 read before a 2 returns the man
    just pooled).

    >>> reading_order([2, 5])
    (5, 2)
    """
    return tuple(sorted(dice, reverse=True))


def _next_in(men: Sequence[int], after: int) -> int | None:
    """The next player after *after* in turn order who still has men (not *after*)."""
    n = len(men)
    for step in range(1, n):
        k = (after + step) % n
        if men[k] > 0:
            return k
    return None


def _check_throwable(rules: Rules, tally: Tally) -> int:
    _check_rules(rules)
    if tally.players != rules.players:
        raise InvalidBoardError(
            f"the tally has {tally.players} players, but the game has players={rules.players}"
        )
    if tally.over:
        left = tally.players_in
        who = f"only player {left[0]} has men" if left else "nobody has men"
        raise InvalidBoardError(f"the game is over ({who}): nobody throws")
    if tally.turn is None:
        raise InvalidBoardError("turn is required: say whose throw it is (a player's index from 0)")
    if tally.men[tally.turn] == 0:
        raise InvalidBoardError(f"player {tally.turn} is out (no men left) and does not throw")
    return tally.turn


def count_throw(rules: Rules, tally: Tally, dice: Sequence[int]) -> TallyOutcome:
    """Read one throw of *dice* by the player on turn in *tally*.

    The dice are read one by one, the higher first (choice of this program):

    - 1: a man is handed to the next player still in ("the player on the
      left", ``sice.one``);
    - 6: a man is borne off (``sice.six``);
    - 5: a man is put into the pool (``sice.five``);
    - 2: a man is taken from the pool, and the player throws again
      (``sice.two``); on an empty pool it does nothing;
    - 3 and 4 count nothing (``sice.nothing``);
    - a doublet gives another throw, except 2-2 (``sice.doublet``).

    A player whose men reach none is out (``out``), and the rest of his throw
    counts nothing; when one player alone has men, he loses (``sice.loser``).
    A tally whose game is over, or whose player on turn is out, raises
    :class:`InvalidBoardError`.

    >>> from willughby.engine.rules import preset_rules
    >>> o = count_throw(preset_rules("sice-ace", {"players": "3"}), Tally.start(3), [2, 5])
    >>> o.after, [e.type for e in o.events], o.throws_again
    (Tally(men=(6, 6, 6), pool=0, turn=0), ['pool_in', 'pool_out', 'throw_again'], True)
    """
    player = _check_throwable(rules, tally)
    thrown = validate_tally_dice(rules, dice)
    return _count(tally, player, thrown, reading_order(thrown))


def _read_in_order(rules: Rules, tally: Tally, order: tuple[int, int]) -> Tally | None:
    """The tally after reading the dice in *order* (not this program's): to tell
    a ruling that rests on the choice of reading the higher die first."""
    try:
        player = _check_throwable(rules, tally)
    except InvalidBoardError:
        return None
    return _count(tally, player, order, order).after


def _count(tally: Tally, player: int, thrown: tuple[int, ...], order: tuple[int, ...]) -> TallyOutcome:
    men = list(tally.men)
    pool = tally.pool
    events: list[TallyEvent] = []
    took_from_pool = False
    for die in order:
        if men[player] == 0:
            break  # out is final: the rest of the throw counts nothing
        if die == 1:  # sice.one
            to = _next_in(men, player)
            if to is not None:
                men[player] -= 1
                men[to] += 1
                events.append(TallyEvent("hand_left", player, to=to, die=die))
        elif die == 6:  # sice.six
            men[player] -= 1
            events.append(TallyEvent("bear_off", player, die=die))
        elif die == 5:  # sice.five
            men[player] -= 1
            pool += 1
            events.append(TallyEvent("pool_in", player, die=die))
        elif die == 2:  # sice.two
            if pool > 0:
                pool -= 1
                men[player] += 1
                took_from_pool = True
                events.append(TallyEvent("pool_out", player, die=die))
        # 3 and 4: sice.nothing
        if men[player] == 0:
            events.append(TallyEvent("out", player, die=die))
    doublet = thrown[0] == thrown[1]
    game_over: TallyOver | None = None
    still_in = [k for k, n in enumerate(men) if n > 0]
    if len(still_in) <= 1:
        # sice.loser: "The last player on the board pays for the drinks."
        game_over = TallyOver(loser=still_in[0]) if still_in else TallyOver(loser=player)
    again = False
    if game_over is None and men[player] > 0:
        if doublet:
            again = order != (2, 2)  # sice.doublet
        else:
            again = took_from_pool  # sice.two
    if again:
        events.append(TallyEvent("throw_again", player))
        turn: int | None = player
    elif game_over is not None:
        turn = None
    else:
        turn = _next_in(men, player)
    after = Tally(tuple(men), pool, turn)
    return TallyOutcome(after, tuple(events), game_over, again, player, order)


# ------------------------------------------------------------- the referee
@dataclass(frozen=True)
class TallyRuling:
    """The referee's judgement of a tally kept by the players after a throw.

    In Sice-Ace the dice alone decide the result, so a ruling carries what the
    throw does (``events``, ``game_over``, ``after``: the right tally) for a
    legal and an illegal tally alike; an illegal one adds a *reason* naming
    the first difference and the *citation* of the rule concerned.
    """

    verdict: str
    player: int
    dice: tuple[int, ...]
    events: tuple[TallyEvent, ...]
    after: Tally
    game_over: TallyOver | None = None
    reason: str | None = None
    citation: str | None = None
    rule: str | None = None

    @property
    def legal(self) -> bool:
        return self.verdict == "legal"

    def to_json(self) -> dict[str, Any]:
        """The ``willughby judge --json`` document (docs/command-line.md), ``board`` being
        the tally after the throw."""
        return {
            "verdict": self.verdict,
            "play": None,
            "events": [e.to_json() for e in self.events],
            "reason": self.reason,
            "citation": self.citation,
            "game_over": self.game_over.to_json() if self.game_over else None,
            "board": self.after.to_doc(),
            "player": self.player,
            "dice": list(self.dice),
            "rule": self.rule,
        }


def _men(n: int) -> str:
    return f"{n} {'man' if n == 1 else 'men'}"


def _men_rule(outcome: TallyOutcome, player: int, too_many: bool) -> str:
    """The rule concerned where *player*'s count is wrong."""
    dice = outcome.dice
    if player != outcome.player:
        return "sice.one"  # only a 1 changes another player's men
    acted = [e.die for e in outcome.events if e.die is not None and e.type != "out"]
    if too_many:
        for die in acted:
            if die in (6, 5, 1):
                return _DIE_RULE[die]
        return "sice.two" if 2 in dice else "sice.nothing"
    if 2 in acted:
        return "sice.two"
    if any(d in (3, 4) for d in dice) or not acted:
        return "sice.nothing"
    return _DIE_RULE[acted[0]]


def _pool_rule(outcome: TallyOutcome, too_many: bool) -> str:
    first, second = (2, 5) if too_many else (5, 2)
    if first in outcome.dice:
        return _DIE_RULE[first]
    if second in outcome.dice:
        return _DIE_RULE[second]
    return "sice.nothing"


def judge_tally(rules: Rules, before: Tally, dice: Sequence[int], after: Tally) -> TallyRuling:
    """Rule on the tally *after* the players kept for a throw of *dice* from
    *before*: legal where its men and pool are those the throw gives (and its
    ``turn``, where given, is who throws next); else illegal, with one
    sentence naming the first difference and the source of the rule.

    >>> from willughby.engine.rules import preset_rules
    >>> r = judge_tally(preset_rules("sice-ace"), Tally.start(2), [6, 3], Tally((6, 6)))
    >>> r.verdict, r.reason, r.citation
    ('illegal', 'player 0 should have 5 men after 6-3, not 6', 'seed 003 (Sice-Ace)')
    """
    outcome = count_throw(rules, before, dice)
    if after.players != before.players:
        raise InvalidBoardError(
            f"the tally after lists {after.players} players, the tally before {before.players}"
        )
    right = outcome.after
    throw = "-".join(str(d) for d in outcome.dice)
    reason: str | None = None
    rule: str | None = None
    for k, (want, got) in enumerate(zip(right.men, after.men)):
        if want != got:
            reason = f"player {k} should have {_men(want)} after {throw}, not {got}"
            rule = _men_rule(outcome, k, got > want)
            break
    if reason is None and right.pool != after.pool:
        reason = f"the pool should hold {_men(right.pool)} after {throw}, not {after.pool}"
        rule = _pool_rule(outcome, after.pool > right.pool)
    if reason is None and after.turn is not None and after.turn != right.turn:
        if outcome.game_over is not None:
            reason = (f"the game is over after {throw}: player {outcome.game_over.loser} is the "
                      f"last with men and pays, and nobody throws next")
            rule = "sice.loser"
        else:
            again = "again" if outcome.throws_again else "next"
            reason = f"player {right.turn} throws {again} after {throw}, not player {after.turn}"
            doublet = outcome.dice[0] == outcome.dice[1]
            rule = "sice.doublet" if doublet or 2 not in outcome.dice else "sice.two"
    if reason is None:
        return TallyRuling("legal", outcome.player, outcome.dice, outcome.events, right,
                           outcome.game_over)
    assert rule is not None
    if outcome.dice[0] != outcome.dice[1]:
        # the tally the dice read the other way round would give: where the players kept that,
        # the ruling rests on this program's choice of reading the higher die first
        other_way = _read_in_order(rules, before, (outcome.dice[1], outcome.dice[0]))
        differs = other_way is not None and (other_way.men, other_way.pool) != (right.men, right.pool)
        if (differs and other_way is not None and (other_way.men, other_way.pool) == (after.men, after.pool)
                and after.turn in (None, other_way.turn)):
            rule = "sice.order"
            reason += " (the higher die is read first)"
    return TallyRuling("illegal", outcome.player, outcome.dice, outcome.events, right,
                       outcome.game_over, reason=reason, citation=source(rule).citation, rule=rule)


# ------------------------------------------------------------------ the family
class CountingFamily:
    """The counting game, as the engine's families answer (``families.py``):
    its state is a :class:`Tally`, not a board, and a turn one throw."""

    name = "counting"
    #: what the page draws: each player's men and the pool, counted
    board = "tally"
    matches = False  # a single stake a game (the unstacking games); up to five players (the counting game)

    def start(self, rules: Rules, turn: int | None = None) -> Tally:
        start = Tally.start(rules.players)
        return start if turn is None else start.with_turn(turn)

    def outcomes(self, rules: Rules, before: Tally, dice: Sequence[int]) -> list[TallyOutcome]:
        return [count_throw(rules, before, dice)]      # the dice alone decide: one way the turn can end

    def judge(self, rules: Rules, before: Tally, dice: Sequence[int], after: Tally, cube: int = 1) -> TallyRuling:
        return judge_tally(rules, before, dice, after)

    def game_over(self, rules: Rules, position: Tally, mover: int, dice: Sequence[int],
                  cube: int = 1) -> TallyOver | None:
        # sice.loser: "The last player on the board pays for the drinks."
        if not position.over:
            return None
        return TallyOver(loser=position.players_in[0] if position.players_in else mover)

    def stake_terms(self, rules: Rules, cube: int = 1) -> list[tuple[str, int, str]]:
        return [("single", 1, "sice.loser")]      # the loser pays for the drinks: one round


#: the counting family
COUNTING = CountingFamily()
