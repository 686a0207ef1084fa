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
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from willughby.engine.errors import EngineError, InvalidBoardError
from willughby.engine.match import Match
from willughby.engine.position import DARK, LIGHT, Position, other
from willughby.engine.referee import Ruling
from willughby.engine.rules import PRESETS, get_preset, preset_rules

from .store import GameStore

__all__ = ["Companion", "CompanionError", "NotNowError", "UnknownError", "Announcement"]

log = logging.getLogger(__name__)

# a reading every location of which is at least this sure is ruled on without asking
CONFIDENT = 0.9
# how many legal plays a question offers
CHOICES = 4
# how many announcements the state keeps
KEEP_ANNOUNCEMENTS = 30


# what is said of each kind of event a ruling lists (``hit`` and ``pass`` are worded in _describe)
_EVENT_TEXT = {
    "enter": "{player} enters a man from the bar",
    "bear_off": "{player} bears a man off",
    "lost_die": "{player} cannot use the {die}: it is lost",
    "opponent_uses_die": "{player} uses the {die} {other} could not",
    "bound": "{player} binds the table",
    "unstack": "{player} unstacks a man",
    "restack": "{player} restacks a man",
}


class CompanionError(ValueError):
    """Bad input to the companion (a malformed board, impossible dice)."""


class NotNowError(RuntimeError):
    """The game is not at the step that input is for."""


class UnknownError(LookupError):
    """No such game, turn or question."""


@dataclass(frozen=True)
class Announcement:
    """One thing said to the players."""

    n: int
    text: str
    kind: str

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "text": self.text, "kind": self.kind}


class _Subscription:
    """The newest state for one listener: ``get`` waits for a version it has not seen."""

    def __init__(self, owner: "Companion") -> None:
        self._owner = owner
        self._seen = -1
        self.closed = False

    def get(self, timeout: float | None = None) -> dict[str, Any] | None:
        with self._owner._changed:
            if not self._owner._changed.wait_for(lambda: self.closed or self._owner._version > self._seen,
                                                 timeout):
                return None
            if self.closed:
                return None
            self._seen = self._owner._version
            return self._owner._state_doc

    def close(self) -> None:
        with self._owner._changed:
            self.closed = True
            self._owner._changed.notify_all()


