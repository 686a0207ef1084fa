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
    an engine :class:`~willughby.engine.match.Match` action, exactly as the
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

>>> store = GameStore(":memory:", clock=lambda: 1000.0)
>>> gid = store.create_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, "AQAAAA")
>>> store.append(gid, "action", {"type": "start_roll", "light": 3, "dark": 1}, "referee")
0
>>> store.current()["id"] == gid, store.actions(gid)[0]["type"]
(True, 'start_roll')
>>> store.close()
"""

from __future__ import annotations

import json
import math
import re
import secrets
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Iterator, Mapping, Self, Sequence

from willughby.engine.match import RECORD_FORMAT

__all__ = [
    "GameStore",
    "StoreError",
    "GameNotFoundError",
    "CorruptStoreError",
    "StoreClosedError",
    "SCHEMA_VERSION",
    "KINDS",
    "STATUSES",
]

#: the schema this module writes (``PRAGMA user_version``)
SCHEMA_VERSION = 1
#: ``PRAGMA application_id`` of a Willughby store ("Wlgb")
APPLICATION_ID = 0x576C6762
#: the kinds of log entry the companion writes (documented above)
KINDS = ("action", "undo", "reading", "question", "answer", "announcement", "correction", "dice", "photo")
STATUSES = ("playing", "over", "abandoned")

_KIND = re.compile(r"[a-z_]{1,20}")
_GAME_ID = re.compile(r"g-[0-9a-f]{12}")


def _is_time(value: Any) -> bool:
    """Whether *value* is a time as the store keeps it: a finite number of seconds."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class StoreError(Exception):
    """Base class of every error the game store raises."""


class GameNotFoundError(StoreError, LookupError):
    """No game has the id asked for (the message names it)."""


class CorruptStoreError(StoreError):
    """The file is not a game store, or something in it cannot be read (the
    message names the file and, where it can, the game and entry)."""


class StoreClosedError(StoreError, RuntimeError):
    """The store was used after :meth:`GameStore.close`."""


_SCHEMA = (
    """CREATE TABLE games (
        id      TEXT PRIMARY KEY,
        preset  TEXT NOT NULL,
        options TEXT NOT NULL,
        players TEXT NOT NULL,
        start   TEXT NOT NULL,
        started REAL NOT NULL,
        ended   REAL,
        result  TEXT,
        status  TEXT NOT NULL CHECK (status IN ('playing', 'over', 'abandoned')))""",
    "CREATE INDEX games_by_status ON games (status, started)",
    """CREATE TABLE log (
        game_id TEXT NOT NULL REFERENCES games (id),
        n       INTEGER NOT NULL CHECK (n >= 0),
        kind    TEXT NOT NULL,
        who     TEXT,
        at      REAL NOT NULL,
        data    TEXT NOT NULL,
        PRIMARY KEY (game_id, n)) WITHOUT ROWID""",
    """CREATE TRIGGER log_is_append_only_update BEFORE UPDATE ON log
       BEGIN SELECT RAISE(ABORT, 'the log is append-only: entries are never changed'); END""",
    """CREATE TRIGGER log_is_append_only_delete BEFORE DELETE ON log
       BEGIN SELECT RAISE(ABORT, 'the log is append-only: entries are never deleted'); END""",
    f"PRAGMA application_id = {APPLICATION_ID}",
    f"PRAGMA user_version = {SCHEMA_VERSION}",
)

# The turns of a game: its legal moves that were not taken back.  (A row
# whose JSON is bad counts for nothing here: reading it raises.)
_TURNS = """
(SELECT COUNT(*) FROM log a
  WHERE a.game_id = games.id AND a.kind = 'action'
    AND CASE WHEN json_valid(a.data) THEN json_extract(a.data, '$.type') = 'move'
             AND json_extract(a.data, '$.verdict') = 'legal' ELSE 0 END
    AND a.n NOT IN (SELECT j.value FROM log u,
                      json_each(CASE WHEN json_valid(u.data) THEN u.data ELSE '{}' END,
                                '$.undoes') j
                     WHERE u.game_id = games.id AND u.kind = 'undo'))
"""
_GAME_COLUMNS = "id, preset, options, players, start, started, ended, result, status"


