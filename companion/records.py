"""Exported games read back: the JSON document that ``willughby export
--format json`` and the page's ``/api/games/<id>/export.json`` give
(:func:`~willughby.companion.views.stored_game`), checked and replayed
through the engine the way the companion rebuilds a stored game
(``family_of_preset(preset).from_record(record)``).

An export carries the game's record (format ``willughby-game/1``: the
preset, its options, the players, the start, the match actions that stand,
the result) beside the views of it (the turns with their boards, the log).
Reading it back trusts only the record: it is checked field by field, then
replayed, and the replay must come to the result, the status and the number
of turns the document states. A document that fails any of this raises one
:class:`RecordError` whose message says where.

An export goes back into a store with :func:`import_game`
(``willughby import``): checked as above, then its row and its whole log
stored as exported, in one transaction, and exported again from the store
before that transaction ends: the document it gives must be the file's,
or nothing is kept.

>>> from willughby.engine.game import Game
>>> m = Game.new("backgammon", players={"light": "Ann", "dark": "Bob"})
>>> m.start_roll(3, 1)
>>> m.play_notation("8/5 6/5").verdict
'legal'
>>> game = read_export({"record": m.record(), "status": "playing"})
>>> game.preset, game.family, game.turns, game.match.position == m.position
('backgammon', 'race', 1, True)
>>> try:
...     read_export({"record": dict(m.record(), actions="none")})
... except RecordError as exc:
...     print(exc)
the record's actions must be a list of match actions, not 'none'
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from willughby.engine.bounds import MAX_DEPTH, MAX_ENTRY_BYTES, MAX_FILE_BYTES, depth_problem
from willughby.engine.errors import EngineError, InvalidRecordError
from willughby.engine.game import RECORD_FORMAT
from willughby.engine.rules import get_preset

from .games import GameMatch, family_of_preset
from .store import STATUSES

__all__ = ["RecordError", "ExportedGame", "read_export", "load_export", "read_document",
           "ImportedGame", "read_import", "import_game"]


class RecordError(ValueError):
    """An exported game that cannot be read back (the message says what is wrong)."""


@dataclass(frozen=True)
class ExportedGame:
    """A game read back from its export: its record, checked, and the match it replays to."""

    #: the game's id in the store it came from (None for a bare record)
    game_id: str | None
    #: ``playing``, ``over`` or ``abandoned`` (``over`` where the replay ended the game)
    status: str
    #: the preset's id and the family of its game (``race``, ``unstacking``, ``counting``)
    preset: str
    family: str
    #: the record as the document holds it (``willughby-game/1``)
    record: dict[str, Any]
    #: the match the record replays to (``Game`` or ``CountingGame``)
    match: GameMatch
    #: the turns played: the legal moves of a board game, the throws of a counting game
    turns: int

    @property
    def result(self) -> dict[str, Any] | None:
        """The end of the game as the replay gives it (``GameOver.to_json()``), or None."""
        return self.match.result.to_json() if self.match.result else None


def load_export(path: str | Path) -> ExportedGame:
    """Read the exported game in the file *path* (see :func:`read_export`)."""
    doc = read_document(path)
    try:
        return read_export(doc)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None


#: the start of a ``.mat`` match file (GNU Backgammon's, and what ``export --format mat`` writes): a
#: ``; [Tag "..."]`` line, or (a file without them) `` N point match`` (0 for a money game); no JSON starts so
_MAT_START = re.compile(r"\A\ufeff?\s*(?:;\s*\[|\d+\s+point\s+match\b)", re.I)


def read_document(path: str | Path) -> Any:
    """The JSON document in the file *path* (``-``: standard input), not yet
    checked; :class:`RecordError` names the file that cannot be read or is
    not JSON, and says that a ``.mat`` match file (one that starts as such a
    file does, or that is named ``.mat`` and is not JSON) is not imported."""
    p = Path(path)
    where = "standard input" if str(path) == "-" else p
    mat = RecordError(f"{where} is a GNU Backgammon match file (.mat), which is not imported: only the JSON "
                      "that willughby export writes (--format json) is")
    named_mat = p.suffix.lower() == ".mat" and str(path) != "-"
    too_big = RecordError(f"{where} weighs more than {MAX_FILE_BYTES // (1024 * 1024)} MB, more than any "
                          "exported game: not read")
    try:
        if str(path) == "-":
            text = sys.stdin.read(MAX_FILE_BYTES + 1)
        else:
            if p.stat().st_size > MAX_FILE_BYTES:
                raise too_big
            text = p.read_text(encoding="utf-8")
        if len(text) > MAX_FILE_BYTES:
            raise too_big
    except FileNotFoundError:
        raise RecordError(f"no file {p}") from None
    except UnicodeDecodeError as exc:
        if named_mat:                   # a .mat written in another encoding
            raise mat from None
        raise RecordError(f"cannot read {p}: {exc}") from None
    except OSError as exc:
        raise RecordError(f"cannot read {p}: {exc.strerror or exc}") from None
    if _MAT_START.match(text):
        raise mat
    try:
        doc = json.loads(text)
    except RecursionError:
        raise RecordError(f"{where}: the document nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        if named_mat:                   # named as one, and not JSON: the .mat is what was given
            raise mat from None
        raise RecordError(f"{where} is not JSON: {exc}") from None
    problem = depth_problem(doc)
    if problem:
        raise RecordError(f"{where}: {problem}")
    return doc


def read_export(doc: Any) -> ExportedGame:
    """The game in *doc*: an exported game document (with its ``record``) or
    a bare game record, checked and replayed. :class:`RecordError` names the
    first thing wrong: not a game, an unknown preset, a malformed action, a
    record that does not replay, a result or a count of turns the replay
    does not come to."""
    problem = depth_problem(doc)             # the bounds of live input (engine/bounds.py)
    if problem:
        raise RecordError(problem)
    if not isinstance(doc, Mapping):
        raise RecordError(f"an exported game is a JSON object, not {_short(doc)}")
    exported = "record" in doc
    record = doc["record"] if exported else doc
    if not isinstance(record, Mapping):
        raise RecordError(f"the record must be an object, not {_short(record)}")
    if record.get("format") != RECORD_FORMAT:
        raise RecordError(f"not a Willughby game record: format {record.get('format')!r}, "
                          f"not {RECORD_FORMAT!r}")
    preset = record.get("preset")
    if not isinstance(preset, str) or not preset:
        raise RecordError(f"the record's preset must be a preset's id, not {_short(preset)}")
    try:
        preset_id = get_preset(preset).id
        family = family_of_preset(preset_id)
    except EngineError as exc:
        raise RecordError(f"the record's preset: {exc}") from None
    if exported and doc.get("preset") not in (None, preset):
        raise RecordError(f"the document's preset {doc.get('preset')!r} is not its record's {preset!r}")
    options = record.get("options") or {}
    if not isinstance(options, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in options.items()):
        raise RecordError(f"the record's options must be an object of names and values as text, "
                          f"not {_short(options)}")
    players = record.get("players")
    names = list(players.values()) if isinstance(players, Mapping) else players
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise RecordError(f"the record's players must be an object or a list of names, not {_short(players)}")
    if not isinstance(record.get("start"), str):
        raise RecordError(f"the record's start must be a position id, not {_short(record.get('start'))}")
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise RecordError(f"the record's actions must be a list of match actions, not {_short(actions)}")
    for n, action in enumerate(actions):
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
            raise RecordError(f"the record's action {n} is not a match action (an object with a type): "
                              f"{_short(action)}")
    result = record.get("result")
    if result is not None and not isinstance(result, Mapping):
        raise RecordError(f"the record's result must be an object or null, not {_short(result)}")
    try:
        match = family.from_record(record)
    except InvalidRecordError as exc:
        raise RecordError(f"the record does not replay: {exc}") from None
    except EngineError as exc:
        raise RecordError(f"the record does not replay: {exc}") from None
    replayed = match.result.to_json() if match.result else None
    if "result" in record and result != replayed:
        raise RecordError(f"the record's result {_short(result)} is not its replay's {_short(replayed)}")
    status = doc.get("status") if exported else None
    if status is None:
        status = "over" if replayed is not None else "playing"
    if status not in STATUSES:
        raise RecordError(f"status must be one of {', '.join(STATUSES)}, not {_short(status)}")
    if (status == "over") != (replayed is not None):
        raise RecordError(f"the game is {status} but its replay "
                          f"{'ends it' if replayed is not None else 'does not end it'}")
    turns = _turns_played(family.board, match)
    stated = doc.get("turns_played") if exported else None
    if stated is not None and stated != turns:
        raise RecordError(f"the document says {_short(stated)} turns were played; its record replays {turns}")
    game_id = doc.get("id") if exported else None
    if game_id is not None and not isinstance(game_id, str):
        raise RecordError(f"the game's id must be text, not {_short(game_id)}")
    return ExportedGame(game_id=game_id, status=status, preset=preset_id, family=family.name,
                        record=dict(record), match=match, turns=turns)


@dataclass(frozen=True)
class ImportedGame:
    """What :func:`import_game` did with an exported game."""

    #: the game's id in the store now (the exported id unless *notes* say otherwise)
    game_id: str
    #: the game as stored: ``over`` or ``abandoned`` (``playing`` only where the store held it already)
    status: str
    #: the preset's id and the turns played, as :class:`ExportedGame` gives them
    preset: str
    turns: int
    #: True where the store held this very game already, and nothing was written
    already: bool = False
    #: each thing done otherwise than as exported, in words (a new id, abandoned)
    notes: tuple[str, ...] = ()


def read_import(doc: Any) -> ExportedGame:
    """The game in *doc* as :func:`read_export` reads it, where *doc* is a
    whole exported document, with the id and the log that :func:`import_game`
    stores (a bare record is refused: it has no log)."""
    game = read_export(doc)
    if "record" not in doc:
        raise RecordError("a bare game record has no log: import takes the whole document "
                          "that willughby export --format json writes")
    if not isinstance(doc.get("log"), list):
        raise RecordError(f"the document's log must be a list of entries, not {_short(doc.get('log'))}")
    if not isinstance(doc.get("id"), str):
        raise RecordError(f"the document's id must be a game's id, not {_short(doc.get('id'))}")
    for k, entry in enumerate(doc["log"]):            # each entry to the bound of a body sent live
        size = len(json.dumps(entry, ensure_ascii=False, default=str).encode("utf-8"))
        if size > MAX_ENTRY_BYTES:
            raise RecordError(f"log entry {k} weighs {size} bytes, past the {MAX_ENTRY_BYTES // 1024} KiB "
                              "any entry may")
    return game


def import_game(store: Any, doc: Any) -> ImportedGame:
    """Put the exported game *doc* (the document ``willughby export --format
    json`` writes) into *store* (a :class:`~willughby.companion.store.GameStore`),
    as it was exported: its fields, and its log with each entry's number,
    kind, who, time and data.

    - A game ``over`` or ``abandoned`` is stored as it is.
    - A game still ``playing`` when exported is stored ``abandoned``, ended
      now (a note says so): the store's game in progress, if any, is never
      touched, and the imported game can be listed, exported and replayed,
      not carried on.
    - The game keeps its id, unless the store holds another game by that
      id (another preset, start or starting time): then it is given a new
      one (a note says so).
    - Where the store holds this very game already (as exported, or as an
      earlier import of the file stored it), nothing is written and
      ``already`` is True.

    :class:`RecordError` refuses, with nothing stored: a document that
    :func:`read_export` refuses; a bare record (it has no log); a log the
    store would not take (numbered out of order, an undo of nothing); a
    document that the store does not give back as it is (its record, turns
    or fields disagreeing with its log); the same game as one the store
    holds with other content (another version of it: continued, or edited).
    """
    from .store import GameNotFoundError, StoreError
    from .views import stored_game

    game = read_import(doc)
    log, exported_id = doc["log"], doc["id"]

    def export(game_id: str) -> dict[str, Any]:
        doc: dict[str, Any] = json.loads(json.dumps(stored_game(store, game_id), ensure_ascii=False))
        return doc

    try:
        store.game(exported_id)
        existing = export(exported_id)
    except GameNotFoundError:
        existing = None
    except StoreError as exc:
        raise RecordError(f"the store's game {exported_id} cannot be read: {exc}") from None
    if existing is not None:
        differ = _differ_from_stored(existing, doc)
        if not differ:
            return ImportedGame(exported_id, existing["status"], game.preset, game.turns, already=True)
        if all(existing.get(k) == doc.get(k) for k in ("preset", "start", "started")):
            raise RecordError(f"game {exported_id} is in the store already with other content (its "
                              f"{', '.join(differ)} {'differs' if len(differ) == 1 else 'differ'}; the store's "
                              f"log has {len(existing.get('log') or [])} entries, this file's {len(log)}): "
                              "not imported")
    abandoning = game.status == "playing"
    status = "abandoned" if abandoning else game.status
    row = {"id": exported_id, "preset": doc.get("preset"), "options": doc.get("options"),
           "players": family_of_preset(game.preset).store_players(game.match), "start": doc.get("start"),
           "started": doc.get("started"), "ended": None if abandoning else doc.get("ended"),
           "result": game.result, "status": status}

    def as_exported(game_id: str) -> None:
        try:
            got = export(game_id)
        except (EngineError, ValueError) as exc:      # the log's actions are not the record's
            raise RecordError(f"the document is not what its log stores: the actions of its log do not "
                              f"replay: {exc}") from None
        want = dict(doc, id=game_id, game_id=game_id, status=status,
                    ended=got.get("ended") if abandoning else doc.get("ended"))
        differ = _differ(got, want)
        if differ:
            raise RecordError(f"the document is not what its log stores: its {', '.join(differ)} "
                              f"{'differs' if len(differ) == 1 else 'differ'} from the store's export of it")

    try:
        game_id = store.insert_game(row, log, new_id=existing is not None, check=as_exported)
    except RecordError:
        raise
    except (TypeError, ValueError, StoreError) as exc:
        raise RecordError(f"the store refuses it: {exc}") from None
    notes = []
    if game_id != exported_id:
        notes.append(f"the store has another game {exported_id}: imported as {game_id}")
    if abandoning:
        notes.append("it was in progress when exported: imported as abandoned "
                     "(the game in progress here is not touched)")
    return ImportedGame(game_id, status, game.preset, game.turns, notes=tuple(notes))


def _differ(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """The keys whose values *a* and *b* do not share, in order."""
    return [k for k in sorted(set(a) | set(b)) if a.get(k, ...) != b.get(k, ...)]


def _differ_from_stored(existing: Mapping[str, Any], doc: Mapping[str, Any]) -> list[str]:
    """The keys in which the store's export *existing* differs from the
    exported *doc*, or from what importing *doc* stores (a game in progress
    abandoned: its status and end are not compared then)."""
    skip: tuple[str, ...] = ()
    if doc.get("status") == "playing" and existing.get("status") in ("playing", "abandoned"):
        skip = ("status", "ended")
    return [k for k in _differ(existing, doc) if k not in skip]


def _turns_played(board: str, match: Any) -> int:
    """The turns played, counted as the companion's views count them (a
    game on a tally: its throws)."""
    if board == "tally":
        return len(match.history)
    placed = sum(int(a["turns"]) for a in match.actions if a.get("type") == "placed")
    return sum(1 for r in match.rulings if r.verdict == "legal") + placed


def _short(value: Any) -> str:
    """*value* as JSON, cut short enough for one line of an error."""
    if depth_problem(value):
        return "a document nested too deep to show"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = repr(value) if isinstance(value, str) else text
    return text if len(text) <= 60 else text[:57] + "..."
