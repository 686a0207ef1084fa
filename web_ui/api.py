"""The JSON API (``/api/...``): the state, the record, the camera, the login,
and the controls, which need the PIN and the CSRF token (``security.py``).

Errors are ``{"error": "one clear sentence"}`` with the status of the page's
error (``errors.py``): 400 bad input, 403 not allowed, 404 no such thing,
409 not now, 415 not JSON, 429 too many wrong PINs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from flask import Blueprint, Response, jsonify, request

from willughby.engine.rules import PRESETS

from . import security, validate
from .errors import BadRequestError, ForbiddenError, NotFoundError, PayloadTooLargeError
from .services import ask, services

__all__ = ["bp", "DEFAULT_PRESETS", "presets", "PHOTO_UPLOAD_PATH", "UPLOAD_OVERHEAD", "size_text",
           "photo_too_large"]

bp = Blueprint("api", __name__, url_prefix="/api")

#: offered when the companion cannot list its presets: the engine's, as (id, name)
DEFAULT_PRESETS = tuple((preset.id, preset.name) for preset in PRESETS.values())


@bp.before_request
def _refuse_cross_site_posts() -> None:
    if request.method == "POST":
        security.check_origin()


def _ok(**extra: Any) -> Response:
    return jsonify({"ok": True, **extra})


def _attachment(body: str | bytes, mimetype: str, filename: str) -> Response:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", filename)
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{safe}"'
    return response


# -- reading ------------------------------------------------------------------

@bp.get("/state")
def state() -> Response:
    """The current state document (web_ui/contract.py)."""
    return jsonify(ask(lambda c: c.state()))


@bp.get("/games")
def games() -> Response:
    """The stored games, newest first: ``{"games": [...]}``."""
    return jsonify({"games": ask(lambda c: c.games())})


@bp.get("/games/<game_id>")
def game(game_id: str) -> Response:
    """One stored game with its record, log and turns."""
    return jsonify(ask(lambda c: c.game(game_id)))


@bp.get("/games/<game_id>/export.json")
def export_json(game_id: str) -> Response:
    """One stored game as a JSON file to download."""
    body = json.dumps(ask(lambda c: c.game(game_id)), indent=1, ensure_ascii=False)
    return _attachment(body, "application/json", f"{game_id}.json")


@bp.get("/games/<game_id>/export.mat")
def export_mat(game_id: str) -> Response:
    """One stored game as a GNU Backgammon match file (backgammon only)."""
    return _attachment(ask(lambda c: c.export_mat(game_id)), "text/plain", f"{game_id}.mat")


@bp.get("/dispute/<int:turn>")
def dispute(turn: int) -> Response:
    """A ruling of the game in progress for the dispute view: turn *turn*'s
    last ruling, or its ``?attempt=k``."""
    return jsonify(ask(lambda c: c.dispute(turn, validate.attempt(request.args.get("attempt")))))


#: the address a dispute photo is uploaded to (the server takes a larger body there: web_ui/server.py)
PHOTO_UPLOAD_PATH = re.compile(r"/api/dispute/[0-9]+/photo")
#: what a multipart upload adds to the photo's own bytes, at most
UPLOAD_OVERHEAD = 64 * 1024


def size_text(n: int) -> str:
    """A limit on a body's size in words: whole megabytes (2**20 bytes) as MB, kibibytes as KiB.

    >>> size_text(20 * 1024 * 1024), size_text(256 * 1024), size_text(1000)
    ('20 MB', '256 KiB', '1000 bytes')
    """
    if n >= 1024 * 1024 and n % (1024 * 1024) == 0:
        return f"{n // (1024 * 1024)} MB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n} bytes"


def photo_too_large(limit: int) -> str:
    """What a dispute photo past *limit* bytes is answered (413), however far past it is."""
    return f"the photo is larger than {size_text(limit)}, the most taken"


@bp.post("/dispute/<int:turn>/photo")
def dispute_photo(turn: int) -> Response:
    """A photo of the board after turn *turn* (``?attempt=k``), uploaded as
    ``multipart/form-data`` in the field ``photo``: kept with the game, its
    corners proposed. ``{"photo", "size", "corners" or null, "found_by", ...}``."""
    who = security.control_check()
    limit = int(getattr(services().companion, "max_photo_bytes", 0) or 0)
    if limit <= 0:
        raise ForbiddenError("photos are not taken here")
    request.max_content_length = limit + UPLOAD_OVERHEAD     # past it, Flask answers 413 before parsing
    if not request.mimetype == "multipart/form-data":
        raise BadRequestError("send the photo as multipart/form-data, in the field 'photo'")
    upload = request.files.get("photo")
    if upload is None:
        raise BadRequestError("the field 'photo' is missing: choose a photo to send")
    data = upload.stream.read(limit + 1)
    if len(data) > limit:
        raise PayloadTooLargeError(photo_too_large(limit))
    attempt = validate.attempt(request.args.get("attempt"))
    return jsonify(ask(lambda c: c.add_dispute_photo(turn, attempt, data, who)))


@bp.get("/photos/<photo>.jpg")
def photo_jpeg(photo: str) -> Response:
    """A dispute photo of the game in progress, as kept."""
    return Response(ask(lambda c: c.dispute_photo_jpeg(validate.photo_id(photo))), mimetype="image/jpeg")


@bp.post("/photos/<photo>/judge")
def judge_photo(photo: str) -> Response:
    """``{"corners": [[x, y] x4]}``: judge the turn a kept photo was brought
    to, with the board's corners C1..C4 (pixels of the photo as kept)."""
    body, who = security.control_request()
    return jsonify(ask(lambda c: c.judge_dispute_photo(validate.photo_id(photo), validate.corners(body), who)))


