"""How a move on the board becomes a ruling: readings, boards entered, and questions.

A turn's move reaches the referee three ways: a settled reading from the
camera (:meth:`Judging.on_reading`), a board entered by a person
(:meth:`~Judging.submit_board`), or the answer to a question
(:meth:`~Judging.answer`). A reading is matched against the throw's
legal plays (the engine's outcomes): with the camera's evidence, the turn
reader weighs the legal boards against the picture (a turn is judged, not
a frame: ``docs/turn-reader.md``, "The turn reader and its figures");
without it, a reading every location of which is sure enough
(:data:`CONFIDENT`) is ruled as it stands. A reading that is unsure, or one
man from a legal play, becomes a question on the page -- the reading and
the closest legal plays (:data:`CHOICES`) -- never a silent guess. A ruling
is recorded, numbered, announced and published (:meth:`~Judging.ruled`).
The choice of the point to break a bound table is asked the same way.

:class:`Judging` is the companion's part that owns the open question and
the turn reader; it is handed the game in progress (``current_game.py``)
and what tells the players (``state.py``).

>>> Judging.doubtful({"12": 0.99, "bar": 0.2, "3": 0.5})     # the locations read unsurely
['3', 'bar']
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np

from willughby.engine.errors import EngineError, InvalidBoardError
from willughby.engine.game import Game
from willughby.engine.position import LIGHT, Position
from willughby.engine.referee import Ruling

from .announce import describe_board_ruling, rethrow_text
from .documents import CameraDoc, ChoiceDoc, QuestionDoc, RulingDoc, StateDoc, choice_doc, question_doc
from .errors import CompanionError, NotNowError, UnknownError
from .numbering import notation, ruling_doc
from .point_question import men_on, point_named, points_apart
from .way_back import WayBack

if TYPE_CHECKING:
    from willughby.vision.turns import TurnEvidence, TurnReader

    from .current_game import CurrentGame
    from .state import Telling

__all__ = ["Judging", "CONFIDENT", "CHOICES", "NOT_MOVED"]

# a reading every location of which is at least this sure is ruled on without asking
CONFIDENT = 0.9
# how many legal plays a question offers
CHOICES = 4
# the turn reader's hypothesis that the men have not been moved yet (dice thrown on the board)
NOT_MOVED = "(not moved yet)"


class Judging:
    """The moves of the game in progress: judged, asked about, ruled (see the module docstring)."""

    def __init__(self, game: "CurrentGame", telling: "Telling", clock: Callable[[], float]) -> None:
        self._game = game
        self._telling = telling
        self._clock = clock
        #: the question open on the page, or None
        self.question: QuestionDoc | None = None
        #: the camera's evidence of the frame the open question is about
        self.asked_evidence: TurnEvidence | None = None
        #: the turn reader's last judgement of a camera's frame: its verdict, candidates and notes
        self.last_camera: CameraDoc | None = None
        self._turn_reader: TurnReader | None = None
        #: the way back to the board on the table: the players' board, a board two plays on, a throw held
        self.way_back = WayBack(game, telling, self)

    @property
    def turn_reader(self) -> "TurnReader":
        """The turn reader (``willughby.vision.turns``) that weighs the camera's evidence, made when first needed."""
        if self._turn_reader is None:
            from willughby.vision.turns import TurnReader

            self._turn_reader = TurnReader()
        return self._turn_reader

    @turn_reader.setter
    def turn_reader(self, reader: "TurnReader") -> None:
        self._turn_reader = reader

    def forget(self) -> None:
        """A new game, or one rebuilt: no question is open."""
        self.question = None
        self.asked_evidence = None

    # -------------------------------------------------------------- moves
    def legal_boards(self) -> dict[str, dict[str, Any]]:
        """The legal plays of the turn in progress: notation -> board after."""
        with self._game.lock:
            m = self._game.need()
            if m.phase != "move":
                raise NotNowError(f"no move is awaited now: {self._game.awaiting()}")
            return {notation(o): o.position.to_board() for o in m.legal_outcomes()}

    @staticmethod
    def position(board: Mapping[str, Any], m: Game) -> Position:
        """A board document as a position of the game *m* (:class:`CompanionError` saying why it is none)."""
        doc = {k: v for k, v in dict(board).items() if k not in ("confidence", "settled", "turn")}
        try:
            return Position.from_board(doc, men=m.rules.men, starts_off_board=m.rules.start_waiting > 0)
        except InvalidBoardError as exc:
            raise CompanionError(f"the board: {exc}") from None

    def on_reading(self, board: Mapping[str, Any], confidence: Mapping[str, float] | None = None,
                   who: str = "camera", evidence: "TurnEvidence | None" = None) -> RulingDoc | None:
        """A settled reading of the board (a board document; *confidence* per
        location "1".."24", "bar", each 0..1, None for a board entered by a
        person). Returns the ruling made (its JSON), or None when the reading
        asked nothing of the referee (the board as it was) or became a question.

        With *evidence* (the camera's :class:`~willughby.vision.turns.TurnEvidence`)
        the turn is judged by the turn reader: the throw's legal boards weighed
        against the picture, ruled only when the picture settles it, asked
        otherwise (``docs/turn-reader.md``, "The turn reader and its figures")."""
        game = self._game
        with game.lock:
            m = game.need()
            if who == "camera" and game.family is not None and not game.family.camera_reads:
                return None            # the camera cannot referee this game (games.py): the board is entered
            if evidence is not None and m.phase == "move":
                return self._judge_turn(board, evidence, who)
            try:
                seen = self.position(board, m)
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
            doubtful = self.doubtful(confidence)
            exact = [o for o in outcomes if o.position.physical_key() == key]
            if exact and not doubtful:
                return self.rule_play(exact[0].position.with_turn(exact[0].position.turn), who, board)
            if doubtful or not exact and confidence is not None and self._near(seen, outcomes):
                self._ask(seen, outcomes, doubtful, board, who)
                return None
            return self.rule_play(seen, who, board)

    def _judge_turn(self, board: Mapping[str, Any], evidence: "TurnEvidence", who: str) -> RulingDoc | None:
        """Judge the turn in progress from the camera's evidence (see on_reading)."""
        from willughby.vision.turns import OTHER, Candidate

        m = self._game.match
        assert m is not None
        before = m.position
        outcomes = m.legal_outcomes()
        by_play = {notation(o): o for o in outcomes}
        cands = [Candidate(play, o.position.to_board()) for play, o in by_play.items()]
        before_key = before.physical_key()
        if all(o.position.physical_key() != before_key for o in outcomes):
            cands.append(Candidate(NOT_MOVED, before.to_board()))      # the men not moved yet
        given = evidence
        piled = bool(getattr(self._game.family, "piled", False))
        if evidence.changes is not None and not _same_men(evidence.before_read, before, piled):
            # the frame before did not show the referee's board (in a game of piles, piles and all: a frame
            # between two men played down has the same men on every point)
            evidence = replace(evidence, changes=None, profiles=None, faint_profiles=None, bar_change=None)
        found = self.turn_reader.judge(cands, evidence, before=before.to_board(), men=m.rules.men, piles=piled)
        camera: CameraDoc = {"verdict": found.verdict, "notes": list(found.notes),
                             "candidates": [{"play": r["play"], "p": round(r["p"], 4)} for r in found.ranked]}
        self.last_camera = camera           # what the turn reader weighed last (a recorded game's referee shows it)
        if not found.settled:
            return None                                        # a hand over the board: wait for a clear frame
        if self.nothing_moved(found):
            if found.verdict == "legal":
                given.shown = before.to_board()                # the next frame is compared with this one
            return None                                        # nothing moved yet (dice thrown on the board)
        if found.verdict == "legal" and found.play in by_play:
            o = by_play[found.play]
            if self.way_back.one_or_two_plays(o, board, camera, who):
                self.asked_evidence = given      # one play, or two that leave the board alike: the players say
                return None
            given.shown = o.position.to_board()
            mover = m.turn
            made = self.rule_play(o.position.with_turn(o.position.turn), who, board, camera)
            if m.phase == "move" and m.turn != mover:
                # a throw held for the next player was taken: the same frame may show his play too (the frame
                # of the mover's play never settled), so it is judged again against his throw; the men not
                # moved yet is as likely an answer as any
                return self._judge_turn(board, given, who) or made
            return made
        camera_throw = self._game.throw_by == "camera"
        if found.verdict == "illegal" and found.board is not None and not camera_throw:
            try:
                seen: Position | None = self.position(found.board, m)
            except CompanionError:
                seen = None
            if seen is not None:
                # a board two plays on (the mover's frame never settled): never ruled illegal against the next
                # player; ruled both, or asked (way_back.py)
                done = self.way_back.two_plays_seen(seen, board, camera, who, sure=True)
                if done == "ruled":
                    given.shown = found.board
                    return self._game.rulings[-1]
                if done == "asked":
                    self.asked_evidence = given
                    return None
                return self.rule_play(seen, who, board, camera)
        ranked = [r for r in found.ranked if r["play"] not in (OTHER, NOT_MOVED)]
        other = found.other_board if found.p_other >= 1e-3 else None
        try:
            seen_other = self.position(other, m) if other is not None else None
        except CompanionError:
            seen_other = None
        shown = ", ".join(f"{r['play']} ({100 * r['p']:.0f}%)" for r in ranked[:3])
        thrown = "-".join(map(str, m.dice or ()))
        unmoved = bool(found.ranked) and found.ranked[0]["play"] == NOT_MOVED and bool(found.moved_at)
        why = (f"the board fits no play of the {thrown} the camera read: if the throw was read wrong, take it "
               "back (UNDO) and enter it" if camera_throw and found.verdict == "illegal"
               else f"the camera reads the board as it was, but the picture changed where men stood "
                    f"({', '.join('the bar' if q == 'bar' else 'point ' + q for q in found.moved_at)})"
               if unmoved
               else f"the camera cannot tell these apart: {shown}" if len(ranked) > 1 and ranked[1]["p"] >= 0.01
               else "the picture fits no legal play well enough to rule" if found.p_other >= 0.01
               else f"the camera is not sure enough of {shown}")
        outcomes_ranked = [by_play[r["play"]] for r in ranked if r["play"] in by_play]
        rest = [o for o in outcomes if o not in outcomes_ranked]
        if found.p_other >= 0.5 and not camera_throw:
            # the likeliest board is no play of the throw: two plays on, perhaps (way_back.py). The board is
            # the turn reader's other board, else the point reader's own reading, taken as sure only where the
            # reader was sure of every point and the picture fits no play; the throw's likeliest plays are
            # offered too, should the picture be misread
            try:
                read: Position | None = self.position(board, m)
            except CompanionError:
                read = None
            probs = np.asarray(given.count_probs)
            reader_sure = found.p_other >= 0.9 and bool((probs.max(axis=1) >= CONFIDENT).all())
            for seen_now, sure in ((read, reader_sure), (seen_other, False)):
                if seen_now is None:
                    continue
                done = self.way_back.two_plays_seen(seen_now, board, camera, who, sure=sure,
                                                    also=outcomes_ranked[:2])
                if done == "ruled":
                    given.shown = seen_now.to_board()
                    return self._game.rulings[-1]
                if done == "asked":
                    self.asked_evidence = given
                    return None
        self._ask(seen_other, outcomes_ranked + rest, [], board, who, why=why,
                  chances={r["play"]: r["p"] for r in ranked}, camera=camera)
        self.asked_evidence = given       # the players' answer says which board this frame shows
        return None

    @staticmethod
    def nothing_moved(found: Any) -> bool:
        """Whether the turn reader's judgement (``TurnJudgement``) says the men have not been moved yet:
        :data:`NOT_MOVED` the likeliest (ruled, or at even odds or better), and the picture unchanged
        wherever men stood (its ``moved_at`` empty).  Where a man left the bar, or a point's men changed,
        the board is not as the referee holds it, however the counts read: the turn is ruled or asked."""
        if not found.ranked or found.ranked[0]["play"] != NOT_MOVED or getattr(found, "moved_at", ()):
            return False
        return bool(found.verdict == "legal" or found.ranked[0]["p"] >= 0.5)

    @staticmethod
    def doubtful(confidence: Mapping[str, float] | None) -> list[str]:
        """The locations of a reading read less surely than :data:`CONFIDENT`, in the board's order."""
        if not confidence:
            return []
        return sorted((k for k, v in confidence.items() if float(v) < CONFIDENT),
                      key=lambda k: (k == "bar", int(k) if k.isdigit() else 0))

    @staticmethod
    def _near(seen: Position, outcomes: Sequence[Any]) -> bool:
        """Whether a camera's reading is within one man of a legal play: a
        misread man is likelier than that exact illegal move."""
        doc = seen.to_board()
        return any(_raw_distance(doc, o.position) <= 2 for o in outcomes)

    def rule_play(self, after: Position, who: str, board: Mapping[str, Any],
                  camera: CameraDoc | None = None) -> RulingDoc:
        """*after* ruled as the mover's play of the throw awaited (legal or not): the reading *board* (and
        what the turn reader weighed, *camera*) saved, the ruling numbered, announced and published, and a
        throw held for the player now on turn taken. Returns the ruling made. The way back (``way_back.py``)
        rules the players' board through it (``way_back.Judge``)."""
        game = self._game
        m = game.match
        assert m is not None
        self.forget()
        before = m.position
        ruling = m.play(after)
        reading: dict[str, Any] = {"board": dict(board), "who": who, "seq": len(m.rulings)}
        if camera is not None:
            reading["camera"] = dict(camera)          # what the turn reader weighed, for the dispute view
        game.save(who, [("reading", reading)])
        self.ruled(ruling, who, before)
        made = game.rulings[-1]
        self.way_back.take_held()             # a throw made early by the player now on turn
        self._telling.publish()
        return made

    def ruled(self, ruling: Ruling, who: str, before: Position) -> None:
        """A ruling made: numbered, kept with the game's rulings, announced (with what the game asks next)."""
        game, say = self._game, self._telling.say
        m = game.match
        assert m is not None
        turn, attempt = game.counter.count(ruling)
        number = {"turn": turn, "attempt": attempt, "seq": len(m.rulings)}
        game.rulings.append(ruling_doc(ruling, number, before))
        for text, kind in self.describe(ruling):
            say(text, kind, who)
        if ruling.legal and ruling.game_over is None and m.phase == "throw" and m.turn == ruling.player \
                and m.rules.doublet_rethrow:
            say(rethrow_text(game.who(ruling.player), ruling.dice), "rethrow", who)
        if ruling.game_over is None and m.phase == "binding_toss":   # (an end is stored with its action: save)
            say("the table is bound: both throw two dice, the higher total chooses the point to break "
                "(enter the binder's two dice, then the other's)", "prompt", who)

    def describe(self, ruling: Ruling) -> list[tuple[str, str]]:
        """What to say of a ruling: the play, then each event, in order (announce.py)."""
        family = self._game.family
        unstacking = family is not None and family.board == "piles"
        return describe_board_ruling(ruling, self._game.who, unstacking=unstacking)

    # ----------------------------------------------------------- questions
    def _ask(self, seen: Position | None, outcomes: Sequence[Any], doubtful: list[str], board: Mapping[str, Any],
             who: str, why: str | None = None, chances: Mapping[str, float] | None = None,
             camera: CameraDoc | None = None) -> None:
        """Put a question to the players: which of the closest legal plays was
        made, or (where the reading is a board at all) the board as read.
        With *chances* (the turn reader's probability of each play), the
        plays come in the order given and each choice carries its ``p``."""
        game = self._game
        if chances is None:
            ranked = sorted(outcomes, key=lambda o: (_raw_distance(board, o.position), notation(o)))
        else:
            ranked = list(outcomes)
        choices: list[ChoiceDoc] = []
        for i, o in enumerate(ranked[:CHOICES]):
            play = notation(o)            # a play the turn reader did not rank has no chance to show
            choices.append(choice_doc(i, play, o.position.to_board(),
                                      None if chances is None or play not in chances else chances[play]))
        if seen is not None:
            choices.append(choice_doc(len(choices), "the board as read", seen.to_board()))
        m = game.match
        assert m is not None
        mover = m.turn or LIGHT         # points are named as the mover counts them, as plays are written
        places = ", ".join("the bar" if k == "bar" else f"{mover}'s point {int(k) if mover == LIGHT else 25 - int(k)}"
                           for k in doubtful[:6])
        where = why or (f"the camera is unsure of {places}" if doubtful
                        else "the board is one man away from a legal play")
        asking = "Which play was made?"
        if seen is not None and ranked:
            # the board as read and the likeliest play differ at one point alone: that point is the question
            likeliest, read = ranked[0].position.to_board(), seen.to_board()
            apart = points_apart(read, likeliest)
            if len(apart) == 1:
                at = apart.pop()
                asking = f"How many men stand on {point_named(at, mover)}?"
                where = (f"the camera reads every other point as {notation(ranked[0])} leaves it, and there "
                         f"{men_on(read, at)} where that play leaves {men_on(likeliest, at)}")
        turn = game.turn_in_progress()
        about = f"Turn {turn}: {game.who(m.turn)} threw {'-'.join(map(str, m.dice or ()))}"
        self.put_question("move", f"{asking} {where[0].upper()}{where[1:]}.", about, m.turn,
                          m.dice or (), choices, who, seen.to_board() if seen is not None else None,
                          {"reading": dict(board), "doubtful": doubtful, "why": why, "camera": dict(camera or {})})
        self._telling.say(f"{about}: please confirm the play on the page; {where}", "question", who)
        self._telling.publish()

    def put_question(self, kind: str, text: str, about: str, player: Any, dice: Sequence[int],
                     choices: list[ChoiceDoc], who: str, reading: Mapping[str, Any] | None,
                     entry: dict[str, Any]) -> None:
        """Open a question of *kind* (``move``, ``turn``, ``two_plays``, ``pass_between``): stored in the game's
        log with its choices first (``asked``, each choice whole, its data and all), so a referee started
        again over the store asks it again (:meth:`restore`), then put on the page. The way back
        (``way_back.py``) asks its questions through it (``way_back.Judge``)."""
        game = self._game
        asked = {"kind": kind, "text": text, "about": about, "turn": game.turn_in_progress(), "player": player,
                 "dice": list(dice), "asked_at": self._clock(), "choices": choices,
                 "reading": None if reading is None else dict(reading)}
        n = game.store.append(game.need_id(), "question", dict(entry, asked=asked), who)
        self.question = _question(n, asked)

    def restore(self, entry: Mapping[str, Any] | None) -> None:
        """The question of the log's *entry* (``CurrentGame.open_question``: one no answer, play or undo
        followed) open again, as it was asked; nothing where the entry holds no question asked (a log
        written before questions kept their choices) or the game no longer awaits its answer."""
        m = self._game.match
        asked = None if entry is None else entry["data"].get("asked")
        if entry is None or not isinstance(asked, Mapping) or m is None:
            return
        if asked.get("kind") not in ("move", "turn", "two_plays", "pass_between") or getattr(m, "phase", None) != "move" \
                or asked.get("player") != m.turn or list(asked.get("dice") or ()) != list(m.dice or ()):
            return
        self.question = _question(int(entry["n"]), asked)

    def ask_break(self, chooser: str) -> None:
        """Ask the player who won the toss which point of the bound table to break."""
        game = self._game
        m = game.match
        assert m is not None and m.binder is not None
        binder = m.binder
        choices = []
        for own in range(1, 7):
            physical = own if binder == LIGHT else 25 - own
            if m.position.points(binder)[physical - 1] >= 2:
                choices.append(choice_doc(own, f"break {binder}'s {own} point", None))
        played = game.counter.played
        self.question = question_doc(f"q-break-{len(m.actions)}", "break",
                                     f"{game.who(chooser)} chooses which point of {binder}'s table to break",
                                     about=f"Turn {played}: {game.who(binder)} bound the table", turn=played,
                                     player=chooser, dice=(), asked_at=self._clock(), choices=choices)
        self._telling.say(self.question["text"], "question")

    def answer(self, question_id: str, choice: int, who: str = "page") -> StateDoc:
        """Answer the open question with one of its choices' index."""
        game = self._game
        with game.lock:
            m = game.need()
            q = self.question
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
                self.question = None
                game.save(who, [("answer", {"question": question_id, "choice": choice})])
                self._telling.say(f"{m.binder or 'the binder'}'s {choice} point is broken", "break", who)
                self._telling.publish()
                return self._telling.doc
            chosen = picked["board"]
            assert chosen is not None           # a question of moves (or of the turn) offers boards
            seen = self.position(chosen, m)
            # a choice naming the plays a board some turns on came by (a ``two_plays`` or ``pass_between``
            # question's) carries how many turns on it is placed, and the mover's play the camera missed
            # (documents.ChoiceDoc). A choice stored without them (a question asked by a referee before they
            # were written) is not taken as such: its board is taken as any board the players give
            # (WayBack.way), which finds from the two boards alone how far on it is and a play that leads there
            gap_turns = picked.get("turns")
            # (a board refused: nothing written)
            way = None if q["kind"] == "turn" or gap_turns is not None else self.way_back.way(seen)
            game.store.append(game.need_id(), "answer", {"question": question_id, "choice": choice,
                                                         "play": picked["play"]}, who)
            asked = self.asked_evidence
            if q["kind"] == "turn":              # whose turn after the board the players placed
                self.way_back.place(seen, 1 if chosen.get("turn") != m.turn else 2, who, chosen, missed=None)
            elif gap_turns is not None:          # the mover's play named, then the other's: two (three) turns on
                self.way_back.place(seen, gap_turns, who, chosen, missed=picked.get("missed"))
            else:
                self.way_back.players_board(seen, who, chosen, way)
            if asked is not None:
                asked.shown = dict(chosen)     # the camera's next frame is compared with that one
            return self._telling.doc

    def submit_board(self, board: Mapping[str, Any], who: str = "page") -> StateDoc:
        """The board as it stands, entered by a person: judged as the move, with no doubt."""
        if not isinstance(board, Mapping):
            raise CompanionError("the board must be a board document (an object)")
        game = self._game
        with game.lock:
            m = game.need()
            if m.phase != "move":
                raise NotNowError(f"no move is awaited now: {game.awaiting()}")
            seen = self.position(board, m)
            if seen.physical_key() == m.position.physical_key():
                raise CompanionError("that is the board before the move: nothing was played")
            way = self.way_back.way(seen)
            # only a board taken is kept, and as it was read (a refused one, or its padding, never is)
            game.store.append(game.need_id(), "correction", {"board": seen.to_board()}, who)
            self.way_back.players_board(seen, who, board, way)
            return self._telling.doc


def _question(n: int, asked: Mapping[str, Any]) -> QuestionDoc:
    """The question of the log's entry *n*, as it was asked (``asked``: what :meth:`Judging.put_question` stored)."""
    choices = [choice_doc(int(c["index"]), str(c["play"]), c.get("board"), c.get("p"), turns=c.get("turns"),
                          missed=c.get("missed")) for c in asked["choices"]]
    return question_doc(f"q-{n}", str(asked["kind"]), str(asked["text"]), about=str(asked["about"]),
                        turn=int(asked["turn"]), player=asked["player"], dice=list(asked["dice"]),
                        asked_at=float(asked["asked_at"]), choices=choices, reading=asked.get("reading"))


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
