"""Waiting for a thread of the companion (the camera watcher, the demo's players) to get somewhere."""

from __future__ import annotations

import time
from typing import Any, Callable


def until(predicate: Callable[[], Any], timeout: float) -> Any:
    """*predicate*'s value once it is true, checked every 50 ms; its last value after *timeout* seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    return predicate()
