"""A dispute settled by a photo: taken on the page, judged, kept with the game.

On the dispute view of a turn (``/dispute/<turn>``) a player takes or
uploads a photo of the board as it stood after the turn. The companion
takes it in safely (:mod:`.photos`), keeps it under the data directory
beside the game, and proposes the board's corners (the board finder,
``willughby.vision.board_finder``: the printed markers where they are,
else the board found in the picture, its corners named by reading it as
the board the referee ruled); the player confirms or nudges them, and the
turn is judged from the photo as ``willughby judge --after-image`` judges
it (:func:`~willughby.companion.photo_judge.judge_photo`): the board
before and the throw are the turn's, and the photo's board is weighed
against every legal play of the throw.

A photo's ruling changes nothing in the game: it is evidence for the
players, kept beside the photo and entered in the game's log (a ``photo``
entry: the turn, the photo, the verdict and the play), so the record shows
that the turn was disputed and what the photo said. Putting the game right
is then the players' to do, with the controls they already have (undo,
entering the board).

:class:`DisputePhotos` is a part of
:class:`~willughby.companion.service.Companion`, which hands it the folder
the photos are kept in and itself, as what the photos ask of the game in
progress (:class:`TurnsOfTheGame`): a turn's ruling, and a line in the
game's log.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from .errors import CompanionError, NotNowError, UnknownError
from .photos import MAX_PHOTO_BYTES, PhotoRefused, PhotoStore, decode_photo

__all__ = ["DisputePhotos", "JudgedTurn", "TurnsOfTheGame"]

log = logging.getLogger(__name__)

#: the most candidates of a photo's ruling shown and kept
SHOWN_CANDIDATES = 6


class TurnsOfTheGame(Protocol):
    """What the photos ask of the game in progress (the companion answers)."""

    def judged_turn_for_photo(self, turn: int, attempt: int | None) -> JudgedTurn:
        """Turn *turn*'s ruling *attempt* (None: its last) of the game in progress."""

    def record_photo(self, game_id: str, entry: dict[str, Any], who: str) -> None:
        """Enter a photo's ruling in the log of *game_id* (if it is still the game in progress)."""


@dataclass(frozen=True)
class JudgedTurn:
    """A turn of the game in progress as a photo is judged against it."""

    game_id: str
    turn: int
    attempt: int
    rules: Any
    before: Any
    dice: tuple[int, ...]
    seen: dict[str, Any]
    referee: dict[str, Any]