class Companion:
    """The referee of the game in progress; see the module docstring."""

    def __init__(self, store: GameStore, *, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self._clock = clock
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._version = 0
        self._state_doc: dict[str, Any] = {}
        self._listeners: list[Callable[[Announcement], None]] = []
        self._state_listeners: list[Callable[[dict[str, Any]], None]] = []
        self._announcements: list[Announcement] = []
        self._game_id: str | None = None
        self._match: Match | None = None
        self._action_ns: list[int] = []          # the store's n of each of the match's actions
        self._question: dict[str, Any] | None = None
        self._rulings: list[dict[str, Any]] = []  # rulings of this game, with their turn
        self._seen_events: set[str] = set()       # idents of dice throws already taken (box retransmissions)
        self.devices: dict[str, Any] = {"camera": "absent", "dice": "page", "speech": False}
        self.camera: Any = None                   # the camera loop, when there is one (snapshot, calibration)
        self._resume()

    # ------------------------------------------------------------ listeners
    def add_announcement_listener(self, fn: Callable[[Announcement], None]) -> None:
        """Call *fn* with every announcement (the voice, the lights)."""
        self._listeners.append(fn)

    def add_state_listener(self, fn: Callable[[dict[str, Any]], None]) -> None:
        """Call *fn* with every new state (the lights, the box's turn light)."""
        self._state_listeners.append(fn)

    def subscribe(self) -> _Subscription:
        """A subscription whose first ``get`` is the current state."""
        return _Subscription(self)

    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._state_doc

    @property
    def match(self) -> Match | None:
        return self._match

    # ------------------------------------------------------------- the game
    def _resume(self) -> None:
        current = self.store.current()
        if current is None:
            self._publish()
            return
        with self._lock:
            self._load(current["id"])
            self._say(f"resumed the game in progress at turn {self._match.turn_number}", "resume",
                      store=False)
            self._publish()

    def _load(self, game_id: str) -> None:
        """Rebuild the game from the store: the actions not undone, replayed."""
        record = self.store.record(game_id)
        match = Match.from_record(record)
        game = self.store.game(game_id)
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
        self._question = None
        self._rebuild_rulings()
        self._publish()

    def _rebuild_rulings(self) -> None:
        assert self._match is not None
        self._rulings = [self._ruling_doc(j["ruling"], j["turn"], j["before"])
                         for j in _judged(self._match.record())]

    def new_game(self, preset: str, options: Mapping[str, str] | None = None,
                 players: Mapping[str, str] | None = None, who: str = "page",
                 start: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Start a new game; one in progress ends unfinished (it stays in the
        record). *start*, a board document with ``turn``, sets up a position
        to play on from (a problem, a game carried on from paper)."""
        try:
            p = get_preset(str(preset))
            rules = preset_rules(p.id, dict(options or {}))
            begin = None
            if start is not None:
                begin = Position.from_board(dict(start), men=rules.men, starts_off_board=rules.start_waiting > 0,
                                            require_turn=True)
            match = Match(rules, preset=p.id, players=dict(players or {}), start=begin)
        except EngineError as exc:
            raise CompanionError(str(exc)) from None
        with self._lock:
            self._game_id = self.store.create_game(p.id, match.rules.options(), dict(match.players),
                                                   match.start.id())
            self._match = match
            self._action_ns = []
            self._rulings = []
            self._announcements = []
            self._question = None
            self._seen_events = set()
            names = match.players
            self._say(f"new game of {p.name}: {names[LIGHT]} plays light, {names[DARK]} dark", "new_game", who=who)
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
        """Write the match's new actions (and *extra* entries) in one transaction."""
        assert self._match is not None and self._game_id is not None
        new = self._match.actions[len(self._action_ns):]
        entries = [("action", dict(a), who) for a in new] + [(k, d, who) for k, d in extra]
        if not entries:
            return
        ns = self.store.append_many(self._game_id, entries)
        self._action_ns.extend(ns[:len(new)])

    def _say(self, text: str, kind: str, who: str = "companion", store: bool = True) -> None:
        n = self._announcements[-1].n + 1 if self._announcements else 0
        if store and self._game_id is not None:
            n = self.store.append(self._game_id, "announcement", {"text": text, "kind": kind}, who)
        a = Announcement(n, text, kind)
        self._announcements = (self._announcements + [a])[-KEEP_ANNOUNCEMENTS:]
        for fn in list(self._listeners):
            try:
                fn(a)
            except Exception:  # noqa: a listener's fault (the voice, a light) must not stop the game
                log.exception("announcement listener failed")

    # ---------------------------------------------------------------- dice
    def enter_dice(self, dice: Sequence[int], who: str = "page", ident: str | None = None) -> dict[str, Any]:
        """Dice thrown: for the roll for start, light's die then dark's; later,
        the throw of the player on turn. *ident* (a box's or the Pi's throw
        id) makes a throw delivered twice count once."""
        try:
            values = [int(d) for d in dice]
        except (TypeError, ValueError):
            raise CompanionError(f"dice must be numbers 1 to 6, not {dice!r}") from None
        if any(not 1 <= d <= 6 for d in values):
            raise CompanionError(f"dice must be numbers 1 to 6, not {list(dice)!r}")
        with self._lock:
            m = self._need_game()
            if ident is not None and ident in self._seen_events:
                log.info("throw %s already taken", ident)
                return self._state_doc
            note = ("dice", {"dice": values, "ident": ident})
            try:
                if m.phase == "start":
                    if len(values) != 2:
                        raise CompanionError("the roll for start takes two dice: light's, then dark's")
                    m.start_roll(values[0], values[1])
                    self._remember(ident)
                    self._save(who, [note])
                    if m.phase == "start":
                        self._say(f"both threw {values[0]}: throw again", "start_roll", who)
                    else:
                        self._say(f"{self._who(m.turn)} goes first ({values[0]} against {values[1]})", "start_roll", who)
                        if m.phase == "move":
                            self._say(f"{self._who(m.turn)} plays {'-'.join(map(str, m.dice))}", "prompt", who)
                elif m.phase == "throw":
                    mover = m.turn
                    before = m.position
                    passed = m.throw(values)
                    self._remember(ident)
                    self._save(who, [note])
                    self._say(f"{self._who(mover)} throws {'-'.join(map(str, m.dice or values))}", "throw", who)
                    if passed is not None:
                        self._ruled(passed, who, before)
                elif m.phase == "binding_toss":
                    if len(values) != 4:
                        raise CompanionError("the toss to break a bound table takes four dice: the binder's two, "
                                             "then the other's two")
                    chooser = m.binding_toss(values[:2], values[2:])
                    self._remember(ident)
                    self._save(who, [note])
                    if chooser is None:
                        self._say("the toss is tied: throw again", "binding", who)
                    else:
                        self._ask_break(chooser)
                else:
                    raise NotNowError(f"dice are not wanted now: the game is at {m.phase!r}")
            except EngineError as exc:
                raise CompanionError(str(exc)) from None
            self._publish()
            return self._state_doc

    def _remember(self, ident: str | None) -> None:
        if ident is not None:
            self._seen_events.add(ident)

    # -------------------------------------------------------------- moves
    def legal_boards(self) -> dict[str, dict[str, Any]]:
        """The legal plays of the turn in progress: notation -> board after."""
        with self._lock:
            m = self._need_game()
            if m.phase != "move":
                raise NotNowError(f"no move is awaited: the game is at {m.phase!r}")
            return {self._notation(o): o.position.to_board() for o in m.legal_outcomes()}

    @staticmethod
    def _notation(outcome: Any) -> str:
        text = outcome.play.notation or "(no move)"
        if outcome.opponent_play is not None and outcome.opponent_play.notation:
            text += f"; opponent {outcome.opponent_play.notation}"
        return text

    def _position(self, board: Mapping[str, Any], m: Match) -> Position:
        doc = {k: v for k, v in dict(board).items() if k not in ("confidence", "settled", "turn")}
        try:
            return Position.from_board(doc, men=m.rules.men, starts_off_board=m.rules.start_waiting > 0)
        except InvalidBoardError as exc:
            raise CompanionError(f"the board: {exc}") from None

    def on_reading(self, board: Mapping[str, Any], confidence: Mapping[str, float] | None = None,
                   who: str = "camera") -> dict[str, Any] | None:
        """A settled reading of the board (a board document; *confidence* per
        location "1".."24", "bar", each 0..1, None for a board entered by a
        person). Returns the ruling made (its JSON), or None when the reading
        asked nothing of the referee (the board as it was) or became a question."""
        with self._lock:
            m = self._need_game()
            try:
                seen = self._position(board, m)
            except CompanionError as exc:
                if confidence is None or m.phase != "move":
                    raise
                # the camera read something no board can be (a man too many, say):
                # ask which play was made rather than wait for a reading that may never come
                self._ask(None, m.legal_outcomes(), [], board, who,
                          why=f"the camera's reading is not a possible board ({exc})")
                return None
            if m.phase != "move":
                return None                                   # no move awaited: nothing to judge
            before = m.position
            if seen.physical_key() == before.physical_key():
                return None                                   # nothing moved yet
            outcomes = m.legal_outcomes()
            key = seen.physical_key()
            doubtful = self._doubtful(confidence)
            exact = [o for o in outcomes if o.position.physical_key() == key]
            if exact and not doubtful:
                return self._play(exact[0].position.with_turn(exact[0].position.turn), who, board)
            if doubtful or not exact and confidence is not None and self._near(seen, outcomes):
                self._ask(seen, outcomes, doubtful, board, who)
                return None
            return self._play(seen, who, board)

    @staticmethod
    def _doubtful(confidence: Mapping[str, float] | None) -> list[str]:
        if not confidence:
            return []
        return sorted((k for k, v in confidence.items() if float(v) < CONFIDENT),
                      key=lambda k: (k == "bar", int(k) if k.isdigit() else 0))

    def _near(self, seen: Position, outcomes: Sequence[Any]) -> bool:
        """Whether a camera's reading is within one man of a legal play: a
        misread man is likelier than that exact illegal move."""
        doc = seen.to_board()
        return any(_raw_distance(doc, o.position) <= 2 for o in outcomes)

    def _play(self, after: Position, who: str, board: Mapping[str, Any]) -> dict[str, Any]:
        m = self._match
        assert m is not None
        self._question = None
        before = m.position
        ruling = m.play(after)
        self._save(who, [("reading", {"board": dict(board), "who": who})])
        self._ruled(ruling, who, before)
        self._publish()
        return self._rulings[-1]

    def _ruled(self, ruling: Ruling, who: str, before: Position) -> None:
        m = self._match
        assert m is not None
        self._rulings.append(self._ruling_doc(ruling, len(m.rulings), before))
        for text, kind in self._describe(ruling):
            self._say(text, kind, who)
        if ruling.game_over is not None:
            self.store.finish(self._game_id, ruling.game_over.to_json())
        elif m.phase == "binding_toss":
            self._say("the table is bound: both throw two dice, the higher total chooses the point to break "
                      "(enter the binder's two dice, then the other's)", "prompt", who)

    @staticmethod
    def _ruling_doc(ruling: Ruling, turn: int, before: Position) -> dict[str, Any]:
        """A ruling for the page: ``turn`` counts every judged turn of the game from 1."""
        doc = ruling.to_json()
        doc["turn"] = turn
        doc["before"] = before.to_board()
        src = ruling.source
        doc["source"] = None if src is None else {k: getattr(src, k, None) for k in ("author", "work", "quote")}
        doc["closest"] = list(ruling.closest)
        return doc

    def _who(self, colour: str | None) -> str:
        m = self._match
        if colour is None or m is None:
            return "?"
        name = m.players[colour]
        return colour if name.strip().lower() == colour else f"{name} ({colour})"

    def _describe(self, ruling: Ruling) -> list[tuple[str, str]]:
        """What to say of a ruling: the play, then each event, in order."""
        p = ruling.player
        dice = "-".join(map(str, ruling.dice))
        if not ruling.legal:
            return [(f"illegal: {ruling.reason} ({ruling.citation}); put the board right", "illegal")]
        out: list[tuple[str, str]] = []
        if ruling.play:
            out.append((f"{self._who(p)} plays {dice}: {ruling.play}", "play"))
        for e in ruling.events:
            if e.type == "hit":               # the event's point is the hitter's; say it as the blot's owner counts
                text = f"{p} hits the blot on {other(e.player)}'s {25 - (e.point or 0)} point"
            elif e.type == "pass":
                text = f"{self._who(e.player)} cannot play {dice}"
            elif e.type in _EVENT_TEXT:
                text = _EVENT_TEXT[e.type].format(player=e.player, other=other(e.player), die=e.die)
            else:
                continue
            out.append((text, e.type))
        if ruling.game_over is not None:
            g = ruling.game_over
            out.append((f"{self._who(g.winner)} wins: {g.kind}, stake {g.stake}", "win"))
        return out

    # ----------------------------------------------------------- questions
    def _ask(self, seen: Position | None, outcomes: Sequence[Any], doubtful: list[str], board: Mapping[str, Any],
             who: str, why: str | None = None) -> None:
        """Put a question to the players: which of the closest legal plays was
        made, or (where the reading is a board at all) the board as read."""
        ranked = sorted(outcomes, key=lambda o: (_raw_distance(board, o.position), self._notation(o)))
        choices = [{"index": i, "play": self._notation(o), "board": o.position.to_board()}
                   for i, o in enumerate(ranked[:CHOICES])]
        if seen is not None:
            choices.append({"index": len(choices), "play": "the board as read", "board": seen.to_board()})
        n = self.store.append(self._game_id, "question", {"reading": dict(board), "doubtful": doubtful,
                                                          "why": why}, who)
        places = ", ".join("the bar" if k == "bar" else f"point {k}" for k in doubtful[:6])
        where = why or (f"the camera is unsure of {places}" if doubtful
                        else "the board is one man away from a legal play")
        self._question = {"id": f"q-{n}", "kind": "move", "text": f"Which play was made? {where[0].upper()}{where[1:]}.",
                          "reading": seen.to_board() if seen is not None else None, "choices": choices}
        self._say(f"please confirm the play on the page: {where}", "question", who)
        self._publish()

    def _ask_break(self, chooser: str) -> None:
        m = self._match
        assert m is not None and m.binder is not None
        binder = m.binder
        choices = []
        for own in range(1, 7):
            physical = own if binder == LIGHT else 25 - own
            if m.position.points(binder)[physical - 1] >= 2:
                choices.append({"index": own, "play": f"break {binder}'s {own} point", "board": None})
        self._question = {"id": f"q-break-{len(m.actions)}", "kind": "break", "reading": None,
                          "text": f"{self._who(chooser)} chooses which point of {binder}'s table to break",
                          "choices": choices}
        self._say(self._question["text"], "question")

    def answer(self, question_id: str, choice: int, who: str = "page") -> dict[str, Any]:
        """Answer the open question with one of its choices' index."""
        with self._lock:
            m = self._need_game()
            q = self._question
            if q is None or q["id"] != question_id:
                raise UnknownError(f"no open question {question_id!r}")
            picked = next((c for c in q["choices"] if c["index"] == choice), None)
            if picked is None:
                raise CompanionError(f"question {question_id} has no choice {choice!r}")
            if q["kind"] == "break":
                try:
                    m.break_point(int(choice))
                except EngineError as exc:
                    raise CompanionError(str(exc)) from None
                self._question = None
                self._save(who, [("answer", {"question": question_id, "choice": choice})])
                self._say(f"{m.binder or 'the binder'}'s {choice} point is broken", "break", who)
                self._publish()
                return self._state_doc
            self.store.append(self._game_id, "answer", {"question": question_id, "choice": choice,
                                                        "play": picked["play"]}, who)
            self._play(self._position(picked["board"], m), who, picked["board"])
            return self._state_doc

    def submit_board(self, board: Mapping[str, Any], who: str = "page") -> dict[str, Any]:
        """The board as it stands, entered by a person: judged as the move, with no doubt."""
        if not isinstance(board, Mapping):
            raise CompanionError("the board must be a board document (an object)")
        with self._lock:
            m = self._need_game()
            if m.phase != "move":
                raise NotNowError(f"no move is awaited: the game is at {m.phase!r}")
            self.store.append(self._game_id, "correction", {"board": dict(board)}, who)
            seen = self._position(board, m)
            if seen.physical_key() == m.position.physical_key():
                raise CompanionError("that is the board before the move: nothing was played")
            self._play(seen, who, board)
            return self._state_doc

    # ---------------------------------------------------------------- undo
    def undo(self, who: str = "page") -> dict[str, Any]:
        """Take back the last thing done -- a move (legal or not), a throw, a
        cube action -- with what the engine did of itself after it (a throw
        that could not be played passes at once): recorded as an undo, not
        erased. Pressed again, it takes back the one before."""
        with self._lock:
            m = self._need_game()
            acts = m.actions
            if not acts:
                raise NotNowError("there is nothing to take back")
            start = len(acts) - 1
            while start > 0 and acts[start].get("automatic"):
                start -= 1
            undone = self._action_ns[start:]
            self.store.append(self._game_id, "undo", {"undoes": undone}, who)
            self._say(f"{who} takes back {self._undo_text(acts[start])}", "undo", who)
            keep = self._announcements
            self._load(self._game_id)
            self._announcements = keep
            self._publish()
            return self._state_doc

    @staticmethod
    def _undo_text(action: Mapping[str, Any]) -> str:
        kind = action.get("type")
        if kind == "move":
            return f"{action.get('player')}'s move {action.get('play') or ''}".rstrip()
        if kind == "throw":
            return f"{action.get('player')}'s throw {'-'.join(map(str, action.get('dice', [])))}"
        return f"the {str(kind).replace('_', ' ')}"

    # ---------------------------------------------------------------- cube
    def cube(self, action: str, who: str = "page") -> dict[str, Any]:
        """``double`` (the player on turn, before throwing), ``take`` or ``drop``."""
        with self._lock:
            m = self._need_game()
            try:
                if action == "double":
                    doubler = m.turn
                    m.offer_double()
                    text = f"{self._who(doubler)} doubles to {m.cube_value * 2}"
                elif action == "take":
                    m.take()
                    text = f"{self._who(m.cube_owner)} takes: the cube is at {m.cube_value}"
                elif action == "drop":
                    result = m.drop()
                    text = f"{self._who(other(result.winner))} drops: {self._who(result.winner)} wins {result.stake}"
                else:
                    raise CompanionError(f"the cube's actions are double, take and drop, not {action!r}")
            except EngineError as exc:
                raise NotNowError(str(exc)) from None
            self._save(who)
            self._say(text, "cube", who)
            if m.result is not None:
                self.store.finish(self._game_id, m.result.to_json())
            self._publish()
            return self._state_doc

    def press(self, button: str, who: str = "box") -> None:
        """DONE or UNDO pressed on the box or the Pi."""
        if button == "undo":
            try:
                self.undo(who)
            except NotNowError as exc:
                self._say(str(exc), "notice")
        elif button == "done":
            cam = self.camera
            if cam is not None and hasattr(cam, "read_now"):
                cam.read_now()
            else:
                with self._lock:
                    self._say("no camera: enter the board on the page", "notice")
                    self._publish()

    # -------------------------------------------------------------- record
    def games(self) -> list[dict[str, Any]]:
        """The stored games, newest first."""
        return [dict(g, game_id=g["id"]) for g in self.store.games()]

    def game(self, game_id: str) -> dict[str, Any]:
        """One stored game with each turn's boards (for replay)."""
        try:
            g = self.store.game(game_id)
            record = self.store.record(game_id)
        except LookupError as exc:
            raise UnknownError(str(exc)) from None
        out = dict(g, game_id=g["id"])
        out["record"] = record
        out["turns"] = self._turns(record)
        return out

    @staticmethod
    def _turns(record: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Each judged turn of a record, with the boards before and after it."""
        return [{"turn": j["turn"], "player": j["ruling"].player, "dice": list(j["ruling"].dice),
                 "play": j["ruling"].play, "verdict": j["ruling"].verdict,
                 "before": j["before"].to_board(), "after": j["after"].to_board(),
                 "ruling": j["ruling"].to_json()} for j in _judged(record)]

    def export_mat(self, game_id: str) -> str:
        from .matfile import to_mat

        try:
            record = self.store.record(game_id)
        except LookupError as exc:
            raise UnknownError(str(exc)) from None
        return to_mat(record)

    def dispute(self, turn: int) -> dict[str, Any]:
        """A judged turn of the game in progress: before, after, ruling, its
        source, and every legal play the throw allowed."""
        with self._lock:
            m = self._need_game()
            if not 1 <= turn <= len(m.rulings):
                raise UnknownError(f"no judged turn {turn} in this game (there are {len(m.rulings)})")
            j = _judged(m.record(), plays_for=turn)[turn - 1]
            doc = self._ruling_doc(j["ruling"], turn, j["before"])
            return {"turn": turn, "player": j["ruling"].player, "dice": list(j["ruling"].dice),
                    "before": j["before"].to_board(), "after": j["seen"].to_board(), "ruling": doc,
                    "source": doc["source"], "legal_plays": j["plays"]}

    def presets(self) -> list[dict[str, Any]]:
        """The games a new game may be, with their options (``willughby variants``)."""
        return [p.to_json() for p in PRESETS.values()]

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

    def camera_snapshot(self) -> tuple[bytes, dict[str, Any]] | None:
        cam = self.camera
        return None if cam is None else cam.snapshot()

    def calibrate(self, corners: list[list[float]], who: str = "page") -> dict[str, Any]:
        """Save the board's four corners for the camera (the calibration file)."""
        cam = self.camera
        if cam is None or not hasattr(cam, "calibrate"):
            raise NotNowError("there is no camera to calibrate")
        result = cam.calibrate(corners)
        with self._lock:
            self._say(f"{who} set the board's corners", "calibration", who)
            self._publish()
        return result

    # ---------------------------------------------------------------- state
    def _publish(self) -> None:
        with self._changed:
            self._version += 1
            self._state_doc = self._compute_state()
            self._changed.notify_all()
        for fn in list(self._state_listeners):
            try:
                fn(self._state_doc)
            except Exception:  # noqa: a listener's fault (a light) must not stop the game
                log.exception("state listener failed")

    def _compute_state(self) -> dict[str, Any]:
        m = self._match
        base: dict[str, Any] = {"version": self._version, "devices": dict(self.devices),
                                "announcements": [a.to_json() for a in reversed(self._announcements)],
                                "presets": [p.id for p in PRESETS.values()]}
        if m is None:
            base.update({"game_id": None, "preset": None, "players": None, "board": None, "dice": None,
                         "turn_number": 0, "phase": "none", "rulings": [], "game_over": None,
                         "cube": None, "question": None, "last_play": None})
            return base
        last = None
        for r in reversed(self._rulings):
            if r["verdict"] == "legal" and r.get("play"):
                last = r
                break
        base.update({
            "game_id": self._game_id,
            "preset": m.preset,
            "players": dict(m.players),
            "board": m.position.to_board(),
            "dice": list(m.dice) if m.dice else None,
            "turn_number": m.turn_number,
            "phase": m.phase,
            "rulings": self._rulings[-20:],
            "game_over": m.result.to_json() if m.result else None,
            "cube": {"value": m.cube_value, "owner": m.cube_owner, "offered_by": m.offered_by,
                     "enabled": m.rules.cube, "can_double": m.can_double()},
            "question": self._question,
            "last_play": ({"turn": last["turn"], "player": last["player"], "play": last["play"],
                           "before": last["before"], "after": last.get("board")} if last else None),
        })
        return base


def _raw_distance(board: Mapping[str, Any], position: Position) -> float:
    """How many men a board document (even one no position can be) differs
    from *position* by, point by point and on the bar; infinite where the
    document has no counts to compare."""
    try:
        bar = board.get("bar") or {}
        total = sum(abs(int(x) - y) for x, y in zip(board["light"], position.light, strict=True))
        total += sum(abs(int(x) - y) for x, y in zip(board["dark"], position.dark, strict=True))
        return total + abs(int(bar.get("light", 0)) - position.bar[0]) + abs(int(bar.get("dark", 0)) - position.bar[1])
    except (KeyError, TypeError, ValueError, AttributeError):
        return float("inf")


def _judged(record: Mapping[str, Any], plays_for: int | None = None) -> list[dict[str, Any]]:
    """Replay a game record and collect each judged turn: the ruling, the
    position before it, the board judged (``seen``) and the position after;
    for turn *plays_for*, also the legal plays the throw allowed."""
    partial = {k: v for k, v in record.items() if k != "position"}
    actions = list(record["actions"])
    partial["actions"] = []
    match = Match.from_record(partial)
    out: list[dict[str, Any]] = []
    for n, action in enumerate(actions):
        if n < len(match.actions):
            continue                      # made by the replay itself (an automatic pass)
        before = match.position
        plays = None
        if plays_for is not None and action.get("type") == "move" and len(match.rulings) + 1 == plays_for:
            plays = [{"play": Companion._notation(o), "board": o.position.to_board()}
                     for o in match.legal_outcomes()]
        count = len(match.rulings)
        match.apply_action(action)
        for r in match.rulings[count:]:
            seen = Position.from_id(action["after"]) if action.get("type") == "move" else match.position
            out.append({"turn": len(out) + 1, "ruling": r, "before": before, "seen": seen,
                        "after": match.position, "plays": plays or []})
            before = match.position
    return out
