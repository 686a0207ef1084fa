"""A job done every so many seconds in a thread of its own until it is closed (the store's health, the
match's clock): a fault in one round is logged with its traceback and the next round comes all the same.

>>> import time
>>> rounds = []
>>> job = Periodic("willughby-example", 0.01, lambda: rounds.append(1))
>>> job.start(); time.sleep(0.1); job.close()
>>> len(rounds) > 1
True
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

log = logging.getLogger(__name__)

__all__ = ["Periodic"]


class Periodic:
    """Calls *job* every *every_s* seconds, in the thread *name*, from :meth:`start` to :meth:`close`."""

    def __init__(self, name: str, every_s: float, job: Callable[[], Any]) -> None:
        self.every_s = every_s
        self._job = job
        self._name = name
        self._quit = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Stop after the round in progress; harmless twice."""
        self._quit.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5.0)

    def _run(self) -> None:
        while not self._quit.wait(self.every_s):
            try:
                self._job()
            except Exception:  # noqa: the rounds must go on; the fault is logged with its traceback
                log.exception("%s: a round failed", self._name)
