"""The counting game: Sice-Ace, refereed from the dice alone.

Seed 003 (Games - Tables or Backgammon) describes it: two to five players take
six men each, and each throw of two dice is read die by die -- a 1 hands a man
to the player on the left, a 6 bears one off, a 5 puts one into the pool in
the middle, a 2 takes one from the pool (the player drinks and throws again),
3 and 4 count nothing; a doublet counts die by die and gives another throw,
except 2-2, which takes two from the pool and gives none.  The last player
with men on the board pays for the drinks.

Its state is not a board but a :class:`Tally` of each player's men and the
pool (``board-json.md``, "The tally document").  As everywhere in the engine
(DESIGN.md conventions 3 and 5), rules, tallies and dice are values:
:func:`count_throw` reads one throw, :func:`judge_tally` rules on a tally the
players kept, and only :class:`CountingMatch` keeps history.

Where the seed leaves a point open this module decides it, each a *choice of
this program* (``sources.PROGRAM_CHOICE``):

- **The order of the dice.**  The order in which the two dice are read
  matters (5 then 2 takes back the man just pooled; 2 then 5 does not), and a
  throw has no order on the table.  This program reads the higher die first,
  so ``[2, 5]`` and ``[5, 2]`` give the same result (as ``cli.md``'s example).
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

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .errors import InvalidBoardError, InvalidDiceError, InvalidOptionError, InvalidRecordError, \
    MatchStateError, EngineError
from .rules import Rules, get_preset, preset_rules
from .sources import source

__all__ = [
    "MEN_EACH", "MIN_PLAYERS", "MAX_PLAYERS", "TALLY_FORMAT", "EVENT_TYPES",
    "Tally", "TallyEvent", "TallyOver", "TallyOutcome", "TallyRuling",
    "validate_tally_dice", "reading_order", "count_throw", "judge_tally", "CountingMatch",
]

MEN_EACH = 6
"""Men each player takes ("Each player takes six pieces")."""
MIN_PLAYERS = 2
MAX_PLAYERS = 5
TALLY_FORMAT = "tally/1"
RECORD_FORMAT = "willughby-game/1"
EVENT_TYPES = ("hand_left", "bear_off", "pool_in", "pool_out", "throw_again", "out")

# The rule each die applies (keys of ``sources.SOURCES``).
_DIE_RULE = {1: "sice.one", 2: "sice.two", 3: "sice.nothing", 4: "sice.nothing",
             5: "sice.five", 6: "sice.six"}

_ID_RE = re.compile(r"^(\d+(?:\.\d+){1,4}):(\d+):(\d+|-)$")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --------------------------------------------------------------------- tally
@dataclass(frozen=True)
class Tally:
    """Each player's men in play, in turn order, the pool, and whose throw it is.

    ``men[k]`` is player *k*'s count (player 0 throws first); ``pool`` the men
    in the pool in the middle; ``turn`` the index of the player to throw, or
    None (unknown, or the game is over).  Men borne off are not drawn: they are
    what is missing of six a player (:attr:`off`).  A player with no men is
    out.

    >>> t = Tally((6, 5, 0), pool=1, turn=1)
    >>> t.players, t.players_in, t.out, t.off
    (3, (0, 1), (2,), 6)
    >>> Tally.from_id(t.id()) == t
    True
    """

    men: tuple[int, ...]
    pool: int = 0
    turn: int | None = None

    def __post_init__(self) -> None:
        men = self.men
        if isinstance(men, (str, bytes)) or not isinstance(men, Sequence):
            raise InvalidBoardError(f"men must be a list of counts, one a player, not {men!r}")
        men = tuple(men)
        object.__setattr__(self, "men", men)
        if not MIN_PLAYERS <= len(men) <= MAX_PLAYERS:
            raise InvalidBoardError(
                f"men must list {MIN_PLAYERS} to {MAX_PLAYERS} players' counts, not {len(men)}: {list(men)}"
            )
        for k, n in enumerate(men):
            if not _is_int(n):
                raise InvalidBoardError(f"men[{k}] must be a whole number, not {n!r}")
            if n < 0:
                raise InvalidBoardError(f"men[{k}] is negative ({n})")
        if not _is_int(self.pool):
            raise InvalidBoardError(f"pool must be a whole number, not {self.pool!r}")
        if self.pool < 0:
            raise InvalidBoardError(f"pool is negative ({self.pool})")
        most = MEN_EACH * len(men)
        if sum(men) + self.pool > most:
            raise InvalidBoardError(
                f"men {list(men)} and pool {self.pool} make {sum(men) + self.pool} men, "
                f"more than the {most} of {len(men)} players with {MEN_EACH} each"
            )
        if self.turn is not None:
            if not _is_int(self.turn):
                raise InvalidBoardError(f"turn must be a player's index, not {self.turn!r}")
            if not 0 <= self.turn < len(men):
                raise InvalidBoardError(
                    f"turn must be a player's index 0 to {len(men) - 1}, not {self.turn}"
                )

    # ------------------------------------------------------------ reading
    @property
    def players(self) -> int:
        """How many players the game has (in or out)."""
        return len(self.men)

    @property
    def players_in(self) -> tuple[int, ...]:
        """The players still in (with men), in turn order."""
        return tuple(k for k, n in enumerate(self.men) if n > 0)

    @property
    def out(self) -> tuple[int, ...]:
        """The players who are out (no men left), in turn order."""
        return tuple(k for k, n in enumerate(self.men) if n == 0)

    @property
    def off(self) -> int:
        """Men borne off (laid aside): what is missing of six a player."""
        return MEN_EACH * self.players - sum(self.men) - self.pool

    @property
    def over(self) -> bool:
        """Whether the game is over: no more than one player still has men."""
        return len(self.players_in) <= 1

    def with_turn(self, turn: int | None) -> "Tally":
        """A copy with *turn* set."""
        return Tally(self.men, self.pool, turn)

    # ----------------------------------------------------------- building
    @classmethod
    def start(cls, players: int) -> "Tally":
        """The tally a game of *players* starts from: six men each, the pool
        empty, player 0 to throw (seed 003: "Each player takes six pieces").

        >>> Tally.start(3)
        Tally(men=(6, 6, 6), pool=0, turn=0)
        """
        if not _is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise InvalidBoardError(
                f"Sice-Ace is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players!r}"
            )
        return cls((MEN_EACH,) * players, 0, 0)

    # ------------------------------------------------------ the document
    def to_doc(self) -> dict[str, Any]:
        """The tally document (``board-json.md``); ``turn`` only where known.

        >>> Tally.start(2).to_doc()
        {'format': 'tally/1', 'men': [6, 6], 'pool': 0, 'turn': 0}
        """
        doc: dict[str, Any] = {"format": TALLY_FORMAT, "men": list(self.men), "pool": self.pool}
        if self.turn is not None:
            doc["turn"] = self.turn
        return doc

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any] | str | bytes, players: int | None = None,
                 require_turn: bool = False) -> "Tally":
        """Read a tally document (a mapping or JSON text), validating it.

        *players*, where given (the ``players`` option), is the number of
        counts ``men`` must list; *require_turn* asks for ``turn`` (a tally
        to judge).

        >>> Tally.from_doc('{"format": "tally/1", "men": [6, 6, 6], "turn": 0}', players=3)
        Tally(men=(6, 6, 6), pool=0, turn=0)
        """
        if isinstance(doc, (str, bytes)):
            try:
                doc = json.loads(doc)
            except json.JSONDecodeError as exc:
                raise InvalidBoardError(f"tally document is not valid JSON: {exc}") from None
        if not isinstance(doc, Mapping):
            raise InvalidBoardError(f"tally document must be a JSON object, not {type(doc).__name__}")
        fmt = doc.get("format")
        if fmt != TALLY_FORMAT:
            raise InvalidBoardError(f"format must be \"{TALLY_FORMAT}\", not {fmt!r}")
        for key in doc:
            if key not in ("format", "men", "pool", "turn"):
                raise InvalidBoardError(f"unknown field {key!r} in tally document")
        if "men" not in doc:
            raise InvalidBoardError("men is missing: it must list each player's men, in turn order")
        men = doc["men"]
        if not isinstance(men, list):
            raise InvalidBoardError(f"men must be a list of counts, one a player, not {men!r}")
        if players is not None and len(men) != players:
            raise InvalidBoardError(
                f"men lists {len(men)} players, but the game has players={players}"
            )
        pool = doc.get("pool", 0)
        turn = doc.get("turn")
        if turn is None and require_turn:
            raise InvalidBoardError("turn is required: say whose throw it is (a player's index from 0)")
        return cls(tuple(men), pool, turn)

    # ---------------------------------------------------------- compact id
    def id(self) -> str:
        """The compact text form: counts joined by dots, the pool, the turn
        (``-`` where unknown), separated by colons.

        >>> Tally((6, 5, 0), pool=1, turn=1).id()
        '6.5.0:1:1'
        """
        turn = "-" if self.turn is None else str(self.turn)
        return f"{'.'.join(str(n) for n in self.men)}:{self.pool}:{turn}"

    @classmethod
    def from_id(cls, text: str) -> "Tally":
        """Read a compact id made by :meth:`id`.

        >>> Tally.from_id("6.6:0:-")
        Tally(men=(6, 6), pool=0, turn=None)
        """
        if not isinstance(text, str):
            raise InvalidBoardError(f"a tally id is text like '6.6.6:0:0', not {text!r}")
        match = _ID_RE.match(text.strip())
        if not match:
            raise InvalidBoardError(
                f"not a tally id: {text!r} (it looks like '6.6.6:0:0': men, pool, turn)"
            )
        men, pool, turn = match.groups()
        return cls(tuple(int(n) for n in men.split(".")), int(pool),
                   None if turn == "-" else int(turn))

    def __str__(self) -> str:
        """A short drawing: one line a player (``>`` marks whose throw), then
        the pool and the men laid aside.

        >>> print(Tally((2, 0, 7), pool=1, turn=2))
          player 0  oo       2
          player 1           out
        > player 2  ooooooo  7
        pool o 1, borne off 8
        """
        width = max(MEN_EACH, max(self.men))
        lines = []
        for k, n in enumerate(self.men):
            mark = ">" if k == self.turn else " "
            count = "out" if n == 0 else str(n)
            lines.append(f"{mark} player {k}  {'o' * n:<{width}}  {count}")
        lines.append(f"pool {'o' * self.pool + ' ' if self.pool else ''}{self.pool}, borne off {self.off}")
        return "\n".join(lines)


# ------------------------------------------------------------------ events
@dataclass(frozen=True)
class TallyEvent:
    """One thing a throw did: ``hand_left`` (a 1; ``to`` is the receiver),
    ``bear_off`` (a 6), ``pool_in`` (a 5), ``pool_out`` (a 2),
    ``throw_again``, or ``out`` (the player has no men left).  ``die`` is the
    die that did it (None for ``throw_again`` and ``out``); it is kept for
    explanations and not written to JSON, whose shape ``cli.md`` fixes.

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
        """One entry of ``willughby moves``' ``plays`` (cli.md, "The counting game")."""
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
        """The ``willughby judge --json`` document (cli.md), ``board`` being
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


# --------------------------------------------------------------- the match
class CountingMatch:
    """A whole game of Sice-Ace: whose throw, the tally, every throw, the end.

    Phases: ``throw`` (the player on turn throws) and ``over``.  Players are
    named in turn order (``player 0``, ``player 1``... unless *players* names
    them); *start* sets up a tally by hand (its turn, or player 0 where it has
    none).

    >>> from willughby.engine.rules import preset_rules
    >>> m = CountingMatch(preset_rules("sice-ace"), ["Ann", "Ben"])
    >>> m.throw([6, 4]).after
    Tally(men=(5, 6), pool=0, turn=1)
    >>> m.turn, m.names[m.turn], m.phase
    (1, 'Ben', 'throw')
    >>> CountingMatch.from_record(m.record()).tally == m.tally
    True
    """

    def __init__(self, rules: Rules, players: Sequence[str] | None = None,
                 start: Tally | None = None, *, preset: str | None = "sice-ace") -> None:
        _check_rules(rules)
        self.rules = rules
        self.preset = preset
        n = rules.players
        if players is None:
            self.names: tuple[str, ...] = tuple(f"player {k}" for k in range(n))
        else:
            if isinstance(players, (str, bytes)) or not isinstance(players, Sequence):
                raise InvalidOptionError(f"players must be a list of {n} names, not {players!r}")
            if len(players) != n:
                raise InvalidOptionError(
                    f"players names {len(players)} players, but the game has players={n}"
                )
            self.names = tuple(str(name) for name in players)
        base = start if start is not None else Tally.start(n)
        if base.players != n:
            raise InvalidBoardError(f"the start tally has {base.players} players, but the game has players={n}")
        if base.over:
            raise InvalidBoardError(f"a game cannot start from {base.id()}: fewer than two players have men")
        if base.turn is None:
            base = base.with_turn(base.players_in[0])
        if base.men[base.turn] == 0:  # type: ignore[index]
            raise InvalidBoardError(f"player {base.turn} is out (no men left) and cannot throw first")
        self.start: Tally = base
        self.tally: Tally = base
        self.phase = "throw"
        self.turn_number = 0
        self.history: list[TallyOutcome] = []
        self.actions: list[dict[str, Any]] = []
        self.result: TallyOver | None = None
        self.dice: tuple[int, ...] | None = None

    @property
    def turn(self) -> int | None:
        """The index of the player to throw (None once the game is over)."""
        return self.tally.turn

    @property
    def out(self) -> tuple[int, ...]:
        """The players who are out."""
        return self.tally.out

    @classmethod
    def new(cls, preset: str = "sice-ace", options: Mapping[str, str] | None = None,
            players: Sequence[str] | None = None) -> "CountingMatch":
        """A new game of *preset* with *options* overridden.

        >>> CountingMatch.new(options={"players": "4"}).tally.men
        (6, 6, 6, 6)
        """
        return cls(preset_rules(preset, options), players, preset=get_preset(preset).id)

    def throw(self, dice: Sequence[int]) -> TallyOutcome:
        """The player on turn throws *dice*; the tally moves on and the
        outcome is returned (and kept in :attr:`history`)."""
        if self.phase != "throw":
            raise MatchStateError(f"cannot throw now: the game is {self.phase!r}")
        player = self.tally.turn
        outcome = count_throw(self.rules, self.tally, dice)
        self.actions.append({"type": "throw", "player": player, "dice": list(dice)})
        self.dice = tuple(dice)
        self.history.append(outcome)
        self.tally = outcome.after
        self.turn_number += 1
        if outcome.game_over is not None:
            self.result = outcome.game_over
            self.phase = "over"
        return outcome

    def record(self) -> dict[str, Any]:
        """The game record (JSON-ready): enough to replay every throw."""
        return {
            "format": RECORD_FORMAT,
            "family": "counting",
            "preset": self.preset,
            "options": self.rules.options(),
            "players": list(self.names),
            "start": self.start.id(),
            "actions": [dict(a, dice=list(a["dice"])) for a in self.actions],
            "position": self.tally.id(),
            "result": self.result.to_json() if self.result else None,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "CountingMatch":
        """Replay a record made by :meth:`record`; a malformed record, or one
        whose throws do not come out as recorded, raises
        :class:`InvalidRecordError` saying where."""
        if not isinstance(record, Mapping) or record.get("format") != RECORD_FORMAT:
            raise InvalidRecordError(f"a game record must have format {RECORD_FORMAT!r}")
        if record.get("family") != "counting":
            raise InvalidRecordError(
                f"not a counting game's record (family {record.get('family')!r}, not 'counting')"
            )
        for key in ("options", "players", "start", "actions"):
            if key not in record:
                raise InvalidRecordError(f"game record has no {key!r}")
        actions = record["actions"]
        if not isinstance(actions, list):
            raise InvalidRecordError(f"actions must be a list, not {actions!r}")
        try:
            preset = record.get("preset") or "sice-ace"
            options = record["options"] or {}
            if not isinstance(options, Mapping):
                raise InvalidRecordError(f"options must be an object, not {options!r}")
            rules = preset_rules(preset, options)
            if rules.family != "counting":
                raise InvalidRecordError(f"preset {preset!r} is not a counting game")
            match = cls(rules, record["players"], Tally.from_id(record["start"]),
                        preset=get_preset(preset).id)
            for n, action in enumerate(actions):
                match._replay(n, action)
        except InvalidRecordError:
            raise
        except (EngineError, KeyError, TypeError, ValueError) as exc:
            raise InvalidRecordError(f"game record does not replay: {exc}") from None
        if "position" in record and record["position"] != match.tally.id():
            raise InvalidRecordError(
                f"game record's final tally {record['position']!r} differs from its replay "
                f"{match.tally.id()!r}"
            )
        if "result" in record:
            got = match.result.to_json() if match.result else None
            if record["result"] != got:
                raise InvalidRecordError(f"game record's result {record['result']!r} differs from its replay {got!r}")
        return match

    def apply_action(self, action: Mapping[str, Any]) -> None:
        """Carry out one action of a game record, as :meth:`from_record` does."""
        self._replay(len(self.actions), action)

    def _replay(self, n: int, action: Mapping[str, Any]) -> None:
        if not isinstance(action, Mapping):
            raise InvalidRecordError(f"action {n} must be an object, not {action!r}")
        kind = action.get("type")
        if kind != "throw":
            raise InvalidRecordError(f"action {n}: unknown type {kind!r}")
        if "dice" not in action:
            raise InvalidRecordError(f"action {n}: a throw without dice")
        if self.phase != "throw":
            raise InvalidRecordError(f"action {n}: a throw after the game is over")
        player = action.get("player", self.turn)
        if player != self.turn:
            raise InvalidRecordError(
                f"action {n}: recorded a throw by player {player!r}, but it is player {self.turn}'s throw"
            )
        dice = action["dice"]
        if not isinstance(dice, list):
            raise InvalidRecordError(f"action {n}: dice must be a list, not {dice!r}")
        try:
            self.throw(dice)
        except InvalidDiceError as exc:
            raise InvalidRecordError(f"action {n}: {exc}") from None