def presets() -> list[dict[str, str]]:
    """The presets a new game may use, as ``{"id", "name"}``: the companion's,
    where it lists them (``presets()``, beyond the contract), else :data:`DEFAULT_PRESETS`."""
    listing = getattr(services().companion, "presets", None)
    if not callable(listing):
        return [{"id": id_, "name": name} for id_, name in DEFAULT_PRESETS]
    found: Iterable[Any] = listing()
    if isinstance(found, dict):  # {"presets": [...]}, as `willughby variants --json` prints
        found = found.get("presets", [])
    out = []
    for item in found:
        if isinstance(item, str):
            out.append({"id": item, "name": item})
        elif isinstance(item, dict) and isinstance(item.get("id"), str):
            out.append({"id": item["id"], "name": str(item.get("name") or item["id"])})
    return out


@bp.get("/presets")
def list_presets() -> Response:
    """``{"presets": [{"id", "name"}, ...]}`` for the new-game form."""
    return jsonify({"presets": presets()})


@bp.get("/camera.jpg")
def camera_jpg() -> Response:
    """The camera's latest view as a JPEG."""
    image, _found = _snapshot()
    return Response(image, mimetype="image/jpeg")


@bp.get("/camera")
def camera() -> Response:
    """What the camera found: ``{"corners": [[x, y] x4] or null, "proposed": [[x, y] x4] or null,
    "found_by", "size": [w, h]}`` (web_ui/contract.py)."""
    _image, found = _snapshot()
    return jsonify(found)


def _snapshot() -> tuple[bytes, dict[str, Any]]:
    snapshot = ask(lambda c: c.camera_snapshot())
    if snapshot is None:
        raise NotFoundError("there is no camera")
    image, found = snapshot
    return image, found


# -- logging in -----------------------------------------------------------------

@bp.post("/login")
def login() -> Response:
    """``{"pin", "name"?}`` -> ``{"ok": true, "csrf": token, "name": who}``."""
    config, limiter = services().config, services().limiter
    if not config.control_enabled:
        raise ForbiddenError("control from the page is off: no PIN is set")
    key = security.client_key()
    limiter.check(key)
    pin, name = validate.login(security.json_body())
    if not security.pin_matches(pin):
        limiter.failed(key)
        raise ForbiddenError("wrong PIN")
    limiter.succeeded(key)
    token = security.log_in(name)
    return _ok(csrf=token, name=security.current_user())


