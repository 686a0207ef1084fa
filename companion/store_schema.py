"""What a game store's file is: its two tables, the triggers that keep the
log append-only, its schema version and application id; the check made on
opening a file (an SQLite database, a Willughby store, a schema this program
reads, write-ahead logging), the making of the tables in a new one; and the
errors the store raises.

The tables, and the kinds of entry the log holds, are described with the
store itself (``companion/store.py``, :class:`~willughby.companion.store.GameStore`),
which re-exports the names here.
"""

from __future__ import annotations

import errno
import os
import re
import sqlite3
import urllib.parse

__all__ = [
    "StoreError",
    "GameNotFoundError",
    "CorruptStoreError",
    "StoreClosedError",
    "StoreUnwritableError",
    "SCHEMA_VERSION",
    "APPLICATION_ID",
    "KINDS",
    "STATUSES",
    "KIND",
    "GAME_ID",
    "MATCH_ID",
    "SCHEMA",
    "MATCH_TABLES",
    "MIGRATIONS",
    "PUBLISH_TABLES",
    "migrate",
    "TURNS",
    "GAME_COLUMNS",
    "is_corruption",
    "unwritable",
    "free_bytes",
    "prepare",
    "open_read_only",
]

#: the schema this module writes (``PRAGMA user_version``): 1, the games and their log; 2, matches as well; 3,
#: the cursor of what the club's hub was sent (a store of an older version is brought on when opened to write:
#: ``MIGRATIONS``)
SCHEMA_VERSION = 3
#: ``PRAGMA application_id`` of a Willughby store ("Wlgb")
APPLICATION_ID = 0x576C6762
#: the kinds of log entry the companion writes (documented with the store)
KINDS = ("action", "undo", "reading", "question", "answer", "announcement", "correction", "dice", "photo")
STATUSES = ("playing", "over", "abandoned")

#: what a log entry's kind may be: any name of 1 to 20 of ``a-z`` and ``_`` (later kinds need no new schema)
KIND = re.compile(r"[a-z_]{1,20}")
#: a game's id: ``g-`` and 12 hex digits
GAME_ID = re.compile(r"g-[0-9a-f]{12}")
#: a match's id: ``m-`` and 12 hex digits
MATCH_ID = re.compile(r"m-[0-9a-f]{12}")


class StoreError(Exception):
    """Base class of every error the game store raises."""


class GameNotFoundError(StoreError, LookupError):
    """No game has the id asked for (the message names it)."""


class CorruptStoreError(StoreError):
    """The file is not a game store, or something in it cannot be read (the
    message names the file and, where it can, the game and entry)."""


class StoreClosedError(StoreError, RuntimeError):
    """The store was used after :meth:`GameStore.close`."""


