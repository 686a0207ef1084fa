"""A whole game: turn order, the throws, the cube, Willughby's binding of the
tables, the end and its stake, and the game record.

Only the match keeps history (docs/house-conventions.md, convention 3): rules and positions
are values, and every function of them is pure.  Dice come in as arguments;
the match never rolls.

>>> from willughby.engine.rules import preset_rules
>>> m = Game(preset_rules("backgammon"), preset="backgammon")
>>> m.start_roll(3, 1)            # light throws 3, dark 1: light plays 3-1 (opening=play)
>>> m.phase, m.turn, m.dice
('move', 'light', (3, 1))
>>> m.play_notation("8/5 6/5").verdict
'legal'
>>> m.turn, m.phase
('dark', 'throw')
>>> Game.from_record(m.record()).position == m.position
True
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .errors import InvalidRecordError, MatchStateError, EngineError
from .moves import validate_dice
from .notation import parse_play
from .position import COLOURS, DARK, LIGHT, Position, colour_index, other
from .referee import GameOver, Outcome, Ruling, judge, turn_outcomes
from .rules import Rules, get_preset, preset_rules, start_position

__all__ = ["Game", "RECORD_FORMAT"]

RECORD_FORMAT = "willughby-game/1"
CUBE_MAX = 64


class Game:
    """One game between light and dark under *rules*.

    Phases: ``start`` (roll for start), ``throw`` (the player on turn throws,
    or offers the cube first), ``cube`` (a double was offered), ``move`` (the
    dice are out: the board after is judged), ``binding_toss`` and
    ``binding_choice`` (a bound table must be broken), ``over``.
    """

    def __init__(self, rules: Rules, *, preset: str | None = None,
                 players: Mapping[str, str] | None = None, start: Position | None = None,
                 crawford: bool = False) -> None:
        self.rules = rules
        self.preset = preset
        #: the Crawford game of a match (``engine/match.py``): the cube is dead, a double is refused
        self.crawford = bool(crawford)
        self.players = {LIGHT: "light", DARK: "dark"}
        if players:
            for colour, name in players.items():
                if colour not in COLOURS:
                    raise InvalidRecordError(f"players names an unknown colour {colour!r}")
                self.players[colour] = str(name)
        base = start if start is not None else start_position(rules)
        # a start with a turn set begins there (a position set up by hand);
        # without one, the players roll for start
        self.start = base
        self.position: Position = base
        self.phase = "throw" if base.turn else "start"
        self.dice: tuple[int, ...] | None = None
        self.cube_value = 1
        self.cube_owner: str | None = None
        self.offered_by: str | None = None
        self.beavered = False                # the double on offer is a beaver's redouble (beavers=true)
        self.turn_number = 0
        self.rulings: list[Ruling] = []
        self.actions: list[dict[str, Any]] = []
        self.result: GameOver | None = None
        self.binder: str | None = None
        self.chooser: str | None = None

    # ---------------------------------------------------------------- state
    @property
    def turn(self) -> str | None:
        """Whose turn it is (None before the roll for start)."""
        return self.position.turn

    def _need(self, *phases: str) -> None:
        if self.phase not in phases:
            raise MatchStateError(
                f"cannot do that now: the game is at {self.phase!r}, not {' or '.join(phases)}"
            )

    # ------------------------------------------------------------- the start
    def start_roll(self, light_die: int, dark_die: int) -> None:
        """Each player throws one die; the higher goes first, ties throw again
        (Willughby: "the highest roller gets the first throw").  With
        ``opening=play`` he plays the two numbers; with ``rethrow`` he throws afresh."""
        self._need("start")
        validate_dice(Rules(), [light_die, dark_die])
        self.actions.append({"type": "start_roll", "light": light_die, "dark": dark_die})
        if light_die == dark_die:
            return
        first = LIGHT if light_die > dark_die else DARK
        self.position = self.position.with_turn(first)
        if self.rules.opening == "play" and self.rules.dice_thrown == 2:
            high, low = max(light_die, dark_die), min(light_die, dark_die)
            self._set_dice((high, low))
        else:
            self.phase = "throw"

    # ------------------------------------------------------------- the cube
    def can_double(self) -> bool:
        """Whether the player on turn may offer the cube now."""
        return (self.rules.cube and not self.crawford and self.phase == "throw" and self.cube_value < CUBE_MAX
                and self.cube_owner in (None, self.turn))

    def why_no_double(self) -> tuple[str, str | None] | None:
        """Why the player on turn may not offer the cube now, and the rule that says so (a source's key, or
        None where it is the game's state, not a rule); None where he may."""
        if self.can_double():
            return None
        if not self.rules.cube:
            return "this game is played without the cube (cube=false)", None
        if self.crawford:
            return ("no double in the Crawford game: the first game in which one player needs one point to win "
                    "the match is played without the cube", "match.crawford")
        if self.phase != "throw":
            return f"a double is offered before the throw, and the game is at {self.phase!r}", None
        if self.cube_value >= CUBE_MAX:
            return f"the cube is at {CUBE_MAX}, its highest", "cube"
        return (f"{self.turn} may not double now (the cube is {self.cube_value}, owned by "
                f"{self.cube_owner or 'nobody'})", "cube")

    def offer_double(self) -> None:
        """The player on turn proposes to double the stake before throwing."""
        self._need("throw")
        why = self.why_no_double()
        if why is not None:
            raise MatchStateError(why[0])
        self.offered_by = self.turn
        self.phase = "cube"
        self.actions.append({"type": "double", "player": self.turn})

    def can_beaver(self) -> bool:
        """Whether the player doubled may beaver now (``beavers=true``): redouble at once, keeping the cube."""
        return self.rules.beavers and self.phase == "cube" and not self.beavered and self.cube_value * 4 <= CUBE_MAX

    def beaver(self) -> None:
        """The player doubled takes and at once redoubles, keeping the cube (GNU Backgammon manual, 2.8:
        "he may immediately redouble (beaver) while retaining possession of the cube"); the doubler then
        takes or drops the redouble "as with a normal double"."""
        self._need("cube")
        if not self.can_beaver():
            raise MatchStateError("no beaver here: this game is played without beavers (beavers=false)"
                                  if not self.rules.beavers else "a beaver answers a double once, and only "
                                  "while the cube can go up twice more")
        assert self.offered_by is not None
        beaverer = other(self.offered_by)
        self.cube_value *= 2
        self.offered_by = beaverer
        self.beavered = True
        self.actions.append({"type": "beaver", "player": beaverer})

    def take(self) -> None:
        """The player doubled takes: the cube doubles and he owns it (after a beaver, the beaver's maker
        keeps it)."""
        self._need("cube")
        assert self.offered_by is not None
        taker = other(self.offered_by)
        self.cube_value *= 2
        self.cube_owner = self.offered_by if self.beavered else taker
        self.offered_by = None
        self.beavered = False
        self.phase = "throw"
        self.actions.append({"type": "take", "player": taker})

    def drop(self) -> GameOver:
        """The player doubled drops: the game ends, the doubler wins the cube's value (after a beaver, the
        beaver's maker wins the cube as it stood after the first double)."""
        self._need("cube")
        assert self.offered_by is not None
        self.actions.append({"type": "drop", "player": other(self.offered_by)})
        self.result = GameOver(self.offered_by, "single", self.cube_value,
                               "money.beaver" if self.beavered else "cube")
        self.phase = "over"
        return self.result

    def lose_on_time(self, loser: str, stake: int) -> GameOver:
        """*loser*'s reserve of time ran out (a match's clock: ``engine/match.py``'s :meth:`Match.lose_on_time`
        gives the *stake*, the points that win the other the match): the game ends there, whatever its
        phase, the other player winning *stake* (rule ``match.flag``)."""
        if self.phase == "over":
            raise MatchStateError("the game is over: no flag can fall in it")
        if loser not in COLOURS:
            raise MatchStateError(f"a flag is light's or dark's, not {loser!r}")
        if isinstance(stake, bool) or not isinstance(stake, int) or stake < 1:
            raise MatchStateError(f"a game lost on time is worth 1 point or more, not {stake!r}")
        self.actions.append({"type": "flag", "player": loser, "stake": stake})
        self.result = GameOver(other(loser), "flag", stake, "match.flag")
        self.phase = "over"
        self.dice = None
        return self.result

    # -------------------------------------------------------------- a turn
    def throw(self, dice: Sequence[int]) -> Ruling | None:
        """The player on turn threw *dice*.  Returns the pass ruling where the
        throw can do nothing at all (the turn then passes), else None."""
        self._need("throw")
        thrown = validate_dice(self.rules, dice)
        self.actions.append({"type": "throw", "player": self.turn, "dice": list(thrown)})
        return self._set_dice(thrown)

    def _set_dice(self, thrown: tuple[int, ...]) -> Ruling | None:
        self.dice = thrown
        self.phase = "move"
        outcomes = turn_outcomes(self.rules, self.position, thrown)
        if len(outcomes) == 1 and not outcomes[0].play.steps and outcomes[0].opponent_play is None:
            return self._judge(outcomes[0].position, automatic=True)
        return None

    def legal_outcomes(self) -> list[Outcome]:
        """The ways the turn in progress may legally end."""
        self._need("move")
        assert self.dice is not None
        return turn_outcomes(self.rules, self.position, self.dice)

    def play(self, after: Position) -> Ruling:
        """The board after the player's move: judged and recorded.  An illegal
        turn is recorded and leaves the match waiting for the board to be put
        right."""
        self._need("move")
        return self._judge(after)

    def play_notation(self, text: str) -> Ruling:
        """Play a move written in notation (``8/5 6/5``)."""
        self._need("move")
        return self._judge(parse_play(self.position, text))

    def _judge(self, after: Position, automatic: bool = False) -> Ruling:
        assert self.dice is not None and self.turn is not None
        ruling = judge(self.rules, self.position, self.dice, after, cube=self.cube_value)
        self.rulings.append(ruling)
        action: dict[str, Any] = {"type": "move", "player": self.turn, "after": after.id(),
                                  "verdict": ruling.verdict}
        if automatic:
            action["automatic"] = True
        if ruling.play is not None:
            action["play"] = ruling.play
        self.actions.append(action)
        if not ruling.legal:
            return ruling
        assert ruling.after is not None
        mover = self.turn
        self.position = ruling.after
        self.turn_number += 1
        self.dice = None
        if ruling.game_over is not None:
            self.result = ruling.game_over
            self.phase = "over"
        elif any(e.type == "bound" for e in ruling.events):
            self.binder = mover
            self.phase = "binding_toss"
        else:
            self.phase = "throw"
        return ruling

    # ------------------------------------------------------- a placed board
    def place(self, after: Position, turns: int = 1) -> None:
        """A board the players placed that no play the referee saw led to (a
        play the camera missed; two plays made while the referee waited for
        one): the game goes on from it (docs/house-conventions.md, convention 18:
        "the players' board always wins").  *turns* (1 to 3) is how many
        turns it ends: after one (or three: the mover's, the other's that
        could not be played, the mover's again) the other player throws next,
        after two the player on turn.  The throw in progress, if any, is kept in the record
        with it (``dice``); the position, the turn and the phase follow it."""
        self._need("move", "throw")
        mover = self.turn
        assert mover is not None
        if turns not in (1, 2, 3):
            raise MatchStateError(f"a placed board ends one to three turns, not {turns!r}")
        for c in COLOURS:
            if after.men(c) != self.position.men(c):
                raise MatchStateError(f"{c} had {self.position.men(c)} men and the placed board has "
                                      f"{after.men(c)}")
            if after.off[colour_index(c)] >= self.rules.men:
                raise MatchStateError(f"{c} has borne off every man on the placed board: the game ends "
                                      "with the play that bore off the last, entered as a play")
        placed = after.with_turn(other(mover) if turns % 2 else mover)
        self.actions.append({"type": "placed", "player": mover, "after": placed.id(),
                             "dice": list(self.dice) if self.dice is not None else None, "turns": turns})
        self.position = placed
        self.dice = None
        self.turn_number += turns
        self.phase = "throw"

    # ------------------------------------------------------------- binding
    def binding_toss(self, binder_dice: Sequence[int], other_dice: Sequence[int]) -> str | None:
        """Both players throw two dice; the higher total chooses which point of
        the bound table is broken (ties throw again: the choice of this
        program).  Returns who chooses, or None on a tie."""
        self._need("binding_toss")
        assert self.binder is not None
        two = Rules()
        b = validate_dice(two, binder_dice)
        o = validate_dice(two, other_dice)
        self.actions.append({"type": "binding_toss", "binder": list(b), "other": list(o)})
        if sum(b) == sum(o):
            return None
        self.chooser = self.binder if sum(b) > sum(o) else other(self.binder)
        self.phase = "binding_choice"
        return self.chooser

    def break_point(self, point: int) -> Position:
        """Break the bound table on the binder's own *point* (1-6): all but one of
        its men are taken up as if hit and must re-enter (Willughby)."""
        self._need("binding_choice")
        assert self.binder is not None
        if not isinstance(point, int) or not 1 <= point <= 6:
            raise MatchStateError(f"the point to break is one of the binder's points 1 to 6, not {point!r}")
        binder = self.binder
        i = colour_index(binder)
        physical = point if binder == LIGHT else 25 - point
        pts = list(self.position.points(binder))
        taken = pts[physical - 1] - 1
        if taken < 1:
            raise MatchStateError(f"{binder}'s {point} point holds {pts[physical - 1]} men: nothing to break")
        pts[physical - 1] = 1
        bar = list(self.position.bar)
        bar[i] += taken
        p = self.position
        self.position = Position(tuple(pts) if binder == LIGHT else p.light,
                                 tuple(pts) if binder != LIGHT else p.dark,
                                 (bar[0], bar[1]), p.off, p.waiting, p.turn, p.stacked, p.phase)
        self.actions.append({"type": "break", "player": self.chooser, "point": point})
        self.binder = self.chooser = None
        self.phase = "throw"
        return self.position

    # -------------------------------------------------------------- record
    def record(self) -> dict[str, Any]:
        """The game record: enough to replay every position (JSON-ready)."""
        return {
            "format": RECORD_FORMAT,
            "preset": self.preset,
            "options": self.rules.options(),
            "players": dict(self.players),
            "start": self.start.id(),
            **({"crawford": True} if self.crawford else {}),
            "actions": [dict(a) for a in self.actions],
            "position": self.position.id(),
            "result": self.result.to_json() if self.result else None,
        }

    @classmethod
    def new(cls, preset: str, options: Mapping[str, str] | None = None,
            players: Mapping[str, str] | None = None) -> "Game":
        """A new game of *preset* with *options* overridden."""
        return cls(preset_rules(preset, options), preset=get_preset(preset).id, players=players)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "Game":
        """Replay a record made by :meth:`record`; every recorded position must
        come out the same, or :class:`InvalidRecordError` says where not."""
        if not isinstance(record, Mapping) or record.get("format") != RECORD_FORMAT:
            raise InvalidRecordError(f"a game record must have format {RECORD_FORMAT!r}")
        try:
            options = record.get("options") or {}
            preset = record.get("preset")
            if preset:
                rules = preset_rules(preset, options)
            else:
                rules = Rules().with_options(options)
            start = Position.from_id(record["start"])
            crawford = record.get("crawford", False)
            if not isinstance(crawford, bool):
                raise InvalidRecordError(f"a game record's crawford is true or false, not {crawford!r}")
            match = cls(rules, preset=preset, players=record.get("players"), start=start, crawford=crawford)
            for n, action in enumerate(record["actions"]):
                if n < len(match.actions):
                    # already made by an earlier action (a throw that could do nothing passes)
                    if match.actions[n] != action:
                        raise InvalidRecordError(f"action {n} differs from its replay")
                    continue
                match._replay(n, action)
        except InvalidRecordError:
            raise
        except (EngineError, KeyError, TypeError, ValueError) as exc:
            raise InvalidRecordError(f"game record does not replay: {exc}") from None
        if "position" in record and record["position"] != match.position.id():
            raise InvalidRecordError("game record's final position differs from its replay")
        return match

    def apply_action(self, action: Mapping[str, Any]) -> None:
        """Carry out one action of a game record (as :meth:`from_record` does
        for each), so a caller can stop between actions to look at the game."""
        self._replay(len(self.actions), action)

    def _replay(self, n: int, action: Mapping[str, Any]) -> None:
        kind = action.get("type")
        if kind == "start_roll":
            self.start_roll(action["light"], action["dark"])
        elif kind == "throw":
            self.throw(action["dice"])
        elif kind == "move":
            if action.get("automatic"):
                raise InvalidRecordError(f"action {n}: automatic pass does not follow from its throw")
            ruling = self.play(Position.from_id(action["after"]))
            if ruling.verdict != action.get("verdict"):
                raise InvalidRecordError(
                    f"action {n}: recorded {action.get('verdict')} but the referee rules {ruling.verdict}"
                )
        elif kind == "double":
            self.offer_double()
        elif kind == "take":
            self.take()
        elif kind == "beaver":
            self.beaver()
        elif kind == "drop":
            self.drop()
        elif kind == "flag":
            self.lose_on_time(action["player"], action["stake"])
        elif kind == "binding_toss":
            self.binding_toss(action["binder"], action["other"])
        elif kind == "break":
            self.break_point(action["point"])
        elif kind == "placed":
            self.place(Position.from_id(action["after"]), action["turns"])
        else:
            raise InvalidRecordError(f"action {n}: unknown type {kind!r}")
        if self.actions[n] != dict(action):
            raise InvalidRecordError(f"action {n} ({kind}) does not replay to the same record")


