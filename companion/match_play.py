"""Matches at the table: the companion's part that begins a match and each of its games, keeps the match's
status in the store agreeing with its games (won when a game's end wins it, playing again when that end is
taken back), and gives the page the match in words (``docs/matches.md``).

The match itself is the engine's :class:`~willughby.engine.match.Match`, rebuilt from the store's record of
it (``GameStore.match_record``) whenever a game begins or ends: the store is the one place it is kept, so
a match survives a restart or a ``kill -9`` as its games do.

>>> import threading
>>> from willughby.companion.store import GameStore
>>> from willughby.companion.current_game import CurrentGame
>>> current = CurrentGame(GameStore(":memory:"), threading.RLock())
>>> play = MatchPlay(current)
>>> game = play.begin(5, "backgammon", {}, {"light": "Ann", "dark": "Bob"}, crawford=True)
>>> play.doc()["text"]
'Ann needs 5, Bob needs 5'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from willughby.engine.errors import EngineError
from willughby.engine.game import Game
from willughby.engine.match import Match

from .errors import CompanionError, NotNowError
from .games import family_of

if TYPE_CHECKING:
    from .current_game import CurrentGame

__all__ = ["MatchPlay"]


class MatchPlay:
    """The match the game in progress belongs to, if any (see the module docstring)."""

    def __init__(self, game: "CurrentGame") -> None:
        self._game = game
        #: the page's document of the match, and what it was made for (the game, whether it was over)
        self._cache: tuple[tuple[str | None, bool], dict[str, Any] | None] | None = None

    # ------------------------------------------------------------ reading
    def match_id(self) -> str | None:
        """The id of the match the game in progress is a game of, or None."""
        game_id = self._game.id
        if game_id is None:
            return None
        found = self._game.store.in_match(game_id)
        return None if found is None else str(found["match_id"])

    def engine_match(self, match_id: str) -> Match:
        """The match *match_id* as the engine plays it, rebuilt from the store."""
        return Match.from_record(self._game.store.match_record(match_id))

    def doc(self) -> dict[str, Any] | None:
        """The match for the state document (None: the game in progress is not a game of a match):
        ``id``, ``length``, ``crawford`` (the rule), ``game`` (this game's number), ``score`` and ``needs``
        by colour, ``stage`` (``crawford``, ``post-crawford`` or ``""``: this game's), ``text`` (the match
        in words), ``winner`` (a colour, once it is won) and ``status`` (the store's)."""
        m = self._game.match
        key = (self._game.id, m is not None and m.result is not None)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        match_id = self.match_id()
        doc: dict[str, Any] | None = None
        if match_id is not None:
            match = self.engine_match(match_id)
            row = self._game.store.match(match_id)
            number = row["games"].index(self._game.id) + 1 if self._game.id in row["games"] else len(row["games"])
            doc = {"id": match_id, "length": match.length, "crawford": match.crawford_rule, "game": number,
                   "score": match.score, "needs": {c: match.needs(c) for c in ("light", "dark")},
                   "stage": match.stage(number - 1), "text": match.describe(), "winner": match.winner,
                   "status": row["status"]}
        self._cache = (key, doc)
        return doc

    def forget(self) -> None:
        """The document counted afresh next time (a game begun, ended, or its end taken back)."""
        self._cache = None

    # ------------------------------------------------------------ changing
    def begin(self, length: int, preset: str, options: Mapping[str, str], players: Mapping[str, str],
              crawford: bool = True) -> Game:
        """A new match and its first game, stored in one transaction; the game returned, stored, to be
        begun by the companion (``CurrentGame.begin``)."""
        try:
            match = Match(length, preset=preset, options=options, players=players, crawford=crawford)
        except EngineError as exc:
            raise CompanionError(str(exc)) from None
        game = match.next_game()
        match_id, game_id = self._game.store.create_match(length, crawford, match.preset, match.rules.options(),
                                                          match.players, game.start.id())
        self._begun(game_id, game)
        return game

    def next_game(self, after_end_of: str | None = None) -> Game:
        """The next game of the match in play, begun and stored: refused where the game in progress is not a
        game of a match, is not over, or (with *after_end_of*) is no longer that game or no longer over."""
        current = self._game
        match_id = self.match_id()
        if match_id is None:
            raise NotNowError("no match is in play: start one first")
        if after_end_of is not None and current.id != after_end_of:
            raise NotNowError(f"game {after_end_of} is no longer the game here: no next game was started")
        if current.match is None or current.match.result is None:
            raise NotNowError(f"this game of the match is still in play: {current.awaiting()}")
        match = self.engine_match(match_id)
        if match.over:
            raise NotNowError(f"the match is over: {match.describe()}")
        game = match.next_game()
        game_id = current.store.next_match_game(match_id, game.start.id(), game.crawford)
        self._begun(game_id, game)
        return game

    def abandon(self) -> str | None:
        """The match in play given up (a new game started in its middle); its words, or None where no match
        is in play."""
        found = self._game.store.current_match()
        if found is None:
            return None
        self._game.store.end_match(found["id"], "abandoned")
        self.forget()
        return f"the match to {found['length']} is abandoned"

    def sync(self) -> None:
        """The match of the game in progress made to agree with its games in the store: ``over`` once a game
        has won it, ``playing`` again once that game's end is taken back."""
        match_id = self.match_id()
        self.forget()
        if match_id is None:
            return
        status = self._game.store.match(match_id)["status"]
        if status == "abandoned":
            return
        won = self.engine_match(match_id).over
        if won and status == "playing":
            self._game.store.end_match(match_id, "over")
        elif not won and status == "over":
            self._game.store.end_match(match_id, "playing")

    def _begun(self, game_id: str, game: Game) -> None:
        self._game.begin(game_id, game, family_of(game.rules))
        self.forget()
