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
from willughby.engine.notation import NO_PLAY
from willughby.engine.position import DARK, LIGHT, Position, other
from willughby.engine.referee import Ruling
from willughby.engine.rules import PRESETS, get_preset, preset_rules

from . import tally as _tally
from .announce import describe_board_ruling, rethrow_text
from .games import BoardFamily, Family, family_of, family_of_preset
from .store import GameStore

__all__ = ["Companion", "CompanionError", "NotNowError", "UnknownError", "Announcement"]

log = logging.getLogger(__name__)

# a reading every location of which is at least this sure is ruled on without asking
CONFIDENT = 0.9
# how many legal plays a question offers
CHOICES = 4
# how many announcements the state keeps
KEEP_ANNOUNCEMENTS = 30


# the turn reader's hypothesis that the men have not been moved yet (dice thrown on the board)
NOT_MOVED = "(not moved yet)"


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

    #: what the page may answer as bad input (400), no such thing (404) and not now (409);
    #: anything else the companion raises is a fault (web_ui/contract.py)
    declared_errors: tuple[type[Exception], ...] = (CompanionError, UnknownError, NotNowError)

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
        self._match: Any = None                  # a GameMatch (games.py): Match or CountingMatch
        self._family: Family | None = None       # the family of the game in progress (games.py)
        self._action_ns: list[int] = []          # the store's n of each of the match's actions
        self._question: dict[str, Any] | None = None
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
        self._rebuild_rulings()
        self._publish()

    def _rebuild_rulings(self) -> None:
        assert self._match is not None
        if self._family is not None and self._family.name == "counting":
            self._rulings, self._counter = _tally.rebuild(self._match, self._family)
            return
        judged = _judged(self._match.record())
        self._counter = TurnCounter()
        for j in judged:
            self._counter.count(j["ruling"])
        self._rulings = [self._ruling_doc(j["ruling"], j, j["before"]) for j in judged]

    def new_game(self, preset: str, options: Mapping[str, str] | None = None,
                 players: Mapping[str, str] | None = None, who: str = "page",
                 start: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Start a new game; one in progress ends unfinished (it stays in the
        record). *start*, a board document with ``turn``, sets up a position
        to play on from (a problem, a game carried on from paper)."""
        try:
            p = get_preset(str(preset))
            rules = preset_rules(p.id, dict(options or {}))
            family = family_of(rules)
            match = family.new_match(p.id, rules, players, start)
        except EngineError as exc:
            raise CompanionError(str(exc)) from None
        with self._lock:
            self._game_id = self.store.create_game(p.id, match.rules.options(), family.store_players(match),
                                                   family.start_id(match))
            self._match = match
            self._family = family
            self._action_ns = []
            self._rulings = []
            self._counter = TurnCounter()
            self._announcements = []
            self._question = None
            self._seen_events = set()
            if family.name == "counting":
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

    def _turn_in_progress(self) -> int:
        """The number of the turn being played (:class:`TurnCounter`); once the
        game is over, the number of its last turn."""
        m = self._match
        if m is None:
            return 0
        return self._counter.played if m.phase == "over" else self._counter.in_progress

    def _awaiting(self) -> str:
        """What the game waits for, in the players' words (for the page and for
        the errors that say why an input is not wanted now)."""
        m = self._match
        if m is None:
            return "no game is in progress"
        turn = self._who(m.turn)
        if self._family is not None and self._family.name == "counting":
            return _tally.awaiting(m, self._family)
        if m.phase == "start":
            return "the players are to throw one die each for the start"
        if m.phase == "throw":
            return f"{turn} is to throw" + (" (or double)" if m.can_double() else "")
        if m.phase == "cube":
            return f"{self._who(other(m.offered_by or LIGHT))} is to take or drop the double"
        if m.phase == "move":
            return f"{turn} is to move the {'-'.join(map(str, m.dice or ()))} thrown"
        if m.phase == "binding_toss":
            return "both players are to throw two dice to break the bound table"
        if m.phase == "binding_choice":
            return f"{self._who(m.chooser)} is to choose the point to break"
        if m.phase == "over":
            return "the game is over: start a new one"
        return f"the game is at {m.phase}"

    def _undo_preview(self) -> str | None:
        """What UNDO would take back now, in words, or None when nothing."""
        m = self._match
        if m is None or not m.actions:
            return None
        start = len(m.actions) - 1
        while start > 0 and m.actions[start].get("automatic"):
            start -= 1
        return self._undo_text(m.actions[start])

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
                if self._family is not None and self._family.name == "counting":
                    if m.phase != "throw":
                        raise NotNowError(f"no dice are wanted now: {self._awaiting()}")
                    _tally.throw(self, values, who, note, ident)
                elif m.phase == "start":
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
                    raise NotNowError(f"no dice are wanted now: {self._awaiting()}")
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
                raise NotNowError(f"no move is awaited now: {self._awaiting()}")
            return {self._notation(o): o.position.to_board() for o in m.legal_outcomes()}

    @staticmethod
    def _notation(outcome: Any) -> str:
        text = outcome.play.notation or NO_PLAY
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
                   who: str = "camera", evidence: Any = None) -> dict[str, Any] | None:
        """A settled reading of the board (a board document; *confidence* per
        location "1".."24", "bar", each 0..1, None for a board entered by a
        person). Returns the ruling made (its JSON), or None when the reading
        asked nothing of the referee (the board as it was) or became a question.

        With *evidence* (the camera's :class:`~willughby.vision.turns.TurnEvidence`)
        the turn is judged by the turn reader: the throw's legal boards weighed
        against the picture, ruled only when the picture settles it, asked
        otherwise (DESIGN.md convention 15)."""
        with self._lock:
            m = self._need_game()
            if who == "camera" and self._family is not None and not self._family.camera_reads:
                return None            # the camera cannot referee this game (games.py): the board is entered
            if evidence is not None and m.phase == "move":
                return self._judge_turn(board, evidence, who)
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

    def _judge_turn(self, board: Mapping[str, Any], evidence: Any, who: str) -> dict[str, Any] | None:
        """Judge the turn in progress from the camera's evidence (see on_reading)."""
        from dataclasses import replace as _replace

        from willughby.vision.turns import OTHER, Candidate

        m = self._match
        assert m is not None
        before = m.position
        outcomes = m.legal_outcomes()
        by_play = {self._notation(o): o for o in outcomes}
        cands = [Candidate(play, o.position.to_board()) for play, o in by_play.items()]
        before_key = before.physical_key()
        if all(o.position.physical_key() != before_key for o in outcomes):
            cands.append(Candidate(NOT_MOVED, before.to_board()))      # the men not moved yet
        if evidence.changes is not None and not _same_men(evidence.before_read, before):
            evidence = _replace(evidence, changes=None)      # the frame before did not show the referee's board
        found = self.turn_reader.judge(cands, evidence, before=before.to_board(), men=m.rules.men)
        camera = {"verdict": found.verdict, "candidates": [{"play": r["play"], "p": round(r["p"], 4)}
                                                            for r in found.ranked], "notes": list(found.notes)}
        if not found.settled:
            return None                                        # a hand over the board: wait for a clear frame
        top = found.ranked[0]["play"] if found.ranked else None
        if top == NOT_MOVED and (found.verdict == "legal" or found.ranked[0]["p"] >= 0.5):
            return None                                        # nothing moved yet (dice thrown on the board)
        if found.verdict == "legal" and found.play in by_play:
            o = by_play[found.play]
            return self._play(o.position.with_turn(o.position.turn), who, board, camera)
        if found.verdict == "illegal" and found.board is not None:
            try:
                seen = self._position(found.board, m)
            except CompanionError:
                seen = None
            if seen is not None:
                return self._play(seen, who, board, camera)
        ranked = [r for r in found.ranked if r["play"] not in (OTHER, NOT_MOVED)]
        other = found.other_board if found.p_other >= 1e-3 else None
        try:
            seen_other = self._position(other, m) if other is not None else None
        except CompanionError:
            seen_other = None
        shown = ", ".join(f"{r['play']} ({100 * r['p']:.0f}%)" for r in ranked[:3])
        why = (f"the camera cannot tell these apart: {shown}" if len(ranked) > 1 and ranked[1]["p"] >= 0.01
               else "the picture fits no legal play well enough to rule" if found.p_other >= 0.01
               else f"the camera is not sure enough of {shown}")
        outcomes_ranked = [by_play[r["play"]] for r in ranked if r["play"] in by_play]
        rest = [o for o in outcomes if o not in outcomes_ranked]
        self._ask(seen_other, outcomes_ranked + rest, [], board, who, why=why,
                  chances={r["play"]: r["p"] for r in ranked}, camera=camera)
        return None

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

    def _play(self, after: Position, who: str, board: Mapping[str, Any],
              camera: Mapping[str, Any] | None = None) -> dict[str, Any]:
        m = self._match
        assert m is not None
        self._question = None
        before = m.position
        ruling = m.play(after)
        reading = {"board": dict(board), "who": who, "seq": len(m.rulings)}
        if camera is not None:
            reading["camera"] = dict(camera)          # what the turn reader weighed, for the dispute view
        self._save(who, [("reading", reading)])
        self._ruled(ruling, who, before)
        self._publish()
        return self._rulings[-1]

    def _ruled(self, ruling: Ruling, who: str, before: Position) -> None:
        m = self._match
        assert m is not None
        turn, attempt = self._counter.count(ruling)
        number = {"turn": turn, "attempt": attempt, "seq": len(m.rulings)}
        self._rulings.append(self._ruling_doc(ruling, number, before))
        for text, kind in self._describe(ruling):
            self._say(text, kind, who)
        if ruling.legal and ruling.game_over is None and m.phase == "throw" and m.turn == ruling.player \
                and m.rules.doublet_rethrow:
            self._say(rethrow_text(self._who(ruling.player), ruling.dice), "rethrow", who)
        if ruling.game_over is not None:
            self.store.finish(self._game_id, ruling.game_over.to_json())
        elif m.phase == "binding_toss":
            self._say("the table is bound: both throw two dice, the higher total chooses the point to break "
                      "(enter the binder's two dice, then the other's)", "prompt", who)

    @staticmethod
    def _ruling_doc(ruling: Ruling, number: Mapping[str, int], before: Position) -> dict[str, Any]:
        """A ruling for the page, numbered as :class:`TurnCounter` says:
        ``turn`` (the turn it belongs to), ``attempt`` (1, 2, ... within that
        turn) and ``seq`` (every ruling of the game, from 1)."""
        doc = ruling.to_json()
        doc["turn"] = number["turn"]
        doc["attempt"] = number["attempt"]
        doc["seq"] = number["seq"]
        doc["before"] = before.to_board()
        src = ruling.source
        doc["source"] = None if src is None else {"key": src.key, "citation": src.citation, "quote": src.quote}
        doc["closest"] = list(ruling.closest)
        return doc

    def _who(self, player: Any) -> str:
        """A player in words: "Ann (light)", or a counting game's "Cat"."""
        m = self._match
        if player is None or m is None or self._family is None:
            return "?"
        return self._family.who(m, player)

    def _describe(self, ruling: Ruling) -> list[tuple[str, str]]:
        """What to say of a ruling: the play, then each event, in order (announce.py)."""
        unstacking = self._family is not None and self._family.name == "unstacking"
        return describe_board_ruling(ruling, self._who, unstacking=unstacking)

    # ----------------------------------------------------------- questions
    def _ask(self, seen: Position | None, outcomes: Sequence[Any], doubtful: list[str], board: Mapping[str, Any],
             who: str, why: str | None = None, chances: Mapping[str, float] | None = None,
             camera: Mapping[str, Any] | None = None) -> None:
        """Put a question to the players: which of the closest legal plays was
        made, or (where the reading is a board at all) the board as read.
        With *chances* (the turn reader's probability of each play), the
        plays come in the order given and each choice carries its ``p``."""
        if chances is None:
            ranked = sorted(outcomes, key=lambda o: (_raw_distance(board, o.position), self._notation(o)))
        else:
            ranked = list(outcomes)
        choices = [{"index": i, "play": self._notation(o), "board": o.position.to_board()}
                   for i, o in enumerate(ranked[:CHOICES])]
        if chances is not None:
            for c in choices:
                c["p"] = round(float(chances.get(c["play"], 0.0)), 4)
        if seen is not None:
            choices.append({"index": len(choices), "play": "the board as read", "board": seen.to_board()})
        n = self.store.append(self._game_id, "question", {"reading": dict(board), "doubtful": doubtful,
                                                          "why": why, "camera": dict(camera or {})}, who)
        m = self._match
        assert m is not None
        mover = m.turn or LIGHT         # points are named as the mover counts them, as plays are written
        places = ", ".join("the bar" if k == "bar" else f"{mover}'s point {int(k) if mover == LIGHT else 25 - int(k)}"
                           for k in doubtful[:6])
        where = why or (f"the camera is unsure of {places}" if doubtful
                        else "the board is one man away from a legal play")
        about = f"Turn {self._turn_in_progress()}: {self._who(m.turn)} threw {'-'.join(map(str, m.dice or ()))}"
        self._question = {"id": f"q-{n}", "kind": "move", "text": f"Which play was made? {where[0].upper()}{where[1:]}.",
                          "about": about, "turn": self._turn_in_progress(), "player": m.turn,
                          "dice": list(m.dice or ()), "asked_at": self._clock(),
                          "reading": seen.to_board() if seen is not None else None, "choices": choices}
        self._say(f"{about}: please confirm the play on the page; {where}", "question", who)
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
                          "about": f"Turn {self._counter.played}: {self._who(binder)} bound the table",
                          "turn": self._counter.played, "player": chooser, "dice": [], "asked_at": self._clock(),
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
                raise NotNowError(f"no move is awaited now: {self._awaiting()}")
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

    def _undo_text(self, action: Mapping[str, Any]) -> str:
        """What an action was, for "X takes back ..." and the page's undo button."""
        kind = action.get("type")
        who = self._who(action.get("player")) if action.get("player") is not None else None
        if kind == "move":
            what = "the illegal move" if action.get("verdict") == "illegal" else "the move"
            play = action.get("play")
            return f"{what} of {who}" + (f": {play}" if play else "")
        if kind == "throw":
            return f"the throw of {who}: {'-'.join(map(str, action.get('dice', [])))}"
        if kind == "start_roll":
            return f"the roll for the start ({action.get('light')} against {action.get('dark')})"
        if kind in ("double", "take", "drop"):
            return f"the {kind} of {who}" if who else f"the {kind}"
        return f"the {str(kind).replace('_', ' ')}"

    # ---------------------------------------------------------------- cube
    def cube(self, action: str, who: str = "page") -> dict[str, Any]:
        """``double`` (the player on turn, before throwing), ``take`` or ``drop``."""
        with self._lock:
            m = self._need_game()
            if action not in ("double", "take", "drop"):
                raise CompanionError(f"the cube's actions are double, take and drop, not {action!r}")
            if not m.rules.cube:
                raise NotNowError("this game is played without the cube")
            if action == "double" and m.phase == "throw" and not m.can_double():
                owner = f"{self._who(m.cube_owner)} owns it" if m.cube_owner else "nobody owns it"
                raise NotNowError(f"{self._who(m.turn)} may not double now: the cube is at {m.cube_value} "
                                  f"and {owner}")
            if action == "double" and m.phase != "throw":
                raise NotNowError(f"a double is offered only before throwing: {self._awaiting()}")
            if action != "double" and m.phase != "cube":
                raise NotNowError(f"no double has been offered: {self._awaiting()}")
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
            fam = self._family
            if fam is not None and not fam.camera_reads and fam.camera_note:
                with self._lock:
                    self._say(fam.camera_note, "notice")
                    self._publish()
            elif cam is not None and hasattr(cam, "read_now"):
                cam.read_now()
            else:
                with self._lock:
                    self._say("no camera: enter the board on the page", "notice")
                    self._publish()

    # -------------------------------------------------------------- record
    def games(self) -> list[dict[str, Any]]:
        """The stored games, newest first (a counting game's players a list of
        names, and its turns its throws)."""
        out = []
        for g in self.store.games():
            g = dict(g, game_id=g["id"])
            try:
                counting = family_of_preset(g["preset"]).name == "counting"
            except EngineError:
                counting = False
            if counting:
                g["players"] = _tally.names_of(g["players"])
                g["turns"] = len(self.store.actions(g["id"]))
            out.append(g)
        return out

    def game(self, game_id: str) -> dict[str, Any]:
        """One stored game with each turn's boards (for replay)."""
        try:
            g = self.store.game(game_id)
            record = self.store.record(game_id)
        except LookupError:                # the store's message names its file: not for the page
            raise UnknownError(f"there is no game {game_id!r}") from None
        out = dict(g, game_id=g["id"])
        family = family_of_preset(record["preset"])
        out["family"] = family.name
        if family.name == "counting":
            out["players"] = _tally.names_of(out["players"])
            out["record"] = family.from_record(record).record()
            out["turns"] = _tally.turns(out["record"], family)
            out["turns_played"] = len(out["turns"])
            return out
        out["record"] = record
        out["turns"] = self._turns(record)          # every ruling, each with its turn and attempt
        out["turns_played"] = sum(1 for t in out["turns"] if t["verdict"] == "legal")
        return out

    @staticmethod
    def _turns(record: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Each judged turn of a record, with the boards before and after it."""
        return [{"turn": j["turn"], "attempt": j["attempt"], "seq": j["seq"],
                 "player": j["ruling"].player, "dice": list(j["ruling"].dice),
                 "play": j["ruling"].play, "verdict": j["ruling"].verdict,
                 "before": j["before"].to_board(), "after": j["after"].to_board(),
                 "ruling": j["ruling"].to_json()} for j in _judged(record)]

    def export_mat(self, game_id: str) -> str:
        from .matfile import to_mat

        try:
            record = self.store.record(game_id)
        except LookupError:                # the store's message names its file: not for the page
            raise UnknownError(f"there is no game {game_id!r}") from None
        try:
            return to_mat(record)
        except ValueError as exc:          # the game cannot be written as a .mat (matfile says why)
            raise CompanionError(str(exc)) from None

    def dispute(self, turn: int, attempt: int | None = None) -> dict[str, Any]:
        """A ruling of the game in progress for the dispute view: turn *turn*'s
        *attempt* (by default its last: the play that ended it, or the latest
        illegal attempt of the turn in progress), with the boards before and
        after, the ruling, its source, every legal play the throw allowed, and
        the turn's other attempts."""
        with self._lock:
            m = self._need_game()
            if self._family is not None and self._family.name == "counting":
                raise NotNowError("Sice-Ace is refereed from the dice alone: each throw's ruling is in the list "
                                  "of rulings and the announcements")
            judged = _judged(m.record(), plays_for=turn)
            of_turn = [j for j in judged if j["turn"] == turn]
            if not of_turn:
                played = self._counter.played
                raise UnknownError(f"turn {turn} has no ruling in this game (turns played: {played})")
            if attempt is None:
                attempt = of_turn[-1]["attempt"]
            found = [j for j in of_turn if j["attempt"] == attempt]
            if not found:
                raise UnknownError(f"turn {turn} has no attempt {attempt} (it has {len(of_turn)})")
            j = found[0]
            doc = self._ruling_doc(j["ruling"], j, j["before"])
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
                    "camera": camera}

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
        from willughby.vision.errors import VisionError

        try:
            result = cam.calibrate(corners)
        except VisionError as exc:         # corners that cannot be a board, or no frame yet
            raise CompanionError(f"the corners were not saved: {exc}") from None
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
                         "turn_number": 0, "turns_played": 0, "phase": "none", "awaiting": "no game is in progress",
                         "rulings": [], "game_over": None, "cube": None, "question": None, "last_play": None,
                         "undo": None, "family": None, "dice_wanted": 2, "camera_reads": True})
            return base
        fam = self._family
        assert fam is not None
        base.update({"family": fam.name, "dice_wanted": fam.dice_wanted(m), "camera_reads": fam.camera_reads})
        if not fam.camera_reads and base["devices"].get("camera") not in (None, "absent"):
            base["devices"]["camera"] = f"idle ({fam.camera_idle})"
        if fam.name == "counting":
            base.update(_tally.state(m, fam, self._rulings, self._game_id, self._turn_in_progress(),
                                     self._awaiting(), self._undo_preview()))
            return base
        last = None
        for r in reversed(self._rulings):
            if r["verdict"] == "legal" and (r.get("play") or r.get("opponent_play")):
                last = r
                break
        base.update({
            "game_id": self._game_id,
            "preset": m.preset,
            "players": dict(m.players),
            "board": m.position.to_board(),
            "dice": list(m.dice) if m.dice else None,
            "turn_number": self._turn_in_progress(),
            "turns_played": m.turn_number,
            "phase": m.phase,
            "awaiting": self._awaiting(),
            "rulings": self._rulings[-20:],
            "game_over": m.result.to_json() if m.result else None,
            "cube": {"value": m.cube_value, "owner": m.cube_owner, "offered_by": m.offered_by,
                     "enabled": m.rules.cube, "can_double": m.can_double()},
            "question": self._question,
            "last_play": ({"turn": last["turn"], "player": last["player"], "play": last["play"],
                           "before": last["before"], "after": last.get("board"),
                           "opponent_play": last.get("opponent_play"),
                           "passed": [e["die"] for e in last["events"] if e["type"] == "opponent_uses_die"],
                           "lost": [e["die"] for e in last["events"] if e["type"] == "lost_die"]}
                          if last else None),
            "undo": self._undo_preview(),
        })
        phases = fam.phases(m) if isinstance(fam, BoardFamily) else None
        if phases is not None:
            base["phases"] = phases
        return base


