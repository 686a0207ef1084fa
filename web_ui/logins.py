"""Who has logged in, and how fast anyone may guess the PIN.

The page is open to everyone on the club's network, so the PIN is all that
stands between them and the game. Two limits hold it:

* **per address**: after ``attempts`` wrong PINs from one address it is
  refused for ``lockout_s`` seconds (the table of addresses is bounded: past
  ``max_tracked`` the address heard from longest ago is forgotten, never the
  whole table);
* **across every address**: once ``free`` wrong PINs have come from anyone
  in the last hour, every login waits ``lockout_s``, and each wrong PIN
  after makes it wait twice as long as the one before, to at most an hour. Thirty
  addresses guessing together get the same few tries an hour as one. The
  players' own sessions are never touched by it (they need no PIN), and the
  page tells them that someone is guessing (:meth:`LoginLimiter.guessing`).

A 6-digit PIN then takes years to guess; a passphrase (``WebConfig.pin``)
longer still.

A login is a random session id kept here, in memory (:class:`LiveSessions`):
logging out forgets it, and a restart forgets them all, so a copy of a
cookie taken before either controls nothing.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from .errors import TooManyAttemptsError

__all__ = ["LoginLimiter", "LiveSessions", "GuessingNotice", "GUESS_WINDOW_S", "MAX_WAIT_S"]

#: how far back wrong PINs count towards the limit across addresses
GUESS_WINDOW_S = 3600.0
#: the longest any login is made to wait
MAX_WAIT_S = 3600.0


class LoginLimiter:
    """Counts wrong PINs per address and across them all.

    >>> now = [0.0]
    >>> limiter = LoginLimiter(attempts=2, lockout_s=30, free=3, clock=lambda: now[0])
    >>> limiter.failed("10.0.0.7"); limiter.failed("10.0.0.7")
    >>> limiter.check("10.0.0.7")
    Traceback (most recent call last):
    ...
    willughby.web_ui.errors.TooManyAttemptsError: too many wrong PINs: try again in 30 seconds
    >>> now[0] = 30.0; limiter.check("10.0.0.7")  # the lockout is over
    >>> limiter.failed("10.0.0.8")                 # another address, the third wrong PIN in the hour:
    >>> limiter.check("10.0.0.9")                  # every login waits
    Traceback (most recent call last):
    ...
    willughby.web_ui.errors.TooManyAttemptsError: someone is guessing the PIN: every login waits 30 seconds
    >>> now[0] = 60.0; limiter.failed("10.0.0.9")  # the fourth: twice as long
    >>> limiter.check("10.0.0.10")
    Traceback (most recent call last):
    ...
    willughby.web_ui.errors.TooManyAttemptsError: someone is guessing the PIN: every login waits 60 seconds
    """

    #: addresses remembered at most; past it the one heard from longest ago is forgotten
    max_tracked = 1024

    def __init__(self, attempts: int = 5, lockout_s: float = 30.0, free: int = 10,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.attempts = attempts
        self.lockout_s = lockout_s
        self.free = free
        self.clock = clock
        self._lock = threading.Lock()
        self._wrong: OrderedDict[str, int] = OrderedDict()
        self._until: OrderedDict[str, float] = OrderedDict()
        self._recent: deque[float] = deque()   # when each wrong PIN of the last hour came, oldest first
        self._everyone_until = 0.0
        self.listeners: list[Callable[[], None]] = []   # told when guessing() may have changed

    def check(self, key: str) -> None:
        """Raise :class:`TooManyAttemptsError` while *key*, or everyone, must wait."""
        with self._lock:
            now = self.clock()
            everyone = self._everyone_until - now
            until = self._until.get(key)
            if until is not None and until <= now:
                del self._until[key]
                until = None
        if everyone > 0:
            seconds = max(1, math.ceil(everyone))
            raise TooManyAttemptsError(f"someone is guessing the PIN: every login waits {_duration(seconds)}",
                                       seconds)
        if until is not None:
            seconds = max(1, math.ceil(until - now))
            raise TooManyAttemptsError(f"too many wrong PINs: try again in {_duration(seconds)}", seconds)

    def failed(self, key: str) -> None:
        """Count a wrong PIN from *key*: the last one allowed locks the address out; past the
        free ones of the hour, every login waits longer."""
        with self._lock:
            now = self.clock()
            wrong = self._wrong.pop(key, 0) + 1
            if wrong >= self.attempts:
                self._until.pop(key, None)
                self._until[key] = now + self.lockout_s
                _bound(self._until, self.max_tracked)
            else:
                self._wrong[key] = wrong
                _bound(self._wrong, self.max_tracked)
            self._forget_old(now)
            self._recent.append(now)
            past_free = len(self._recent) - self.free
            if past_free >= 0:
                wait = min(MAX_WAIT_S, self.lockout_s * 2.0 ** past_free)
                self._everyone_until = max(self._everyone_until, now + wait)
        self._tell()

    def succeeded(self, key: str) -> None:
        """Forget *key*'s wrong PINs after a right one (the hour's count across addresses stays)."""
        with self._lock:
            self._wrong.pop(key, None)

    def guessing(self) -> dict[str, float | int] | None:
        """While someone may be guessing (more wrong PINs in the hour than one address may give):
        ``{"wrong": n in the last hour, "wait_s": how long every login waits now}``; else None."""
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            if len(self._recent) < self.attempts:
                return None
            return {"wrong": len(self._recent), "wait_s": max(0.0, round(self._everyone_until - now, 1))}

    def _forget_old(self, now: float) -> None:
        while self._recent and self._recent[0] <= now - GUESS_WINDOW_S:
            self._recent.popleft()

    def _tell(self) -> None:
        for listener in list(self.listeners):
            listener()


class LiveSessions:
    """The logins alive now, by a random id each; at most *max_kept* (past it, the oldest ends).

    >>> now = [0.0]
    >>> live = LiveSessions(lifetime_s=60, clock=lambda: now[0])
    >>> sid = live.start(); sid in live
    True
    >>> live.end(sid); sid in live
    False
    >>> sid = live.start(); now[0] = 61; sid in live    # unused past its lifetime
    False
    """

    max_kept = 4096

    def __init__(self, lifetime_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.lifetime_s = lifetime_s
        self.clock = clock
        self._lock = threading.Lock()
        self._until: OrderedDict[str, float] = OrderedDict()

    def start(self) -> str:
        sid = secrets.token_urlsafe(24)
        with self._lock:
            now = self.clock()
            for old in [s for s, until in self._until.items() if until <= now]:
                del self._until[old]
            self._until[sid] = now + self.lifetime_s
            _bound(self._until, self.max_kept)
        return sid

    def end(self, sid: object) -> None:
        with self._lock:
            if isinstance(sid, str):
                self._until.pop(sid, None)

    def __contains__(self, sid: object) -> bool:
        """Whether *sid* is a login alive now (each use keeps it alive another lifetime)."""
        if not isinstance(sid, str):
            return False
        with self._lock:
            until = self._until.get(sid)
            if until is None or until <= self.clock():
                return False
            self._until[sid] = self.clock() + self.lifetime_s
            self._until.move_to_end(sid)
            return True


def _bound(table: OrderedDict[str, object] | OrderedDict[str, int] | OrderedDict[str, float], most: int) -> None:
    while len(table) > most:
        table.popitem(last=False)


def _duration(seconds: int) -> str:
    """
    >>> _duration(30), _duration(1), _duration(240), _duration(3600)
    ('30 seconds', '1 second', '4 minutes', '60 minutes')
    """
    if seconds >= 120:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


class GuessingNotice:
    """Keeps the players told, on the page, while someone is guessing the PIN: *show* is handed
    ``{"alert": text}`` when it starts and as it goes on (looked at again every *every_s* seconds
    while it lasts, from a timer), and None when the hour's wrong PINs have gone."""

    def __init__(self, limiter: LoginLimiter, show: Callable[[dict[str, str] | None], None],
                 every_s: float = 60.0) -> None:
        self.limiter = limiter
        self.show = show
        self.every_s = every_s
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._shown: dict[str, str] | None = None
        limiter.listeners.append(self.update)

    def update(self) -> None:
        guessing = self.limiter.guessing()
        notice = None
        if guessing is not None:
            wait = int(guessing["wait_s"])
            notice = {"alert": f"Someone is guessing the PIN: {guessing['wrong']} wrong in the last hour"
                               + (f"; logins wait {_duration(wait)}" if wait > 0 else "")
                               + ". Players already logged in are not affected."}
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if notice is not None:
                self._timer = threading.Timer(self.every_s, self.update)
                self._timer.daemon = True
                self._timer.start()
            changed, self._shown = notice != self._shown, notice
        if changed:
            self.show(notice)

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
