"""The games the companion referees, behind one small protocol.

The engine has two kinds of match: :class:`~willughby.engine.game.Game`
(the games on the board: the race games and the unstacking games, between
light and dark) and :class:`~willughby.engine.counting.CountingGame`
(Sice-Ace: two to five players and a tally, refereed from the dice alone).
Both satisfy :class:`GameMatch`: rules, a phase, whose turn, the dice, the
result, the actions of its record, ``record()`` and ``apply_action()``.

What differs between the families the companion and the page need to know
-- how a game is made and replayed, how players are named, what the state
document shows, what the camera can do -- lives in one :class:`Family` each
(:func:`family_of`), so the service branches on the family in one place:
here.

>>> family_of(get_preset("doublets").rules).name, family_of(get_preset("sice-ace").rules).name
('unstacking', 'counting')
>>> family_of(get_preset("doublets").rules).camera_reads, family_of(get_preset("sice-ace").rules).camera_reads
(True, False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Protocol, Sequence, runtime_checkable

from willughby.engine.counting import CountingGame, Tally
from willughby.engine.errors import InvalidOptionError
from willughby.engine.families import GameFamily
from willughby.engine.families import family_of as engine_family_of
from willughby.engine.game import Game
from willughby.engine.position import COLOURS, DARK, LIGHT, Position, other
from willughby.engine.rules import Rules, get_preset

from . import tally as _tally
from .board_part import BoardPart
from .documents import QuestionDoc, RulingDoc, StateDoc
from .numbering import TurnCounter, judged_turns, ruling_doc

if TYPE_CHECKING:
    from .current_game import CurrentGame
    from .judging import Judging
    from .state import Telling

__all__ = ["GameMatch", "Family", "FamilyPart", "DiceTaken", "BoardFamily", "CountingFamily", "family_of",
           "family_of_preset", "DEFAULT_NAMES"]

#: what became of a throw handed to :meth:`FamilyPart.take_dice`: ``"in_play"``, taken as the throw in play
#: (the roll for the start, the throw of the player on turn, the toss that breaks a bound table); ``"held"``,
#: held for the next player while the mover's play is still awaited (``way_back.py``, ``WayBack.hold``), or
#: that held throw delivered again: not the throw in play
DiceTaken = Literal["in_play", "held"]

#: names for the players of a counting game the page or the demo left unnamed
DEFAULT_NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve")


@runtime_checkable
class GameMatch(Protocol):
    """What the companion asks of any match (``Game`` and ``CountingGame`` both are one)."""

    rules: Rules
    preset: str | None
    phase: str
    dice: tuple[int, ...] | None
    turn_number: int
    actions: list[dict[str, Any]]

    @property
    def turn(self) -> Any:
        """Whose turn it is: a colour, or a player's index (None when nobody's)."""

    @property
    def result(self) -> Any:
        """The end of the game (``.to_json()``), or None."""

    def record(self) -> dict[str, Any]:
        """The game record (``willughby-game/1``)."""

    def apply_action(self, action: Mapping[str, Any]) -> None:
        """Carry out one action of a record."""


class Family:
    """A family of games as the companion sees it (see the module docstring)."""

    #: ``race``, ``unstacking``, ``counting`` or another the engine registered (``Rules.family``): a name to
    #: show and store, never to branch on
    name: str = ""
    #: what the game is played on, as the engine's family declares: ``points``, ``piles`` or ``tally``
    board: str = "points"
    #: whether the camera's turn reader can rule on this family's turns
    camera_reads: bool = False
    #: why not, in a sentence for the page (None where it can)
    camera_note: str | None = None
    #: the same in a few words, for the page's line of devices
    camera_idle: str = ""

    def new_match(self, preset: str, rules: Rules, players: Any, start: Any) -> GameMatch:
        raise NotImplementedError

    def from_record(self, record: Mapping[str, Any]) -> GameMatch:
        raise NotImplementedError

    def store_players(self, match: GameMatch) -> dict[str, str]:
        """The players as the store keeps them (a mapping)."""
        raise NotImplementedError

    def start_id(self, match: GameMatch) -> str:
        raise NotImplementedError

    def who(self, match: GameMatch, player: Any) -> str:
        """A player in words ("Ann (light)", "Cat")."""
        raise NotImplementedError

    def players_doc(self, match: GameMatch) -> Any:
        raise NotImplementedError

    def board_doc(self, match: GameMatch) -> dict[str, Any]:
        raise NotImplementedError

    #: why a turn of this family has no dispute view (None where it has one)
    dispute_note: str | None = None

    def dice_wanted(self, match: GameMatch) -> int:
        """How many dice the next throw takes (the box throws that many)."""
        return 2 if match.phase == "start" else match.rules.dice_thrown

    def awaiting(self, match: Any, who: Callable[[Any], str]) -> str:
        """What the game waits for, in the players' words."""
        raise NotImplementedError

    def rebuild_rulings(self, match: Any) -> tuple[list[RulingDoc], TurnCounter]:
        """The rulings of a match replayed from the store, numbered, and the turn counter after them."""
        raise NotImplementedError

    def stored_players(self, players: Any) -> Any:
        """The players of a stored game as the page shows them."""
        return players

    def listed(self, game: dict[str, Any], store: Any) -> dict[str, Any]:
        """A stored game as the list of games shows it."""
        return game

    def replay(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """A stored game's ``record``, its ``turns`` (each with its boards) and ``turns_played``, for replay."""
        raise NotImplementedError

    def phases(self, match: Any) -> dict[str, str] | None:
        """Each side's phase where the board alone may not show it (None where the family has none)."""
        return None

    def make_part(self, game: "CurrentGame", telling: "Telling", judging: "Judging") -> "FamilyPart":
        """The companion's part that plays this family's game (dice, the new game's words, the state)."""
        raise NotImplementedError


class FamilyPart(Protocol):
    """What the companion asks of the part that plays one family's game in progress
    (``board_part.py`` for the games on a board, ``tally.py`` for the counting game)."""

    def opening(self, game_name: str, who: str, camera: bool) -> None:
        """Announce the new game: who plays, and what comes first."""

    def take_dice(self, values: list[int], who: str, note: tuple[str, dict[str, Any]],
                  ident: str | None) -> DiceTaken:
        """Dice thrown for the game in progress (validated 1..6): recorded with *note*, ruled, announced.
        Says whether they were taken as the throw in play or held for the next player (:data:`DiceTaken`)."""

    def state_keys(self, awaiting: str, undo: str | None, question: QuestionDoc | None) -> StateDoc:
        """The state document's keys for the game in progress."""


class BoardFamily(Family):
    """The games on the board (``Game``): the race games, the unstacking
    games, and any family the engine plays on points or piles."""

    def __init__(self, engine: GameFamily) -> None:
        self.name = engine.name
        # the camera referees both: in the unstacking games the turn reader weighs each point's count and pile,
        # and where along the point the picture changed since the frame before (vision.footprints)
        self.camera_reads = True
        self.camera_note = None
        self.camera_idle = ""
        self.board = engine.board
        self.piled = engine.board == "piles"

    def new_match(self, preset: str, rules: Rules, players: Any, start: Any) -> Game:
        begin = None
        if start is not None:
            begin = Position.from_board(dict(start), men=rules.men, starts_off_board=rules.start_waiting > 0,
                                        require_turn=True)
        if players is not None and not isinstance(players, Mapping):
            raise InvalidOptionError(f"a {self.name} game's players are named by colour "
                                     f"({{\"light\": ..., \"dark\": ...}}), not given as a list")
        names = dict(players or {})
        if any(k not in COLOURS for k in names):
            raise InvalidOptionError(f"a {self.name} game's players are light and dark, not {sorted(names)}")
        return Game(rules, preset=preset, players=names, start=begin)

    def from_record(self, record: Mapping[str, Any]) -> Game:
        return Game.from_record(record)

    def store_players(self, match: Any) -> dict[str, str]:
        return dict(match.players)

    def start_id(self, match: Any) -> str:
        return str(match.start.id())

    def who(self, match: Any, player: Any) -> str:
        if player not in COLOURS:
            return "?"
        name = str(match.players[player])
        return str(player) if name.strip().lower() == player else f"{name} ({player})"

    def players_doc(self, match: Any) -> dict[str, str]:
        return dict(match.players)

    def board_doc(self, match: Any) -> dict[str, Any]:
        return dict(match.position.to_board())

    def phases(self, match: Any) -> dict[str, str] | None:
        """Each side's phase (``unstack``, ``restack``, ``bear_off``) in the
        unstacking games: what the board alone may not show."""
        if not self.piled:
            return None
        from willughby.engine.unstacking import phase_of

        return {c: phase_of(match.rules, match.position, c) for c in (LIGHT, DARK)}

    def awaiting(self, match: Any, who: Callable[[Any], str]) -> str:
        m = match
        if m.phase == "start":
            return (f"the players are to throw one die each for the start ({who(LIGHT)}'s die first, "
                    f"then {who(DARK)}'s)")
        if m.phase == "throw":
            return f"{who(m.turn)} is to throw" + (" (or double)" if m.can_double() else "")
        if m.phase == "cube":
            return f"{who(other(m.offered_by or LIGHT))} is to take or drop the double"
        if m.phase == "move":
            return f"{who(m.turn)} is to move the {'-'.join(map(str, m.dice or ()))} thrown"
        if m.phase == "binding_toss":
            return "both players are to throw two dice to break the bound table"
        if m.phase == "binding_choice":
            return f"{who(m.chooser)} is to choose the point to break"
        if m.phase == "over":
            return "the game is over: start a new one"
        return f"the game is at {m.phase}"

    def rebuild_rulings(self, match: Any) -> tuple[list[RulingDoc], TurnCounter]:
        counter = TurnCounter()
        judged = judged_turns(match.record(), numbers=counter)
        return [ruling_doc(j["ruling"], j, j["before"]) for j in judged], counter

    def replay(self, record: Mapping[str, Any]) -> dict[str, Any]:
        placed: list[dict[str, Any]] = []
        steps = [(j["n"], {"turn": j["turn"], "attempt": j["attempt"], "seq": j["seq"],
                           "player": j["ruling"].player, "dice": list(j["ruling"].dice),
                           "play": j["ruling"].play, "verdict": j["ruling"].verdict,
                           "before": j["before"].to_board(), "after": j["after"].to_board(),
                           "ruling": j["ruling"].to_json()}) for j in judged_turns(record, placed=placed)]
        # a board the players placed: a step of its own, no ruling (it ends the turns it says)
        steps += [(p["n"], {"turn": p["turn"], "turns": p["turns"], "attempt": 1, "seq": None,
                            "player": p["player"], "dice": p["dice"] or [], "play": None, "verdict": "placed",
                            "before": p["before"].to_board(), "after": p["after"].to_board(), "ruling": None})
                  for p in placed]
        turns = [t for _n, t in sorted(steps, key=lambda s: s[0])]
        # every ruling, each with its turn and attempt; the turns played are the legal ones and those placed
        played = sum(1 for t in turns if t["verdict"] == "legal") + sum(p["turns"] for p in placed)
        return {"record": record, "turns": turns, "turns_played": played}

    def make_part(self, game: "CurrentGame", telling: "Telling", judging: "Judging") -> "FamilyPart":
        return BoardPart(game, telling, judging)


class CountingFamily(Family):
    """The counting game (Sice-Ace): a tally, refereed from the dice alone."""

    name = "counting"
    board = "tally"
    camera_reads = False
    camera_note = "Sice-Ace is refereed from the dice alone: the camera is idle"
    camera_idle = "Sice-Ace is refereed from the dice alone"
    dispute_note = ("Sice-Ace is refereed from the dice alone: each throw's ruling is in the list of rulings "
                    "and the announcements")

    def new_match(self, preset: str, rules: Rules, players: Any, start: Any) -> CountingGame:
        names = self.names(rules.players, players)
        begin = Tally.from_doc(dict(start), players=rules.players) if start is not None else None
        return CountingGame(rules, names, begin, preset=preset)

    @staticmethod
    def names(count: int, players: Any) -> list[str]:
        """*count* names from what the page or the demo gave: a list, or a
        mapping keyed by index ("0", "1"...) or by colour (light, dark: the
        first two); the unnamed get :data:`DEFAULT_NAMES`."""
        given: list[str | None] = [None] * count
        if isinstance(players, Mapping):
            for key, name in players.items():
                k = {"light": 0, "dark": 1}.get(str(key), None)
                if k is None and str(key).isdigit():
                    k = int(str(key))
                if k is None or not 0 <= k < count:
                    raise InvalidOptionError(f"the game has {count} players: there is no player {key!r}")
                given[k] = str(name)
        elif isinstance(players, Sequence) and not isinstance(players, (str, bytes)):
            if len(players) > count:
                raise InvalidOptionError(f"{len(players)} names for a game of {count} players "
                                         f"(set the option players=2..5)")
            for k, name in enumerate(players):
                given[k] = str(name)
        elif players is not None:
            raise InvalidOptionError(f"players must be a list of names, not {players!r}")
        out = [g.strip() if g and g.strip() else "" for g in given]
        spare = [n for n in DEFAULT_NAMES if n not in out]
        return [n or spare.pop(0) for n in out]

    def from_record(self, record: Mapping[str, Any]) -> CountingGame:
        players = record.get("players")
        if isinstance(players, Mapping):        # the store keeps {"0": name, ...}
            players = [players[k] for k in sorted(players, key=int)]
        return CountingGame.from_record(dict(record, family="counting", players=players))

    def store_players(self, match: Any) -> dict[str, str]:
        return {str(k): name for k, name in enumerate(match.names)}

    def start_id(self, match: Any) -> str:
        return str(match.start.id())

    def who(self, match: Any, player: Any) -> str:
        if isinstance(player, int) and 0 <= player < len(match.names):
            return str(match.names[player])
        return "?"

    def players_doc(self, match: Any) -> list[str]:
        return list(match.names)

    def board_doc(self, match: Any) -> dict[str, Any]:
        return dict(match.tally.to_doc())

    def awaiting(self, match: Any, who: Callable[[Any], str]) -> str:
        return _tally.awaiting(match, who)

    def rebuild_rulings(self, match: Any) -> tuple[list[RulingDoc], TurnCounter]:
        return _tally.rebuild(match)

    def stored_players(self, players: Any) -> list[str]:
        return _tally.names_of(players)

    def listed(self, game: dict[str, Any], store: Any) -> dict[str, Any]:
        # a counting game's turns are its throws, one action each
        return dict(game, players=_tally.names_of(game["players"]), turns=len(store.actions(game["id"])))

    def replay(self, record: Mapping[str, Any]) -> dict[str, Any]:
        full = self.from_record(record).record()
        turns = _tally.turns(full, self)
        return {"record": full, "turns": turns, "turns_played": len(turns)}

    def make_part(self, game: "CurrentGame", telling: "Telling", judging: "Judging") -> "FamilyPart":
        return _tally.TallyPart(game, telling)


_FAMILIES: dict[str, Family] = {}


def family_of(rules: Rules) -> Family:
    """The companion's side of the family of games *rules* belong to: the
    games on a board (points or piles) or the game of a tally, as the
    engine's family declares (``engine.families``)."""
    engine = engine_family_of(rules)
    found = _FAMILIES.get(engine.name)
    if found is None or found.name != engine.name:
        found = CountingFamily() if engine.board == "tally" else BoardFamily(engine)
        _FAMILIES[engine.name] = found
    return found


def family_of_preset(preset: str) -> Family:
    """The family of the preset *preset* (an id or alias)."""
    return family_of(get_preset(preset).rules)
