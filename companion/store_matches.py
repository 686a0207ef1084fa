"""The game store's matches (schema 2): a match's row and its games in order.

Two tables beside the games and their log (``store_schema.MATCH_TABLES``):

``matches``
    one row a match: ``id`` (``m-`` and 12 hex digits), ``length`` (1 to 64
    points), ``crawford`` (whether the Crawford rule is played), ``preset``,
    ``options`` and ``players`` (JSON objects), ``started``, ``ended`` and
    ``status``: ``playing``, ``over`` (won) or ``abandoned``.
``match_games``
    its games: ``match_id``, ``number`` (1, 2, 3...), ``game_id`` and
    ``crawford`` (whether the game is the match's Crawford game, as the
    engine's ``Match`` said when it began). A game is added to its match in
    the transaction that makes the game.

The score and who won are not stored: they are the games' results, read by
the engine's :class:`~willughby.engine.match.Match` from :meth:`MatchRows.match_record`.
A store read where nothing may be written and still of schema 1 has no
matches (:meth:`MatchRows.has_matches`).
"""

from __future__ import annotations

import secrets
import sqlite3
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Callable, Mapping

from willughby.engine.match import MATCH_FORMAT

from .store_rows import decode, encode
from .store_schema import MATCH_ID, GameNotFoundError, StoreError

__all__ = ["MatchRows", "MatchNotFoundError"]

_MATCH_COLUMNS = "id, length, crawford, preset, options, players, started, ended, status"


class MatchNotFoundError(GameNotFoundError):
    """No match has the id asked for (the message names it)."""


