"""A tournament clock for a match: each player's reserve, a delay or an increment a move, a flag.

Backgammon clocks give each player a reserve of time for the whole match and, at each of his moves, either a
*Bronstein delay* (the first ``delay_s`` of the move are free: the reserve runs only after them, and what
the delay did not use is lost) or a *Fischer increment* (``delay_s`` is added to the reserve when the move
ends). The clock of the player on turn runs; ending the turn (the box's DONE button, the page, or the board
seen to settle) stops his and starts the other's. A question from the referee or a dispute pauses it. A
reserve run out is a *flag*: said once, and what follows is the match's to say (``on_flag``).

This module is the clock's arithmetic alone: it is handed a monotonic time source (``time.monotonic`` at
the table, a fake in the tests), keeps no thread and does no I/O, and every change is a pure step on its
state, so a restart can rebuild it from the steps the store kept. Times are seconds, as floats; what is
charged is computed from the source's readings at the two ends of a move, never by adding ticks, so the
clock does not drift from the source however long the match (``benchmarks/clock_drift.py``).

>>> t = [0.0]
>>> clock = MatchClock(ClockTerms(reserve_s=60.0, delay_s=12.0, mode="bronstein"), now=lambda: t[0])
>>> clock.start("light"); t[0] = 20.0
>>> clock.left("light"), clock.delay_left()
(52.0, 0.0)
>>> clock.switch()                      # light ended his turn: his move, and the 20 s it used
('light', 20.0)
>>> clock.running, clock.left("light")
('dark', 52.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

__all__ = ["ClockTerms", "MatchClock", "ClockError", "MODES", "ON_FLAG", "clock_words"]

COLOURS = ("light", "dark")
#: how a move's allowance is given: a Bronstein delay, a Fischer increment, or none
MODES = ("bronstein", "fischer", "none")
#: what a flag means: the match lost (the rule of most tournaments), or only said (a club night's choice)
ON_FLAG = ("lose-match", "announce")


class ClockError(ValueError):
    """Terms a clock cannot have, or a step its state does not allow (the message says which)."""


@dataclass(frozen=True)
class ClockTerms:
    """A clock's terms: each player's reserve for the match, the allowance a move and its kind, and what a
    flag means."""

    reserve_s: float
    delay_s: float = 0.0
    mode: str = "bronstein"
    on_flag: str = "lose-match"

    def __post_init__(self) -> None:
        if not isinstance(self.reserve_s, (int, float)) or isinstance(self.reserve_s, bool) \
                or not 1.0 <= float(self.reserve_s) <= 24 * 3600.0:
            raise ClockError(f"a reserve is 1 s to 24 hours, not {self.reserve_s!r}")
        if not isinstance(self.delay_s, (int, float)) or isinstance(self.delay_s, bool) \
                or not 0.0 <= float(self.delay_s) <= 600.0:
            raise ClockError(f"a delay or increment is 0 to 600 s, not {self.delay_s!r}")
        if self.mode not in MODES:
            raise ClockError(f"a clock's mode is {', '.join(MODES)}, not {self.mode!r}")
        if self.on_flag not in ON_FLAG:
            raise ClockError(f"a flag means {' or '.join(ON_FLAG)}, not {self.on_flag!r}")

    def to_json(self) -> dict[str, Any]:
        return {"reserve_s": float(self.reserve_s), "delay_s": float(self.delay_s), "mode": self.mode,
                "on_flag": self.on_flag}

    @classmethod
    def from_json(cls, doc: Any) -> "ClockTerms":
        """Terms from :meth:`to_json`'s document (a request's, a log's): :class:`ClockError` says what is
        wrong with a bad one."""
        if not isinstance(doc, Mapping):
            raise ClockError(f"a clock's terms are an object (reserve_s, delay_s, mode, on_flag), not {doc!r}")
        unknown = sorted(set(doc) - {"reserve_s", "delay_s", "mode", "on_flag"})
        if unknown:
            raise ClockError(f"a clock's terms have no {', '.join(map(repr, unknown))}")
        if "reserve_s" not in doc:
            raise ClockError("a clock's terms need reserve_s, each player's reserve in seconds")
        return cls(**doc)


def clock_words(terms: ClockTerms) -> str:
    """The clock's terms in words, as the page says them.

    >>> clock_words(ClockTerms(reserve_s=600.0, delay_s=12.0))
    'a clock of 10 min each, 12 s a move free (Bronstein delay); a flag loses the match'
    """
    reserve = float(terms.reserve_s)
    each = f"{reserve / 60:g} min" if reserve >= 60 else f"{reserve:g} s"
    allowance = {"bronstein": f", {float(terms.delay_s):g} s a move free (Bronstein delay)",
                 "fischer": f", {float(terms.delay_s):g} s added a move (Fischer increment)", "none": ""}
    flag = "a flag loses the match" if terms.on_flag == "lose-match" else "a flag is announced"
    return f"a clock of {each} each{allowance[terms.mode] if terms.delay_s else ''}; {flag}"


class MatchClock:
    """Both players' clocks (see the module docstring). ``running`` is the colour whose clock runs (None:
    neither, before the first move or once flagged), ``paused`` whether it is held (a question open)."""

    def __init__(self, terms: ClockTerms, now: Callable[[], float]) -> None:
        self.terms = terms
        self._now = now
        self._reserve = {c: float(terms.reserve_s) for c in COLOURS}
        self.running: str | None = None
        self.paused = False
        self.flagged: str | None = None
        self._since = 0.0          # when the running clock last started or resumed
        self._used = 0.0           # of the move in progress, the time used before its last pause

    @classmethod
    def restored(cls, terms: ClockTerms, now: Callable[[], float], left: Mapping[str, float],
                 flagged: str | None = None) -> "MatchClock":
        """A clock as a log left it: each reserve *left*, the flag if one fell; neither running (the move in
        progress starts afresh when the referee says whose turn it is)."""
        clock = cls(terms, now)
        for colour in COLOURS:
            value = left.get(colour) if isinstance(left, Mapping) else None
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 48 * 3600.0:
                raise ClockError(f"a clock's reserve is 0 to 48 hours, not {value!r} for {colour}")
            clock._reserve[colour] = float(value)
        if flagged not in (None, *COLOURS):
            raise ClockError(f"a flag is light's or dark's, not {flagged!r}")
        clock.flagged = flagged
        return clock

    # ------------------------------------------------------------ reading
    def _move_time(self, at: float | None = None) -> float:
        """The time the move in progress has used by *at* (a reading of the source; default now), pauses left
        out."""
        if self.running is None:
            return 0.0
        if self.paused:
            return self._used
        return self._used + max(0.0, (self._now() if at is None else at) - self._since)

    def _charged(self, used: float) -> float:
        """What a move that used *used* seconds takes from the reserve (before a Fischer increment)."""
        if self.terms.mode == "bronstein":
            return max(0.0, used - float(self.terms.delay_s))
        return used

    def left(self, colour: str, at: float | None = None) -> float:
        """*colour*'s reserve now (or at *at*, a reading of the source): the move in progress charged so far;
        never below 0."""
        if colour not in COLOURS:
            raise ClockError(f"a clock is light's or dark's, not {colour!r}")
        reserve = self._reserve[colour]
        if colour == self.running:
            reserve -= self._charged(self._move_time(at))
        return max(0.0, reserve)

    def delay_left(self) -> float:
        """Of a Bronstein delay, what the move in progress has not used yet (0 in the other modes)."""
        if self.terms.mode != "bronstein" or self.running is None:
            return 0.0
        return max(0.0, float(self.terms.delay_s) - self._move_time())

    def check(self, at: float | None = None) -> str | None:
        """The colour whose reserve has run out, flagged now if it had not been (its clock stops); None."""
        at = self._now() if at is None else at
        if self.flagged is None and self.running is not None and self.left(self.running, at) <= 0.0:
            self.flagged = self.running
            self._stop_running(at)
        return self.flagged

    # ------------------------------------------------------------ steps
    def start(self, colour: str) -> None:
        """*colour*'s clock starts (the first move of the match, or of a game after the one before ended)."""
        if colour not in COLOURS:
            raise ClockError(f"a clock is light's or dark's, not {colour!r}")
        if self.flagged is not None:
            raise ClockError(f"{self.flagged}'s flag has fallen: the clock is stopped")
        if self.running is not None:
            raise ClockError(f"{self.running}'s clock is running: a turn ends with switch()")
        self.running, self.paused, self._used, self._since = colour, False, 0.0, self._now()

    def switch(self) -> tuple[str, float]:
        """The player on turn ended his turn: his move charged (and, Fischer, the increment added), the
        other's clock started. Returns the colour that moved and the seconds his move used."""
        mover = self.running
        if mover is None:
            raise ClockError("no clock is running: there is no turn to end")
        at = self._now()                 # one reading ends this move and starts the next: no time falls between
        if self.check(at) is not None:
            raise ClockError(f"{mover}'s flag has fallen before the turn ended")
        used = self._stop_running(at)
        other = "dark" if mover == "light" else "light"
        self.running, self.paused, self._used, self._since = other, False, 0.0, at
        return mover, used

    def stop(self) -> None:
        """The running clock stops with its move charged (a game ended: neither runs until the next starts)."""
        at = self._now()
        if self.running is not None and self.check(at) is None:
            self._stop_running(at)

    def pause(self) -> None:
        """The running clock holds (a question or a dispute open); harmless when none runs or it is held."""
        if self.running is not None and not self.paused:
            self._used = self._move_time()
            self.paused = True

    def resume(self) -> None:
        """The held clock runs on; harmless when none is held."""
        if self.running is not None and self.paused:
            self._since, self.paused = self._now(), False

    def _stop_running(self, at: float) -> float:
        assert self.running is not None
        used = self._move_time(at)
        mover = self.running
        self._reserve[mover] -= self._charged(used)
        if self.terms.mode == "fischer" and self.flagged is None:
            self._reserve[mover] += float(self.terms.delay_s)
        self._reserve[mover] = max(0.0, self._reserve[mover])
        self.running, self.paused, self._used = None, False, 0.0
        return used

    # ------------------------------------------------------------ the page
    def to_doc(self) -> dict[str, Any]:
        """The clock for the page: each reserve now, who runs, whether held, the delay left, the flag (as
        :meth:`check` last found it: reading the clock changes nothing)."""
        return {"mode": self.terms.mode, "delay_s": float(self.terms.delay_s), "on_flag": self.terms.on_flag,
                "left": {c: round(self.left(c), 3) for c in COLOURS}, "running": self.running,
                "paused": self.paused, "delay_left": round(self.delay_left(), 3), "flagged": self.flagged}
