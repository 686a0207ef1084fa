"""The game store: every game and everything that happened in it, in one
SQLite file under the data directory: a game in progress survives a power
cut and resumes.

The file is in WAL mode with ``synchronous=FULL``: once :meth:`GameStore.append`
returns, the entry is on the disk and survives the program being killed or
the power going.  One connection, guarded by a lock, serves every thread.

Two tables:

``games``
    one row a game: ``id`` (``g-`` and 12 hex digits), ``preset``,
    ``options`` and ``players`` (JSON objects), ``start`` (the engine's
    position id of the start), ``started`` and ``ended`` (seconds since the
    epoch, from the store's clock), ``result`` (JSON, once over) and
    ``status``: ``playing``, ``over`` or ``abandoned``.  One game at most is
    ``playing``: starting a new one abandons the old in the same transaction.
    A game ends ``over`` in the transaction that stores the action that ended
    it, and an undo of that action makes it ``playing`` again in its own
    (:meth:`GameStore.append_many`'s *ends* and *reopens*), so the row and
    the record never disagree.  A game played elsewhere comes in whole, over
    or abandoned, with its own id, times and log (:meth:`GameStore.insert_game`,
    ``willughby import``).
``log``
    what happened, numbered ``n`` = 0, 1, 2... within each game, with its
    ``kind``, ``who`` (a colour, ``camera``, ``referee``... or nothing), the
    time ``at`` and ``data`` (JSON).  The log is append-only: nothing in it is
    ever changed or deleted (triggers refuse it), so a mistake is put right
    by a later entry, never by rubbing out.

The kinds the companion writes (any name of 1 to 20 letters ``a-z`` and
``_`` is accepted, so later kinds need no new schema):

``action``
    an engine :class:`~willughby.engine.game.Game` action, exactly as the
    match appended it to ``match.actions`` (``{"type": "move", "player":
    "light", "after": ..., "verdict": "legal", "play": "8/5 6/5"}``).
    The game's record is these, in order, less the undone ones.
``undo``
    ``{"undoes": [n, ...]}``: the ``action`` entries *n* are taken back.
    They stay in the log; :meth:`GameStore.actions` and
    :meth:`GameStore.record` leave them out.
``reading``
    a camera reading of the board (a board document).
``question`` / ``answer``
    the referee asked the players something (is this the board?) and what
    they answered.
``announcement``
    what was shown and said (a ruling, a winner).
``correction``
    a player put a reading right by hand.
``dice``
    a throw as it came from the dice source, before the match took it.
``photo``
    a photo brought to a dispute was judged: ``{"photo", "turn", "attempt",
    "verdict", "play", "reason", "citation"}`` (the photo and the whole
    ruling are kept beside the store: ``dispute_photos.py``). It changes
    nothing in the game.

Beside them, a store of schema 2 keeps matches (``matches`` and
``match_games``: a match's terms and status, its games in order), described
with their methods in ``store_matches.py``; of schema 3, the cursor of what
the club's hub was sent (``published``: ``store_publish.py``).

What a store's file is (its tables, the check made on opening it and the
migration from schema 1, the errors) is ``store_schema.py``; the rows as
documents and the checks on what is written, ``store_rows.py``. This module
re-exports their public names.

>>> store = GameStore(":memory:", clock=lambda: 1000.0)
>>> gid = store.create_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, "AQAAAA")
>>> store.append(gid, "action", {"type": "start_roll", "light": 3, "dark": 1}, "referee")
0
>>> store.current()["id"] == gid, store.actions(gid)[0]["type"]
(True, 'start_roll')
>>> store.close()
"""

from __future__ import annotations

import errno
import math
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Iterator, Mapping, Self, Sequence

from willughby.engine.game import RECORD_FORMAT

from .store_rows import check_action, check_undo, checked_entries, checked_game, decode, encode, game_doc, undone
from .store_schema import APPLICATION_ID as APPLICATION_ID  # re-exported: the store's file is known by it
from .store_matches import MatchRows
from .store_publish import PublishRows
from .store_schema import (GAME_COLUMNS, KINDS, LOW_SPACE, SCHEMA_VERSION, STATUSES, TURNS, CorruptStoreError,
                           GameNotFoundError, StoreClosedError, StoreError, StoreUnwritableError, free_bytes,
                           is_corruption, open_read_only, prepare, unwritable)
