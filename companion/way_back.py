"""The referee's way back to the board on the table (docs/house-conventions.md, convention 18).

When the camera misses a play, the referee still holds the board before it and waits for that play while
the players go on. :class:`WayBack` is the part of :class:`~willughby.companion.judging.Judging` that finds
the way back:

- a board the players give (their answer to a question, or a board they enter) is the board on the table:
  a legal play of the throw is ruled as such; a board only the mover's men made is his play, judged with his
  dice (an illegal play stays illegal); a board the mover's play and then the other player's lead to is
  placed two turns on, the gap logged and told; any other is taken once the players say whose turn it is;
- a throw made while the referee still waits for a play (the box, the page) is held for the next player,
  not refused, and taken as soon as that player's turn comes (:meth:`WayBack.hold`);
- a camera's frame two plays on from the board the referee holds (a frame of the mover's play never
  settled, or was missed) is never ruled illegal against the next player: where the held throw and the
  picture settle both plays, both are ruled; otherwise one question names both (:meth:`WayBack.two_plays_seen`).

It is handed the game in progress, what tells the players, and of the judging only what :class:`Judge` names:
ruling a play, putting a question, forgetting the one open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence

from willughby.engine.errors import EngineError
from willughby.engine.placing import first_plays, moved_alone, pass_between, two_plays
from willughby.engine.position import Position, other
from willughby.engine.rulings import Outcome

from .documents import CameraDoc, ChoiceDoc, RulingDoc, choice_doc
from .errors import CompanionError, NotNowError
from .numbering import notation

if TYPE_CHECKING:
    from .current_game import CurrentGame
    from .state import Telling

__all__ = ["WayBack", "Judge"]


class Judge(Protocol):
    """What :class:`WayBack` asks of the part that judges the moves (``judging.py``, ``Judging``): to rule a
    board as the mover's play, to put a question to the players, and to forget the question open. Nothing
    else of it is reached."""

    def rule_play(self, after: Position, who: str, board: Mapping[str, Any],
                  camera: CameraDoc | None = None) -> RulingDoc:
        """*after* ruled as the mover's play of the throw awaited (legal or not), saved with the reading
        *board*, announced and published; a throw held for the player then on turn is taken."""
        ...

    def put_question(self, kind: str, text: str, about: str, player: Any, dice: Sequence[int],
                     choices: list[ChoiceDoc], who: str, reading: Mapping[str, Any] | None,
                     entry: dict[str, Any]) -> None:
        """A question of *kind* opened: stored in the game's log with its choices, then put on the page."""
        ...

    def forget(self) -> None:
        """No question is open any more."""
        ...


