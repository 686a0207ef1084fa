"""The stored games on the command line, without the running page:
``willughby games`` lists them, ``willughby export`` writes one out,
``willughby import`` puts an exported one (JSON) back into a store.

The store is the one ``serve`` and ``demo`` keep, ``games.sqlite`` under the
data directory: ``--data-dir DIR``, or the ``data_dir`` of a configuration
file (``--config FILE``), or the default (``~/.local/share/willughby``, under
``$XDG_DATA_HOME`` where set). ``games`` and ``export`` only read it, and may
do so while the page is running; a data directory without a store is said
so, and no store is made. ``import`` makes the store where there is none,
and may run while the page is running: it adds a game that is over or
abandoned, never touching the game in progress
(:func:`~willughby.companion.records.import_game`).

``export --format json`` writes the document the page's
``/api/games/<id>/export.json`` gives (:func:`~willughby.companion.views.stored_game`),
for every family of game; ``--format mat`` a GNU Backgammon ``.mat`` match
file, for the games GNU Backgammon plays (:func:`~willughby.companion.matfile.to_mat`
decides). :mod:`willughby.companion.records` reads the JSON back.

Bad input -- an unknown game, a prefix that fits several, a game the
``.mat`` format cannot hold, a file that cannot be written, a file to import
that is not an exported game or does not check -- exits with
status 2 and one line on standard error (:class:`UsageError`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from willughby.companion.cli_games import UsageError
from willughby.engine.bounds import is_time

__all__ = ["add_record_commands", "result_text", "find_game"]

STATUS_TEXT = {"playing": "in progress", "over": "over", "abandoned": "abandoned"}


def add_record_commands(sub: Any) -> None:
    """Add ``games``, ``export``, ``import`` and ``recover`` to the ``willughby`` command's subparsers *sub*."""
    p = sub.add_parser("games", help="the stored games, newest first",
                       description="The games in the store that serve and demo keep, newest first.")
    _where(p)
    p.add_argument("--json", action="store_true", help='one JSON document: {"games": [...]}, as the page\'s /api/games')
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("export", help="one stored game or match as JSON or a GNU Backgammon .mat file",
                       description="One stored game, finished or in progress, as the page exports it; or a whole "
                                   "match (its id, m-...: docs/matches.md).")
    p.add_argument("game", metavar="GAME", help="the game's id, or the start of it that fits no other game; or a "
                                                "match's whole id (m- and 12 hex digits)")
    p.add_argument("--format", choices=("json", "mat"), default="json",
                   help="json (every game; the default) or mat (the games GNU Backgammon plays)")
    p.add_argument("--out", metavar="FILE", help="write to FILE (default: standard output)")
    _where(p)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="put a game that export wrote (JSON) into the store",
                       description="Put a game that willughby export --format json wrote into the store, as it was: "
                                   "a game in progress when exported is stored abandoned; the game in progress "
                                   "here is not touched.")
    p.add_argument("file", metavar="FILE", help="the exported game (- for standard input)")
    _where(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("recover", help="keep a damaged store aside and recover every game that can be read",
                       description="Rename a damaged games.sqlite (with its -wal and -shm) to "
                                   "games.sqlite.damaged-WHEN, untouched, and put every game that can be read "
                                   "from it into a new store in its place; one line says what was recovered.")
    _where(p)
    p.set_defaults(func=cmd_recover)


def _where(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("--data-dir", metavar="DIR",
                       help="the data directory the store is under (default: the configuration's, "
                            "else ~/.local/share/willughby)")
    group.add_argument("--config", metavar="FILE", help="take the data directory from this configuration file")


# ---------------------------------------------------------------- the store
def _store_path(args: argparse.Namespace) -> Path:
    """``games.sqlite`` under the data directory that serve and demo use."""
    from willughby.companion.config import load_config

    config = load_config(args.config)
    if args.data_dir:
        config = replace(config, data_dir=Path(os.path.expanduser(args.data_dir)))
    return config.store_path


def _open(args: argparse.Namespace, command: str) -> Any:
    """The store, opened only to read (nothing is made or changed, so a store on a read-only mount reads);
    None where the data directory holds none."""
    from willughby.companion.store import GameStore, StoreError

    path = _store_path(args)
    if not path.is_file():
        return None
    try:
        store = GameStore(path, read_only=True)   # reads a store on a read-only mount too
    except StoreError as exc:
        raise UsageError(f"willughby {command}: {exc}") from None
    if store.read_note:
        print(f"willughby {command}: note: {store.read_note}", file=sys.stderr)
    return store


def _no_games(args: argparse.Namespace) -> str:
    return f"no games stored in {_store_path(args).parent}"


def find_game(games: Sequence[Mapping[str, Any]], wanted: str, where: str = "the store") -> str:
    """The id of the one game in *games* whose id is *wanted* or starts with
    it (``g-`` may be left off); a ``LookupError`` says when none or several
    do (*where*: the store, in words, for the message).

    >>> find_game([{"id": "g-0a1b2c3d4e5f"}, {"id": "g-0a9999999999"}], "0a1")
    'g-0a1b2c3d4e5f'
    >>> find_game([{"id": "g-0a1b2c3d4e5f"}, {"id": "g-0a9999999999"}], "g-0a")
    Traceback (most recent call last):
    ...
    LookupError: 'g-0a' fits 2 games: g-0a1b2c3d4e5f, g-0a9999999999; give more of the id
    """
    text = wanted.strip()
    if not text:
        raise LookupError("GAME must be a game's id or the start of one, not empty")
    ids = [str(g["id"]) for g in games]
    if text in ids:
        return text
    fits = [i for i in ids if i.startswith(text) or (not text.startswith("g-") and i.startswith("g-" + text))]
    if not fits:
        raise LookupError(f"no game {wanted!r} in {where} (willughby games lists them)")
    if len(fits) > 1:
        shown = ", ".join(fits[:5]) + (", ..." if len(fits) > 5 else "")
        raise LookupError(f"{wanted!r} fits {len(fits)} games: {shown}; give more of the id")
    return fits[0]


# ---------------------------------------------------------------- games
def result_text(game: Mapping[str, Any]) -> str:
    """A game's result in words: who won or paid, how, for how much.

    >>> result_text({"players": {"light": "Ann", "dark": "Bob"},
    ...              "result": {"winner": "dark", "kind": "gammon", "stake": 2}})
    'Bob (dark) wins a gammon, 2 points'
    >>> result_text({"players": ["Ann", "Bob"], "result": {"loser": 1, "kind": "single", "stake": 1}})
    'Bob pays, 1 point'
    """
    result = game.get("result")
    if not isinstance(result, Mapping):
        return "-"
    players = game.get("players")
    stake = result.get("stake")
    points = f", {stake} point{'' if stake == 1 else 's'}" if isinstance(stake, int) else ""
    if "loser" in result:
        loser = result["loser"]
        names = list(players) if isinstance(players, list) else []
        who = names[loser] if isinstance(loser, int) and 0 <= loser < len(names) else f"player {loser}"
        return f"{who} pays{points}"
    winner = result.get("winner")
    name = players.get(winner) if isinstance(players, Mapping) else None
    who = f"{name} ({winner})" if name and str(name).lower() != winner else str(winner)
    kind = result.get("kind")
    how = "" if kind in (None, "single") else f" a {kind}" if kind != "fill" else " by filling"
    return f"{who} wins{how}{points}"


def _players_text(players: Any) -> str:
    if isinstance(players, Mapping):
        return " v ".join(str(players.get(c, "?")) for c in ("light", "dark"))
    return ", ".join(str(p) for p in players or [])


def _date(seconds: Any) -> str:
    """A stored time to the minute, "-" for one no calendar shows (one bad game never stops a listing)."""
    if not is_time(seconds):
        return "-"
    try:
        return datetime.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return "-"


def _table(games: Sequence[Mapping[str, Any]]) -> list[str]:
    heads = ("ID", "STARTED", "PRESET", "PLAYERS", "TURNS", "RESULT", "STATUS")
    rows = [(str(g["id"]), _date(g.get("started")), str(g.get("preset")), _players_text(g.get("players")),
             str(g.get("turns", "")), result_text(g), STATUS_TEXT.get(str(g.get("status")), str(g.get("status"))))
            for g in games]
    widths = [max(len(r[k]) for r in [heads, *rows]) for k in range(len(heads))]

    def line(row: tuple[str, ...]) -> str:
        cells = [cell.rjust(w) if k == 4 else cell.ljust(w) for k, (cell, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    return [line(heads)] + [line(r) for r in rows]


def cmd_games(args: argparse.Namespace) -> int:
    from willughby.companion.store import StoreError
    from willughby.companion.views import stored_games

    store = _open(args, "games")
    games: list[dict[str, Any]] = []
    if store is not None:
        with store:
            try:
                games = stored_games(store)
            except StoreError as exc:
                raise UsageError(f"willughby games: {exc}") from None
    if args.json:
        print(json.dumps({"games": games}, indent=1, ensure_ascii=False))
        if not games:
            print(f"willughby games: {_no_games(args)}", file=sys.stderr)
        return 0
    if not games:
        print(_no_games(args))
        return 0
    for text in _table(games):
        print(text)
    return 0


def _export_match(args: argparse.Namespace, store: Any) -> int:
    """``willughby export m-...``: a whole match, as JSON (its record) or a .mat file."""
    from willughby.companion.errors import CompanionError, UnknownError
    from willughby.companion.store import StoreError
    from willughby.companion.views import stored_match, stored_match_mat

    from willughby.companion.analysis import saved_report

    try:
        doc = stored_match(store, args.game)
        analysis = saved_report(Path(store.path).parent, args.game)
        body = (stored_match_mat(store, args.game) if args.format == "mat"
                else json.dumps(dict(doc, analysis=analysis) if analysis else doc, indent=1, ensure_ascii=False)
                + "\n")
    except CompanionError as exc:
        raise UsageError(f"willughby export: match {args.game} cannot be a .mat file: {exc}") from None
    except (UnknownError, StoreError) as exc:
        raise UsageError(f"willughby export: {exc}") from None
    if doc["status"] == "playing":
        print(f"willughby export: match {args.game} is still in play: this is the match so far "
              f"({len(doc['games'])} games)", file=sys.stderr)
    return _write_export(args, body, f"the match to {doc['length']} {args.game} ({len(doc['games'])} games, "
                                     f"{doc['status']})")


def _write_export(args: argparse.Namespace, body: str, what: str) -> int:
    """What ``export`` made: to ``--out`` (saying so: "exported *what* to FILE"), else to standard output."""
    if not args.out:
        sys.stdout.write(body)
        return 0
    out = Path(args.out)
    try:
        out.write_text(body, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"willughby export: cannot write {out}: {exc.strerror or exc}") from None
    print(f"exported {what} to {out}")
    return 0


# ---------------------------------------------------------------- export
def cmd_export(args: argparse.Namespace) -> int:
    from willughby.companion.errors import CompanionError, UnknownError
    from willughby.companion.store import StoreError
    from willughby.companion.views import stored_game, stored_games, stored_mat

    store = _open(args, "export")
    if store is None:
        raise UsageError(f"willughby export: {_no_games(args)}")
    if str(args.game).startswith("m-"):
        with store:
            return _export_match(args, store)
    with store:
        try:
            games = stored_games(store)
            if not games:
                raise UsageError(f"willughby export: {_no_games(args)}")
            try:
                game_id = find_game(games, args.game, str(Path(store.path).parent))
            except LookupError as exc:
                raise UsageError(f"willughby export: {exc.args[0]}") from None
            summary = next(g for g in games if g["id"] == game_id)
            if args.format == "mat":
                try:
                    body = stored_mat(store, game_id)
                except CompanionError as exc:
                    raise UsageError(f"willughby export: game {game_id} cannot be a .mat file: {exc}") from None
            else:
                body = json.dumps(stored_game(store, game_id), indent=1, ensure_ascii=False) + "\n"
        except UnknownError as exc:
            raise UsageError(f"willughby export: {exc}") from None
        except StoreError as exc:
            raise UsageError(f"willughby export: {exc}") from None
    if summary["status"] == "playing":
        print(f"willughby export: game {game_id} is still in progress: this is the game so far "
              f"({summary.get('turns', 0)} turns)", file=sys.stderr)
    return _write_export(args, body, f"game {game_id} ({summary['preset']}, "
                                     f"{STATUS_TEXT.get(summary['status'], summary['status'])})")


# ---------------------------------------------------------------- import
def cmd_import(args: argparse.Namespace) -> int:
    from willughby.companion.records import RecordError, import_game, read_document, read_import
    from willughby.companion.store import GameStore, StoreError

    name = "standard input" if args.file == "-" else args.file
    try:
        doc = read_document(args.file)
    except RecordError as exc:
        raise UsageError(f"willughby import: {exc}") from None
    try:
        read_import(doc)                # checked before the store is opened (or made)
    except RecordError as exc:
        raise UsageError(f"willughby import: {name}: {exc}") from None
    path = _store_path(args)
    try:
        with GameStore(path) as store:
            done = import_game(store, doc)
    except RecordError as exc:
        raise UsageError(f"willughby import: {name}: {exc}") from None
    except StoreError as exc:
        raise UsageError(f"willughby import: {exc}") from None
    what = f"{done.preset}, {STATUS_TEXT.get(done.status, done.status)}, {done.turns} turns"
    if done.already:
        print(f"game {done.game_id} ({what}) is in {path.parent} already: nothing imported")
    else:
        print(f"imported game {done.game_id} ({what}) into {path.parent}")
    sys.stdout.flush()                  # its line first, then what was done otherwise than as exported
    for note in done.notes:
        print(f"willughby import: game {doc['id']}: {note}", file=sys.stderr)
    return 0


def cmd_recover(args: argparse.Namespace) -> int:
    from willughby.companion.store import StoreError
    from willughby.companion.store_recovery import recover_store

    path = _store_path(args)
    try:
        report = recover_store(path)
    except StoreError as exc:
        raise UsageError(f"willughby recover: {exc}") from None
    except OSError as exc:
        raise UsageError(f"willughby recover: cannot keep {path} aside: {exc.strerror or exc}") from None
    print(report.line(path))
    return 0