@bp.post("/logout")
def logout() -> Response:
    """Forget the login (a session that is not logged in needs no token)."""
    if security.logged_in():
        security.check_csrf()
    security.log_out()
    return _ok()


# -- control (PIN and CSRF token) -------------------------------------------------

@bp.post("/game")
def new_game() -> Response:
    """``{"preset", "options": {}, "players": {"light", "dark"}, "abandon_match": false}``: start a new game
    (in the middle of a match, only with ``abandon_match``)."""
    body, who = security.control_request()
    preset, options, players = validate.new_game(body)
    abandon = validate.flag(body, "abandon_match")
    return jsonify(ask(lambda c: c.new_game(preset, options, players, who, abandon_match=abandon)))


@bp.post("/match")
def new_match() -> Response:
    """``{"length", "preset": "backgammon", "options": {}, "players": {"light", "dark"}, "crawford": true,
    "clock": null}`` (all but ``length`` optional): start a match to *length* points (docs/matches.md) and its
    first game; ``clock``, ``{"reserve_s", "delay_s", "mode", "on_flag"}``, gives it a tournament clock."""
    body, who = security.control_request()
    preset, options, players = validate.new_game({"preset": "backgammon", **body})
    length = validate.match_length(body)
    crawford = validate.flag(body, "crawford", default=True)
    clock = validate.clock_terms(body)
    return jsonify(ask(lambda c: c.new_match(length, preset, options, players, crawford, who, clock=clock)))


@bp.post("/match/next")
def next_game() -> Response:
    """``{}``: begin the next game of the match in play, once the game in progress is over."""
    _body, who = security.control_request()
    return jsonify(ask(lambda c: c.next_game(who)))


@bp.post("/done")
def done() -> Response:
    """``{}``: the page's DONE, as the box's button: the camera reads the board now, and the turn (and the
    match's clock) passes once the play is ruled."""
    _body, who = security.control_request()

    def pressed(c: Any) -> Any:
        c.press("done", who)
        return c.state()
    return jsonify(ask(pressed))


@bp.post("/clock")
def clock() -> Response:
    """``{"hold": true}``: hold the match's clock (a ruling contested, the director called); ``false``: let
    it run again."""
    body, who = security.control_request()
    held = validate.flag(body, "hold")
    return jsonify(ask(lambda c: c.hold_clock(held, who)))


@bp.post("/dice")
def dice() -> Response:
    """``{"dice": [6, 3]}``: dice thrown by hand."""
    body, who = security.control_request()
    return jsonify(ask(lambda c: c.enter_dice(validate.dice(body), who)))


@bp.post("/board")
def board() -> Response:
    """``{"board": {board document}}``: the board as it stands, judged as the move."""
    body, who = security.control_request()
    return jsonify(ask(lambda c: c.submit_board(validate.board(body), who)))


@bp.post("/answer")
def answer() -> Response:
    """``{"question": id, "choice": index}``: answer the open question."""
    body, who = security.control_request()
    question, choice = validate.answer(body)
    return jsonify(ask(lambda c: c.answer(question, choice, who)))


@bp.post("/undo")
def undo() -> Response:
    """Take back the last turn."""
    _body, who = security.control_request()
    return jsonify(ask(lambda c: c.undo(who)))


@bp.post("/cube")
def cube() -> Response:
    """``{"action": "double" | "take" | "drop" | "beaver"}``."""
    body, who = security.control_request()
    return jsonify(ask(lambda c: c.cube(validate.cube(body), who)))


@bp.post("/calibrate")
def calibrate() -> Response:
    """``{"corners": [[x, y] x4], "c1_confirmed": bool}``: save the board's corners C1..C4. Where the
    picture does not tell their order, they are saved only once the players confirmed that the first is C1
    (``c1_confirmed``); else 409 with ``"order_known": false``."""
    body, who = security.control_request()
    corners, confirmed = validate.corners(body), validate.flag(body, "c1_confirmed")
    return jsonify(ask(lambda c: c.calibrate(corners, who, c1_confirmed=confirmed)))