class WayBack:
    """The players' board, a board two plays on, a throw held (see the module docstring).

    It is handed the game in progress, what tells the players, and the part that judges the moves (only
    what :class:`Judge` names of it)."""

    def __init__(self, game: "CurrentGame", telling: "Telling", judge: Judge) -> None:
        self._game = game
        self._telling = telling
        self._judge = judge

    def players_board(self, seen: Position, who: str, board: Mapping[str, Any],
                       way: tuple[str, Any] | None = None) -> None:
        """A board the players gave (an answer, a board entered): the board on the table
        (docs/house-conventions.md, convention 18: "the players' board always wins"), taken the way
        :meth:`way` says (*way*, where it was asked already)."""
        kind, what = way if way is not None else self.way(seen)
        if kind == "play":
            self._judge.rule_play(what, who, board)
        elif kind == "placed":
            self.place(seen, 2, who, board, missed=what)
        elif kind == "passed":
            self.place(seen, 3, who, board, missed=what)
        else:
            self.ask_turn(seen, who, board)

    def way(self, seen: Position) -> tuple[str, Any]:
        """How a board the players gave is taken: a legal play of the throw, or a board only the mover's men
        made (one play: illegal where his dice cannot make it), is ruled as his play (``play``, the position
        to judge); a board the mover's play and then the other player's lead to is placed, two turns on (the
        camera missed a play: ``placed``, the mover's play that leads there); any other board two players'
        men made is asked about: whose turn? (``ask``). :class:`CompanionError` (nothing written) where such
        a board ends the game: the play that ends it is entered."""
        m = self._game.match
        assert m is not None and m.turn is not None and m.dice is not None
        key = seen.physical_key()
        exact = [o for o in m.legal_outcomes() if o.position.physical_key() == key]
        if exact:
            return "play", exact[0].position.with_turn(exact[0].position.turn)
        if moved_alone(m.position, seen, m.turn):
            passed = self._passed_between(seen)
            # two plays of the mover's, the throw held for the other not playable between: three turns on
            return ("passed", notation(passed[0])) if passed else ("play", seen)
        if any(n >= m.rules.men for n in seen.off):
            raise CompanionError("on that board a side has borne off every man, which no play of the throw "
                                 "awaited does: enter the plays before, and the last is ruled as the end")
        first = two_plays(m.rules, m.position, m.dice, seen)
        return ("placed", notation(first)) if first is not None else ("ask", None)

    def place(self, seen: Position, turns: int, who: str, board: Mapping[str, Any], missed: str | None) -> None:
        """The players' board taken as the board on the table, *turns* turns on from the one the referee
        awaited (``Game.place``), the gap logged (a ``gap`` entry) and told."""
        game = self._game
        m = game.match
        assert m is not None and m.turn is not None
        mover, dice, before = m.turn, "-".join(map(str, m.dice or ())), m.position
        try:
            m.place(seen, turns)
        except EngineError as exc:
            raise CompanionError(f"the board cannot be placed: {exc}") from None
        self._judge.forget()
        after = m.position
        assert after.turn is not None
        nxt = game.who(after.turn)
        held, game.held = game.held, None
        if turns == 3:
            passed = "-".join(map(str, held["dice"])) if held is not None else "throw"
            gap = (f"{game.who(mover)}'s {dice} ({missed}, or a play like it), {game.who(other(mover))}'s "
                   f"{passed}, which could not be played, and then a play of {game.who(mover)}'s were not seen")
            held = None                   # the throw held was the other's, which passed in the gap
        elif turns == 2:
            theirs = (f" (the {'-'.join(map(str, held['dice']))} held for {game.who(other(mover))})"
                      if held is not None and held["player"] == other(mover) else "")
            gap = (f"{game.who(mover)}'s {dice} ({missed}, or a play like it) and then a play of "
                   f"{game.who(other(mover))}'s{theirs} were not seen")
            held = None                   # the throw held was the second play's, played in the gap
        else:
            gap = f"the board is not the one the referee held for {game.who(mover)}'s {dice}: the players say " \
                  f"{nxt} is to throw"
        game.save(who, [("gap", {"player": mover, "dice": list(m.actions[-1]["dice"] or []), "turns": turns,
                                 "before": before.id(), "after": after.id(), "missed": missed,
                                 "board": dict(board)})])
        game.counter.skip(turns)
        self._telling.say(f"Board placed by the players: {gap}; the game goes on from it, {nxt} to throw",
                          "placed", who)
        game.held = held
        self.take_held()
        self._telling.publish()

    def ask_turn(self, seen: Position, who: str, board: Mapping[str, Any]) -> None:
        """Ask whose turn it is after a board the players gave that more than one play made, and no two
        plays explain: the referee cannot tell from the board, so the players say (the turn order kept --
        the other player to throw -- is the first choice)."""
        game = self._game
        m = game.match
        assert m is not None and m.turn is not None
        mover, nxt = m.turn, other(m.turn)
        choices = [choice_doc(i, f"{game.who(c)} throws next", seen.with_turn(c).to_board())
                   for i, c in enumerate((nxt, mover))]
        thrown = "-".join(map(str, m.dice or ()))
        why = (f"the board is more than one play from the board before {game.who(mover)}'s {thrown}, "
               "and no two plays lead to it")
        about = f"Turn {game.turn_in_progress()}: {game.who(mover)} threw {thrown}"
        self._judge.put_question("turn", f"Whose turn is it? {why[0].upper()}{why[1:]}; the referee takes the board "
                                 "as it stands.", about, mover, m.dice or (), choices, who, seen.to_board(),
                                 {"reading": dict(board), "doubtful": [], "why": why, "camera": {}})
        self._telling.say(f"{about}: the board placed is taken as it stands; whose turn is it? {why}", "question",
                          who)
        self._telling.publish()

    def _passed_between(self, seen: Position) -> list[Outcome]:
        """The mover's plays after which the throw held for the other player cannot be played and the mover,
        again, may have played to *seen* (``engine.placing.pass_between``); none without a throw held."""
        m = self._game.match
        held = self._game.held
        if m is None or m.turn is None or m.dice is None or held is None or held["player"] != other(m.turn):
            return []
        key = seen.physical_key()
        if any(o.position.physical_key() == key for o in m.legal_outcomes()):
            return []
        return pass_between(m.rules, m.position, m.dice, held["dice"], seen)

    # ------------------------------------------------------ a throw held
    def hold(self, values: list[int], who: str, ident: str | None) -> None:
        """A throw made while the referee still waits for the mover's play: held for the next player, logged
        (a ``held`` entry) and told, and taken once that player's turn comes (:meth:`take_held`). A second
        early throw is refused while one is held (the same throw delivered twice is taken once)."""
        game = self._game
        m = game.match
        assert m is not None and m.turn is not None
        mover, nxt = m.turn, other(m.turn)
        if game.held is not None:
            if ident is not None and game.held.get("ident") == ident:
                return
            held = "-".join(map(str, game.held["dice"]))
            raise NotNowError(f"a throw is held already for {game.who(game.held['player'])} ({held}), while "
                              f"{game.who(mover)}'s play is awaited: {game.awaiting()}")
        data = {"dice": list(values), "player": nxt, "ident": ident}
        game.store.append(game.need_id(), "held", data, who)
        game.held = dict(data, who=who)
        thrown = "-".join(map(str, values))
        self._telling.say(f"{game.who(nxt)} threw {thrown} while {game.who(mover)}'s play of the "
                          f"{'-'.join(map(str, m.dice or ()))} is still awaited: the throw is held for "
                          f"{game.who(nxt)}'s turn", "held", who)

    def take_held(self) -> None:
        """The throw held for the player now on turn, taken as his throw (as if thrown now)."""
        game = self._game
        m = game.match
        held = game.held
        if held is None or m is None or m.phase != "throw" or m.turn != held["player"] or game.part is None:
            return
        game.held = None
        dice, who, ident = list(held["dice"]), str(held["who"]), held.get("ident")
        try:
            taken = game.part.take_dice(dice, who, ("dice", {"dice": dice, "ident": ident, "held": True}), ident)
        except (EngineError, CompanionError, NotNowError) as exc:
            self._telling.say(f"the throw held for {game.who(held['player'])} ({'-'.join(map(str, dice))}) "
                              f"cannot be taken: {exc}; throw again", "notice", who)
            return
        if taken == "in_play":          # (it is: his throw was awaited, the phase "throw")
            game.throw_by = who

    # ------------------------------------------------------ a board two plays on
    def two_plays_seen(self, seen: Position, board: Mapping[str, Any], camera: Any, who: str,
                       sure: bool, also: Sequence[Outcome] = ()) -> str | None:
        """A camera's frame showing *seen*, which no play of the mover's throw leads to: where the mover's
        play and then the other player's lead to it (the mover's frame never settled, or was missed), it is
        never ruled illegal against the next player. With a throw held for the next player, a picture the
        reader is *sure* of, and one play of each that leads there, both are ruled (``ruled``); otherwise
        one question names the plays that lead there (``asked``), and the mover's plays *also* (a picture read
        wrongly). None: *seen* is no board two plays on."""
        game = self._game
        m = game.match
        assert m is not None
        if m.turn is None or m.dice is None:
            return None
        mover, nxt = m.turn, other(m.turn)
        if moved_alone(m.position, seen, m.turn):
            passed = self._passed_between(seen)
            if not passed:
                return None
            # the mover's men alone, two of his plays on: the throw held for the other could not be played
            between = "-".join(map(str, game.held["dice"])) if game.held is not None else ""
            choices = [choice_doc(i, f"{notation(first)}, then {game.who(nxt)}'s {between} could not be played, "
                                     f"then {game.who(mover)}'s play", seen.to_board(), turns=3,
                                  missed=notation(first))
                       for i, first in enumerate(passed[:4])]
            choices += [choice_doc(len(choices) + i, notation(o), o.position.to_board()) for i, o in enumerate(also)]
            self._ask_gap("pass_between", f"the board is three turns on: {game.who(mover)}'s "
                          f"{'-'.join(map(str, m.dice))}, {game.who(nxt)}'s {between} (which could not be played) "
                          f"and a play of {game.who(mover)}'s, and no frame between them was seen",
                          choices, seen, board, camera, who)
            return "asked"
        held = game.held if game.held is not None and game.held["player"] == nxt else None
        pairs = first_plays(m.rules, m.position, m.dice, seen, None if held is None else held["dice"])
        if not pairs and held is not None:           # not with the throw held: with another, then
            pairs = first_plays(m.rules, m.position, m.dice, seen)
            held = None
        if not pairs:
            return None
        firsts = {first.position.physical_key(): first for first, _ in pairs}
        thrown = "-".join(map(str, m.dice))
        if held is not None and sure and len(firsts) == 1:
            first = pairs[0][0]
            self._telling.say(f"no frame of {game.who(mover)}'s {thrown} was seen: the board shows it played, "
                              f"and {game.who(nxt)}'s {'-'.join(map(str, held['dice']))} after it; both are "
                              "ruled", "notice", who)
            self._judge.rule_play(first.position.with_turn(first.position.turn), who, first.position.to_board(),
                                  camera)
            if m.phase == "move" and m.turn == nxt:          # the throw held was taken as the next player's
                self._judge.rule_play(seen, who, board, camera)
            return "ruled"
        choices = [choice_doc(i, f"{notation(first)}, then {game.who(nxt)}'s play", seen.to_board(), turns=2,
                              missed=notation(first))
                   for i, first in enumerate(list(firsts.values())[:4])]
        choices += [choice_doc(len(choices) + i, notation(o), o.position.to_board()) for i, o in enumerate(also)]
        self._ask_gap("two_plays", f"the board is two plays on: {game.who(mover)}'s {thrown} and then a play of "
                      f"{game.who(nxt)}'s, and no frame between them was seen", choices, seen, board, camera, who)
        return "asked"

    def one_or_two_plays(self, single: Outcome, board: Mapping[str, Any], camera: Any, who: str) -> bool:
        """A frame the turn reader read as the mover's play *single*, while a throw is held for the next
        player: where another play of the mover's and then the next player's play of the throw held lead to
        the same board (the mover's frame never settled, and the next player's play undid part of it), the
        board alone cannot tell one play from two, and one question names both (``two_plays``: its first
        choice the one play; True). False where the board is the one play's alone: rule it."""
        game = self._game
        m = game.match
        assert m is not None
        if m.turn is None or m.dice is None or game.held is None or game.held["player"] != other(m.turn):
            return False
        seen = single.position
        key = seen.physical_key()
        pairs = [(first, second) for first, second in first_plays(m.rules, m.position, m.dice, seen,
                                                                  game.held["dice"])
                 if second.play.steps and first.position.physical_key() != key]
        if not pairs:
            return False
        mover, nxt = m.turn, other(m.turn)
        thrown, between = "-".join(map(str, m.dice)), "-".join(map(str, game.held["dice"]))
        choices = [choice_doc(0, notation(single), seen.to_board())]
        firsts = {first.position.physical_key(): first for first, _ in pairs}
        choices += [choice_doc(1 + i, f"{notation(first)}, then {game.who(nxt)}'s {between}", seen.to_board(),
                               turns=2, missed=notation(first))
                    for i, first in enumerate(list(firsts.values())[:3])]
        self._ask_gap("two_plays", f"the board is {game.who(mover)}'s {notation(single)}, or another play of the "
                      f"{thrown} and then {game.who(nxt)}'s {between} (thrown before the board was seen), which "
                      "leave it alike", choices, seen, board, camera, who)
        return True

    def _ask_gap(self, kind: str, why: str, choices: list[Any], seen: Position, board: Mapping[str, Any],
                 camera: Any, who: str) -> None:
        """One question naming the plays a board some turns on came by (*kind* ``two_plays`` or
        ``pass_between``): its answer places the board (:meth:`place`) as the choice's ``turns`` and
        ``missed`` say (``documents.ChoiceDoc``)."""
        game = self._game
        m = game.match
        assert m is not None
        about = f"Turn {game.turn_in_progress()}: {game.who(m.turn)} threw {'-'.join(map(str, m.dice or ()))}"
        self._judge.put_question(kind, f"Which play was made first? {why[0].upper()}{why[1:]}; the referee takes "
                                 "the board as it stands.", about, m.turn, m.dice or (), choices, who,
                                 seen.to_board(),
                                 {"reading": dict(board), "doubtful": [], "why": why, "camera": dict(camera or {})})
        self._telling.say(f"{about}: please confirm on the page; {why}", "question", who)
        self._telling.publish()
