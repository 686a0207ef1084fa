"""The HTML pages: the board, the stored games and their replay, the dispute
view and the camera calibration. The server renders the frame and every
piece of text (Jinja escapes it); the scripts in ``static/`` draw the boards
and follow the live state. Data a page's script needs rides in a
``<script type="application/json">`` block (never executed, escaped by
``tojson``), since the Content-Security-Policy allows no inline script.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, g, render_template, request

from willughby.engine.bounds import is_time

from . import security, validate
from .api import presets
from .services import ask, services

__all__ = ["bp", "game_name", "result_text", "when"]

bp = Blueprint("pages", __name__)


@bp.app_context_processor
def _page_context() -> dict[str, Any]:
    return {
        "site_title": services().config.title,
        "control_enabled": services().config.control_enabled,
        "pin_is_passphrase": not services().config.pin.isdigit(),
        "csrf_token": security.csrf_token(),
        "user": security.current_user(),
    }


@bp.app_template_filter("result")
def result_text(result: Any, players: Any = None) -> str:
    """A game's result in words, the winner named as everywhere on the page.

    >>> result_text({"winner": "dark", "kind": "gammon", "stake": 2}, {"light": "Ann", "dark": "Bob"})
    'Bob (dark) wins (gammon, stake 2)'
    >>> result_text({"winner": "dark", "kind": "single", "stake": 1})
    'dark wins (single, stake 1)'
    >>> result_text({"loser": 1, "kind": "single", "stake": 1}, ["Ann", "Bob", "Cat"])
    'Bob pays (single, stake 1)'
    >>> result_text(None)
    'unfinished'
    """
    if isinstance(result, Mapping) and result.get("loser") is not None:
        loser = result["loser"]
        name = None
        if isinstance(players, Mapping):
            name = players.get(str(loser))
        elif isinstance(players, (list, tuple)) and isinstance(loser, int) and 0 <= loser < len(players):
            name = players[loser]
        details = [str(result["kind"])] if result.get("kind") else []
        if result.get("stake") is not None:
            details.append(f"stake {result['stake']}")
        return f"{name or f'player {loser}'} pays" + (f" ({', '.join(details)})" if details else "")
    if isinstance(result, Mapping) and result.get("winner"):
        details = [str(result["kind"])] if result.get("kind") else []
        if result.get("stake") is not None:
            details.append(f"stake {result['stake']}")
        winner = str(result["winner"])
        name = players.get(winner) if isinstance(players, Mapping) else None
        if name and str(name).strip().lower() != winner:
            winner = f"{name} ({winner})"
        return f"{winner} wins" + (f" ({', '.join(details)})" if details else "")
    if isinstance(result, str) and result:
        return result
    return "unfinished"


@bp.app_template_filter("game_name")
def game_name(preset: Any) -> str:
    """A stored game's preset by its name ("Irish", "Backgammon (Cotton)"),
    as the new-game form lists it; an id the presets do not hold, as it is."""
    if "preset_names" not in g:        # asked once a request, however many games are listed
        g.preset_names = {found["id"]: found["name"] for found in presets()}
    names: dict[str, str] = g.preset_names
    return names.get(preset, "" if preset is None else str(preset))


@bp.app_template_filter("when")
def when(value: Any) -> str:
    """A time stamp (ISO text or seconds since the epoch) to the minute.

    >>> when("2025-03-01T20:15:33.5+00:00")
    '2025-03-01 20:15'
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not is_time(value):
            return ""                      # no calendar shows it: one bad game never stops a listing
        try:
            return dt.datetime.fromtimestamp(value).strftime("%Y-%m-%d %H:%M")
        except (OverflowError, OSError, ValueError):
            return ""
    if isinstance(value, str):
        return value.replace("T", " ")[:16]
    return ""


@bp.get("/")
def board() -> str:
    """The board as it stands, live, with the controls. The state rides in
    the page, so the board is drawn as soon as the page has loaded, before
    the live stream's first event."""
    return render_template("board.html", presets=presets(), state=ask(lambda c: c.state()))


@bp.get("/games")
def games() -> str:
    """The stored games, newest first; the game in progress marked as such."""
    return render_template("games.html", games=ask(lambda c: c.games()),
                           current=ask(lambda c: c.state()).get("game_id"))


@bp.get("/games/<game_id>")
def game(game_id: str) -> str:
    """One game, replayed turn by turn."""
    found = ask(lambda c: c.game(game_id))
    replay = {key: found.get(key) for key in ("game_id", "preset", "players", "turns", "turns_played", "family")}
    return render_template("game.html", game=found, replay=replay)


@bp.get("/dispute/<int:turn>")
def dispute(turn: int) -> str:
    """A ruling of the game in progress (turn *turn*, ``?attempt=k``): before
    and after, the ruling and its source, what the throw allowed."""
    found = ask(lambda c: c.dispute(turn, validate.attempt(request.args.get("attempt"))))
    return render_template("dispute.html", dispute=found, turn=turn)


@bp.get("/calibrate")
def calibrate() -> str:
    """Mark the board's four corners on the camera's view."""
    return render_template("calibrate.html")
