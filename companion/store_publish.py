"""The game store's cursor of what the club's hub has been sent (schema 3): per game, the last log entry the
broker acknowledged and the game's row as last acknowledged.

One table beside the games, their log and the matches (``store_schema.PUBLISH_TABLES``):

``published``
    one row a game sent at least in part: ``game_id``, ``n`` (the last entry of its log the broker has
    acknowledged; -1: none yet), and ``status`` and ``ended``, the game's row as last acknowledged (NULL:
    never sent): a row is sent again when its status or end changes (an end, an abandon, an end taken
    back).

The publisher (``hub_publish.py``) asks what is still to send (:meth:`PublishRows.to_publish`), sends it in
order, and moves the cursor on only once the broker has acknowledged it (:meth:`PublishRows.mark_published`),
so what waits survives a broker down, Wi-Fi lost, or the Pi restarted meanwhile, and nothing is sent out of
order. Sent twice is possible (acknowledged, then cut off before the cursor moved): the hub keeps an entry
once, by its game and number.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from typing import Any, Callable, Mapping

from .store_rows import decode, game_doc

__all__ = ["PublishRows"]


#: whether a game's row as it stands was acknowledged (p: its ``published`` row, g: its ``games`` row)
_ROW_SENT = "(p.status IS NOT NULL AND p.status = g.status AND p.ended IS g.ended)"


class PublishRows:
    """The store's methods for the hub's cursor; :class:`~willughby.companion.store.GameStore` has them."""

    _path: str
    _transaction: Callable[[], AbstractContextManager[sqlite3.Connection]]
    _reading: Callable[[], AbstractContextManager[sqlite3.Connection]]

    def to_publish(self, limit: int = 20) -> list[dict[str, Any]]:
        """The games with something not yet acknowledged, oldest first (at most *limit*): each
        ``{"game": its row as a document, "row_sent": bool, "after": n}`` -- whether its row as it stands
        was acknowledged, and the last entry of its log that was (-1: none)."""
        with self._reading() as conn:
            rows = conn.execute(
                f"""SELECT g.id, g.preset, g.options, g.players, g.start, g.started, g.ended, g.result, g.status,
                          p.n, {_ROW_SENT}
                   FROM games g LEFT JOIN published p ON p.game_id = g.id
                   WHERE p.game_id IS NULL OR NOT {_ROW_SENT}
                      OR p.n < (SELECT MAX(l.n) FROM log l WHERE l.game_id = g.id)
                   ORDER BY g.started, g.id LIMIT ?""", (int(limit),)).fetchall()
        return [{"game": game_doc(row[:9], self._path), "row_sent": bool(row[10]),
                 "after": -1 if row[9] is None else int(row[9])} for row in rows]

    def log_after(self, game_id: str, after: int, limit: int = 200) -> list[dict[str, Any]]:
        """The entries of *game_id*'s log after number *after*, in order (at most *limit*), as stored."""
        with self._reading() as conn:
            rows = conn.execute("SELECT n, kind, who, at, data FROM log WHERE game_id = ? AND n > ? ORDER BY n "
                                "LIMIT ?", (game_id, int(after), int(limit))).fetchall()
        return [{"n": n, "kind": kind, "who": who, "at": at, "data": decode(data, f"game {game_id}'s entry {n}", self._path)}
                for n, kind, who, at, data in rows]

    def mark_published(self, game_id: str, *, n: int | None = None, row: Mapping[str, Any] | None = None) -> None:
        """The broker acknowledged *game_id*'s log up to entry *n*, and/or its *row* (the document sent:
        its status and end are kept)."""
        with self._transaction() as conn:
            conn.execute("INSERT INTO published (game_id, n) VALUES (?, -1) ON CONFLICT (game_id) DO NOTHING",
                         (game_id,))
            if n is not None:
                conn.execute("UPDATE published SET n = MAX(n, ?) WHERE game_id = ?", (int(n), game_id))
            if row is not None:
                conn.execute("UPDATE published SET status = ?, ended = ? WHERE game_id = ?",
                             (row["status"], row.get("ended"), game_id))

    def waiting_to_publish(self) -> int:
        """How many log entries and rows the broker has not acknowledged yet (the page and ``doctor`` say)."""
        with self._reading() as conn:
            entries = conn.execute("""SELECT COUNT(*) FROM log l LEFT JOIN published p ON p.game_id = l.game_id
                                      WHERE p.game_id IS NULL OR l.n > p.n""").fetchone()[0]
            rows = conn.execute(f"""SELECT COUNT(*) FROM games g LEFT JOIN published p ON p.game_id = g.id
                                    WHERE p.game_id IS NULL OR NOT {_ROW_SENT}""").fetchone()[0]
        return int(entries) + int(rows)