class MatchRows:
    """The store's methods for matches; :class:`~willughby.companion.store.GameStore` has them."""

    _path: str
    _clock: Callable[[], float]
    _transaction: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _reading: Callable[[], AbstractContextManager[sqlite3.Connection]]

    _has_match_tables: bool | None = None      # has_matches(), asked once: a store's tables are not taken away

    if TYPE_CHECKING:                            # GameStore's, which these methods use
        def _new_game(self, conn: sqlite3.Connection, preset: str, options: Mapping[str, Any],
                      players: Mapping[str, Any], start_id: str) -> str: ...

        def record(self, game_id: str) -> dict[str, Any]: ...

    # ------------------------------------------------------------- writing
    def create_match(self, length: int, crawford: bool, preset: str, options: Mapping[str, Any],
                     players: Mapping[str, Any], start_id: str) -> tuple[str, str]:
        """Begin a match to *length* points and its first game (from *start_id*), in one transaction; the
        game in progress, if any, is abandoned, and so is the match in play, if any. Returns the match's id
        and its first game's."""
        if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= 64:
            raise ValueError(f"a match is played to 1 to 64 points, not {length!r}")
        with self._transaction() as conn:
            now = self._clock()
            conn.execute("UPDATE matches SET status = 'abandoned', ended = ? WHERE status = 'playing'", (now,))
            while True:
                match_id = "m-" + secrets.token_hex(6)
                if conn.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
                    break
            conn.execute(f"INSERT INTO matches ({_MATCH_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 'playing')",
                         (match_id, length, int(bool(crawford)), preset, encode(dict(options), "options"),
                          encode(dict(players), "players"), now))
            game_id = self._new_game(conn, preset, options, players, start_id)
            conn.execute("INSERT INTO match_games (match_id, number, game_id, crawford) VALUES (?, 1, ?, 0)",
                         (match_id, game_id))
        return match_id, game_id

    def next_match_game(self, match_id: str, start_id: str, crawford: bool) -> str:
        """Begin the next game of the match *match_id* in play (its last game over), *crawford* whether it is
        the match's Crawford game; returns the game's id."""
        with self._transaction() as conn:
            row = self._match_row(conn, match_id)
            if row[8] != "playing":
                raise StoreError(f"match {match_id} is {row[8]}: no game can be added to it")
            last = conn.execute("SELECT g.status, mg.number FROM match_games mg JOIN games g ON g.id = mg.game_id "
                                "WHERE mg.match_id = ? ORDER BY mg.number DESC LIMIT 1", (match_id,)).fetchone()
            if last is not None and last[0] != "over":
                raise StoreError(f"game {last[1]} of match {match_id} is {last[0]}, not over")
            game_id = self._new_game(conn, row[3], decode(row[4], "options", self._path),
                                     decode(row[5], "players", self._path), start_id)
            conn.execute("INSERT INTO match_games (match_id, number, game_id, crawford) VALUES (?, ?, ?, ?)",
                         (match_id, (last[1] if last else 0) + 1, game_id, int(bool(crawford))))
        return game_id

    def end_match(self, match_id: str, status: str) -> None:
        """The match is ``over`` (won) or ``abandoned``, or (``playing``) goes on again: the end of the game
        that won it taken back."""
        if status not in ("playing", "over", "abandoned"):
            raise ValueError(f"a match is playing, over or abandoned, not {status!r}")
        with self._transaction() as conn:
            self._match_row(conn, match_id)
            conn.execute("UPDATE matches SET status = ?, ended = ? WHERE id = ?",
                         (status, None if status == "playing" else self._clock(), match_id))

    # ------------------------------------------------------------- reading
    def has_matches(self) -> bool:
        """Whether the store has the tables of matches (a store of schema 1 read only has none)."""
        if not self._has_match_tables:
            with self._reading() as conn:
                self._has_match_tables = conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'match_games'").fetchone() is not None
        return bool(self._has_match_tables)

    def in_match(self, game_id: str) -> dict[str, Any] | None:
        """The match *game_id* is a game of: ``{"match_id", "number", "crawford"}``, or None."""
        if not self.has_matches():
            return None
        with self._reading() as conn:
            row = conn.execute("SELECT match_id, number, crawford FROM match_games WHERE game_id = ?",
                               (game_id,)).fetchone()
        return None if row is None else {"match_id": row[0], "number": row[1], "crawford": bool(row[2])}

    def match(self, match_id: str) -> dict[str, Any]:
        """One match: its fields and its games' ids in order (``games``)."""
        with self._reading() as conn:
            row = self._match_row(conn, match_id)
            games = [g for (g,) in conn.execute("SELECT game_id FROM match_games WHERE match_id = ? "
                                                "ORDER BY number", (match_id,))]
        return dict(self._match_doc(row), games=games)

    def matches(self) -> list[dict[str, Any]]:
        """Every match, newest first (without its games)."""
        if not self.has_matches():
            return []
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {_MATCH_COLUMNS} FROM matches ORDER BY started DESC, rowid DESC").fetchall()
        return [self._match_doc(r) for r in rows]

    def current_match(self) -> dict[str, Any] | None:
        """The match in play (as :meth:`match`), or None."""
        if not self.has_matches():
            return None
        with self._reading() as conn:
            row = conn.execute("SELECT id FROM matches WHERE status = 'playing' ORDER BY started DESC LIMIT 1"
                               ).fetchone()
        return None if row is None else self.match(row[0])

    def match_record(self, match_id: str) -> dict[str, Any]:
        """The engine's match record of *match_id* (``willughby-match/1``): ``Match.from_record`` replays it."""
        found = self.match(match_id)
        return {"format": MATCH_FORMAT, "length": found["length"], "crawford": found["crawford"],
                "preset": found["preset"], "options": found["options"], "players": found["players"],
                "games": [self.record(g) for g in found["games"]]}

    def _match_row(self, conn: sqlite3.Connection, match_id: str) -> tuple[Any, ...]:
        if not isinstance(match_id, str) or not MATCH_ID.fullmatch(match_id):
            raise MatchNotFoundError(f"{match_id!r} is not a match id (m- and 12 hex digits)")
        row = conn.execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise MatchNotFoundError(f"no match {match_id!r} in {self._path}")
        return tuple(row)

    def _match_doc(self, row: tuple[Any, ...]) -> dict[str, Any]:
        match_id = row[0]
        return {"id": match_id, "length": row[1], "crawford": bool(row[2]), "preset": row[3],
                "options": decode(row[4], f"match {match_id}'s options", self._path),
                "players": decode(row[5], f"match {match_id}'s players", self._path),
                "started": row[6], "ended": row[7], "status": row[8]}
