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

>>> from willughby.engine.match import Match
>>> m = Match.new("backgammon", players={"light": "Ann", "dark": "Bob"})
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from willughby.engine.errors import EngineError, InvalidRecordError
from willughby.engine.match import RECORD_FORMAT
from willughby.engine.rules import get_preset

from .games import GameMatch, family_of_preset
from .store import STATUSES

__all__ = ["RecordError", "ExportedGame", "read_export", "load_export"]


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
    #: the match the record replays to (``Match`` or ``CountingMatch``)
    match: GameMatch
    #: the turns played: the legal moves of a board game, the throws of a counting game
    turns: int

    @property
    def result(self) -> dict[str, Any] | None:
        """The end of the game as the replay gives it (``GameOver.to_json()``), or None."""
        return self.match.result.to_json() if self.match.result else None


def load_export(path: str | Path) -> ExportedGame:
    """Read the exported game in the file *path* (see :func:`read_export`)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"no file {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read {p}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise RecordError(f"{p} is not JSON: {exc}") from None
    try:
        return read_export(doc)
    except RecordError as exc:
        raise RecordError(f"{p}: {exc}") from None


def read_export(doc: Any) -> ExportedGame:
    """The game in *doc*: an exported game document (with its ``record``) or
    a bare game record, checked and replayed. :class:`RecordError` names the
    first thing wrong: not a game, an unknown preset, a malformed action, a
    record that does not replay, a result or a count of turns the replay
    does not come to."""
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
    turns = _turns_played(family.name, match)
    stated = doc.get("turns_played") if exported else None
    if stated is not None and stated != turns:
        raise RecordError(f"the document says {_short(stated)} turns were played; its record replays {turns}")
    game_id = doc.get("id") if exported else None
    if game_id is not None and not isinstance(game_id, str):
        raise RecordError(f"the game's id must be text, not {_short(game_id)}")
    return ExportedGame(game_id=game_id, status=status, preset=preset_id, family=family.name,
                        record=dict(record), match=match, turns=turns)


def _turns_played(family: str, match: Any) -> int:
    """The turns played, counted as the companion's views count them."""
    if family == "counting":
        return len(match.history)
    return sum(1 for r in match.rulings if r.verdict == "legal")


def _short(value: Any) -> str:
    """*value* as JSON, cut short enough for one line of an error."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    text = repr(value) if isinstance(value, str) else text
    return text if len(text) <= 60 else text[:57] + "..."