from .store_schema import LOW_SPACE

__all__ = [
    "GameStore",
    "StoreError",
    "GameNotFoundError",
    "CorruptStoreError",
    "StoreClosedError",
    "StoreUnwritableError",
    "SCHEMA_VERSION",
    "KINDS",
    "STATUSES",
]

class GameStore(MatchRows, PublishRows):
    """The games and their logs in one SQLite file at *path* (``":memory:"``
    for a store that lives only as long as the object, for tests).

    *clock* gives the time in seconds since the epoch (``time.time``); tests
    pass their own.  The parent directory is made if it is missing.

    Raises :class:`CorruptStoreError` if the file is not a game store, and
    :class:`StoreError` if it was written by a newer Willughby (a schema
    this module does not know) or cannot be opened. With *read_only*, the
    store is only read (``willughby games`` and ``export``: a store on a
    read-only mount reads), and every write raises :class:`StoreError`.
    """

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time, *, read_only: bool = False) -> None:
        self._path = str(path)
        self._clock = clock
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        #: with *read_only*: why what is read may be short of the newest (the store read where nothing may be
        #: written, without its ``-wal``), else None
        self.read_note: str | None = None
        #: why the last write could not be made (a full disk, a read-only mount), until one is made again
        self.write_problem: StoreUnwritableError | None = None
        if read_only:                  # to read where nothing may be written: nothing made, nothing changed
            self._conn, self.read_note = open_read_only(self._path)
            return
        memory = self._path == ":memory:"
        if not memory:
            try:
                Path(self._path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot make the directory of the game store {self._path}: "
                                 f"{exc.strerror or exc}") from None
        try:
            conn = sqlite3.connect(self._path, timeout=10.0, isolation_level=None,
                                   check_same_thread=False)
        except sqlite3.Error as exc:
            raise unwritable(exc, self._path) or StoreError(f"cannot open the game store {self._path}: {exc}") from None
        try:
            prepare(conn, self._path, memory)
        except BaseException:  # noqa: close the connection, then re-raise (nothing is hidden)
            conn.close()
            raise
        self._conn = conn

    # -------------------------------------------------------------- lifecycle
    @property
    def path(self) -> str:
        """The file the store lives in."""
        return self._path

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._conn is None

    def close(self) -> None:
        """Close the file; closing twice is harmless."""
        with self._lock:
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def __enter__(self) -> Self:
        self._open_conn()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<GameStore {self._path!r} ({'closed' if self.closed else 'open'})>"

    def _open_conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreClosedError(f"the game store {self._path} is closed")
        return self._conn

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._open_conn()
            try:
                yield conn
            except sqlite3.Error as exc:
                raise self._error(exc) from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One transaction: all of it is written, or (on any exception) none."""
        with self._lock:
            conn = self._open_conn()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise self._error(exc) from None
            try:
                yield conn
            except BaseException as exc:  # noqa: roll back, then re-raise (nothing is hidden)
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # the transaction is gone already (sqlite rolled it back)
                if isinstance(exc, sqlite3.Error):
                    raise self._error(exc) from None
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise self._error(exc) from None
            self.write_problem = None

    def _error(self, exc: sqlite3.Error) -> StoreError:
        if is_corruption(exc):
            return CorruptStoreError(f"the game store {self._path} is damaged: {exc}")
        problem = unwritable(exc, self._path)
        if problem is not None:
            self.write_problem = problem
            return problem
        return StoreError(f"the game store {self._path}: {exc}")

    def check_writable(self) -> None:
        """Make a write now (the store's own header, as it is) and raise :class:`StoreUnwritableError` if it
        cannot be made: a full disk, a read-only file or mount, a failing card are found at start, not at the
        first move."""
        if self._path != ":memory:" and free_bytes(self._path) < LOW_SPACE:
            raise unwritable(OSError(errno.ENOSPC, "no space left"), self._path) or StoreError(self._path)
        with self._transaction() as conn:
            conn.execute(f"PRAGMA user_version = {int(conn.execute('PRAGMA user_version').fetchone()[0])}")

    # ----------------------------------------------------------------- games
    def create_game(self, preset: str, options: Mapping[str, Any], players: Mapping[str, Any],
                    start_id: str) -> str:
        """Start a game of *preset* with *options* between *players* from the
        position *start_id* (``Position.id()``), and return its id.  The game
        in progress, if any, becomes ``abandoned`` in the same transaction."""
        if not isinstance(preset, str) or not preset:
            raise ValueError(f"preset must be a non-empty string, not {preset!r}")
        if not isinstance(start_id, str) or not start_id:
            raise ValueError(f"start_id must be a position id, not {start_id!r}")
        for name, value in (("options", options), ("players", players)):
            if not isinstance(value, Mapping):
                raise TypeError(f"{name} must be a mapping, not {type(value).__name__}")
        with self._transaction() as conn:
            return self._new_game(conn, preset, options, players, start_id)

    def _new_game(self, conn: sqlite3.Connection, preset: str, options: Mapping[str, Any],
                  players: Mapping[str, Any], start_id: str) -> str:
        """:meth:`create_game`'s row, in the transaction on *conn*: the game in progress abandoned, a new id."""
        options_json = encode(dict(options), "options")
        players_json = encode(dict(players), "players")
        now = self._clock()
        conn.execute("UPDATE games SET status = 'abandoned', ended = ? WHERE status = 'playing'", (now,))
        while True:
            game_id = "g-" + secrets.token_hex(6)
            if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                break
        conn.execute(f"INSERT INTO games ({GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, "
                     "'playing')", (game_id, preset, options_json, players_json, start_id, now))
        return game_id

    def insert_game(self, game: Mapping[str, Any], log: Sequence[Mapping[str, Any]], *,
                    new_id: bool = False, check: Callable[[str], None] | None = None,
                    may_play: bool = False) -> str:
        """Put in a game that ended elsewhere, as it was there, and return its id here.

        *game* holds the row's fields (``id``, ``preset``, ``options``,
        ``players``, ``start``, ``started``, ``ended``, ``result``,
        ``status``); *log* its entries, each ``{"n", "kind", "who", "at",
        "data"}``, numbered 0, 1, 2... in order, stored with their own times.
        The game keeps its ``id`` (``g-`` and 12 hex digits), or with
        *new_id* is given a fresh one. Its status must be ``over`` (with a
        result) or ``abandoned`` (with none): a game put in is never in
        progress, so the game in progress, if any, is not touched (but with
        *may_play*, where the store has none: a game recovered from a
        damaged store is carried on, ``store_recovery.py``). An
        ``ended`` of None is now, by the store's clock.

        One transaction: the row and every entry, or (if anything cannot be
        stored) nothing. *check*, given the id, runs in it after the last
        entry, reading the store as it will be; whatever it raises undoes
        the lot. An entry the store would not take from :meth:`append_many`
        (a bad kind, an undo of nothing) raises ``ValueError`` or
        ``TypeError`` naming it; an id already in the store,
        :class:`StoreError`."""
        game_id, row, entries = checked_game(game, log, new_id=new_id, clock=self._clock, may_play=may_play)
        with self._transaction() as conn:
            if may_play and game.get("status") == "playing" and conn.execute(
                    "SELECT 1 FROM games WHERE status = 'playing'").fetchone() is not None:
                raise StoreError(f"{self._path} has a game in progress already: another cannot be put in")
            if new_id:
                while True:
                    game_id = "g-" + secrets.token_hex(6)
                    if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                        break
            elif conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None:
                raise StoreError(f"game {game_id} is in {self._path} already")
            conn.execute(f"INSERT INTO games ({GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (game_id, *row))
            for k, kind, who, at, data in entries:
                if kind == "action":
                    check_action(k, data)
                elif kind == "undo":
                    check_undo(conn, game_id, k, data, k, self._path)
                conn.execute("INSERT INTO log (game_id, n, kind, who, at, data) VALUES (?, ?, ?, ?, ?, ?)",
                             (game_id, k, kind, who, at, encode(data, f"log entry {k} ({kind}) data")))
            if check is not None:
                check(game_id)
        return game_id

    def finish(self, game_id: str, result: Mapping[str, Any]) -> None:
        """The game is over with *result* (``GameOver.to_json()``)."""
        if not isinstance(result, Mapping):
            raise TypeError(f"result must be a mapping, not {type(result).__name__}")
        result_json = encode(dict(result), "result")
        self._end(game_id, "over", result_json)

    def abandon(self, game_id: str) -> None:
        """The players gave the game up unfinished."""
        self._end(game_id, "abandoned", None)

    def _end(self, game_id: str, status: str, result_json: str | None) -> None:
        with self._transaction() as conn:
            now_status = self._status(conn, game_id)
            if now_status != "playing":
                raise StoreError(f"game {game_id} is {now_status}, not playing: it cannot be "
                                 f"made {status}")
            conn.execute("UPDATE games SET status = ?, ended = ?, result = ? WHERE id = ?",
                         (status, self._clock(), result_json, game_id))

    def _status(self, conn: sqlite3.Connection, game_id: str) -> str:
        row = conn.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFoundError(f"no game {game_id!r} in {self._path}")
        return str(row[0])

    def current(self) -> dict[str, Any] | None:
        """The game in progress (as in :meth:`games`), or None."""
        with self._reading() as conn:
            row = conn.execute(f"SELECT {GAME_COLUMNS}, {TURNS} FROM games WHERE status = 'playing' "
                               "ORDER BY started DESC, rowid DESC LIMIT 1").fetchone()
        return None if row is None else game_doc(row[:9], self._path, row[9])

    def games(self) -> list[dict[str, Any]]:
        """Every game, newest first, each with ``turns``: the number of its
        legal moves (``action`` entries of type ``move`` and verdict
        ``legal``) and the turns the boards placed by the players ended
        (``placed`` entries' ``turns``), not taken back."""
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {GAME_COLUMNS}, {TURNS} FROM games "
                                "ORDER BY started DESC, rowid DESC").fetchall()
        return [game_doc(r[:9], self._path, r[9]) for r in rows]

    def game(self, game_id: str) -> dict[str, Any]:
        """One game: its fields, ``turns``, and its whole ``log``, a list of
        ``{"n", "kind", "who", "at", "data"}`` in order."""
        with self._reading() as conn:
            row = conn.execute(f"SELECT {GAME_COLUMNS}, {TURNS} FROM games WHERE id = ?",
                               (game_id,)).fetchone()
            if row is None:
                raise GameNotFoundError(f"no game {game_id!r} in {self._path}")
            entries = conn.execute("SELECT n, kind, who, at, data FROM log WHERE game_id = ? "
                                   "ORDER BY n", (game_id,)).fetchall()
        out = game_doc(row[:9], self._path, row[9])
        out["log"] = [{"n": n, "kind": kind, "who": who, "at": at,
                       "data": decode(data, f"game {game_id}'s log entry {n}", self._path)}
                      for n, kind, who, at, data in entries]
        return out

    # ------------------------------------------------------------------- log
    def append(self, game_id: str, kind: str, data: Any, who: str | None = None) -> int:
        """Add one entry to *game_id*'s log and return its number.  When this
        returns, the entry is on the disk.  A game over or abandoned takes
        entries too (a correction after the end): the store keeps what it is
        told; what may be appended when is the companion's to decide.

        *kind* is 1 to 20 of ``a-z`` and ``_`` (else ``ValueError``); *data*
        anything JSON can hold (else ``TypeError``); an ``action`` is a match
        action (a mapping with a ``type``) and an ``undo`` names earlier
        actions of the game not yet taken back (else ``ValueError``)."""
        return self.append_many(game_id, [(kind, data, who)])[0]

    def append_many(self, game_id: str, entries: Sequence[tuple[str, Any, str | None]], *,
                    ends: Mapping[str, Any] | None = None, reopens: bool = False) -> list[int]:
        """Add several entries in one transaction: all of them, or (if any
        cannot be stored) none.  Returns their numbers.

        *ends*, a result (``GameOver.to_json()``), makes the game ``over`` in
        the same transaction, so the action that ended it and the end are on
        the disk together or not at all (a ``kill -9`` between them cannot
        leave a game whose record ends but whose row says ``playing``).
        *reopens* makes a game ``over`` ``playing`` again, its result and end
        cleared, with the entries (the undo of the action that ended it); it
        is refused while another game is in progress."""
        if ends is not None and reopens:
            raise ValueError("a game cannot be ended and reopened by the same entries")
        if ends is not None and not isinstance(ends, Mapping):
            raise TypeError(f"ends must be a result mapping, not {type(ends).__name__}")
        result_json = None if ends is None else encode(dict(ends), "result")
        items = checked_entries(entries)
        numbers: list[int] = []
        with self._transaction() as conn:
            status = self._status(conn, game_id)
            if ends is not None and status != "playing":
                raise StoreError(f"game {game_id} is {status}, not playing: it cannot be made over")
            if reopens:
                if status != "over":
                    raise StoreError(f"game {game_id} is {status}, not over: there is no end to take back")
                other = conn.execute("SELECT id FROM games WHERE status = 'playing' AND id != ?",
                                     (game_id,)).fetchone()
                if other is not None:
                    raise StoreError(f"game {other[0]} is in progress: game {game_id} cannot be reopened")
            n = conn.execute("SELECT COALESCE(MAX(n), -1) + 1 FROM log WHERE game_id = ?",
                             (game_id,)).fetchone()[0]
            for k, (kind, data, who) in enumerate(items):
                if kind == "action":
                    check_action(k, data)
                elif kind == "undo":
                    check_undo(conn, game_id, k, data, n, self._path)
                text = encode(data, f"entry {k} ({kind}) data")
                at = self._clock()
                if not isinstance(at, (int, float)) or not math.isfinite(at):
                    raise ValueError(f"the clock gave {at!r}, not a time")
                conn.execute("INSERT INTO log (game_id, n, kind, who, at, data) VALUES (?, ?, ?, ?, ?, ?)",
                             (game_id, n, kind, who, float(at), text))
                numbers.append(n)
                n += 1
            if result_json is not None:
                conn.execute("UPDATE games SET status = 'over', ended = ?, result = ? WHERE id = ?",
                             (self._clock(), result_json, game_id))
            elif reopens:
                conn.execute("UPDATE games SET status = 'playing', ended = NULL, result = NULL WHERE id = ?",
                             (game_id,))
        return numbers

    # --------------------------------------------------------------- replay
    def actions(self, game_id: str) -> list[dict[str, Any]]:
        """The match actions of *game_id* that stand (not taken back), in order."""
        with self._reading() as conn:
            self._status(conn, game_id)
            taken_back = undone(conn, game_id, self._path)
            rows = conn.execute("SELECT n, data FROM log WHERE game_id = ? AND kind = 'action' "
                                "ORDER BY n", (game_id,)).fetchall()
        return [decode(data, f"game {game_id}'s log entry {n}", self._path)
                for n, data in rows if n not in taken_back]

    def record(self, game_id: str) -> dict[str, Any]:
        """The engine's game record of *game_id* (format ``willughby-game/1``,
        without ``position``): ``Game.from_record`` replays it."""
        with self._lock:
            game = self._summary(game_id)
            actions = self.actions(game_id)
            crawford = self.in_match(game_id)
        return {
            "format": RECORD_FORMAT,
            "preset": game["preset"],
            "options": game["options"],
            "players": game["players"],
            "start": game["start"],
            **({"crawford": True} if crawford is not None and crawford["crawford"] else {}),
            "actions": actions,
            "result": game["result"],
        }

    def _summary(self, game_id: str) -> dict[str, Any]:
        with self._reading() as conn:
            row = conn.execute(f"SELECT {GAME_COLUMNS}, {TURNS} FROM games WHERE id = ?",
                               (game_id,)).fetchone()
        if row is None:
            raise GameNotFoundError(f"no game {game_id!r} in {self._path}")
        return game_doc(row[:9], self._path, row[9])
