"""The companion: turns dice, board readings and presses into a refereed game.

It keeps one game (an engine :class:`~willughby.engine.match.Match`), writes
every step of it to the store before it announces it (so a game survives a
``kill -9`` or a power cut and resumes from the store), and tells whoever
listens -- the page, the lights, the voice -- what happened.

A turn: dice arrive (the box, the Pi's pins, or the page); the player moves;
the board settles and the camera reads it (or the players enter the board on
the page); the companion matches the reading against the throw's legal plays
(the engine's outcomes) and rules. A reading that matches no legal play, or
matches with low confidence, becomes a question on the page -- the reading
and the closest legal plays -- never a silent guess. A confident reading of a
board no legal play leads to is an illegal turn: ruled, with its reason and
source, and the game waits for the board to be put right.

The work is shared along its jobs, one module each: what the companion
tells and who listens, the state document among it (``state.py``); how a
move on the board is judged, asked about and ruled (``judging.py``); dice,
the cube, undo and the buttons (``controls.py``); read-only views of the
stored games and of disputes (``views.py``); photos brought to a dispute
(``dispute_photos.py``); the numbering of turns (``numbering.py``); its
errors (``errors.py``). :class:`Companion` puts them together and keeps
the game, its record and its devices: it is the one object the rest of
the program uses.

>>> from willughby.companion.store import GameStore
>>> c = Companion(GameStore(":memory:"))
>>> _ = c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
>>> _ = c.enter_dice([3, 1], who="test")        # the roll for start: Ann 3, Bob 1
>>> c.state()["dice"], c.state()["board"]["turn"]
([3, 1], 'light')
>>> after = c.legal_boards()["8/5 6/5"]
>>> c.on_reading(after, confidence=None, who="camera")["verdict"]
'legal'
>>> c.state()["announcements"][0]["text"]
'Ann (light) plays 3-1: 8/5 6/5'
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from willughby.engine.errors import EngineError
from willughby.engine.match import Match
from willughby.engine.position import DARK, LIGHT
from willughby.engine.rules import get_preset, preset_rules

from . import tally as _tally
from .controls import ControlsMixin
from .dispute_photos import DisputePhotos, JudgedTurn
from .errors import CompanionError, NotNowError, UnknownError
from .games import Family, family_of, family_of_preset
from .judging import JudgingMixin
from .numbering import TurnCounter, judged_turns, ruling_doc
from .photos import PhotoStore
from .state import KEEP_ANNOUNCEMENTS, Announcement, StateMixin
from .store import GameStore
from .views import GameViews

__all__ = ["Companion", "CompanionError", "NotNowError", "UnknownError", "Announcement", "TurnCounter"]


class Companion(StateMixin, JudgingMixin, ControlsMixin):
    """The referee of the game in progress; see the module docstring."""

    #: what the page may answer as bad input (400), no such thing (404) and not now (409);
    #: anything else the companion raises is a fault (web_ui/contract.py)
    declared_errors: tuple[type[Exception], ...] = (CompanionError, UnknownError, NotNowError)

    def __init__(self, store: GameStore, *, clock: Callable[[], float] = time.time,
                 photo_dir: str | Path | None = None) -> None:
        self.store = store
        # the dispute photos: beside the store (the data directory's ``photos``) unless told otherwise;
        # a store in memory keeps none
        if photo_dir is None and store.path != ":memory:":
            photo_dir = Path(store.path).parent / "photos"
        self.photos = DisputePhotos(PhotoStore(Path(photo_dir)) if photo_dir is not None else None, self)
        self.views = GameViews(store, self, self.photos)
        self._clock = clock
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._version = 0
        self._state_doc: dict[str, Any] = {}
        self._listeners: list[Callable[[Announcement], None]] = []
        self._state_listeners: list[Callable[[dict[str, Any]], None]] = []
        self._announcements: list[Announcement] = []
        self._game_id: str | None = None
        self._match: Any = None                  # a GameMatch (games.py): Match or CountingMatch
        self._family: Family | None = None       # the family of the game in progress (games.py)
        self._action_ns: list[int] = []          # the store's n of each of the match's actions
        self._question: dict[str, Any] | None = None
        self._asked_evidence: Any = None          # the camera's evidence of the frame the open question is about
        self._rulings: list[dict[str, Any]] = []  # rulings of this game, with their turn
        self._counter = TurnCounter()             # numbers the rulings as they come
        self._seen_events: set[str] = set()       # idents of dice throws already taken (box retransmissions)
        self.devices: dict[str, Any] = {"camera": "absent", "dice": "page", "speech": False}
        self.camera: Any = None                   # the camera loop, when there is one (snapshot, calibration)
        self._turn_reader: Any = None             # the camera's turn reader, made when first needed
        self._resume()

    @property
    def turn_reader(self) -> Any:
        """The turn reader (``willughby.vision.turns``) that weighs the camera's evidence."""
        if self._turn_reader is None:
            from willughby.vision.turns import TurnReader

            self._turn_reader = TurnReader()
        return self._turn_reader

    def men_per_side(self) -> int:
        """How many men a side has in the game in progress (fifteen without one)."""
        rules = getattr(self._match, "rules", None)
        return int(getattr(rules, "men", 15) or 15)

    @property
    def match(self) -> Any:
        """The game in progress (a :class:`~willughby.companion.games.GameMatch`), or None."""
        return self._match

    @property
    def family(self) -> Family | None:
        """The family of the game in progress (games.py), or None."""
        return self._family

    # ------------------------------------------------------------- the game
    def _resume(self) -> None:
        current = self.store.current()
        if current is None:
            self._publish()
            return
        with self._lock:
            self._load(current["id"])
            self._say(f"resumed the game in progress at turn {self._turn_in_progress()}", "resume",
                      store=False)
            self._publish()

    def _load(self, game_id: str) -> None:
        """Rebuild the game from the store: the actions not undone, replayed."""
        record = self.store.record(game_id)
        family = family_of_preset(record["preset"])
        match = family.from_record(record)
        game = self.store.game(game_id)
        if match.result is not None and game["status"] == "playing":
            # a store written before an end was stored with the action that made it, and cut off between
            self.store.finish(game_id, match.result.to_json())
        log_entries = game["log"]
        undone: set[int] = set()
        for e in log_entries:
            if e["kind"] == "undo":
                undone.update(e["data"]["undoes"])
        self._action_ns = [e["n"] for e in log_entries if e["kind"] == "action" and e["n"] not in undone]
        self._announcements = [Announcement(e["n"], e["data"]["text"], e["data"]["kind"])
                               for e in log_entries if e["kind"] == "announcement"][-KEEP_ANNOUNCEMENTS:]
        self._seen_events = {e["data"]["ident"] for e in log_entries
                             if e["kind"] == "dice" and e["data"].get("ident")}
        self._game_id = game_id
        self._match = match
        self._family = family
        self._question = None
        self._asked_evidence = None
        self._rebuild_rulings()
        self._publish()

    def _rebuild_rulings(self) -> None:
        assert self._match is not None
        if self._family is not None and self._family.board == "tally":
            self._rulings, self._counter = _tally.rebuild(self._match, self._family)
            return
        judged = judged_turns(self._match.record())
        self._counter = TurnCounter()
        for j in judged:
            self._counter.count(j["ruling"])
        self._rulings = [ruling_doc(j["ruling"], j, j["before"]) for j in judged]

    def new_game(self, preset: str, options: Mapping[str, str] | None = None,
                 players: Mapping[str, str] | None = None, who: str = "page",
                 start: Mapping[str, Any] | None = None, after_end_of: str | None = None) -> dict[str, Any]:
        """Start a new game; one in progress ends unfinished (it stays in the
        record). *start*, a board document with ``turn``, sets up a position
        to play on from (a problem, a game carried on from paper).

        *after_end_of*, a game id: start only if that game is still the one
        here and still over (else :class:`NotNowError`). Whoever starts the
        next game some time after an end (the demo's players) passes it, so
        an undo of the end in the meantime is not overrun by a new game."""
        try:
            p = get_preset(str(preset))
            rules = preset_rules(p.id, dict(options or {}))
            family = family_of(rules)
            match = family.new_match(p.id, rules, players, start)
        except EngineError as exc:
            raise CompanionError(str(exc)) from None
        with self._lock:
            if after_end_of is not None and (self._game_id != after_end_of or self._match is None
                                             or self._match.result is None):
                raise NotNowError(f"game {after_end_of} is no longer over: no new game was started")
            self._game_id = self.store.create_game(p.id, match.rules.options(), family.store_players(match),
                                                   family.start_id(match))
            self._match = match
            self._family = family
            self._action_ns = []
            self._rulings = []
            self._counter = TurnCounter()
            self._announcements = []
            self._question = None
            self._asked_evidence = None
            self._seen_events = set()
            if family.board == "tally":
                self._say(_tally.new_game_text(p.name, match), "new_game", who=who)
                if family.camera_note:
                    self._say(family.camera_note, "notice", who=who)
                self._publish()
                return self._state_doc
            names = match.players
            self._say(f"new game of {p.name}: {names[LIGHT]} plays light, {names[DARK]} dark", "new_game", who=who)
            if family.camera_note and self.camera is not None:
                self._say(family.camera_note, "notice", who=who)
            if match.phase == "start":
                self._say("throw one die each for the start", "prompt", who=who)
            self._publish()
            return self._state_doc

    def _need_game(self) -> Match:
        if self._match is None:
            raise NotNowError("no game is in progress: start one first")
        return self._match

    # ------------------------------------------------------------ recording
    def _save(self, who: str, extra: Sequence[tuple[str, dict[str, Any]]] = ()) -> None:
        """Write the match's new actions (and *extra* entries) in one transaction;
        when they ended the game, its end (the result) goes in the same one."""
        assert self._match is not None and self._game_id is not None
        new = self._match.actions[len(self._action_ns):]
        entries = [("action", dict(a), who) for a in new] + [(k, d, who) for k, d in extra]
        if not entries:
            return
        result = self._match.result
        ends = result.to_json() if new and result is not None else None
        ns = self.store.append_many(self._game_id, entries, ends=ends)
        self._action_ns.extend(ns[:len(new)])

    # -------------------------------------------------------------- players
    def _who(self, player: Any) -> str:
        """A player in words: "Ann (light)", or a counting game's "Cat"."""
        m = self._match
        if player is None or m is None or self._family is None:
            return "?"
        return self._family.who(m, player)

    # -------------------------------------------------------------- devices
    def set_device(self, name: str, status: Any) -> None:
        """A device's state for the page (``camera``, ``dice``, ``speech``)."""
        with self._lock:
            if self.devices.get(name) != status:
                self.devices[name] = status
                self._publish()

    def notice(self, text: str) -> None:
        """Tell the players something that is not a ruling (a device's trouble)."""
        with self._lock:
            self._say(text, "notice")
            self._publish()

    # -------------------------------------------------------------- the views (views.py)
    @property
    def lock(self) -> threading.RLock:
        """The game's lock (the parts hold it while they read the game)."""
        return self._lock

    @property
    def game_id(self) -> str | None:
        """The game in progress, or None."""
        return self._game_id

    def who(self, player: Any) -> str:
        """A player in words ("Ann (light)", a counting game's "Cat")."""
        return self._who(player)

    def judged_turn(self, turn: int, attempt: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
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


    def games(self) -> list[dict[str, Any]]:
        """The stored games, newest first."""
        return self.views.games()

    def game(self, game_id: str) -> dict[str, Any]:
        """One stored game with each turn's boards, for replay."""
        return self.views.game(game_id)

    def export_mat(self, game_id: str) -> str:
        """A stored game as a ``.mat`` match file."""
        return self.views.export_mat(game_id)

    def dispute(self, turn: int, attempt: int | None = None) -> dict[str, Any]:
        """A ruling of the game in progress for the dispute view (``views.py``)."""
        return self.views.dispute(turn, attempt)

    def presets(self) -> list[dict[str, Any]]:
        """The games a new game may be, with their options."""
        return self.views.presets()

    # -------------------------------------------------------------- photos brought to a dispute
    @property
    def max_photo_bytes(self) -> int:
        """The largest photo taken (0: photos are not kept)."""
        return self.photos.max_photo_bytes

    def add_dispute_photo(self, turn: int, attempt: int | None, data: bytes, who: str = "page") -> dict[str, Any]:
        """A photo of the board after turn *turn* of the game in progress, kept (``dispute_photos.py``)."""
        return self.photos.add(turn, attempt, data, who)

    def dispute_photo_jpeg(self, photo_id: str) -> bytes:
        """A photo of the game in progress, as kept (JPEG)."""
        with self._lock:
            game_id = self._need_game_id()
        return self.photos.jpeg(game_id, photo_id)

    def judge_dispute_photo(self, photo_id: str, corners: Sequence[Sequence[float]],
                            who: str = "page") -> dict[str, Any]:
        """The turn a kept photo of the game in progress was brought to, judged from it."""
        with self._lock:
            game_id = self._need_game_id()
        return self.photos.judge(game_id, photo_id, corners, who)

    def judged_turn_for_photo(self, turn: int, attempt: int | None) -> JudgedTurn:
        with self._lock:
            j, _of_turn = self.judged_turn(turn, attempt)
            game_id = self._need_game_id()
            ruling = j["ruling"]
            return JudgedTurn(game_id, turn, j["attempt"], self._match.rules, j["before"], tuple(ruling.dice),
                              j["seen"].to_board(), {"verdict": ruling.verdict, "play": ruling.play})

    def record_photo(self, game_id: str, entry: dict[str, Any], who: str) -> None:
        with self._lock:
            if self._game_id == game_id:
                self.store.append(game_id, "photo", entry, who)

    def _need_game_id(self) -> str:
        self._need_game()
        assert self._game_id is not None
        return self._game_id

    def camera_snapshot(self) -> tuple[bytes, dict[str, Any]] | None:
        cam = self.camera
        return None if cam is None else cam.snapshot(known=self._board_on_table())

    def _board_on_table(self) -> dict[str, Any] | None:
        """The board the referee holds to stand on the table (a game's start before its first turn, or the
        board after the last turn ruled), for the reader to learn the board from at calibration; None with
        no game. The reader learns nothing where the photo contradicts it (men not set up yet)."""
        with self._lock:
            position = getattr(self._match, "position", None)
            try:
                return None if position is None else dict(position.to_board())
            except (AttributeError, TypeError, ValueError):
                return None

    def calibrate(self, corners: list[list[float]], who: str = "page") -> dict[str, Any]:
        """Save the board's four corners for the camera (the calibration file)."""
        cam = self.camera
        if cam is None or not hasattr(cam, "calibrate"):
            raise NotNowError("there is no camera to calibrate")
        from willughby.vision.errors import VisionError

        try:
            result = cam.calibrate(corners, known=self._board_on_table())
        except VisionError as exc:         # corners that cannot be a board, or no frame yet
            raise CompanionError(f"the corners were not saved: {exc}") from None
        with self._lock:
            self._say(f"{who} set the board's corners", "calibration", who)
            self._publish()
        return result
