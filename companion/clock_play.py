"""The match's clock at the table: whose clock runs, when it is held, what a flag does, and its log.

The clock's arithmetic is ``clock.py``'s :class:`~willughby.companion.clock.MatchClock`; this part keeps
it in step with the game. The clock follows the referee, never a button of its own: the player whose
clock runs is the one the referee waits for (:func:`clock_holder`), so it switches when the referee ends
a turn, whichever way the turn was ended -- the camera seeing the play settle, the box's DONE button
(which makes the camera read the board at once: the turn ends as soon as that reading is ruled), or the
board entered on the page. Where several are in use the first to end the turn switches the clock; the
others find the turn ended. A turn ruled illegal does not end: the mover's clock runs on while he puts
it right. Both clocks stand still for the roll for the start, the opening roll starting the winner's
(rule ``clock.opening``); a double starts the doubled player's clock until he takes or drops
(``clock.cube``); a question from the referee holds the clock, as does a player who holds it on the page
to contest a ruling or call the director (``clock.stop``). A flag -- a reserve run out -- loses the match
(``match.flag``), or, where the match's terms say ``announce``, is said and the clocks stop.

Every step is written to the game's log as a ``clock`` entry (the event, who made it, each reserve after
it, the terms), so the log of a game says how long each move took, and a restart rebuilds the clock from
its game's last entry (the move in progress then starts afresh: the time the Pi was down is no one's).
A new game of the match carries the clock on, stopped between games; a game outside a match has none.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping

from willughby.engine.errors import EngineError
from willughby.engine.position import other

from .clock import ClockError, ClockTerms, MatchClock
from .errors import NotNowError
from .store import StoreError, StoreUnwritableError

if TYPE_CHECKING:
    from .current_game import CurrentGame
    from .match_play import MatchPlay
    from .state import Telling

log = logging.getLogger(__name__)

__all__ = ["ClockPlay", "clock_holder", "CLOCK_ENTRY"]

#: the kind of a clock's entries in a game's log
CLOCK_ENTRY = "clock"


def clock_holder(game: Any) -> str | None:
    """The colour whose clock runs in *game* (an engine game), or None: neither before the opening roll
    has decided who plays first (clock.opening), the player doubled while a double is on offer
    (clock.cube), else the player on turn (clock.turn), and neither once the game is over.

    >>> from willughby.engine.game import Game
    >>> g = Game.new("backgammon")
    >>> clock_holder(g) is None
    True
    >>> g.start_roll(3, 1); clock_holder(g)
    'light'
    """
    if game is None or game.result is not None or game.phase == "start":
        return None
    if game.phase == "cube" and game.offered_by is not None:
        return str(other(game.offered_by))
    turn = game.turn
    return None if turn is None else str(turn)


class ClockPlay:
    """The clock of the match in play, if it has one (see the module docstring)."""

    def __init__(self, game: "CurrentGame", telling: "Telling", matches: "MatchPlay", question_open: Callable[[], bool],
                 reload: Callable[[str], None], now: Callable[[], float] = time.monotonic) -> None:
        self._game = game
        self._telling = telling
        self._matches = matches
        self._reload = reload
        self._question_open = question_open
        self._now = now
        self.clock: MatchClock | None = None
        #: held on the page by a player (a ruling contested, the director called)
        self.held = False

    # ------------------------------------------------------------ setting
    def set(self, terms: ClockTerms | None, who: str) -> None:
        """A match begun with *terms* (None: without a clock); its first game is the one in progress."""
        self.clock = None if terms is None else MatchClock(terms, self._now)
        self.held = False
        if self.clock is not None:
            self._log("set", who)

    def carry(self, who: str) -> None:
        """The next game of the match begun: the clock, stopped since the last game ended, goes on in it."""
        if self.clock is not None:
            self.clock.stop()
            self.held = False
            self._log("carried", who)

    def drop(self) -> None:
        """A game outside a match begun: no clock."""
        self.clock, self.held = None, False

    def restore(self, last: Mapping[str, Any] | None) -> None:
        """The clock as the game's last clock entry *last* (a loaded game's) left it; none without one, or
        where it cannot be read (said in the program's log: the game goes on without a clock)."""
        self.clock, self.held = None, False
        if last is None:
            return
        data = last.get("data")
        try:
            if not isinstance(data, Mapping):
                raise ClockError("the entry is not an object")
            self.clock = MatchClock.restored(ClockTerms.from_json(data.get("terms")), self._now,
                                             data.get("left") or {}, data.get("flagged"))
        except (ClockError, TypeError) as exc:
            log.warning("the clock of game %s cannot be read back from entry %s (%s): the game goes on without",
                        self._game.id, last.get("n"), exc)
            return
        self.held = bool(data.get("held"))

    # ------------------------------------------------------------ following the game
    def follow(self) -> str | None:
        """The clock brought into step with the game (before every state the companion publishes): a flag
        found, else the clock started, switched or stopped for whoever the referee waits for, and held while
        a question or a player holds it. Returns the colour whose flag fell just now (None)."""
        clock = self.clock
        if clock is None or clock.flagged is not None:
            return None
        fell = clock.check()
        if fell is not None:
            self._log("flag", "clock", colour=fell)
            return fell
        holder = clock_holder(self._game.match)
        if holder != clock.running:
            if holder is None:
                clock.stop()
                self._log("stop", "clock")
            elif clock.running is None:
                clock.start(holder)
                self._log("start", "clock", colour=holder)
            else:
                mover, used = clock.switch()
                if clock.running != holder:     # an undo gave the turn back: the clock runs for its holder
                    clock.stop()
                    clock.start(holder)
                self._log("switch", "clock", colour=mover, used=round(used, 3))
        hold = self.held or self._question_open()
        if hold and clock.running is not None and not clock.paused:
            clock.pause()
            self._log("pause", "clock", why="held" if self.held else "question")
        elif not hold and clock.paused:
            clock.resume()
            self._log("resume", "clock")
        return None

    def step(self) -> None:
        """Before each state the companion publishes: the clock brought into step with the game (:meth:`follow`),
        and a flag, if one fell, acted on: with ``lose-match`` the game ends there (``Game.lose_on_time``, the
        points the other needed: match.flag) and is stored, else the clocks stop and the game goes on;
        either way it is said."""
        fell = self.follow()
        if fell is None:
            return
        clock = self.clock
        assert clock is not None
        game, match_id = self._game.match, self._matches.match_id()
        text = f"{self._game.who(fell)}'s flag has fallen: his reserve of time ran out"
        if clock.terms.on_flag == "lose-match" and game is not None and game.result is None and match_id:
            stake = self._matches.engine_match(match_id).needs(other(fell))
            try:
                game.lose_on_time(fell, stake)
                self._game.save("clock")
            except (EngineError, StoreError) as exc:
                log.warning("the flag's end of the game was not stored: %s", exc)
                self._reload(self._game.need_id())
                text += f"; the game's end could not be stored ({exc}): the director rules"
            else:
                text += f": {self._game.who(other(fell))} wins the match on time (match.flag)"
                self._matches.forget()
        else:
            text += ": the clocks stop and the game goes on (this match's clock only announces a flag)"
        try:
            self._telling.say(text, "clock", "clock")
        except StoreUnwritableError:
            self._telling.say(text, "clock", "clock", store=False)

    def flag_due(self) -> bool:
        """Whether the running reserve has run out and the flag is not said yet (the ticker asks)."""
        clock = self.clock
        return (clock is not None and clock.flagged is None and clock.running is not None
                and clock.left(clock.running) <= 0.0)

    def hold(self, held: bool, who: str) -> None:
        """A player holds the clock (contesting a ruling, calling the director) or lets it run again."""
        if self.clock is None:
            raise NotNowError("this game has no clock")
        if self.held != held:
            self.held = held
            self._log("held" if held else "released", who)
            self._telling.say(f"{who} {'holds' if held else 'restarts'} the clock", "clock", who)

    def pressed(self, button: str, who: str) -> None:
        """A press of the box's or the page's DONE or UNDO, written to the log where a clock is kept."""
        if self.clock is not None:
            self._log("press", who, button=button)

    # ------------------------------------------------------------ telling
    def doc(self) -> dict[str, Any] | None:
        """The clock for the page, read now (None: no clock): ``clock.py``'s document, ``held`` and ``question``
        (what holds it)."""
        clock = self.clock
        if clock is None:
            return None
        return {**clock.to_doc(), "held": self.held, "question": bool(self._question_open()),
                "reserve_s": float(clock.terms.reserve_s)}

    def _log(self, event: str, who: str, **extra: Any) -> None:
        clock, game_id = self.clock, self._game.id
        if clock is None or game_id is None:
            return
        data = {"event": event, **extra, "left": {c: round(clock.left(c), 3) for c in ("light", "dark")},
                "running": clock.running, "paused": clock.paused, "held": self.held, "flagged": clock.flagged,
                "terms": clock.terms.to_json()}
        try:
            self._game.store.append(game_id, CLOCK_ENTRY, data, who)
        except StoreError as exc:       # the clock keeps time all the same; the store's own alert says why
            log.warning("the clock's %s was not written to the log: %s", event, exc)

