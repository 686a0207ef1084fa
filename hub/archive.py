"""The hub's archive: what every board of the club publishes (``docs/hub.md``), kept.

A board's messages come in as MQTT topics and payloads (:meth:`HubArchive.take`). The hub keeps them in a
file of its own, every game of every board for good:

``boards``
    each board's last status (online or not, when) and its last state document, for the club's page;
``hub_games``
    each game's row as its board last sent it (its status follows the board's: an end taken back there is
    taken back here);
``hub_log``
    each game's log entries, one per (board, game, ``n``): an entry sent twice is kept once, and entries
    that come after a gap wait there until it is filled.

A game comes out as a referee's own export does (:meth:`HubArchive.export`: the document ``willughby export
--format json`` writes, which ``willughby import`` reads), made by putting the game into a game store of the
referee's kind with the checks an import makes (the store's bounds on each field and time, the record
replayed by the engine). A game whose row says it ended is checked so every few seconds while it changes
(:meth:`HubArchive.settle`), and where the check fails the reason is kept with it (:meth:`trouble`).

What is taken in is checked first, to the bounds of an import: a payload of at most
``MAX_ENTRY_BYTES`` (256 KiB) that is JSON nested at most ``MAX_DEPTH`` deep; the topic's board and game
the payload's own; a game's id as a referee makes it; an entry's number, kind, who and time as a store keeps
them. A message that is not so is refused with one line (the hub logs it) and changes nothing. The hub only
reads: it sends nothing to a board.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any, Mapping

from willughby.companion.store import GameStore, StoreError
from willughby.engine.bounds import MAX_ENTRY_BYTES, depth_problem, is_time

__all__ = ["HubArchive", "Refused"]

_BOARD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,39}")
_GAME = re.compile(r"g-[0-9a-f]{12}")
_KIND = re.compile(r"[a-z_]{1,20}")

_TABLES = (
    """CREATE TABLE IF NOT EXISTS boards (
        board TEXT PRIMARY KEY, online INTEGER, at REAL, state TEXT, seen REAL)""",
    """CREATE TABLE IF NOT EXISTS hub_games (
        board TEXT NOT NULL, game_id TEXT NOT NULL, row TEXT NOT NULL, checked INTEGER NOT NULL DEFAULT 0,
        trouble TEXT, PRIMARY KEY (board, game_id)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS hub_log (
        board TEXT NOT NULL, game_id TEXT NOT NULL, n INTEGER NOT NULL, kind TEXT NOT NULL, who TEXT,
        at REAL NOT NULL, data TEXT NOT NULL, PRIMARY KEY (board, game_id, n)) WITHOUT ROWID""",
)


class Refused(ValueError):
    """A message the hub does not take (the message says why, in one line)."""


class HubArchive:
    """Every board's games as they come, kept in the SQLite file *path* (see the module docstring)."""

    def __init__(self, path: str | Path, clock: Any = None) -> None:
        import time

        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._clock = clock or time.time
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = FULL")
        for statement in _TABLES:
            self._db.execute(statement)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ------------------------------------------------------------ taking in
    def take(self, topic: str, payload: bytes) -> str:
        """One message of a board: ``kept``, ``again`` (an entry or row already kept), or :class:`Refused`."""
        parts = topic.split("/")
        if len(parts) not in (3, 4) or not _BOARD.fullmatch(parts[1]):
            raise Refused(f"{topic!r} is no board's topic (<root>/<board>/status|state|game/<id>|log/<id>)")
        board, what = parts[1], parts[2]
        if len(payload) > MAX_ENTRY_BYTES:
            raise Refused(f"{topic}: {len(payload)} bytes, past the {MAX_ENTRY_BYTES // 1024} KiB a message may")
        try:
            doc = json.loads(payload)
        except RecursionError:
            raise Refused(f"{topic}: the payload nests too deep") from None
        except ValueError as exc:
            raise Refused(f"{topic}: the payload is not JSON ({exc})") from None
        problem = depth_problem(doc)
        if problem:
            raise Refused(f"{topic}: {problem}")
        if not isinstance(doc, dict):
            raise Refused(f"{topic}: the payload is not an object")
        if what in ("status", "state") and len(parts) == 3:
            return self._board(board, what, doc)
        if what not in ("game", "log") or len(parts) != 4 or not _GAME.fullmatch(parts[3]):
            raise Refused(f"{topic} is no board's topic (<root>/<board>/status|state|game/<id>|log/<id>)")
        if doc.get("board") != board:
            raise Refused(f"{topic}: the payload is board {doc.get('board')!r}'s, not {board!r}'s")
        game_id = parts[3]
        with self._lock:
            done = self._row(board, game_id, doc) if what == "game" else self._entry(board, game_id, doc)
            if done == "kept":              # to be checked again (settle): it changed
                self._db.execute("UPDATE hub_games SET checked = 0 WHERE board = ? AND game_id = ?", (board, game_id))
        return done

    def settle(self) -> int:
        """Check each game that ended and changed since it was last checked (the follower calls this every
        few seconds, not at each message: a game's check replays it whole); how many came out whole."""
        with self._lock:
            due = self._db.execute("SELECT board, game_id FROM hub_games WHERE NOT checked AND "
                                   "json_extract(row, '$.status') IN ('over', 'abandoned')").fetchall()
            return sum(self._check_if_whole(board, game_id) for board, game_id in due)

    def _board(self, board: str, what: str, doc: Mapping[str, Any]) -> str:
        with self._lock:
            self._db.execute("INSERT INTO boards (board) VALUES (?) ON CONFLICT (board) DO NOTHING", (board,))
            if what == "status":
                at = doc.get("at")
                self._db.execute("UPDATE boards SET online = ?, at = ?, seen = ? WHERE board = ?",
                                 (1 if doc.get("online") is True else 0, at if is_time(at) else None,
                                  self._clock(), board))
            else:
                self._db.execute("UPDATE boards SET state = ?, seen = ? WHERE board = ?",
                                 (json.dumps(doc, ensure_ascii=False), self._clock(), board))
        return "kept"

    def _row(self, board: str, game_id: str, doc: Mapping[str, Any]) -> str:
        row = doc.get("game")
        if not isinstance(row, dict) or row.get("id") != game_id:
            raise Refused(f"board {board}'s game {game_id}: the row is not that game's")
        if row.get("status") not in ("playing", "over", "abandoned"):
            raise Refused(f"board {board}'s game {game_id}: a game is playing, over or abandoned, not "
                          f"{row.get('status')!r}")
        text = json.dumps(row, ensure_ascii=False, sort_keys=True)
        before = self._db.execute("SELECT row FROM hub_games WHERE board = ? AND game_id = ?",
                                  (board, game_id)).fetchone()
        if before is not None and before[0] == text:
            return "again"
        self._db.execute("INSERT INTO hub_games (board, game_id, row) VALUES (?, ?, ?) "
                         "ON CONFLICT (board, game_id) DO UPDATE SET row = excluded.row, checked = 0, trouble = NULL",
                         (board, game_id, text))
        return "kept"

    def _entry(self, board: str, game_id: str, doc: Mapping[str, Any]) -> str:
        if doc.get("game_id") != game_id:
            raise Refused(f"board {board}'s entry is game {doc.get('game_id')!r}'s, not {game_id}'s")
        n, kind, who, at = doc.get("n"), doc.get("kind"), doc.get("who"), doc.get("at")
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise Refused(f"board {board}'s game {game_id}: an entry's n is 0 or more, not {n!r}")
        if not isinstance(kind, str) or not _KIND.fullmatch(kind):
            raise Refused(f"board {board}'s game {game_id}: entry {n}'s kind is 1 to 20 of a-z and _, not {kind!r}")
        if who is not None and (not isinstance(who, str) or len(who) > 200):
            raise Refused(f"board {board}'s game {game_id}: entry {n}'s who is a name, not {who!r}")
        if not is_time(at) or not isinstance(at, (int, float)):
            raise Refused(f"board {board}'s game {game_id}: entry {n}'s time is seconds since the epoch, not {at!r}")
        cur = self._db.execute("INSERT INTO hub_log (board, game_id, n, kind, who, at, data) VALUES (?, ?, ?, ?, ?, ?, ?) "
                               "ON CONFLICT DO NOTHING",
                               (board, game_id, n, kind, who, float(at), json.dumps(doc.get("data"), ensure_ascii=False)))
        return "kept" if cur.rowcount else "again"

    def _check_if_whole(self, board: str, game_id: str) -> bool:
        """Check an ended game as an import is checked: True where it came whole and replays; else the reason
        is kept with it (a gap: nothing said, the rest is still to come)."""
        try:
            self._put(board, game_id)
        except _Incomplete:
            return False
        except (ValueError, TypeError, StoreError) as exc:
            self._db.execute("UPDATE hub_games SET checked = 1, trouble = ? WHERE board = ? AND game_id = ?",
                             (f"not whole: {exc}", board, game_id))
            return False
        self._db.execute("UPDATE hub_games SET checked = 1, trouble = NULL WHERE board = ? AND game_id = ?",
                         (board, game_id))
        return True

    def _put(self, board: str, game_id: str) -> GameStore:
        """The game in a game store of its own (in memory), as an import puts it: :class:`_Incomplete` where its
        log has a gap, ``ValueError``, ``TypeError`` or ``StoreError`` where the store or the engine refuse it."""
        row = json.loads(self._db.execute("SELECT row FROM hub_games WHERE board = ? AND game_id = ?",
                                          (board, game_id)).fetchone()[0])
        entries = self._db.execute("SELECT n, kind, who, at, data FROM hub_log WHERE board = ? AND game_id = ? "
                                   "ORDER BY n", (board, game_id)).fetchall()
        missing = next((k for k, e in enumerate(entries) if e[0] != k), None)
        if missing is not None:
            raise _Incomplete(f"board {board}'s game {game_id} waits for its entry {missing} (the later ones came)")
        log = [{"n": n, "kind": kind, "who": who, "at": at, "data": json.loads(data)}
               for n, kind, who, at, data in entries]
        store = GameStore(":memory:")
        store.insert_game(row, log, may_play=True, check=lambda gid: _replays(store, gid, row))
        return store

    # ------------------------------------------------------------ reading
    def boards(self) -> list[dict[str, Any]]:
        """Every board seen: its name, whether online, its last state (None before one came)."""
        with self._lock:
            rows = self._db.execute("SELECT board, online, at, state FROM boards ORDER BY board").fetchall()
        return [{"board": b, "online": bool(online), "at": at, "state": json.loads(state) if state else None}
                for b, online, at, state in rows]

    def trouble(self) -> list[dict[str, Any]]:
        """The games that ended but could not be archived, and why."""
        with self._lock:
            rows = self._db.execute("SELECT board, game_id, trouble FROM hub_games WHERE trouble IS NOT NULL "
                                    "ORDER BY board, game_id").fetchall()
        return [{"board": b, "game_id": g, "trouble": t} for b, g, t in rows]

    def games(self) -> list[dict[str, Any]]:
        """Every game of every board: board, game id, its row, how many entries have come, and whether it ended,
        came whole and replays (``whole``: as :meth:`settle` last found)."""
        with self._lock:
            rows = self._db.execute(
                """SELECT g.board, g.game_id, g.row, g.checked AND g.trouble IS NULL,
                          (SELECT COUNT(*) FROM hub_log l WHERE l.board = g.board AND l.game_id = g.game_id)
                   FROM hub_games g ORDER BY g.board, g.game_id""").fetchall()
        return [{"board": b, "game_id": g, "game": json.loads(r),
                 "whole": bool(c) and json.loads(r).get("status") in ("over", "abandoned"), "entries": k}
                for b, g, r, c, k in rows]

    def export(self, board: str, game_id: str) -> dict[str, Any]:
        """Board *board*'s game *game_id* as ``willughby export --format json`` writes a referee's (a game still
        in play: as far as it has come); ``LookupError`` where there is none, ``ValueError`` (and the others
        :meth:`_put` raises) where it is not whole or does not replay."""
        from willughby.companion.views import stored_game

        with self._lock:
            if self._db.execute("SELECT 1 FROM hub_games WHERE board = ? AND game_id = ?",
                                (board, game_id)).fetchone() is None:
                raise LookupError(f"the hub has no game {game_id} of board {board}")
            store = self._put(board, game_id)
        try:
            doc: dict[str, Any] = json.loads(json.dumps(stored_game(store, game_id), ensure_ascii=False))
        finally:
            store.close()
        return doc


class _Incomplete(ValueError):
    """A game's log has a gap: the rest is still to come."""


def _replays(store: GameStore, game_id: str, row: Mapping[str, Any]) -> None:
    """The check an import makes: the game's record replays by the engine, to the row's result."""
    from willughby.companion.games import family_of_preset

    record = store.record(game_id)
    replay = family_of_preset(record["preset"]).from_record(record)
    result = replay.result.to_json() if replay.result is not None else None
    if row.get("status") == "over" and result != row.get("result"):
        raise ValueError(f"game {game_id}'s log replays to {result}, not the result its board sent")
