"""What the companion shows of games without changing them: the record and disputes.

The stored games, newest first (:meth:`GameViews.games`); one game with
each turn's boards, for replay (:meth:`~GameViews.game`); a game written
as a ``.mat`` file (:meth:`~GameViews.export_mat`); one ruling of the game
in progress with all that bears on it, for the dispute view
(:meth:`~GameViews.dispute`); and the games a new game may be
(:meth:`~GameViews.presets`). Nothing here writes to the store or changes
the game in progress.

:class:`GameViews` is a part of :class:`~willughby.companion.service.Companion`,
which hands it the store, the game in progress (``current_game.py``; what
the views ask of it is :class:`GameInProgress`) and the dispute photos. The views of stored games
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

import threading
from typing import Any, Mapping, Protocol

from willughby.engine.errors import EngineError
from willughby.engine.rules import PRESETS

from .dispute_photos import DisputePhotos
from .errors import CompanionError, UnknownError
from .games import family_of_preset
from .numbering import ruling_doc

__all__ = ["GameViews", "GameInProgress", "stored_games", "stored_game", "stored_mat"]


class GameInProgress(Protocol):
    """What the views ask of the game in progress (the companion answers)."""

    @property
    def lock(self) -> threading.RLock:
        """The game's lock: held while a view reads it."""

    @property
    def id(self) -> str | None:
        """The game in progress's id in the store, or None."""

    def judged_turn(self, turn: int, attempt: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Turn *turn*'s ruling *attempt* (None: its last) and all the turn's rulings; called holding the lock."""

    def who(self, player: Any) -> str:
        """A player in words ("Ann (light)")."""


class GameViews:
    """Read-only views of the stored games and of the game in progress's
    rulings: a part of the companion, handed the store, the game in progress
    (:class:`GameInProgress`) and the dispute photos."""

    def __init__(self, store: Any, game: GameInProgress, photos: DisputePhotos) -> None:
        self.store = store
        self.game_in_progress = game
        self.photos = photos

    def games(self) -> list[dict[str, Any]]:
        """The stored games, newest first (:func:`stored_games`)."""
        return stored_games(self.store)

    def game(self, game_id: str) -> dict[str, Any]:
        """One stored game with each turn's boards, for replay (:func:`stored_game`)."""
        return stored_game(self.store, game_id)

    def export_mat(self, game_id: str) -> str:
        """A stored game as a ``.mat`` match file (:func:`stored_mat`)."""
        return stored_mat(self.store, game_id)

    def dispute(self, turn: int, attempt: int | None = None) -> dict[str, Any]:
        """A ruling of the game in progress for the dispute view: turn *turn*'s
        *attempt* (by default its last: the play that ended it, or the latest
        illegal attempt of the turn in progress), with the boards before and
        after, the ruling, its source, every legal play the throw allowed, the
        turn's other attempts, and the photos judged for it."""
        game = self.game_in_progress
        with game.lock:
            j, of_turn = game.judged_turn(turn, attempt)
            attempt = int(j["attempt"])
            game_id = game.id
            doc = ruling_doc(j["ruling"], j, j["before"])
            camera = None
            for e in reversed(self.store.game(game_id)["log"]):
                if e["kind"] == "reading" and e["data"].get("seq") == j["seq"]:
                    camera = e["data"].get("camera")
                    break
            return {"turn": turn, "attempt": attempt, "attempts": len(of_turn), "player": j["ruling"].player,
                    "player_text": game.who(j["ruling"].player), "dice": list(j["ruling"].dice),
                    "before": j["before"].to_board(), "after": j["seen"].to_board(), "ruling": doc,
                    "source": doc["source"], "legal_plays": j["plays"],
                    "others": [{"attempt": o["attempt"], "verdict": o["ruling"].verdict, "play": o["ruling"].play}
                               for o in of_turn if o["attempt"] != attempt],
                    "camera": camera, "photos": self.photos.of_turn(game_id, turn)}

    @staticmethod
    def presets() -> list[dict[str, Any]]:
        """The games a new game may be, with their options (``willughby variants``)."""
        return [p.to_json() for p in PRESETS.values()]


def stored_games(store: Any) -> list[dict[str, Any]]:
    """The games of *store*, newest first, each as its family lists it (a
    counting game's players a list of names, and its turns its throws)."""
    out = []
    for g in store.games():
        g = dict(g, game_id=g["id"])
        try:
            family = family_of_preset(g["preset"])
        except EngineError:             # a preset this version does not know: listed as stored
            out.append(g)
            continue
        out.append(family.listed(g, store))
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
    out["players"] = family.stored_players(out["players"])
    out.update(family.replay(record))      # the record, every ruling with its boards, the turns played
    return out


def stored_match(store: Any, match_id: str) -> dict[str, Any]:
    """A match of *store* as the engine's match record (``willughby-match/1``, ``docs/matches.md``), with its
    row's id, status and times: :class:`UnknownError` when there is no such match."""
    if not store.has_matches():             # a store of schema 1, read where nothing may be written
        raise UnknownError(f"there is no match {match_id!r}: this store holds no matches")
    try:
        row = store.match(match_id)
        record = store.match_record(match_id)
    except LookupError:
        raise UnknownError(f"there is no match {match_id!r}") from None
    return dict(record, id=match_id, status=row["status"], started=row["started"], ended=row["ended"])


def stored_match_mat(store: Any, match_id: str) -> str:
    """A match of *store* as a ``.mat`` file (``matfile.match_to_mat``): every game, the score before each;
    :class:`UnknownError` when there is no such match, :class:`CompanionError` where GNU Backgammon does not
    play its game."""
    from .matfile import match_to_mat

    record = stored_match(store, match_id)
    try:
        return match_to_mat(record)
    except ValueError as exc:
        raise CompanionError(str(exc)) from None


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
