"""What the page needs of the companion it is handed (docs/house-conventions.md: the web app
imports engine types at most, the companion's documents as types alone
(``companion/documents.py``, for the type checker), and the companion only
as the object it is handed). ``willughby.companion.service.Companion`` is one; the tests' fake
is another.

Every method returns JSON-ready values. The companion *declares* the
errors that are answers rather than faults (``declared_errors``), each a
subclass of a built-in kind, which the page maps to HTTP statuses:
``ValueError`` (bad input: 400), ``LookupError`` (no such game, turn or
question: 404), ``RuntimeError`` (not now: the game is not at that step:
409), ``OSError`` (not kept: the referee's store cannot be written now, a
full disk; nothing was done: 503). Anything else it raises is a fault:
logged with its traceback and answered 500.

The state document (``GET /api/state``, ``docs/control-api.md``)::

    {"game_id": "g-...", "preset": "backgammon", "players": {"light": "Ann", "dark": "Bob"},
     "board": {board document with "turn"}, "dice": [6, 3] or null,
     "turn_number": 4, "turns_played": 3,
     "phase": "throw" | "move" | "cube" | "start" | "over" | ...,
     "awaiting": "Bob (dark) is to throw (or double)",
     "rulings": [{"verdict", "play", "events", "reason", "citation", "turn", "attempt", "seq",
                  "player", "dice", "source": {"key", "citation", "quote"} or null}, ...],
     "game_over": null or {"winner", "kind", "stake"},
     "cube": {"value": 1, "owner": null, "offered_by": null, "enabled": false},
     "question": null or {"id": "q-3", "text": "...", "about": "Turn 4: Bob (dark) threw 6-3",
                          "turn": 4, "player": "dark", "dice": [6, 3], "reading": {board document},
                          "choices": [{"index": 0, "play": "8/5 6/5", "board": {board document}}, ...]},
     "announcements": [{"n": 12, "text": "Ann (light) hits dark's blot on light's 20 point (dark's 5)", "kind": "hit"}, ...],
     "last_play": null or {"turn": 3, "player": "light", "play": "13/9 6/5*",
                          "before": {board document}, "after": {board document}},
     "devices": {"camera": "ok" | "absent" | "...", "dice": "...", "speech": bool},
     "undo": null or "the throw of Bob (dark): 6-3",
     "family": "race", "board_kind": "points" | "piles" | "tally",
     "stakes": [{"kind": "single", "stake": 1}, {"kind": "gammon", "stake": 2}, ...],
     "score": null or {"games": 4, "light": 3, "dark": 1},
     "version": 17}

Turns are numbered one way everywhere: a turn is one player's go (the
throw and the play made with it, a pass included), numbered from 1; a board
ruled illegal is an attempt within the turn in progress (``attempt`` 1, 2,
...), not a turn; a turn taken back is no longer counted. ``turn_number``
is the turn in progress (once the game is over, its last turn) and
``turns_played`` the turns completed, as the games list's ``turns``.

``version`` grows by one with every change; the events stream sends the
whole state each time it changes (the first event on connect, then one per
change).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from willughby.companion.documents import StateDoc

__all__ = ["CompanionLike", "Subscription"]


class Subscription(Protocol):
    """A stream of states for one events client."""

    def get(self, timeout: float | None = None) -> "StateDoc | None":
        """The next state document, or None when none came within *timeout*."""

    def close(self) -> None:
        """Stop receiving; harmless twice."""


class CompanionLike(Protocol):
    """The companion, as the page sees it."""

    #: the errors that answer a request (bad input, no such thing, not now)
    declared_errors: tuple[type[Exception], ...]

    def state(self) -> "StateDoc":
        """The current state document."""

    def subscribe(self) -> Subscription:
        """A new subscription; its first ``get`` returns the current state."""

    def set_device(self, name: str, status: Any) -> None:
        """A live status for the players, in the state's ``devices`` (the page's own: ``logins``,
        someone guessing the PIN); ``{"alert": text}`` is shown where no one misses it, None clears it."""

    # -- control (the page asks for the PIN first) -------------------------
    def new_game(self, preset: str, options: dict[str, str], players: dict[str, str], who: str, *,
                 abandon_match: bool = False) -> "StateDoc":
        """Start a new game (the one in progress ends unfinished; in the middle of a match, only with
        *abandon_match*); returns the state."""

    def new_match(self, length: int, preset: str, options: dict[str, str], players: dict[str, str],
                  crawford: bool, who: str, clock: dict[str, Any] | None = None) -> "StateDoc":
        """Start a match to *length* points and its first game (docs/matches.md), with a tournament clock
        where *clock* gives its terms (``reserve_s``, ``delay_s``, ``mode``, ``on_flag``); returns the
        state."""

    def next_game(self, who: str) -> "StateDoc":
        """Begin the next game of the match in play, once the game in progress is over; returns the state."""

    def enter_dice(self, dice: list[int], who: str) -> "StateDoc":
        """Dice thrown by hand, entered on the page (for the roll for start, one die each: light's then dark's)."""

    def submit_board(self, board: dict[str, Any], who: str) -> "StateDoc":
        """The board as it stands now, set by hand: judged as the player's move."""

    def answer(self, question_id: str, choice: int, who: str) -> "StateDoc":
        """Answer an open question with the index of one of its choices."""

    def undo(self, who: str) -> "StateDoc":
        """Take back the last turn (recorded, not erased)."""

    def cube(self, action: str, who: str) -> "StateDoc":
        """``"double"``, ``"take"``, ``"drop"`` or ``"beaver"``."""

    def press(self, button: str, who: str) -> None:
        """DONE (or UNDO) pressed: the page's own button, as the box's."""

    def hold_clock(self, held: bool, who: str) -> "StateDoc":
        """Hold the match's clock (a ruling contested, the director called) or let it run again."""

    # -- the record ---------------------------------------------------------
    def games(self) -> list[dict[str, Any]]:
        """The stored games, newest first: ``{"game_id", "preset", "players", "started", "ended",
        "result", "turns"}``."""

    def game(self, game_id: str) -> dict[str, Any]:
        """One game: ``{"game_id", ..., "record": {engine game record}, "log": [{"n", "kind", "who", "at",
        "data"}, ...], "turns": [{"turn", "player", "dice", "play", "before", "after", "ruling"}, ...]}``."""

    def export_mat(self, game_id: str) -> str:
        """The game as a GNU Backgammon ``.mat`` match file (backgammon only; ValueError otherwise)."""

    def dispute(self, turn: int, attempt: int | None = None) -> dict[str, Any]:
        """A ruling of the game in progress for the dispute view, turn *turn*'s
        *attempt* (None: its last): ``{"turn", "attempt", "attempts", "player",
        "player_text", "dice", "before", "after", "ruling", "source": {"key",
        "citation", "quote"} or null, "legal_plays": [{"play", "board"}, ...],
        "others": [{"attempt", "verdict", "play"}, ...], "camera": null or {"verdict",
        "candidates": [{"play", "p"}, ...], "notes"} (what the turn reader weighed), "photos":
        [{"photo", "attempt", "who", "at", "size", "proposed", "ruling"}, ...] (the photos brought to it)}``."""

    # -- photos brought to a dispute (the page asks for the PIN first) -----------
    @property
    def max_photo_bytes(self) -> int:
        """The largest photo taken, in bytes (0: photos are not taken)."""

    def add_dispute_photo(self, turn: int, attempt: int | None, data: bytes, who: str) -> dict[str, Any]:
        """Take in a photo of the board after turn *turn* (the file's bytes, as uploaded) and keep it with
        the game: ``{"photo": id, "turn", "attempt", "size": [w, h], "corners": [[x, y] x4] or null,
        "found_by": "markers" | "picture" | null, "order_known": bool}`` (the corners proposed). A file that
        is not a picture, or too large, is bad input (ValueError)."""

    def dispute_photo_jpeg(self, photo_id: str) -> bytes:
        """A kept photo of the game in progress, as JPEG."""

    def judge_dispute_photo(self, photo_id: str, corners: list[list[float]], who: str) -> dict[str, Any]:
        """Judge the turn a kept photo was brought to, with its board's corners C1..C4: ``{"photo", "turn",
        "attempt", "verdict": "legal" | "illegal" | "unsure", "play", "reason", "citation", "candidates":
        [{"play", "p"}, ...], "notes", "corners", "referee": {"verdict", "play"}}``; kept with the photo."""

    # -- the camera ----------------------------------------------------------
    def camera_snapshot(self) -> tuple[bytes, dict[str, Any]] | None:
        """A JPEG of the camera's view and what was found in it (``{"corners": [[x, y] x4] or null (the
        calibration's), "proposed": [[x, y] x4] or null (the board finder's, without a calibration),
        "found_by": "markers" | "picture" | null, "size": [w, h]}``), or None without a camera."""

    def calibrate(self, corners: list[list[float]], who: str, c1_confirmed: bool = False) -> dict[str, Any]:
        """Save the board's four corners C1..C4 (pixels of the snapshot): ``{"corners", "saved", "moved_px",
        "learnt_start", "order": "board" | "players"}``. Their order must be told by the board on the table
        as the referee holds it or confirmed by the players (*c1_confirmed*); else nothing is saved, a
        RuntimeError (409) whose ``fields`` (``{"order_known": false}``) go into the answer."""