class StoreUnwritableError(StoreError, OSError):
    """The store cannot be written now: its disk is ``full``, the file or its mount is ``read-only``, or the
    disk is ``failing``; the message names the file and what to do (``reason`` says which). Nothing of the
    write was kept. An ``OSError`` too: the page answers it 503, the referee cannot take input now."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason

    def __str__(self) -> str:
        return str(self.args[0])


def unwritable(exc: BaseException, path: str) -> StoreUnwritableError | None:
    """The store's error for *exc* (an SQLite error or an OS error) where it means the store cannot be
    written now, naming *path* and the fix; None for any other error."""
    name = str(getattr(exc, "sqlite_errorname", ""))
    number = getattr(exc, "errno", None) if isinstance(exc, OSError) else None
    if name.startswith("SQLITE_FULL") or number in (errno.ENOSPC, errno.EDQUOT) or (
            name.startswith("SQLITE_IOERR") and free_bytes(path) < LOW_SPACE):
        return StoreUnwritableError(
            f"the disk holding the game store {path} is full ({free_bytes(path) // 1024} KiB free): free "
            "space on it (old dispute photos under the data directory, the system's logs); moves are kept "
            "again as soon as there is room", "full")
    if name.startswith("SQLITE_READONLY") or number in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StoreUnwritableError(
            f"the game store {path} cannot be written (the file, its folder or its disk is read-only): make it "
            "writable (chmod u+w on the file and its folder, or mount the disk read-write)", "read-only")
    if name.startswith("SQLITE_IOERR") or number == errno.EIO:
        return StoreUnwritableError(
            f"the disk holding the game store {path} failed to write ({exc}): the SD card may be failing; "
            "copy the data directory to another card", "failing")
    return None


#: below this many bytes free, a failing write is taken for a full disk
LOW_SPACE = 1024 * 1024


def free_bytes(path: str) -> int:
    """The bytes free to this program on the disk holding *path* (a large number where it cannot be told)."""
    folder = os.path.dirname(os.path.abspath(path)) or "."
    try:
        st = os.statvfs(folder)
    except (OSError, AttributeError):
        return 1 << 62
    return int(st.f_bavail * st.f_frsize)


#: the statements that make a new store's tables, in order
SCHEMA: tuple[str, ...] = (
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
)

#: the tables of matches (schema 2): a match's terms and status, and its games in order, each marked where it is
#: the match's Crawford game; a game of no match has no row in ``match_games``
MATCH_TABLES = (
    """CREATE TABLE matches (
        id       TEXT PRIMARY KEY,
        length   INTEGER NOT NULL CHECK (length BETWEEN 1 AND 64),
        crawford INTEGER NOT NULL CHECK (crawford IN (0, 1)),
        preset   TEXT NOT NULL,
        options  TEXT NOT NULL,
        players  TEXT NOT NULL,
        started  REAL NOT NULL,
        ended    REAL,
        status   TEXT NOT NULL CHECK (status IN ('playing', 'over', 'abandoned')))""",
    """CREATE TABLE match_games (
        match_id TEXT NOT NULL REFERENCES matches (id),
        number   INTEGER NOT NULL CHECK (number >= 1),
        game_id  TEXT NOT NULL UNIQUE REFERENCES games (id),
        crawford INTEGER NOT NULL CHECK (crawford IN (0, 1)),
        PRIMARY KEY (match_id, number)) WITHOUT ROWID""",
)

#: the cursor of what the club's hub was sent (schema 3, ``store_publish.py``): per game, the last entry of its log
#: the broker acknowledged, and its row (status and end) as last acknowledged
PUBLISH_TABLES = (
    """CREATE TABLE published (
        game_id TEXT PRIMARY KEY REFERENCES games (id),
        n       INTEGER NOT NULL CHECK (n >= -1),
        status  TEXT,
        ended   REAL) WITHOUT ROWID""",
)
#: what brings a store of each older schema version to the next, in one transaction with the version's change
MIGRATIONS: dict[int, tuple[str, ...]] = {1: MATCH_TABLES, 2: PUBLISH_TABLES}
SCHEMA = (*SCHEMA, *MATCH_TABLES, *PUBLISH_TABLES, f"PRAGMA user_version = {SCHEMA_VERSION}")

# The turns of a game: its legal moves, and the turns each board the players placed ended, not taken back.  (A row
# whose JSON is bad counts for nothing here: reading it raises.)
TURNS = """
(SELECT COALESCE(SUM(CASE WHEN NOT json_valid(a.data) THEN 0
                          WHEN json_extract(a.data, '$.type') = 'move'
                               AND json_extract(a.data, '$.verdict') = 'legal' THEN 1
                          WHEN json_extract(a.data, '$.type') = 'placed'
                               THEN COALESCE(json_extract(a.data, '$.turns'), 0)
                          ELSE 0 END), 0) FROM log a
  WHERE a.game_id = games.id AND a.kind = 'action'
    AND a.n NOT IN (SELECT j.value FROM log u,
                      json_each(CASE WHEN json_valid(u.data) THEN u.data ELSE '{}' END,
                                '$.undoes') j
                     WHERE u.game_id = games.id AND u.kind = 'undo'))
"""
#: a games row's columns, in the order a game's document is made from them
GAME_COLUMNS = "id, preset, options, players, start, started, ended, result, status"


def is_corruption(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file is damaged or not a database (rather than
    busy, full, read-only...)."""
    name = getattr(exc, "sqlite_errorname", "")
    return name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or "malformed" in str(exc)


