"""What the companion shows of games without changing them: the record and disputes.

The stored games, newest first (:meth:`ViewsMixin.games`); one game with
each turn's boards, for replay (:meth:`~ViewsMixin.game`); a game written
as a ``.mat`` file (:meth:`~ViewsMixin.export_mat`); one ruling of the game
in progress with all that bears on it, for the dispute view
(:meth:`~ViewsMixin.dispute`); and the games a new game may be
(:meth:`~ViewsMixin.presets`). Nothing here writes to the store or changes
the game in progress.

:class:`ViewsMixin` is part of :class:`~willughby.companion.service.Companion`,
whose ``__init__`` makes the attributes it reads. The views of stored games
are also plain functions of a :class:`~willughby.companion.store.GameStore`
(:func:`stored_games`, :func:`stored_game`, :func:`stored_mat`), so that
``willughby games`` and ``willughby export`` give the page's documents
without a running companion.

>>> from willughby.companion.service import Companion
>>> from willughby.companion.store import GameStore
>>> Companion(GameStore(":memory:")).games()
[]
"""

from __future__ import annotations

from typing import Any, Mapping

from willughby.engine.errors import EngineError
from willughby.engine.rules import PRESETS

from . import tally as _tally
from .errors import CompanionError, NotNowError, UnknownError
from .games import family_of_preset
from .numbering import judged_turns, ruling_doc

__all__ = ["ViewsMixin", "stored_games", "stored_game", "stored_mat"]


class ViewsMixin:
    """Read-only views of the stored games and of the game in progress's rulings."""

    def games(self) -> list[dict[str, Any]]:
        """The stored games, newest first (:func:`stored_games`)."""
        return stored_games(self.store)

    def game(self, game_id: str) -> dict[str, Any]:
        """One stored game with each turn's boards, for replay (:func:`stored_game`)."""
        return stored_game(self.store, game_id)

    def export_mat(self, game_id: str) -> str:
        """A stored game as a ``.mat`` match file (:func:`stored_mat`)."""
        return stored_mat(self.store, game_id)

    def _judged_turn(self, turn: int, attempt: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Turn *turn*'s ruling *attempt* (None: its last) of the game in
        progress, as :func:`~willughby.companion.numbering.judged_turns` gives
        it, and all the turn's rulings. Call it holding the lock."""
        m = self._need_game()
        if self._family is not None and self._family.board == "tally":
            raise NotNowError("Sice-Ace is refereed from the dice alone: each throw's ruling is in the list "
                              "of rulings and the announcements")
        judged = judged_turns(m.record(), plays_for=turn)
        of_turn = [j for j in judged if j["turn"] == turn]
        if not of_turn:
            played = self._counter.played
            raise UnknownError(f"turn {turn} has no ruling in this game (turns played: {played})")
        if attempt is None:
            attempt = of_turn[-1]["attempt"]
        found = [j for j in of_turn if j["attempt"] == attempt]
        if not found:
            raise UnknownError(f"turn {turn} has no attempt {attempt} (it has {len(of_turn)})")
        return found[0], of_turn

    def dispute(self, turn: int, attempt: int | None = None) -> dict[str, Any]:
        """A ruling of the game in progress for the dispute view: turn *turn*'s
        *attempt* (by default its last: the play that ended it, or the latest
        illegal attempt of the turn in progress), with the boards before and
        after, the ruling, its source, every legal play the throw allowed, the
        turn's other attempts, and the photos judged for it."""
        with self._lock:
            j, of_turn = self._judged_turn(turn, attempt)
            attempt = j["attempt"]
            doc = ruling_doc(j["ruling"], j, j["before"])
            camera = None
            for e in reversed(self.store.game(self._game_id)["log"]):
                if e["kind"] == "reading" and e["data"].get("seq") == j["seq"]:
                    camera = e["data"].get("camera")
                    break
            return {"turn": turn, "attempt": attempt, "attempts": len(of_turn), "player": j["ruling"].player,
                    "player_text": self._who(j["ruling"].player), "dice": list(j["ruling"].dice),
                    "before": j["before"].to_board(), "after": j["seen"].to_board(), "ruling": doc,
                    "source": doc["source"], "legal_plays": j["plays"],
                    "others": [{"attempt": o["attempt"], "verdict": o["ruling"].verdict, "play": o["ruling"].play}
                               for o in of_turn if o["attempt"] != attempt],
                    "camera": camera, "photos": self.photos.of_turn(self._game_id, turn)}

    def presets(self) -> list[dict[str, Any]]:
        """The games a new game may be, with their options (``willughby variants``)."""
        return [p.to_json() for p in PRESETS.values()]


def stored_games(store: Any) -> list[dict[str, Any]]:
    """The games of *store*, newest first (a counting game's players a list of
    names, and its turns its throws)."""
    out = []
    for g in store.games():
        g = dict(g, game_id=g["id"])
        try:
            counting = family_of_preset(g["preset"]).board == "tally"
        except EngineError:
            counting = False
        if counting:
            g["players"] = _tally.names_of(g["players"])
            g["turns"] = len(store.actions(g["id"]))
        out.append(g)
    return out


def stored_game(store: Any, game_id: str) -> dict[str, Any]:
    """One game of *store* with each turn's boards (for replay): the document
    the page's ``/api/games/<id>/export.json`` gives. :class:`UnknownError`
    when *store* has no such game."""
    try:
        g = store.game(game_id)
        record = store.record(game_id)
    except LookupError:                # the store's message names its file: not for the page
        raise UnknownError(f"there is no game {game_id!r}") from None
    out = dict(g, game_id=g["id"])
    family = family_of_preset(record["preset"])
    out["family"] = family.name
    if family.board == "tally":
        out["players"] = _tally.names_of(out["players"])
        out["record"] = family.from_record(record).record()
        out["turns"] = _tally.turns(out["record"], family)
        out["turns_played"] = len(out["turns"])
        return out
    out["record"] = record
    out["turns"] = _board_turns(record)          # every ruling, each with its turn and attempt
    out["turns_played"] = sum(1 for t in out["turns"] if t["verdict"] == "legal")
    return out


def _board_turns(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each judged turn of a record, with the boards before and after it."""
    return [{"turn": j["turn"], "attempt": j["attempt"], "seq": j["seq"],
             "player": j["ruling"].player, "dice": list(j["ruling"].dice),
             "play": j["ruling"].play, "verdict": j["ruling"].verdict,
             "before": j["before"].to_board(), "after": j["after"].to_board(),
             "ruling": j["ruling"].to_json()} for j in judged_turns(record)]


def stored_mat(store: Any, game_id: str) -> str:
    """A game of *store* as a ``.mat`` match file (``matfile.py``):
    :class:`UnknownError` when there is no such game, :class:`CompanionError`
    (saying why) when GNU Backgammon does not play its game."""
    from .matfile import to_mat

    try:
        record = store.record(game_id)
    except LookupError:                # the store's message names its file: not for the page
        raise UnknownError(f"there is no game {game_id!r}") from None
    try:
        return to_mat(record)
    except ValueError as exc:          # the game cannot be written as a .mat (matfile says why)
        raise CompanionError(str(exc)) from None
