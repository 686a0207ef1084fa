"""Saving off the caller's thread, the latest only: :class:`LatestSaver`.

The camera watcher (``companion/watch.py``) saves what it learnt of the
board with the calibration after each settled frame; a board's examples run
to megabytes, and the ruling must not wait for the disk. Each save writes
the whole state, so a save asked for while another waits replaces it, and
one that fails is logged and the next one tried.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

__all__ = ["LatestSaver"]

log = logging.getLogger(__name__)


class LatestSaver:
    """Runs saves on a thread of its own, the latest only: a save asked for while another waits replaces
    it (each saves the whole state, so the latest holds all the others did). A save that fails is logged and
    the next one tried."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._cv = threading.Condition()
        self._job: Callable[[], Any] | None = None
        self._busy = False
        self._closing = False
        self._thread: threading.Thread | None = None

    def submit(self, job: Callable[[], Any]) -> None:
        with self._cv:
            self._job = job
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cv.notify_all()

    def drop(self) -> None:
        """Forget the save waiting, if any, and wait for the one running to end."""
        with self._cv:
            self._job = None
            self._cv.wait_for(lambda: not self._busy)

    def flush(self, timeout: float = 30.0) -> bool:
        """Wait until no save waits or runs; False after *timeout* seconds."""
        with self._cv:
            return self._cv.wait_for(lambda: self._job is None and not self._busy, timeout)

    def close(self, timeout: float = 30.0) -> bool:
        """Flush, then end the thread (a save submitted later starts a new one); False where the saves
        were not done within *timeout* seconds."""
        done = self.flush(timeout)
        with self._cv:
            self._closing = True
            self._cv.notify_all()
            thread, self._thread = self._thread, None
        if thread is not None and done:
            thread.join(timeout)
        return done

    def _run(self) -> None:
        while True:
            with self._cv:
                self._cv.wait_for(lambda: self._job is not None or self._closing)
                if self._job is None:
                    self._closing = False
                    return
                job, self._job, self._busy = self._job, None, True
            try:
                job()
            except Exception:           # noqa: BLE001 - this thread must outlive any one save, whatever it raises
                log.exception("what the reader learnt of the board is not saved")
            finally:
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()