class DisputePhotos:
    """The photos brought to the disputes of the games, kept under one folder
    (None: photos are not kept), judged against the game's turns."""

    def __init__(self, store: PhotoStore | None, game: TurnsOfTheGame) -> None:
        self.store = store
        self.game = game

    @property
    def max_photo_bytes(self) -> int:
        """The largest photo taken (0: none, where photos are not kept)."""
        return MAX_PHOTO_BYTES if self.store is not None else 0

    def _kept(self) -> PhotoStore:
        if self.store is None:
            raise NotNowError("photos are not kept here: the companion has no data directory")
        return self.store

    def of_turn(self, game_id: str | None, turn: int) -> list[dict[str, Any]]:
        """The photos of *game_id* brought to turn *turn*, each with its last
        ruling (``{"photo", "attempt", "who", "at", "size", "proposed", "ruling"}``)."""
        if self.store is None or game_id is None:
            return []
        out = []
        for doc in self.store.of_game(game_id):
            if doc.get("turn") == turn:
                rulings = doc.get("rulings") or []
                out.append({"photo": doc["photo"], "attempt": doc.get("attempt"), "who": doc.get("who"),
                            "at": doc.get("at"), "size": doc.get("size"),
                            "proposed": doc.get("proposed"), "ruling": rulings[-1] if rulings else None})
        return out

    def add(self, turn: int, attempt: int | None, data: bytes, who: str = "page") -> dict[str, Any]:
        """Take in a photo of the board after turn *turn* (its ruling
        *attempt*; None: the last) and keep it; returns ``{"photo", "size",
        "corners", "found_by", "order_known"}``, the corners proposed (None
        where the board was not found: the player marks them)."""
        judged = self.game.judged_turn_for_photo(turn, attempt)
        store = self._kept()
        try:
            image = decode_photo(data)
        except PhotoRefused as exc:
            raise CompanionError(str(exc)) from exc
        proposal = _propose(image, judged.seen)
        about = {"turn": turn, "attempt": judged.attempt, "who": who, "bytes": len(data), "proposed": proposal}
        try:
            photo_id = store.add(judged.game_id, image, about)
        except OSError as exc:
            raise CompanionError(f"the photo could not be kept: {exc.strerror or exc}") from None
        log.info("%s brought photo %s to turn %s of game %s", who, photo_id, turn, judged.game_id)
        return {"photo": photo_id, "turn": turn, "attempt": judged.attempt,
                "size": [int(image.shape[1]), int(image.shape[0])],
                "corners": proposal["corners"] if proposal else None,
                "found_by": proposal["found_by"] if proposal else None,
                "order_known": bool(proposal and proposal["order_known"])}

    def jpeg(self, game_id: str, photo_id: str) -> bytes:
        """A photo of *game_id*, as kept (JPEG)."""
        try:
            return self._kept().jpeg(game_id, photo_id)
        except LookupError as exc:
            raise UnknownError(str(exc)) from None

    def judge(self, game_id: str, photo_id: str, corners: Sequence[Sequence[float]],
              who: str = "page") -> dict[str, Any]:
        """Judge the turn a kept photo of *game_id* was brought to, its
        board's corners C1..C4 at *corners* (pixels of the photo as kept); the
        ruling is kept beside the photo and entered in the game's log. Returns
        it: ``{"photo", "turn", "attempt", "verdict", "play", "reason",
        "citation", "candidates": [{"play", "p", "other"}, ...], "notes",
        "corners", "referee": {"verdict", "play"}}`` (``referee``: what the
        referee ruled the turn)."""
        from willughby.vision.errors import VisionError
        from willughby.vision.turns import OTHER

        from .photo_judge import judge_photo

        store = self._kept()
        try:
            about = store.about(game_id, photo_id)
        except LookupError as exc:
            raise UnknownError(str(exc)) from None
        judged = self.game.judged_turn_for_photo(int(about["turn"]), about.get("attempt"))
        image = store.image(game_id, photo_id)
        h, w = image.shape[:2]
        points = _corners_in(corners, w, h)
        try:
            doc = judge_photo(judged.rules, judged.before, judged.dice, image, points, marked_by_hand=True)
        except VisionError as exc:
            raise CompanionError(f"the photo cannot be read with these corners: {exc}") from None
        ruling = {"photo": photo_id, "turn": about["turn"], "attempt": about.get("attempt"), "who": who,
                  "verdict": doc["verdict"], "play": doc.get("play"), "reason": doc.get("reason"),
                  "citation": doc.get("citation"), "settled": doc.get("settled"), "notes": doc.get("notes", []),
                  "candidates": [{"play": c["play"], "p": c["p"], "other": c["play"] == OTHER}
                                 for c in doc["candidates"][:SHOWN_CANDIDATES]],
                  "corners": doc["corners"], "marked": [[float(x), float(y)] for x, y in points],
                  "referee": judged.referee}
        try:
            store.add_ruling(game_id, photo_id, ruling)
        except OSError as exc:
            raise CompanionError(f"the ruling could not be kept: {exc.strerror or exc}") from None
        entry = {k: ruling[k] for k in ("photo", "turn", "attempt", "verdict", "play", "reason", "citation")}
        self.game.record_photo(game_id, entry, who)
        return ruling


def _corners_in(corners: Sequence[Sequence[float]], width: int, height: int) -> list[list[float]]:
    """Four corners as numbers within (or just beyond) a photo of *width* x *height*."""
    try:
        points = [[float(x), float(y)] for x, y in corners]
    except (TypeError, ValueError):
        raise CompanionError("the corners must be four [x, y] pairs of numbers") from None
    if len(points) != 4 or not all(math.isfinite(v) for p in points for v in p):
        raise CompanionError("the corners must be four [x, y] pairs of numbers")
    for x, y in points:
        if not (-0.05 * width <= x <= 1.05 * width and -0.05 * height <= y <= 1.05 * height):
            raise CompanionError(f"the corners must lie in the photo ({width} x {height} pixels), not at [{x}, {y}]")
    return points


def _propose(image: Any, known: dict[str, Any]) -> dict[str, Any] | None:
    """The board finder's corners for a photo of *known* (or None): a
    proposal the player confirms or nudges, so a finder that fails costs a
    tap, never the photo."""
    from willughby.vision.board_finder import propose_corners
    from willughby.vision.errors import VisionError

    try:
        found = propose_corners(image, known=known)
    except VisionError as exc:    # a picture the finder cannot take: the player marks the corners
        log.info("no corners proposed for a dispute photo: %s", exc)
        return None
    if found is None:
        return None
    return {"corners": [[round(float(x), 1), round(float(y), 1)] for x, y in found.corners],
            "found_by": found.found_by, "order_known": bool(found.order_known)}