def prepare(conn: sqlite3.Connection, path: str, memory: bool) -> None:
    """Set up the connection *conn* to the store at *path* (write-ahead
    logging, full sync, foreign keys), check that the file is a game store
    of a schema this program reads, and make the tables where it is new.

    Raises :class:`CorruptStoreError` if the file is not a game store, and
    :class:`StoreError` if it cannot be opened, cannot use write-ahead
    logging (unless *memory*) or was written by a newer Willughby."""
    try:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.Error as exc:
        if is_corruption(exc):
            raise CorruptStoreError(
                f"{path} is not a Willughby game store (not an SQLite database, or a "
                f"damaged one: {exc})") from None
        raise unwritable(exc, path) or StoreError(f"cannot open the game store {path}: {exc}") from None
    if not memory and str(mode).lower() != "wal":
        raise StoreError(f"the game store {path} cannot use write-ahead logging "
                         f"(journal mode {mode!r}): is it on a network drive?")
    if app not in (0, APPLICATION_ID) or (version == 0 and tables):
        raise CorruptStoreError(f"{path} is an SQLite database but not a Willughby "
                                "game store")
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the game store {path} has schema version {version}, newer than this "
            f"program reads ({SCHEMA_VERSION}): it was written by a newer Willughby")
    if version == 0:
        try:
            conn.execute("BEGIN IMMEDIATE")
            # another process may have made it while this one waited
            if conn.execute("PRAGMA user_version").fetchone()[0] == 0:
                for statement in SCHEMA:
                    conn.execute(statement)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise unwritable(exc, path) or StoreError(f"cannot create the game store {path}: {exc}") from None
    elif version < SCHEMA_VERSION:
        migrate(conn, path)


def migrate(conn: sqlite3.Connection, path: str) -> None:
    """Bring the store at *path* (open on *conn*) from its schema version to ``SCHEMA_VERSION``, each step in
    one transaction with its version: a store cut off in the middle is left at the last step done, and is
    brought on the next time it is opened. Nothing of what it holds is changed; only tables are added."""
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])   # another process may have done it
            if version >= SCHEMA_VERSION:
                conn.execute("COMMIT")
                return
            for statement in MIGRATIONS[version]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise unwritable(exc, path) or StoreError(
                f"cannot bring the game store {path} to schema version {SCHEMA_VERSION}: {exc}") from None


def open_read_only(path: str) -> tuple[sqlite3.Connection, str | None]:
    """A connection that only reads the store at *path*, where nothing may be written (a read-only mount,
    a copy on a card locked against writing), and a note where what it reads may be short of the newest.

    SQLite reads a store in write-ahead mode read-only only where it can make the ``-shm`` beside it; where
    it cannot (a read-only mount), the file is read as it stands, without the ``-wal`` beside it: a store
    closed properly has put everything in the file; one cut off has its last moves in the ``-wal`` still.
    :class:`StoreError` (or :class:`CorruptStoreError`) where it cannot be read or is no game store."""
    quoted = urllib.parse.quote(os.path.abspath(path))
    note = None
    for query in ("mode=ro", "immutable=1"):
        try:
            conn = sqlite3.connect(f"file:{quoted}?{query}", uri=True, check_same_thread=False)
            version, app, tables = _kind(conn)
            break
        except sqlite3.Error as exc:
            if is_corruption(exc):
                raise CorruptStoreError(f"{path} is not a Willughby game store (not an SQLite database, or a "
                                        f"damaged one: {exc})") from None
            if query == "immutable=1":
                raise StoreError(f"cannot read the game store {path}: {exc}") from None
    else:  # pragma: no cover  (the loop breaks or raises)
        raise AssertionError
    if query == "immutable=1" and os.path.exists(path + "-wal") and os.path.getsize(path + "-wal") > 0:
        note = (f"{path} is read as it stands on a disk that cannot be written: the moves of its last "
                f"session still in {os.path.basename(path)}-wal are not shown")
    if app not in (0, APPLICATION_ID) or (version == 0 and tables) or version == 0:
        conn.close()
        raise CorruptStoreError(f"{path} is an SQLite database but not a Willughby game store")
    if version > SCHEMA_VERSION:
        conn.close()
        raise StoreError(f"the game store {path} has schema version {version}, newer than this program reads "
                         f"({SCHEMA_VERSION}): it was written by a newer Willughby")
    return conn, note


def _kind(conn: sqlite3.Connection) -> tuple[int, int, int]:
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    app = int(conn.execute("PRAGMA application_id").fetchone()[0])
    tables = int(conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0])
    return version, app, tables