def _same_men(board: Mapping[str, Any] | None, position: Position) -> bool:
    """Whether a board document read by the camera has exactly *position*'s men on the points and the bar."""
    if not board:
        return False
    return _raw_distance(board, position) == 0


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
    for the rulings of turn *plays_for*, also the legal plays its throw
    allowed (the same for each of its attempts: one board before, one throw)."""
    partial = {k: v for k, v in record.items() if k != "position"}
    actions = list(record["actions"])
    partial["actions"] = []
    match = Match.from_record(partial)
    out: list[dict[str, Any]] = []
    numbers = TurnCounter()
    turn_plays: list[dict[str, Any]] | None = None
    for n, action in enumerate(actions):
        if n < len(match.actions):
            continue                      # made by the replay itself (an automatic pass)
        before = match.position
        plays = None
        if action.get("type") == "move" and numbers.in_progress == plays_for:
            if turn_plays is None:
                turn_plays = [{"play": Companion._notation(o), "board": o.position.to_board()}
                              for o in match.legal_outcomes()]
            plays = turn_plays
        count = len(match.rulings)
        match.apply_action(action)
        for r in match.rulings[count:]:
            seen = Position.from_id(action["after"]) if action.get("type") == "move" else match.position
            turn, attempt = numbers.count(r)
            out.append({"turn": turn, "attempt": attempt, "seq": len(out) + 1, "ruling": r, "before": before,
                        "seen": seen, "after": match.position, "plays": plays or []})
            before = match.position
    return out


class TurnCounter:
    """The house's one numbering of turns (``docs/control-api.md``, "Turns").

    A turn is one player's go: the throw and the play made with it, a pass
    included, numbered from 1 in the order played. A board ruled illegal is
    an *attempt* within the turn in progress, not a turn of its own: the
    rulings of one turn are its attempts 1, 2, ..., the last of them (the
    legal one) ending the turn. A turn taken back is not counted, since the
    record it is counted from no longer holds it.

    >>> c = TurnCounter()
    >>> [c.count(legal) for legal in (True, False, False, True, True)]
    [(1, 1), (2, 1), (2, 2), (2, 3), (3, 1)]
    >>> c.played, c.in_progress
    (3, 4)
    """

    def __init__(self) -> None:
        self.played = 0
        self._attempts = 0

    @property
    def in_progress(self) -> int:
        """The number of the turn being played now."""
        return self.played + 1

    def count(self, ruling: Ruling | bool) -> tuple[int, int]:
        """Number the next ruling: ``(turn, attempt)``."""
        legal = ruling if isinstance(ruling, bool) else ruling.legal
        self._attempts += 1
        numbered = (self.played + 1, self._attempts)
        if legal:
            self.played += 1
            self._attempts = 0
        return numbered
