"""The game store's rows and what it hands out and takes in: JSON written
and read back, a ``games`` row as a game's document, and the checks on what
is written (an entry's kind and who, an action, an undo of earlier actions,
a game put in whole with its log), each error naming the bad value.

These are the :class:`~willughby.companion.store.GameStore`'s helpers
(``companion/store.py``); the schema they read is ``companion/store_schema.py``.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Callable, Mapping, Sequence

from willughby.engine.bounds import is_time

from .store_schema import GAME_ID, KIND, CorruptStoreError

__all__ = [
    "is_time",
    "encode",
    "decode",
    "game_doc",
    "checked_entries",
    "checked_game",
    "check_action",
    "check_undo",
    "undone",
]

#: a log entry as :meth:`GameStore.append_many` takes it: (kind, data, who)
Entry = tuple[str, Any, str | None]
#: a log entry of a game put in whole, ready to store: (n, kind, who, at, data)
LoggedEntry = tuple[int, str, str | None, float, Any]




def encode(value: Any, what: str) -> str:
    """*value* as the store's JSON; ``TypeError`` naming *what* where JSON cannot hold it."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} cannot be stored as JSON: {exc}") from None


def decode(text: str | None, where: str, path: str) -> Any:
    """The JSON *text* read back (None for NULL); :class:`CorruptStoreError`
    naming the store at *path* and *where* if it is not JSON."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise CorruptStoreError(f"the game store {path} is damaged: {where} is not "
                                f"JSON ({exc})") from None


def game_doc(row: Sequence[Any], path: str, turns: int | None = None) -> dict[str, Any]:
    """A ``games`` row (its columns in the order of ``GAME_COLUMNS``) as the
    game's document, with its number of *turns* where given."""
    game_id = row[0]
    out: dict[str, Any] = {
        "id": game_id,
        "preset": row[1],
        "options": decode(row[2], f"game {game_id}'s options", path),
        "players": decode(row[3], f"game {game_id}'s players", path),
        "start": row[4],
        "started": row[5],
        "ended": row[6],
        "result": decode(row[7], f"game {game_id}'s result", path),
        "status": row[8],
    }
    if turns is not None:
        out["turns"] = turns
    return out


def checked_entries(entries: Sequence[Entry]) -> list[Entry]:
    """The (kind, data, who) *entries* to append, each checked: a tuple of
    three (else ``TypeError``), a kind of 1 to 20 of ``a-z`` and ``_`` (else
    ``ValueError``), who a string or None (else ``TypeError``)."""
    items = list(entries)
    for k, item in enumerate(items):
        if not isinstance(item, tuple) or len(item) != 3:
            raise TypeError(f"entry {k} must be a (kind, data, who) tuple, not {item!r}")
        kind, _data, who = item
        if not isinstance(kind, str) or not KIND.fullmatch(kind):
            raise ValueError(f"entry {k}: kind must be 1 to 20 of a-z and _, not {kind!r}")
        if who is not None and not isinstance(who, str):
            raise TypeError(f"entry {k}: who must be a string or None, not {who!r}")
    return items


def checked_game(game: Mapping[str, Any], log: Sequence[Mapping[str, Any]], *, new_id: bool,
                 clock: Callable[[], float], may_play: bool = False) -> tuple[str, tuple[Any, ...], list[LoggedEntry]]:
    """A game put in whole (:meth:`GameStore.insert_game`), checked (``playing`` only with *may_play*): its id
    (``""`` where *new_id* asks for one to be drawn), its row's other
    columns (``ended`` None is now, by *clock*) and its log's entries, or
    ``ValueError`` or ``TypeError`` naming what cannot be stored."""
    if not isinstance(game, Mapping):
        raise TypeError(f"game must be a mapping, not {type(game).__name__}")
    status, result = game.get("status"), game.get("result")
    if status not in ("over", "abandoned") and not (may_play and status == "playing"):
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
        if not (at is None and name == "ended") and not is_time(at):
            raise ValueError(f"the game's {name} must be seconds since the epoch, not {at!r}")
    given = game.get("id")
    if not new_id and not (isinstance(given, str) and GAME_ID.fullmatch(given)):
        raise ValueError(f"a game's id is g- and 12 hex digits, not {given!r}")
    game_id = given if isinstance(given, str) else ""       # a new id is drawn by the store where one is asked
    ended = clock() if times["ended"] is None else times["ended"]
    if not is_time(ended):
        raise ValueError(f"the clock gave {ended!r}, not a time")
    if status == "playing":
        ended = None
    row = (game["preset"], encode(dict(game["options"]), "options"),
           encode(dict(game["players"]), "players"), game["start"], float(game["started"]),
           None if ended is None else float(ended),
           None if result is None else encode(dict(result), "result"), status)
    entries: list[LoggedEntry] = []
    for k, entry in enumerate(log):
        if not isinstance(entry, Mapping):
            raise TypeError(f"log entry {k} must be an object, not {entry!r}")
        n, kind, who, at = entry.get("n"), entry.get("kind"), entry.get("who"), entry.get("at")
        if n != k or isinstance(n, bool):
            raise ValueError(f"log entry {k} is numbered {n!r}: a log is numbered 0, 1, 2... in order")
        if not isinstance(kind, str) or not KIND.fullmatch(kind):
            raise ValueError(f"log entry {k}: kind must be 1 to 20 of a-z and _, not {kind!r}")
        if who is not None and not isinstance(who, str):
            raise TypeError(f"log entry {k}: who must be a string or None, not {who!r}")
        if not is_time(at) or at is None:
            raise ValueError(f"log entry {k}: at must be seconds since the epoch, not {at!r}")
        if "data" not in entry:
            raise ValueError(f"log entry {k} has no data")
        entries.append((k, kind, who, float(at), entry["data"]))
    return game_id, row, entries


def check_action(k: int, data: Any) -> None:
    """Entry *k*, an ``action``, is a match action (a mapping with a ``type``), or ``ValueError``."""
    if not isinstance(data, Mapping) or not isinstance(data.get("type"), str):
        raise ValueError(f"entry {k}: an action is a match action with a 'type', not {data!r}")


def check_undo(conn: sqlite3.Connection, game_id: str, k: int, data: Any, next_n: int, path: str) -> None:
    """Entry *k*, an ``undo`` of *game_id* to be numbered *next_n*, names
    earlier ``action`` entries of the game not yet taken back, or ``ValueError``."""
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
    if set(undoes) & undone(conn, game_id, path):
        raise ValueError(f"entry {k}: undo names an action already taken back: {undoes}")


def undone(conn: sqlite3.Connection, game_id: str, path: str) -> set[int]:
    """The numbers of *game_id*'s entries taken back by its ``undo`` entries."""
    out: set[int] = set()
    for n, data in conn.execute("SELECT n, data FROM log WHERE game_id = ? AND kind = 'undo'",
                                (game_id,)):
        doc = decode(data, f"game {game_id}'s log entry {n}", path)
        undoes = doc.get("undoes") if isinstance(doc, dict) else None
        if not isinstance(undoes, list):
            raise CorruptStoreError(f"the game store {path} is damaged: game {game_id}'s "
                                    f"undo entry {n} names no entries")
        out.update(x for x in undoes if isinstance(x, int))
    return out
