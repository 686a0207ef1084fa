"""The companion: turns dice, board readings and presses into a refereed game.

It keeps one game (an engine :class:`~willughby.engine.game.Game`), writes
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

The work is shared along its jobs, each a part with the state it owns,
handed what it needs: the game in progress and its record
(:class:`~willughby.companion.current_game.CurrentGame`); what the companion
tells and who listens, and the state document (``state.py``); how a move on
the board is judged, asked about and ruled (``judging.py``); dice, the cube,
undo and the buttons (``controls.py``); the part that plays the game's family
(``board_part.py``, ``tally.py``: ``games.FamilyPart``); read-only views of
the stored games and of disputes (``views.py``); photos brought to a
dispute (``dispute_photos.py``). :class:`Companion` makes the parts, keeps
the devices, and is the one object the rest of the program uses: each of
its methods hands the call to the part that does it.

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

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from willughby.engine.errors import EngineError
from willughby.engine.rules import get_preset, preset_rules

from .clock import ClockError, ClockTerms, clock_words
from .clock_play import ClockPlay
from .controls import Controls
from .current_game import CurrentGame
from .dispute_photos import DisputePhotos, JudgedTurn
from .documents import CameraDoc, RulingDoc, StateDoc
from .errors import CompanionError, CornerOrderNotKnown, NotNowError, UnknownError
from .games import Family, family_of
from .judging import Judging
from .match_play import MatchPlay
from .numbering import TurnCounter
from .photos import PhotoStore
from .state import KEEP_ANNOUNCEMENTS, Announcement, Subscription, Telling, state_document
from .store import GameStore, StoreError, StoreUnwritableError
from .views import GameViews

if TYPE_CHECKING:
    from willughby.vision.turns import TurnEvidence, TurnReader

log = logging.getLogger(__name__)

__all__ = ["Companion", "CompanionError", "NotNowError", "UnknownError", "Announcement", "TurnCounter"]


class Companion:
    """The referee of the game in progress; see the module docstring."""

    #: what the page may answer as bad input (400), no such thing (404), not now (409) and not kept: the
    #: store cannot be written (503);
    #: anything else the companion raises is a fault (web_ui/contract.py)
    declared_errors: tuple[type[Exception], ...] = (CompanionError, UnknownError, NotNowError, StoreUnwritableError)

    def __init__(self, store: GameStore, *, clock: Callable[[], float] = time.time,
                 photo_dir: str | Path | None = None, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self._lock = threading.RLock()
        self.devices: dict[str, Any] = {"camera": "absent", "dice": "page", "speech": False}
        self.camera: Any = None                   # the camera loop, when there is one (snapshot, calibration)
        # the parts, each with the state it owns
        self.current = CurrentGame(store, self._lock)
        self.telling = Telling(self.current, self._state_document)
        self.judging = Judging(self.current, self.telling, clock)
        self.controls = Controls(self.current, self.telling, self._load, lambda: self.camera)
        # the dispute photos: beside the store (the data directory's ``photos``) unless told otherwise;
        # a store in memory keeps none
        if photo_dir is None and store.path != ":memory:":
            photo_dir = Path(store.path).parent / "photos"
        self.photos = DisputePhotos(PhotoStore(Path(photo_dir)) if photo_dir is not None else None, self)
        self.views = GameViews(store, self.current, self.photos)
        self.matches = MatchPlay(self.current)
        self._match_synced: tuple[str | None, bool] | None = None
        # the match's clock (clock_play.py): it follows the game before every state published
        self.clocks = ClockPlay(self.current, self.telling, self.matches, lambda: self.judging.question is not None,
                                self._load, monotonic)
        self.telling.before_publish = self.clocks.step
        self.telling.fresh = self._with_clock_now
        self._resume()

    # ------------------------------------------------------------- the game
    def _state_document(self, version: int) -> StateDoc:
        self._sync_match()
        return state_document(version, self.current, self.telling.announcements, self.devices,
                              self.controls.undo_preview(), self.judging.question, self.matches.doc(),
                              self.clocks.doc())

    def _sync_match(self) -> None:
        """Once a game has ended or its end was taken back, its match's status made to agree (won, or
        playing again); a store that cannot be written now leaves it to the next time (the page's match is
        counted from the games, not from the status)."""
        m = self.current.match
        key = (self.current.id, m is not None and m.result is not None)
        if key == self._match_synced:
            return
        try:
            self.matches.sync()
            self._match_synced = key
        except StoreError as exc:
            log.warning("the match's status is not stored yet: %s", exc)

    def _resume(self) -> None:
        current = self.store.current()
        if current is None:
            self.telling.publish()
            return
        with self._lock:
            self._load(current["id"])
            self.clocks.restore(self.current.clock_entry)
            self.telling.say(f"resumed the game in progress at turn {self.current.turn_in_progress()}", "resume",
                             store=False)
            self.telling.publish()

    def _load(self, game_id: str) -> None:
        """Rebuild the game from the store: the actions not undone, replayed, and its last announcements."""
        logged = self.current.load(game_id)
        self.telling.announcements = [Announcement(*a) for a in logged][-KEEP_ANNOUNCEMENTS:]
        self._take_part()
        self.judging.forget()
        self.judging.restore(self.current.open_question)     # a question open across a restart is asked again
        self.telling.publish()

    def _take_part(self) -> None:
        family = self.current.family
        assert family is not None
        self.current.part = family.make_part(self.current, self.telling, self.judging)

    def new_game(self, preset: str, options: Mapping[str, str] | None = None,
                 players: Mapping[str, str] | None = None, who: str = "page",
                 start: Mapping[str, Any] | None = None, after_end_of: str | None = None,
                 abandon_match: bool = False) -> StateDoc:
        """Start a new game; one in progress ends unfinished (it stays in the
        record). *start*, a board document with ``turn``, sets up a position
        to play on from (a problem, a game carried on from paper).

        *after_end_of*, a game id: start only if that game is still the one
        here and still over (else :class:`NotNowError`). Whoever starts the
        next game some time after an end (the demo's players) passes it, so
        an undo of the end in the meantime is not overrun by a new game.

        In the middle of a match a new game is refused unless *abandon_match*
        says the match is given up (its next game is :meth:`next_game`)."""
        try:
            p = get_preset(str(preset))
            rules = preset_rules(p.id, dict(options or {}))
            family = family_of(rules)
            match = family.new_match(p.id, rules, players, start)
        except EngineError as exc:
            raise CompanionError(str(exc)) from None
        game = self.current
        with self._lock:
            found = self.store.current_match()
            if found is not None and not abandon_match:
                doc = self.matches.doc()
                where = f" ({doc['text']})" if doc else ""
                raise NotNowError(f"a match to {found['length']} is in play{where}: play its next game, or say "
                                  "that the match is abandoned to start another game")
            if after_end_of is not None and (game.id != after_end_of or game.match is None
                                             or game.match.result is None):
                raise NotNowError(f"game {after_end_of} is no longer over: no new game was started")
            gave_up = self.matches.abandon() if found is not None else None
            game_id = self.store.create_game(p.id, match.rules.options(), family.store_players(match),
                                             family.start_id(match))
            game.begin(game_id, match, family)
            self.clocks.drop()
            return self._opened(p.name, who, [gave_up] if gave_up else [])

    def new_match(self, length: int, preset: str = "backgammon", options: Mapping[str, str] | None = None,
                  players: Mapping[str, str] | None = None, crawford: bool = True, who: str = "page",
                  clock: Mapping[str, Any] | None = None) -> StateDoc:
        """Start a match to *length* points of the race game *preset* (``docs/matches.md``) and its first
        game, with a tournament clock where *clock* gives its terms (``ClockTerms``: ``reserve_s``,
        ``delay_s``, ``mode``, ``on_flag``); a game or match in progress ends unfinished (both stay in the
        record)."""
        try:
            name = get_preset(str(preset)).name
            terms = None if clock is None else ClockTerms.from_json(clock)
        except (EngineError, ClockError) as exc:
            raise CompanionError(str(exc)) from None
        with self._lock:
            self.matches.begin(length, preset, dict(options or {}), dict(players or {}), crawford)
            self.clocks.set(terms, who)
            doc = self.matches.doc()
            rule = "" if crawford else ", without the Crawford rule"
            timed = "" if terms is None else f", {clock_words(terms)}"
            return self._opened(name, who, [f"a match to {length} point{'s' if length != 1 else ''}{rule}{timed}: "
                                            f"{doc['text'] if doc else ''}"])

    def next_game(self, who: str = "page", after_end_of: str | None = None) -> StateDoc:
        """Begin the next game of the match in play, once the game in progress is over (*after_end_of*: as
        :meth:`new_game`'s)."""
        with self._lock:
            game = self.matches.next_game(after_end_of)
            self.clocks.carry(who)
            doc = self.matches.doc()
            words = [f"game {doc['game']} of the match: {doc['text']}"] if doc else []
            return self._opened(get_preset(game.preset or "backgammon").name, who, words)

    def _opened(self, game_name: str, who: str, words: Sequence[str]) -> StateDoc:
        """A game just begun (``CurrentGame.begin``): its part taken, the page's words afresh, the opening
        said (after *words*, what the match has to say), the state published."""
        game = self.current
        self._take_part()
        self.telling.announcements = []
        self.judging.forget()
        for text in words:
            self.telling.say(text, "match", who=who)
        assert game.part is not None
        game.part.opening(game_name, who, camera=self.camera is not None)
        self.telling.publish()
        return self.telling.doc

    # ------------------------------------------------------------ what the game is
    @property
    def match(self) -> Any:
        """The game in progress (a :class:`~willughby.companion.games.GameMatch`), or None."""
        return self.current.match

    @property
    def family(self) -> Family | None:
        """The family of the game in progress (games.py), or None."""
        return self.current.family

    @property
    def lock(self) -> threading.RLock:
        """The game's lock (the parts hold it while they read the game)."""
        return self._lock

    @property
    def game_id(self) -> str | None:
        """The game in progress, or None."""
        return self.current.id

    def men_per_side(self) -> int:
        """How many men a side has in the game in progress (fifteen without one)."""
        return self.current.men_per_side()

    def who(self, player: Any) -> str:
        """A player in words ("Ann (light)", a counting game's "Cat")."""
        return self.current.who(player)

    def judged_turn(self, turn: int, attempt: int | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Turn *turn*'s ruling *attempt* of the game in progress (``current_game.py``)."""
        return self.current.judged_turn(turn, attempt)

    # ------------------------------------------------------------ telling (state.py)
    def state(self) -> StateDoc:
        """The current state document (the clock read now)."""
        with self._lock:
            return self._with_clock_now(self.telling.doc)

    def subscribe(self) -> Subscription:
        """A subscription whose first ``get`` is the current state."""
        return self.telling.subscribe()

    def add_announcement_listener(self, fn: Callable[[Announcement], None]) -> None:
        """Call *fn* with every announcement (the voice, the lights)."""
        self.telling.add_announcement_listener(fn)

    def add_state_listener(self, fn: Callable[[StateDoc], None]) -> None:
        """Call *fn* with every new state (the lights, the box's turn light)."""
        self.telling.add_state_listener(fn)

    # ------------------------------------------------------------ judging (judging.py)
    def legal_boards(self) -> dict[str, dict[str, Any]]:
        """The legal plays of the turn in progress: notation -> board after."""
        return self.judging.legal_boards()

    def on_reading(self, board: Mapping[str, Any], confidence: Mapping[str, float] | None = None,
                   who: str = "camera", evidence: "TurnEvidence | None" = None) -> RulingDoc | None:
        """A settled reading of the board (``judging.py``)."""
        return self.judging.on_reading(board, confidence, who, evidence)

    def submit_board(self, board: Mapping[str, Any], who: str = "page") -> StateDoc:
        """The board as it stands, entered by a person: judged as the move, with no doubt."""
        return self.judging.submit_board(board, who)

    def answer(self, question_id: str, choice: int, who: str = "page") -> StateDoc:
        """Answer the open question with one of its choices' index."""
        return self.judging.answer(question_id, choice, who)

    @property
    def turn_reader(self) -> "TurnReader":
        """The turn reader (``willughby.vision.turns``) that weighs the camera's evidence."""
        return self.judging.turn_reader

    @property
    def last_camera(self) -> CameraDoc | None:
        """The turn reader's last judgement of a camera's frame: its verdict, candidates and notes."""
        return self.judging.last_camera

    # ------------------------------------------------------------ controls (controls.py)
    def enter_dice(self, dice: Sequence[int], who: str = "page", ident: str | None = None) -> StateDoc:
        """Dice thrown (``controls.py``)."""
        return self.controls.enter_dice(dice, who, ident)

    def undo(self, who: str = "page") -> StateDoc:
        """Take back the last thing done (``controls.py``)."""
        return self.controls.undo(who)

    def cube(self, action: str, who: str = "page") -> StateDoc:
        """``double``, ``take`` or ``drop``."""
        return self.controls.cube(action, who)

    def press(self, button: str, who: str = "box") -> None:
        """DONE or UNDO pressed on the box or the Pi (written to the game's log where a clock is kept)."""
        with self._lock:
            self.clocks.pressed(button, who)
        self.controls.press(button, who)

    # ------------------------------------------------------------ the match's clock (clock_play.py)
    def hold_clock(self, held: bool, who: str = "page") -> StateDoc:
        """A player holds the match's clock (a ruling contested, the director called: rule ``clock.stop``) or
        lets it run again."""
        with self._lock:
            self.clocks.hold(held, who)
            self.telling.publish()
            return self.telling.doc

    def tick(self) -> bool:
        """Look at the clock (a ticker calls this a few times a second): where a reserve has run out, the
        flag is said and what it means is done now. Whether one fell."""
        with self._lock:
            if not self.clocks.flag_due():
                return False
            self.telling.publish()
            return True

    def _with_clock_now(self, doc: StateDoc) -> StateDoc:
        """The state document with the clock read now (the page counts down from the moment it arrives)."""
        if doc.get("clock") is None or self.clocks.clock is None:
            return doc
        return {**doc, "clock": self.clocks.doc()}

    # -------------------------------------------------------------- devices
    def set_device(self, name: str, status: Any) -> None:
        """A device's state for the page (``camera``, ``dice``, ``speech``, the page's ``logins``);
        ``{"alert": text}`` is shown where no one misses it; None takes the device off."""
        with self._lock:
            if self.devices.get(name) != status:
                if status is None:
                    self.devices.pop(name, None)
                else:
                    self.devices[name] = status
                self.telling.publish()

    def notice(self, text: str) -> None:
        """Tell the players something that is not a ruling (a device's trouble); shown even where the store
        cannot keep it now (a full disk: the store's own alert says so)."""
        with self._lock:
            try:
                self.telling.say(text, "notice")
            except StoreUnwritableError:
                self.telling.say(text, "notice", store=False)
            self.telling.publish()

    # -------------------------------------------------------------- the views (views.py)
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
            game_id = self.current.need_id()
        return self.photos.jpeg(game_id, photo_id)

    def judge_dispute_photo(self, photo_id: str, corners: Sequence[Sequence[float]],
                            who: str = "page") -> dict[str, Any]:
        """The turn a kept photo of the game in progress was brought to, judged from it."""
        with self._lock:
            game_id = self.current.need_id()
        return self.photos.judge(game_id, photo_id, corners, who)

    def judged_turn_for_photo(self, turn: int, attempt: int | None) -> JudgedTurn:
        """What judging a photo of turn *turn* needs of the game in progress (``dispute_photos.py``)."""
        with self._lock:
            j, _of_turn = self.current.judged_turn(turn, attempt)
            game_id = self.current.need_id()
            ruling = j["ruling"]
            return JudgedTurn(game_id, turn, j["attempt"], self.current.match.rules, j["before"],
                              tuple(ruling.dice), j["seen"].to_board(),
                              {"verdict": ruling.verdict, "play": ruling.play})

    def record_photo(self, game_id: str, entry: dict[str, Any], who: str) -> None:
        """A photo's entry in the game's log, while the game is still the one in progress."""
        with self._lock:
            if self.current.id == game_id:
                self.store.append(game_id, "photo", entry, who)

    # -------------------------------------------------------------- the camera
    def camera_snapshot(self) -> tuple[bytes, dict[str, Any]] | None:
        """A frame of the camera with what it found in it, or None with no camera."""
        cam = self.camera
        return None if cam is None else cam.snapshot(known=self._board_on_table())

    def _board_on_table(self) -> dict[str, Any] | None:
        """The board the referee holds to stand on the table (``current_game.py``), for the reader to learn
        the board from at calibration. The reader learns nothing where the photo contradicts it (men not set
        up yet)."""
        board = self.current.board_on_table()
        return None if board is None else dict(board)

    def calibrate(self, corners: list[list[float]], who: str = "page", c1_confirmed: bool = False) -> dict[str, Any]:
        """Save the board's four corners for the camera (the calibration file). Their order must be known:
        told by the board on the table as the referee holds it (a game's start), or, where the picture does
        not tell it, confirmed by the players (*c1_confirmed*: the first corner is C1); else nothing is
        saved (:class:`CornerOrderNotKnown`), lest the board be read turned round."""
        cam = self.camera
        if cam is None or not hasattr(cam, "calibrate"):
            raise NotNowError("there is no camera to calibrate")
        from willughby.vision.errors import CornerOrderUnknown, VisionError

        try:
            result: dict[str, Any] = cam.calibrate(corners, known=self._board_on_table(),
                                                   c1_confirmed=bool(c1_confirmed))
        except CornerOrderUnknown as exc:
            raise CornerOrderNotKnown(f"the corners were not saved: {exc}") from None
        except VisionError as exc:         # corners that cannot be a board, or no frame yet
            raise CompanionError(f"the corners were not saved: {exc}") from None
        with self._lock:
            self.telling.say(f"{who} set the board's corners", "calibration", who)
            self.telling.publish()
        return result
