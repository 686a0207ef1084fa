"""A match: games of one race game played until one player has the points the match is played to.

A :class:`~willughby.engine.game.Game` is one game; a :class:`Match` is the
series of them a club plays, to 5, 7 or 11 points (docs/matches.md):

- each game's winner scores its stake, the cube's value times one, two or
  three for a single game, a gammon or a backgammon (GNU Backgammon manual,
  2.9: "the winner receives the value of the game multiplied by the final
  value of the doubling cube"); the first to the match's length wins it,
  and points beyond it count for nothing;
- with the Crawford rule (on unless the match says otherwise), the first
  game in which one player needs one point is played without the cube (the
  *Crawford game*: a double there is refused and the rule named, Danish
  Backgammon Federation rule 4.4.4), and the games after it are
  *post-Crawford*, with the cube again.

Matches are played with every race game, with or without the cube
(the families that say so: ``GameFamily.matches``); the money game's options of the cube, the
Jacoby rule and beavers, are refused in a match, as the rules clubs play by
keep them to money play. Like the rest of the engine a match is pure: no
clock, no dice of its own, no I/O (convention 3: it keeps history).

>>> m = Match(5, players={"light": "Ann", "dark": "Bob"})
>>> game = m.next_game()
>>> game.start_roll(6, 1)               # Ann (light) wins the roll and plays it
>>> game.play_notation("13/7 8/7").verdict
'legal'
>>> game.offer_double()                # Bob doubles before his throw ...
>>> game.drop().stake                  # ... and Ann drops: one point to Bob
1
>>> m.score, m.needs("light"), m.needs("dark")
({'light': 0, 'dark': 1}, 5, 4)
>>> m.describe()
'Ann needs 5, Bob needs 4'
>>> Match.from_record(m.record()).score == m.score
True
"""

from __future__ import annotations

from typing import Any, Mapping

from .errors import InvalidOptionError, InvalidRecordError, MatchStateError
from .families import family_of
from .game import RECORD_FORMAT as GAME_FORMAT
from .game import Game
from .position import COLOURS, DARK, LIGHT
from .referee import GameOver
from .rules import Rules, get_preset, preset_rules

__all__ = ["Match", "MATCH_FORMAT", "LONGEST"]

MATCH_FORMAT = "willughby-match/1"
#: the longest match this program plays (GNU Backgammon's too)
LONGEST = 64


