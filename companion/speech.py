"""Announcements spoken aloud with ``espeak-ng``, where it is installed.

One announcement at a time, on a thread of its own, so the referee never
waits for the voice; announcements that pile up while one is being spoken
are said in order, the oldest dropped past a few (a voice minutes behind the
game is worse than none).
"""

from __future__ import annotations

import logging
import queue
import shutil
import subprocess
import threading
from typing import Any

__all__ = ["Speaker", "espeak_available"]

log = logging.getLogger(__name__)

BACKLOG = 4


def espeak_available() -> str | None:
    """The path of espeak-ng (or espeak), or None."""
    return shutil.which("espeak-ng") or shutil.which("espeak")


class Speaker:
    """Say announcements with espeak-ng; ``say`` never blocks."""

    def __init__(self, program: str | None = None, voice: str = "en-gb") -> None:
        found = program or espeak_available()
        if found is None:
            raise FileNotFoundError("espeak-ng is not installed (apt-get install espeak-ng)")
        self.program: str = found
        self.voice = voice
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="speech", daemon=True)
        self._thread.start()
        self.spoken = 0

    def say(self, text: str) -> None:
        while self._queue.qsize() >= BACKLOG:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._queue.put(text)

    def __call__(self, announcement: Any) -> None:
        self.say(getattr(announcement, "text", str(announcement)))

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            text = self._queue.get()
            if text is None:
                return
            try:
                subprocess.run([self.program, "-v", self.voice, "--", text], check=False, timeout=30,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                self.spoken += 1
            except (OSError, subprocess.TimeoutExpired) as exc:
                log.warning("could not speak: %s", exc)