def _is_corruption(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file is damaged or not a database (rather than
    busy, full, read-only...)."""
    name = getattr(exc, "sqlite_errorname", "")
    return name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or "malformed" in str(exc)


def _encode(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} cannot be stored as JSON: {exc}") from None


class GameStore:
    """The games and their logs in one SQLite file at *path* (``":memory:"``
    for a store that lives only as long as the object, for tests).

    *clock* gives the time in seconds since the epoch (``time.time``); tests
    pass their own.  The parent directory is made if it is missing.

    Raises :class:`CorruptStoreError` if the file is not a game store, and
    :class:`StoreError` if it was written by a newer Willughby (a schema
    this module does not know) or cannot be opened.
    """

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self._path = str(path)
        self._clock = clock
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
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
            raise StoreError(f"cannot open the game store {self._path}: {exc}") from None
        try:
            self._setup(conn, memory)
        except BaseException:  # noqa: close the connection, then re-raise (nothing is hidden)
            conn.close()
            raise
        self._conn = conn

    def _setup(self, conn: sqlite3.Connection, memory: bool) -> None:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            app = conn.execute("PRAGMA application_id").fetchone()[0]
            tables = conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
        except sqlite3.Error as exc:
            if _is_corruption(exc):
                raise CorruptStoreError(
                    f"{self._path} is not a Willughby game store (not an SQLite database, or a "
                    f"damaged one: {exc})") from None
            raise StoreError(f"cannot open the game store {self._path}: {exc}") from None
        if not memory and str(mode).lower() != "wal":
            raise StoreError(f"the game store {self._path} cannot use write-ahead logging "
                             f"(journal mode {mode!r}): is it on a network drive?")
        if app not in (0, APPLICATION_ID) or (version == 0 and tables):
            raise CorruptStoreError(f"{self._path} is an SQLite database but not a Willughby "
                                    "game store")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the game store {self._path} has schema version {version}, newer than this "
                f"program reads ({SCHEMA_VERSION}): it was written by a newer Willughby")
        if version == 0:
            try:
                conn.execute("BEGIN IMMEDIATE")
                # another process may have made it while this one waited
                if conn.execute("PRAGMA user_version").fetchone()[0] == 0:
                    for statement in _SCHEMA:
                        conn.execute(statement)
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise StoreError(f"cannot create the game store {self._path}: {exc}") from None

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

    def _error(self, exc: sqlite3.Error) -> StoreError:
        if _is_corruption(exc):
            return CorruptStoreError(f"the game store {self._path} is damaged: {exc}")
        return StoreError(f"the game store {self._path}: {exc}")

    def _load(self, text: str | None, where: str) -> Any:
        if text is None:
            return None
        try:
            return json.loads(text)
        except (TypeError, ValueError) as exc:
            raise CorruptStoreError(f"the game store {self._path} is damaged: {where} is not "
                                    f"JSON ({exc})") from None

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
        options_json = _encode(dict(options), "options")
        players_json = _encode(dict(players), "players")
        now = self._clock()
        with self._transaction() as conn:
            conn.execute("UPDATE games SET status = 'abandoned', ended = ? WHERE status = 'playing'",
                         (now,))
            while True:
                game_id = "g-" + secrets.token_hex(6)
                if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                    break
            conn.execute(f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, "
                         "'playing')", (game_id, preset, options_json, players_json, start_id, now))
        return game_id

    def insert_game(self, game: Mapping[str, Any], log: Sequence[Mapping[str, Any]], *,
                    new_id: bool = False, check: Callable[[str], None] | None = None) -> str:
        """Put in a game that ended elsewhere, as it was there, and return its id here.

        *game* holds the row's fields (``id``, ``preset``, ``options``,
        ``players``, ``start``, ``started``, ``ended``, ``result``,
        ``status``); *log* its entries, each ``{"n", "kind", "who", "at",
        "data"}``, numbered 0, 1, 2... in order, stored with their own times.
        The game keeps its ``id`` (``g-`` and 12 hex digits), or with
        *new_id* is given a fresh one. Its status must be ``over`` (with a
        result) or ``abandoned`` (with none): a game put in is never in
        progress, so the game in progress, if any, is not touched. An
        ``ended`` of None is now, by the store's clock.

        One transaction: the row and every entry, or (if anything cannot be
        stored) nothing. *check*, given the id, runs in it after the last
        entry, reading the store as it will be; whatever it raises undoes
        the lot. An entry the store would not take from :meth:`append_many`
        (a bad kind, an undo of nothing) raises ``ValueError`` or
        ``TypeError`` naming it; an id already in the store,
        :class:`StoreError`."""
        if not isinstance(game, Mapping):
            raise TypeError(f"game must be a mapping, not {type(game).__name__}")
        status, result = game.get("status"), game.get("result")
        if status not in ("over", "abandoned"):
            raise ValueError(f"a game put in is over or abandoned, never {status!r}: "
                             "one in progress would take the place of the game in progress")
        if (status == "over") != isinstance(result, Mapping):
            raise ValueError(f"a game {status} has {'a result' if status == 'over' else 'no result'}, "
                             f"not {result!r}")
        for name in ("preset", "start"):
            if not isinstance(game.get(name), str) or not game.get(name):
                raise ValueError(f"the game's {name} must be a non-empty string, not {game.get(name)!r}")
        for name in ("options", "players"):
            if not isinstance(game.get(name), Mapping):
                raise TypeError(f"the game's {name} must be a mapping, not {type(game.get(name)).__name__}")
        times = {"started": game.get("started"), "ended": game.get("ended")}
        for name, at in times.items():
            if not (at is None and name == "ended") and not _is_time(at):
                raise ValueError(f"the game's {name} must be seconds since the epoch, not {at!r}")
        given = game.get("id")
        if not new_id and not (isinstance(given, str) and _GAME_ID.fullmatch(given)):
            raise ValueError(f"a game's id is g- and 12 hex digits, not {given!r}")
        game_id = given if isinstance(given, str) else ""       # a new id is drawn below where one is asked
        ended = self._clock() if times["ended"] is None else times["ended"]
        if not _is_time(ended):
            raise ValueError(f"the clock gave {ended!r}, not a time")
        row = (game["preset"], _encode(dict(game["options"]), "options"),
               _encode(dict(game["players"]), "players"), game["start"], float(game["started"]),
               float(ended),
               None if result is None else _encode(dict(result), "result"), status)
        entries = []
        for k, entry in enumerate(log):
            if not isinstance(entry, Mapping):
                raise TypeError(f"log entry {k} must be an object, not {entry!r}")
            n, kind, who, at = entry.get("n"), entry.get("kind"), entry.get("who"), entry.get("at")
            if n != k or isinstance(n, bool):
                raise ValueError(f"log entry {k} is numbered {n!r}: a log is numbered 0, 1, 2... in order")
            if not isinstance(kind, str) or not _KIND.fullmatch(kind):
                raise ValueError(f"log entry {k}: kind must be 1 to 20 of a-z and _, not {kind!r}")
            if who is not None and not isinstance(who, str):
                raise TypeError(f"log entry {k}: who must be a string or None, not {who!r}")
            if not _is_time(at) or at is None:
                raise ValueError(f"log entry {k}: at must be seconds since the epoch, not {at!r}")
            if "data" not in entry:
                raise ValueError(f"log entry {k} has no data")
            entries.append((k, kind, who, float(at), entry["data"]))
        with self._transaction() as conn:
            if new_id:
                while True:
                    game_id = "g-" + secrets.token_hex(6)
                    if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                        break
            elif conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None:
                raise StoreError(f"game {game_id} is in {self._path} already")
            conn.execute(f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (game_id, *row))
            for k, kind, who, at, data in entries:
                if kind == "action":
                    self._check_action(k, data)
                elif kind == "undo":
                    self._check_undo(conn, game_id, k, data, k)
                conn.execute("INSERT INTO log (game_id, n, kind, who, at, data) VALUES (?, ?, ?, ?, ?, ?)",
                             (game_id, k, kind, who, at, _encode(data, f"log entry {k} ({kind}) data")))
            if check is not None:
                check(game_id)
        return game_id

    def finish(self, game_id: str, result: Mapping[str, Any]) -> None:
        """The game is over with *result* (``GameOver.to_json()``)."""
        if not isinstance(result, Mapping):
            raise TypeError(f"result must be a mapping, not {type(result).__name__}")
        result_json = _encode(dict(result), "result")
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

    def _game_row(self, row: Sequence[Any], turns: int | None = None) -> dict[str, Any]:
        game_id = row[0]
        out: dict[str, Any] = {
            "id": game_id,
            "preset": row[1],
            "options": self._load(row[2], f"game {game_id}'s options"),
            "players": self._load(row[3], f"game {game_id}'s players"),
            "start": row[4],
            "started": row[5],
            "ended": row[6],
            "result": self._load(row[7], f"game {game_id}'s result"),
            "status": row[8],
        }
        if turns is not None:
            out["turns"] = turns
        return out

    def current(self) -> dict[str, Any] | None:
        """The game in progress (as in :meth:`games`), or None."""
        with self._reading() as conn:
            row = conn.execute(f"SELECT {_GAME_COLUMNS}, {_TURNS} FROM games WHERE status = 'playing' "
                               "ORDER BY started DESC, rowid DESC LIMIT 1").fetchone()
        return None if row is None else self._game_row(row[:9], row[9])

    def games(self) -> list[dict[str, Any]]:
        """Every game, newest first, each with ``turns``: the number of its
        legal moves (``action`` entries of type ``move`` and verdict
        ``legal``) not taken back."""
        with self._reading() as conn:
            rows = conn.execute(f"SELECT {_GAME_COLUMNS}, {_TURNS} FROM games "
                                "ORDER BY started DESC, rowid DESC").fetchall()
        return [self._game_row(r[:9], r[9]) for r in rows]

    def game(self, game_id: str) -> dict[str, Any]:
        """One game: its fields, ``turns``, and its whole ``log``, a list of
        ``{"n", "kind", "who", "at", "data"}`` in order."""
        with self._reading() as conn:
            row = conn.execute(f"SELECT {_GAME_COLUMNS}, {_TURNS} FROM games WHERE id = ?",
                               (game_id,)).fetchone()
            if row is None:
                raise GameNotFoundError(f"no game {game_id!r} in {self._path}")
            entries = conn.execute("SELECT n, kind, who, at, data FROM log WHERE game_id = ? "
                                   "ORDER BY n", (game_id,)).fetchall()
        out = self._game_row(row[:9], row[9])
        out["log"] = [{"n": n, "kind": kind, "who": who, "at": at,
                       "data": self._load(data, f"game {game_id}'s log entry {n}")}
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
        result_json = None if ends is None else _encode(dict(ends), "result")
        items = list(entries)
        for k, item in enumerate(items):
            if not isinstance(item, tuple) or len(item) != 3:
                raise TypeError(f"entry {k} must be a (kind, data, who) tuple, not {item!r}")
            kind, _data, who = item
            if not isinstance(kind, str) or not _KIND.fullmatch(kind):
                raise ValueError(f"entry {k}: kind must be 1 to 20 of a-z and _, not {kind!r}")
            if who is not None and not isinstance(who, str):
                raise TypeError(f"entry {k}: who must be a string or None, not {who!r}")
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
                    self._check_action(k, data)
                elif kind == "undo":
                    self._check_undo(conn, game_id, k, data, n)
                text = _encode(data, f"entry {k} ({kind}) data")
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

    @staticmethod
    def _check_action(k: int, data: Any) -> None:
        if not isinstance(data, Mapping) or not isinstance(data.get("type"), str):
            raise ValueError(f"entry {k}: an action is a match action with a 'type', not {data!r}")

    def _check_undo(self, conn: sqlite3.Connection, game_id: str, k: int, data: Any, next_n: int) -> None:
        undoes = data.get("undoes") if isinstance(data, Mapping) else None
        if (not isinstance(undoes, list) or not undoes
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in undoes)):
            raise ValueError(f"entry {k}: an undo is {{'undoes': [n, ...]}}, not {data!r}")
        for target in undoes:
            row = conn.execute("SELECT kind FROM log WHERE game_id = ? AND n = ?",
                               (game_id, target)).fetchone()
            if row is None or target >= next_n:
                raise ValueError(f"entry {k}: undo names entry {target}, which game {game_id} "
                                 "does not have")
            if row[0] != "action":
                raise ValueError(f"entry {k}: undo names entry {target}, a {row[0]}, not an action")
        if set(undoes) & self._undone(conn, game_id):
            raise ValueError(f"entry {k}: undo names an action already taken back: {undoes}")

    def _undone(self, conn: sqlite3.Connection, game_id: str) -> set[int]:
        out: set[int] = set()
        for n, data in conn.execute("SELECT n, data FROM log WHERE game_id = ? AND kind = 'undo'",
                                    (game_id,)):
            doc = self._load(data, f"game {game_id}'s log entry {n}")
            undoes = doc.get("undoes") if isinstance(doc, dict) else None
            if not isinstance(undoes, list):
                raise CorruptStoreError(f"the game store {self._path} is damaged: game {game_id}'s "
                                        f"undo entry {n} names no entries")
            out.update(x for x in undoes if isinstance(x, int))
        return out

    # --------------------------------------------------------------- replay
    def actions(self, game_id: str) -> list[dict[str, Any]]:
        """The match actions of *game_id* that stand (not taken back), in order."""
        with self._reading() as conn:
            self._status(conn, game_id)
            undone = self._undone(conn, game_id)
            rows = conn.execute("SELECT n, data FROM log WHERE game_id = ? AND kind = 'action' "
                                "ORDER BY n", (game_id,)).fetchall()
        return [self._load(data, f"game {game_id}'s log entry {n}")
                for n, data in rows if n not in undone]

    def record(self, game_id: str) -> dict[str, Any]:
        """The engine's game record of *game_id* (format ``willughby-game/1``,
        without ``position``): ``Match.from_record`` replays it."""
        with self._lock:
            game = self._summary(game_id)
            actions = self.actions(game_id)
        return {
            "format": RECORD_FORMAT,
            "preset": game["preset"],
            "options": game["options"],
            "players": game["players"],
            "start": game["start"],
            "actions": actions,
            "result": game["result"],
        }

    def _summary(self, game_id: str) -> dict[str, Any]:
        with self._reading() as conn:
            row = conn.execute(f"SELECT {_GAME_COLUMNS}, {_TURNS} FROM games WHERE id = ?",
                               (game_id,)).fetchone()
        if row is None:
            raise GameNotFoundError(f"no game {game_id!r} in {self._path}")
        return self._game_row(row[:9], row[9])
