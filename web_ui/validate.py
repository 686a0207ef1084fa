"""Checks of request bodies at the edge, before the companion is asked.

Each function takes the JSON body and returns the clean value, or raises
:class:`~willughby.web_ui.errors.BadRequestError` with a message that names
the field. What only the game can judge (a preset's name, dice the preset
cannot throw, a board that cannot stand) is left to the companion.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .errors import BadRequestError, NotFoundError

__all__ = [
    "MAX_NAME",
    "CUBE_ACTIONS",
    "login",
    "new_game",
    "dice",
    "board",
    "answer",
    "cube",
    "corners",
]

#: the longest player name the page takes
MAX_NAME = 40
MAX_PLAYERS = 5           # the most players a game has (Sice-Ace)

CUBE_ACTIONS = ("double", "take", "drop", "beaver")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(body: dict[str, Any], field: str, *, required: bool = True, limit: int = 200,
          label: str | None = None) -> str:
    value = body.get(field)
    label = label or repr(field)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise BadRequestError(f"{label} must be a string")
    value = value.strip()
    if required and not value:
        raise BadRequestError(f"{label} must not be empty")
    if len(value) > limit:
        raise BadRequestError(f"{label} must be at most {limit} characters")
    return value


def attempt(text: str | None) -> int | None:
    """The ``attempt`` query parameter of a dispute address: a whole number
    from 1, or None where it is absent.

    >>> attempt("2"), attempt(None)
    (2, None)
    """
    if text is None or text == "":
        return None
    if not text.isdigit() or not 1 <= int(text) <= 999:
        raise BadRequestError(f"'attempt' must be a whole number from 1, not {text[:20]!r}")
    return int(text)


def login(body: dict[str, Any]) -> tuple[str, str]:
    """The PIN and the optional player name of a login.

    >>> login({"pin": "1234", "name": " Ann "})
    ('1234', 'Ann')
    """
    pin = body.get("pin")
    if not isinstance(pin, str) or not pin:
        raise BadRequestError("'pin' must be a non-empty string")
    return pin, _text(body, "name", required=False, limit=MAX_NAME)


def new_game(body: dict[str, Any]) -> tuple[str, dict[str, str], Any]:
    """The preset, the options (``name -> value`` as strings) and the players of a new game:
    ``{"light", "dark"}`` for the games on the board, or a list of two to five names in turn
    order for a counting game (Sice-Ace; the game checks the count against ``players``).

    >>> new_game({"preset": "irish", "options": {"cube": True}, "players": {"light": "Ann"}})
    ('irish', {'cube': 'true'}, {'light': 'Ann'})
    >>> new_game({"preset": "sice-ace", "players": ["Ann", " Bob ", "Cat"]})
    ('sice-ace', {}, ['Ann', 'Bob', 'Cat'])
    """
    preset = _text(body, "preset", limit=60)
    options: dict[str, str] = {}
    raw_options = body.get("options", {})
    if not isinstance(raw_options, dict):
        raise BadRequestError("'options' must be an object of name: value")
    for name, value in raw_options.items():
        if not name.strip():
            raise BadRequestError("'options' has an empty option name")
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif _is_int(value):
            value = str(value)
        elif not isinstance(value, str):
            raise BadRequestError(f"option {name!r} must be a string, number or true/false")
        options[name.strip()] = value.strip()
    players: dict[str, str] = {}
    raw_players = body.get("players", {})
    if isinstance(raw_players, list):
        if not 1 <= len(raw_players) <= MAX_PLAYERS:
            raise BadRequestError(f"'players' as a list names 1 to {MAX_PLAYERS} players, not {len(raw_players)}")
        names = {str(k): v for k, v in enumerate(raw_players)}
        return preset, options, [_text(names, str(k), required=False, limit=MAX_NAME, label=f"'players[{k}]'")
                                 for k in range(len(raw_players))]
    if not isinstance(raw_players, dict):
        raise BadRequestError("'players' must be an object with 'light' and 'dark'")
    for side, name in raw_players.items():
        if side not in ("light", "dark"):
            raise BadRequestError(f"'players' takes 'light' and 'dark', not {side!r}")
        name = _text(raw_players, side, required=False, limit=MAX_NAME, label=f"'players.{side}'")
        if name:
            players[side] = name
    return preset, options, players


def dice(body: dict[str, Any]) -> list[int]:
    """The dice thrown: a list of one to three whole numbers from 1 to 6.

    >>> dice({"dice": [6, 3]})
    [6, 3]
    """
    value = body.get("dice")
    if not isinstance(value, list) or not 1 <= len(value) <= 3 \
            or not all(_is_int(d) and 1 <= d <= 6 for d in value):
        raise BadRequestError("'dice' must be a list of one to three whole numbers from 1 to 6")
    return list(value)


def board(body: dict[str, Any]) -> dict[str, Any]:
    """The board document (checked in full by the companion)."""
    value = body.get("board")
    if not isinstance(value, dict):
        raise BadRequestError("'board' must be a board document (a JSON object)")
    return value


def answer(body: dict[str, Any]) -> tuple[str, int]:
    """The question's id and the index of the choice.

    >>> answer({"question": "q-3", "choice": 1})
    ('q-3', 1)
    """
    question = _text(body, "question", limit=100)
    choice = body.get("choice")
    if not isinstance(choice, int) or isinstance(choice, bool) or choice < 0:
        raise BadRequestError("'choice' must be a whole number from 0 (the index of a choice)")
    return question, choice


def match_length(body: dict[str, Any]) -> int:
    """The points a match is played to: a whole number from 1 to 64.

    >>> match_length({"length": 5})
    5
    """
    value = body.get("length")
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 64:
        raise BadRequestError(f"'length' is the points a match is played to, 1 to 64, not {value!r}")
    return value


def clock_terms(body: dict[str, Any]) -> dict[str, Any] | None:
    """A match's clock (``"clock"``, optional; null: none): an object of ``reserve_s`` and ``delay_s``
    (numbers of seconds) and ``mode`` and ``on_flag`` (words); what they may be is the companion's to say.

    >>> clock_terms({"clock": {"reserve_s": 600, "delay_s": 12}}), clock_terms({})
    ({'reserve_s': 600, 'delay_s': 12}, None)
    """
    value = body.get("clock")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadRequestError("'clock' must be an object (reserve_s, delay_s, mode, on_flag) or null")
    out: dict[str, Any] = {}
    for name, item in value.items():
        if name in ("reserve_s", "delay_s"):
            if isinstance(item, bool) or not isinstance(item, (int, float)) or item != item:
                raise BadRequestError(f"'clock.{name}' must be a number of seconds, not {item!r}")
        elif name in ("mode", "on_flag"):
            if not isinstance(item, str) or len(item) > 20:
                raise BadRequestError(f"'clock.{name}' must be a word, not {item!r}")
        else:
            raise BadRequestError(f"'clock' takes reserve_s, delay_s, mode and on_flag, not {name!r}")
        out[name] = item
    return out


def cube(body: dict[str, Any]) -> str:
    """The cube action: ``double``, ``take``, ``drop`` or ``beaver``."""
    action = body.get("action")
    if action not in CUBE_ACTIONS:
        raise BadRequestError(f"'action' must be one of {', '.join(CUBE_ACTIONS)}")
    return str(action)


def corners(body: dict[str, Any]) -> list[list[float]]:
    """The four corners C1..C4 as ``[x, y]`` pairs of finite numbers (pixels).

    >>> corners({"corners": [[0, 0], [10, 0], [10, 5], [0, 5.5]]})
    [[0.0, 0.0], [10.0, 0.0], [10.0, 5.0], [0.0, 5.5]]
    """
    value = body.get("corners")
    message = "'corners' must be four [x, y] pairs of finite numbers (C1, C2, C3, C4)"
    if not isinstance(value, list) or len(value) != 4:
        raise BadRequestError(message)
    out: list[list[float]] = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in pair):
            raise BadRequestError(message)
        out.append([float(pair[0]), float(pair[1])])
    return out


def flag(body: dict[str, Any], name: str, default: bool = False) -> bool:
    """An optional true/false field (absent: *default*).

    >>> flag({"c1_confirmed": True}, "c1_confirmed"), flag({}, "c1_confirmed"), flag({}, "crawford", True)
    (True, False, True)
    """
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise BadRequestError(f"'{name}' must be true or false, not {value!r}")
    return value


_PHOTO_ID = re.compile(r"p-[0-9a-f]{12}")


def photo_id(text: str) -> str:
    """A dispute photo's id from an address (``p-`` and twelve hex digits);
    anything else is no such photo (404), never a path.

    >>> photo_id("p-0123456789ab")
    'p-0123456789ab'
    """
    if not _PHOTO_ID.fullmatch(text):
        raise NotFoundError("there is no such photo")
    return text
