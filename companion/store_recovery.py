"""A damaged game store kept aside, and every game that can be read from it put in a new one.

An SD card that fails, or a power cut at the wrong moment on a card that
lies about what it wrote, can leave pages of ``games.sqlite`` unreadable.
SQLite then refuses the whole file ("database disk image is malformed"),
though most of it reads. :func:`recover_store` (``willughby recover``):

* renames the damaged file (with its ``-wal`` and ``-shm``) to
  ``games.sqlite.damaged-<when>`` and never writes to it again;
* reads a copy of it a row at a time, so an unreadable page costs only the
  rows on it: each game's row, then its log entry by entry, in order;
* puts each game in a new store at the old name as it was read: a game
  whose log reads to its end as it was (over, abandoned, or the one in
  progress, which is carried on); a game whose log breaks off at an
  unreadable entry with the entries before it, as ``abandoned`` (a note in
  the report says so); a game whose log does not replay, or whose row
  cannot be read, is left out and named;
* and says what it did in one line.
"""

from __future__ import annotations

import datetime
import json
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .store import GameStore
from .store_schema import GAME_COLUMNS, StoreError

__all__ = ["Recovery", "recover_store", "DAMAGED_SUFFIX"]

#: what the damaged file is renamed with (then the time)
DAMAGED_SUFFIX = ".damaged-"

#: rows past the last one read are looked for this far on (a damaged page hides the rows on it)
_ROW_GAP = 512


@dataclass
class Recovery:
    """What :func:`recover_store` did."""

    kept_as: Path
    recovered: list[str] = field(default_factory=list)
    cut_short: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)     # ids, or "row N" where not even the id reads
    seen: int = 0

    def line(self, store: Path) -> str:
        parts = [f"recovered {len(self.recovered)} of {self.seen} games into {store}"]
        if self.cut_short:
            parts.append(f"{len(self.cut_short)} cut short at an unreadable entry and kept as abandoned "
                         f"({', '.join(self.cut_short)})")
        if self.lost:
            parts.append(f"{len(self.lost)} could not be read ({', '.join(self.lost)})")
        return "; ".join(parts) + f"; the damaged store is kept, untouched, as {self.kept_as}"


def recover_store(path: str | Path, *, now: datetime.datetime | None = None) -> Recovery:
    """Keep the damaged store at *path* aside and recover what can be read of it into a new one there.

    :class:`StoreError` where there is no store at *path*, or it is not damaged (it opens and its
    integrity check passes: nothing to recover)."""
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"there is no game store at {path}")
    if _sound(path):
        raise StoreError(f"the game store {path} is not damaged (it opens and its integrity check passes): "
                         "nothing to recover")
    stamp = (now or datetime.datetime.now()).strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(path.name + DAMAGED_SUFFIX + stamp)
    with tempfile.TemporaryDirectory(prefix="willughby-recover-") as work:
        copy = Path(work) / path.name
        for suffix in ("", "-wal", "-shm"):
            part = Path(str(path) + suffix)
            if part.exists():
                shutil.copy2(part, str(copy) + suffix)       # read from a copy: the damaged files stay as they were
        for suffix in ("", "-wal", "-shm"):
            part = Path(str(path) + suffix)
            if part.exists():
                part.rename(str(aside) + suffix)
        report = Recovery(kept_as=aside)
        with GameStore(path) as fresh:
            _recover_into(copy, fresh, report)
    return report


def _sound(path: Path) -> bool:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        return bool(conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok")
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def _recover_into(copy: Path, fresh: GameStore, report: Recovery) -> None:
    conn = sqlite3.connect(copy, isolation_level=None)
    try:
        rows = _game_rows(conn, report)
        report.seen = len(rows) + len(report.lost)
        playing = [r for r in rows if r["status"] == "playing"]
        carried_on = max(playing, key=lambda r: r["started"])["id"] if playing else None
        for row in sorted(rows, key=lambda r: r["started"]):
            log, whole = _log_of(conn, row["id"])
            if not whole:
                row = dict(row, status="abandoned", result=None, ended=None)
            elif row["status"] == "playing" and row["id"] != carried_on:
                row = dict(row, status="abandoned", ended=None)   # the store holds one game in progress at most
            try:
                fresh.insert_game(row, log, may_play=row["id"] == carried_on and whole,
                                  check=lambda game_id: _replays(fresh, game_id))
            except (StoreError, ValueError, TypeError):
                report.lost.append(row["id"])
                continue
            report.recovered.append(row["id"])
            if not whole:
                report.cut_short.append(row["id"])
    finally:
        conn.close()


def _game_rows(conn: sqlite3.Connection, report: Recovery) -> list[dict[str, Any]]:
    """Every games row that reads, a row at a time (rowids past an unreadable page looked for too)."""
    rows: list[dict[str, Any]] = []
    try:
        top = int(conn.execute("SELECT max(rowid) FROM games").fetchone()[0] or 0)
    except sqlite3.Error:
        top = 0
    rowid, last_found = 1, 0
    while rowid <= top or rowid - last_found <= _ROW_GAP:
        try:
            found = conn.execute(f"SELECT {GAME_COLUMNS} FROM games WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.Error:
            report.lost.append(f"games row {rowid}")
            last_found = rowid
            rowid += 1
            continue
        if found is not None:
            last_found = rowid
            game = dict(zip([c.strip() for c in GAME_COLUMNS.split(",")], found))
            try:
                for name in ("options", "players", "result"):
                    if game[name] is not None:
                        game[name] = json.loads(game[name])
            except (TypeError, ValueError):
                report.lost.append(str(game["id"]))
            else:
                rows.append(game)
        rowid += 1
    return rows


def _log_of(conn: sqlite3.Connection, game_id: str) -> tuple[list[dict[str, Any]], bool]:
    """The game's log entries that read, in order, up to the first that does not; and whether that is all."""
    try:
        count = int(conn.execute("SELECT count(*) FROM log WHERE game_id = ?", (game_id,)).fetchone()[0])
    except sqlite3.Error:
        count = -1
    entries: list[dict[str, Any]] = []
    n = 0
    while True:
        try:
            found = conn.execute("SELECT kind, who, at, data FROM log WHERE game_id = ? AND n = ?",
                                 (game_id, n)).fetchone()
            if found is None:
                return entries, n == count
            entries.append({"n": n, "kind": found[0], "who": found[1], "at": found[2],
                            "data": json.loads(found[3])})
        except (sqlite3.Error, TypeError, ValueError):
            return entries, False
        n += 1


def _replays(store: GameStore, game_id: str) -> None:
    """The recovered game's record must replay, or it is left out."""
    from .games import family_of_preset

    record = store.record(game_id)
    try:
        family_of_preset(str(record["preset"])).from_record(record)
    except Exception as exc:  # noqa: any engine error: this game is not recovered
        raise ValueError(f"game {game_id} does not replay: {exc}") from None
