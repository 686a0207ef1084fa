"""The players told when moves are not being kept, and told again when they are.

A write the store cannot make (a full disk, a read-only mount, a failing
card: ``StoreUnwritableError``) changes nothing: the game in memory is put
back as the store holds it and the control that asked is answered 503 with
what to do, so nothing acknowledged is ever lost. :class:`StoreHealth`
watches the store from a thread of its own: while its last write failed, the
page shows an alert (the store's ``devices`` entry) and a write is tried every
``every_s`` seconds; once one is made (space freed, the disk remounted), the
alert goes and the players may play on.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from .periodic import Periodic
from .store import GameStore, StoreError

__all__ = ["StoreHealth"]

log = logging.getLogger(__name__)


class StoreHealth:
    """Watches *store*; *show* is handed ``{"alert": text}`` while writes fail, None once they are made."""

    def __init__(self, store: GameStore, show: Callable[[dict[str, str] | None], Any], every_s: float = 2.0) -> None:
        self.store = store
        self.show = show
        self.every_s = every_s
        self._shown: str | None = None
        self._rounds = Periodic("willughby-store-health", every_s, self.look)

    def start(self) -> None:
        self._rounds.start()

    def close(self) -> None:
        self._rounds.close()

    def look(self) -> None:
        """Look once: while the last write failed, try one; tell the players what holds now."""
        problem = self.store.write_problem
        if problem is not None:
            try:
                self.store.check_writable()
            except StoreError as exc:
                problem = self.store.write_problem or problem
                log.debug("the store still cannot be written: %s", exc)
            else:
                problem = None
        text = None if problem is None else f"Moves are NOT being kept: {problem}"
        if text != self._shown:
            if text is not None:
                log.warning("%s", text)
            elif self._shown is not None:
                log.warning("the game store %s is written again", self.store.path)
            self._shown = text
            self.show(None if text is None else {"alert": text})
