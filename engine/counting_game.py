"""A whole game of Sice-Ace: turn order, every throw, the end, and the record.

Only the match keeps history (docs/house-conventions.md, convention 3); each throw is read by
:func:`~willughby.engine.counting.count_throw` on a
:class:`~willughby.engine.tally.Tally`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .counting_throw import RECORD_FORMAT, TallyOutcome, TallyOver, _check_rules, count_throw
from .errors import EngineError, InvalidBoardError, InvalidDiceError, InvalidOptionError, InvalidRecordError, \
    MatchStateError
from .options import Rules, get_preset, preset_rules
from .tally import Tally

__all__ = ["CountingGame"]


# --------------------------------------------------------------- the match
class CountingGame:
    """A whole game of Sice-Ace: whose throw, the tally, every throw, the end.

    Phases: ``throw`` (the player on turn throws) and ``over``.  Players are
    named in turn order (``player 0``, ``player 1``... unless *players* names
    them); *start* sets up a tally by hand (its turn, or player 0 where it has
    none).

    >>> from willughby.engine.rules import preset_rules
    >>> m = CountingGame(preset_rules("sice-ace"), ["Ann", "Ben"])
    >>> m.throw([6, 4]).after
    Tally(men=(5, 6), pool=0, turn=1)
    >>> m.turn, m.names[m.turn], m.phase
    (1, 'Ben', 'throw')
    >>> CountingGame.from_record(m.record()).tally == m.tally
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
            players: Sequence[str] | None = None) -> "CountingGame":
        """A new game of *preset* with *options* overridden.

        >>> CountingGame.new(options={"players": "4"}).tally.men
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
    def from_record(cls, record: Mapping[str, Any]) -> "CountingGame":
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