class Match:
    """A match to *length* points between light and dark, of the race game *preset* with *options*.

    ``games`` holds every game begun, the last one the game in play (or the
    last played, between games); :meth:`next_game` begins the next."""

    def __init__(self, length: int, *, preset: str = "backgammon", options: Mapping[str, str] | None = None,
                 players: Mapping[str, str] | None = None, crawford: bool = True) -> None:
        if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= LONGEST:
            raise InvalidOptionError(f"a match is played to 1 to {LONGEST} points, not {length!r}")
        self.preset = get_preset(preset).id
        self.rules: Rules = preset_rules(preset, options)
        if not family_of(self.rules).matches:
            raise InvalidOptionError(f"a match is played with a race game; {self.preset} is a "
                                     f"{self.rules.family} game")
        for name in ("jacoby", "beavers"):
            if getattr(self.rules, name):
                raise InvalidOptionError(f"option {name}=true is for money play: a match counts every gammon "
                                         "and plays the cube without beavers (docs/matches.md)")
        self.length = length
        self.crawford_rule = bool(crawford)
        self.players = {LIGHT: "light", DARK: "dark"}
        for colour, name in (players or {}).items():
            if colour not in COLOURS:
                raise InvalidRecordError(f"players names an unknown colour {colour!r}")
            self.players[colour] = str(name)
        self.games: list[Game] = []

    # ---------------------------------------------------------------- the score
    @property
    def score(self) -> dict[str, int]:
        """Each colour's points from the games finished (match.points)."""
        out = {LIGHT: 0, DARK: 0}
        for game in self.games:
            if game.result is not None:
                out[game.result.winner] += game.result.stake
        return out

    def needs(self, colour: str) -> int:
        """The points *colour* still needs to win the match (0: he has won it)."""
        return max(0, self.length - self.score[colour])

    @property
    def winner(self) -> str | None:
        """The colour that has won the match, or None while it goes on."""
        score = self.score
        return next((c for c in COLOURS if score[c] >= self.length), None)

    @property
    def over(self) -> bool:
        """Whether the match is won."""
        return self.winner is not None

    @property
    def game(self) -> Game | None:
        """The game in play, or the last one played between games (None before the first)."""
        return self.games[-1] if self.games else None

    # ---------------------------------------------------------- the Crawford rule
    def crawford_index(self) -> int | None:
        """The number (0-based) of the match's Crawford game, once it is known: the game after the first one
        that left a player needing one point (the other needing more), where the rule applies and the game
        has the cube; None where there is none (yet)."""
        if not (self.crawford_rule and self.rules.cube and self.length > 1):
            return None
        score = {LIGHT: 0, DARK: 0}
        for i, game in enumerate(self.games):
            if game.result is None:
                return None
            score[game.result.winner] += game.result.stake
            if any(score[c] >= self.length for c in COLOURS):
                return None
            if any(score[c] == self.length - 1 for c in COLOURS):
                return i + 1
        return None

    def stage(self, index: int | None = None) -> str:
        """What game *index* (default: the game in play, or the next between games) is: ``"crawford"``,
        ``"post-crawford"`` or ``""`` (any other)."""
        if index is None:
            index = len(self.games) - 1 if self.games and self.games[-1].result is None else len(self.games)
        crawford = self.crawford_index()
        if crawford is None or index < crawford:
            return ""
        return "crawford" if index == crawford else "post-crawford"

    def describe(self) -> str:
        """The match in words, as the page shows it: who needs what, and the Crawford game if this is it."""
        winner = self.winner
        if winner is not None:
            loser = LIGHT if winner == DARK else DARK
            last = self.games[-1].result
            on_time = f" on time ({self.players[loser]}'s flag fell)" if last is not None and last.kind == "flag" \
                else ""
            return (f"{self.players[winner]} wins the match {self.score[winner]}-{self.score[loser]} "
                    f"(to {self.length}){on_time}")
        text = ", ".join(f"{self.players[c]} needs {self.needs(c)}" for c in COLOURS)
        stage = self.stage()
        return text + (" (Crawford game)" if stage == "crawford" else " (post-Crawford)"
                       if stage == "post-crawford" else "")

    # ------------------------------------------------------------ the games
    def next_game(self) -> Game:
        """Begin the next game (the players then roll for the start); refused while a game is in play or
        once the match is won."""
        if self.over:
            raise MatchStateError(f"the match is over: {self.describe()}")
        if self.games and self.games[-1].result is None:
            raise MatchStateError(f"game {len(self.games)} of the match is still in play")
        game = Game(self.rules, preset=self.preset, players=self.players,
                    crawford=self.stage(len(self.games)) == "crawford")
        self.games.append(game)
        return game

    def lose_on_time(self, loser: str) -> GameOver:
        """*loser*'s flag fell in the game in play (his reserve on the match's clock ran out): he loses the
        match (match.flag). The game ends there, the other player winning the points he needed, so the
        score, the record and a ``.mat`` file all end with the match won."""
        game = self.game
        if game is None or game.result is not None:
            raise MatchStateError("no game of the match is in play: a flag falls during a game")
        if loser not in COLOURS:
            raise MatchStateError(f"a flag is light's or dark's, not {loser!r}")
        return game.lose_on_time(loser, self.needs(LIGHT if loser == DARK else DARK))

    # -------------------------------------------------------------- record
    def record(self) -> dict[str, Any]:
        """The match record: its terms and every game's record (JSON-ready)."""
        return {"format": MATCH_FORMAT, "length": self.length, "crawford": self.crawford_rule,
                "preset": self.preset, "options": self.rules.options(), "players": dict(self.players),
                "score": self.score, "winner": self.winner, "games": [g.record() for g in self.games]}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> "Match":
        """Replay a record made by :meth:`record`: every game replays, each game's Crawford mark is the one
        the score before it gives, and the score comes out as recorded, or :class:`InvalidRecordError`
        says where not."""
        if not isinstance(record, Mapping) or record.get("format") != MATCH_FORMAT:
            raise InvalidRecordError(f"a match record must have format {MATCH_FORMAT!r}")
        games = record.get("games")
        if not isinstance(games, list):
            raise InvalidRecordError("a match record's games are a list of game records")
        try:
            match = cls(record["length"], preset=record.get("preset") or "backgammon",
                        options=record.get("options") or {}, players=record.get("players"),
                        crawford=bool(record.get("crawford", True)))
        except (KeyError, TypeError, InvalidOptionError) as exc:
            raise InvalidRecordError(f"match record does not replay: {exc}") from None
        for n, doc in enumerate(games, start=1):
            if not isinstance(doc, Mapping) or doc.get("format") != GAME_FORMAT:
                raise InvalidRecordError(f"game {n} of the match is not a game record")
            if match.games and match.games[-1].result is None:
                raise InvalidRecordError(f"game {n} follows a game the record leaves unfinished")
            if match.over:
                raise InvalidRecordError(f"game {n} follows the game that won the match")
            crawford = match.stage(len(match.games)) == "crawford"
            if bool(doc.get("crawford", False)) != crawford:
                raise InvalidRecordError(f"game {n} is {'' if crawford else 'not '}the Crawford game, but its "
                                         "record says otherwise")
            game = Game.from_record(doc)
            if game.result is not None and game.result.kind == "flag" \
                    and game.result.stake != match.needs(game.result.winner):
                raise InvalidRecordError(f"game {n} was lost on time for {game.result.stake} points, but the "
                                         f"winner needed {match.needs(game.result.winner)} to win the match")
            if game.rules != match.rules:
                raise InvalidRecordError(f"game {n} is played with other options than the match's")
            match.games.append(game)
        for key, value in (("score", match.score), ("winner", match.winner)):
            if key in record and record[key] != value:
                raise InvalidRecordError(f"the match record's {key} ({record[key]!r}) is not its games' ({value!r})")
        return match
