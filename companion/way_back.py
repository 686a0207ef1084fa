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
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from willughby.engine.errors import EngineError
from willughby.engine.placing import moved_alone, two_plays
from willughby.engine.position import Position, other

from .documents import choice_doc
from .errors import CompanionError
from .numbering import notation

if TYPE_CHECKING:
    from .current_game import CurrentGame
    from .judging import Judging
    from .state import Telling

__all__ = ["WayBack"]


class WayBack:
    """The players' board, a board two plays on, a throw held (see the module docstring)."""

    def __init__(self, judging: "Judging") -> None:
        self._judging = judging

    @property
    def _game(self) -> "CurrentGame":
        return self._judging._game

    @property
    def _telling(self) -> "Telling":
        return self._judging._telling

    def players_board(self, seen: Position, who: str, board: Mapping[str, Any],
                       way: tuple[str, Any] | None = None) -> None:
        """A board the players gave (an answer, a board entered): the board on the table
        (docs/house-conventions.md, convention 18: "the players' board always wins"), taken the way
        :meth:`_way` says (*way*, where it was asked already)."""
        kind, what = way if way is not None else self.way(seen)
        if kind == "play":
            self._judging._play(what, who, board)
        elif kind == "placed":
            self.place(seen, 2, who, board, missed=what)
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
            return "play", seen
        if any(n >= m.rules.men for n in seen.off):
            raise CompanionError("on that board a side has borne off every man, which no play of the throw "
                                 "awaited does: enter the plays before, and the last is ruled as the end")
        first = two_plays(m.rules, m.position, m.dice, seen)
        return ("placed", notation(first)) if first is not None else ("ask", None)

    def place(self, seen: Position, turns: int, who: str, board: Mapping[str, Any], missed: str | None) -> None:
        """The players' board taken as the board on the table, *turns* turns on from the one the referee
        awaited (``Match.place``), the gap logged (a ``gap`` entry) and told."""
        game = self._game
        m = game.match
        assert m is not None and m.turn is not None
        mover, dice, before = m.turn, "-".join(map(str, m.dice or ())), m.position
        try:
            m.place(seen, turns)
        except EngineError as exc:
            raise CompanionError(f"the board cannot be placed: {exc}") from None
        self._judging.forget()
        after = m.position
        assert after.turn is not None
        nxt = game.who(after.turn)
        if turns == 2:
            gap = (f"{game.who(mover)}'s {dice} ({missed}, or a play like it) and then a play of "
                   f"{game.who(other(mover))}'s were not seen")
        else:
            gap = f"the board is not the one the referee held for {game.who(mover)}'s {dice}: the players say " \
                  f"{nxt} is to throw"
        game.save(who, [("gap", {"player": mover, "dice": list(m.actions[-1]["dice"] or []), "turns": turns,
                                 "before": before.id(), "after": after.id(), "missed": missed,
                                 "board": dict(board)})])
        game.counter.skip(turns)
        self._telling.say(f"Board placed by the players: {gap}; the game goes on from it, {nxt} to throw",
                          "placed", who)
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
        self._judging._put("turn", f"Whose turn is it? {why[0].upper()}{why[1:]}; the referee takes the board as it stands.",
                  about, mover, m.dice or (), choices, who, seen.to_board(),
                  {"reading": dict(board), "doubtful": [], "why": why, "camera": {}})
        self._telling.say(f"{about}: the board placed is taken as it stands; whose turn is it? {why}", "question",
                          who)
        self._telling.publish()
