"""How a move on the board becomes a ruling: readings, boards entered, and questions.

A turn's move reaches the referee three ways: a settled reading from the
camera (:meth:`JudgingMixin.on_reading`), a board entered by a person
(:meth:`~JudgingMixin.submit_board`), or the answer to a question
(:meth:`~JudgingMixin.answer`). A reading is matched against the throw's
legal plays (the engine's outcomes): with the camera's evidence, the turn
reader weighs the legal boards against the picture (a turn is judged, not
a frame: ``docs/vision-reader.md``, "The turn reader and its figures");
without it, a reading every location of which is sure enough
(:data:`CONFIDENT`) is ruled as it stands. A reading that is unsure, or one
man from a legal play, becomes a question on the page -- the reading and
the closest legal plays (:data:`CHOICES`) -- never a silent guess. A ruling
is recorded, numbered, announced and published (:meth:`~JudgingMixin._ruled`).
The choice of the point to break a bound table is asked the same way.

:class:`JudgingMixin` is part of :class:`~willughby.companion.service.Companion`,
whose ``__init__`` makes the attributes it reads.

>>> JudgingMixin._doubtful({"12": 0.99, "bar": 0.2, "3": 0.5})     # the locations read unsurely
['3', 'bar']
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from willughby.engine.errors import EngineError, InvalidBoardError
from willughby.engine.match import Match
from willughby.engine.position import LIGHT, Position
from willughby.engine.referee import Ruling

from .announce import describe_board_ruling, rethrow_text
from .errors import CompanionError, NotNowError, UnknownError
from .numbering import notation, ruling_doc

__all__ = ["JudgingMixin", "CONFIDENT", "CHOICES", "NOT_MOVED"]

# a reading every location of which is at least this sure is ruled on without asking
CONFIDENT = 0.9
# how many legal plays a question offers
CHOICES = 4
# the turn reader's hypothesis that the men have not been moved yet (dice thrown on the board)
NOT_MOVED = "(not moved yet)"


class JudgingMixin:
    """The moves of the game in progress: judged, asked about, ruled."""

    #: the turn reader's last judgement of a camera's frame: its verdict, candidates and notes
    last_camera: dict[str, Any] | None = None

    # -------------------------------------------------------------- moves
    def legal_boards(self) -> dict[str, dict[str, Any]]:
        """The legal plays of the turn in progress: notation -> board after."""
        with self._lock:
            m = self._need_game()
            if m.phase != "move":
                raise NotNowError(f"no move is awaited now: {self._awaiting()}")
            return {notation(o): o.position.to_board() for o in m.legal_outcomes()}

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
        otherwise (``docs/vision-reader.md``, "The turn reader and its figures")."""
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
        by_play = {notation(o): o for o in outcomes}
        cands = [Candidate(play, o.position.to_board()) for play, o in by_play.items()]
        before_key = before.physical_key()
        if all(o.position.physical_key() != before_key for o in outcomes):
            cands.append(Candidate(NOT_MOVED, before.to_board()))      # the men not moved yet
        given = evidence
        piled = bool(getattr(self._family, "piled", False))
        if evidence.changes is not None and not _same_men(evidence.before_read, before, piled):
            # the frame before did not show the referee's board (in a game of piles, piles and all: a frame
            # between two men played down has the same men on every point)
            evidence = _replace(evidence, changes=None, profiles=None, faint_profiles=None)
        found = self.turn_reader.judge(cands, evidence, before=before.to_board(), men=m.rules.men, piles=piled)
        camera = {"verdict": found.verdict, "candidates": [{"play": r["play"], "p": round(r["p"], 4)}
                                                            for r in found.ranked], "notes": list(found.notes)}
        self.last_camera = camera           # what the turn reader weighed last (a recorded game's referee shows it)
        if not found.settled:
            return None                                        # a hand over the board: wait for a clear frame
        top = found.ranked[0]["play"] if found.ranked else None
        if top == NOT_MOVED and (found.verdict == "legal" or found.ranked[0]["p"] >= 0.5):
            if found.verdict == "legal":
                given.shown = before.to_board()                # the next frame is compared with this one
            return None                                        # nothing moved yet (dice thrown on the board)
        if found.verdict == "legal" and found.play in by_play:
            o = by_play[found.play]
            given.shown = o.position.to_board()
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
        self._asked_evidence = given      # the players' answer says which board this frame shows
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
        self._asked_evidence = None
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
        self._rulings.append(ruling_doc(ruling, number, before))
        for text, kind in self._describe(ruling):
            self._say(text, kind, who)
        if ruling.legal and ruling.game_over is None and m.phase == "throw" and m.turn == ruling.player \
                and m.rules.doublet_rethrow:
            self._say(rethrow_text(self._who(ruling.player), ruling.dice), "rethrow", who)
        if ruling.game_over is None and m.phase == "binding_toss":   # (an end is stored with its action: _save)
            self._say("the table is bound: both throw two dice, the higher total chooses the point to break "
                      "(enter the binder's two dice, then the other's)", "prompt", who)

    def _describe(self, ruling: Ruling) -> list[tuple[str, str]]:
        """What to say of a ruling: the play, then each event, in order (announce.py)."""
        unstacking = self._family is not None and self._family.board == "piles"
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
            ranked = sorted(outcomes, key=lambda o: (_raw_distance(board, o.position), notation(o)))
        else:
            ranked = list(outcomes)
        choices = [{"index": i, "play": notation(o), "board": o.position.to_board()}
                   for i, o in enumerate(ranked[:CHOICES])]
        if chances is not None:
            for c in choices:           # a play the turn reader did not rank has no chance to show
                if c["play"] in chances:
                    c["p"] = round(float(chances[c["play"]]), 4)
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
            asked = self._asked_evidence
            self._play(self._position(picked["board"], m), who, picked["board"])
            if asked is not None:
                asked.shown = dict(picked["board"])    # the camera's next frame is compared with that one
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


def _same_men(board: Mapping[str, Any] | None, position: Position, piles: bool = False) -> bool:
    """Whether a board document read by the camera has exactly *position*'s
    men on the points and the bar (and, with *piles*, in the same piles)."""
    if not board:
        return False
    if piles:
        zeros = {"light": [0] * 24, "dark": [0] * 24}
        stacked = board.get("stacked") or zeros
        want = position.to_board().get("stacked") or zeros
        try:
            if any([int(x) for x in stacked[side]] != list(want[side]) for side in ("light", "dark")):
                return False
        except (KeyError, TypeError, ValueError):
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
