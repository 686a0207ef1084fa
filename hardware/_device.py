"""What every device of this package shares: listeners, and a lifecycle
(docs/house-conventions.md, convention 9: ``close()`` twice is harmless, context managers,
use after close raises)."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Generic, Self, TypeVar

from .errors import DeviceClosedError

L = TypeVar("L")

__all__ = ["ListenedDevice"]


class ListenedDevice(Generic[L]):
    """Listeners of type *L*, and open or closed."""

    #: how :meth:`_check_open` names the device
    what = "the device"

    def __init__(self) -> None:
        self._closed = False
        self._lock = threading.Lock()
        self._listeners: tuple[L, ...] = ()

    def add_listener(self, fn: L) -> None:
        """Call *fn* from now on (see the class for with what)."""
        self._check_open()
        with self._lock:
            self._listeners = self._listeners + (fn,)

    def remove_listener(self, fn: L) -> None:
        """Stop calling *fn* (a listener not added is ignored; harmless after :meth:`close`)."""
        with self._lock:
            self._listeners = tuple(f for f in self._listeners if f != fn)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called."""
        return self._closed

    def close(self) -> None:
        """Let go of what the device holds; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        with self._lock:
            self._listeners = ()
        self._close()

    def __enter__(self) -> Self:
        self._check_open()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} ({'closed' if self._closed else 'open'})>"

    def _close(self) -> None:
        """Let go of what the device holds (called once, by :meth:`close`)."""

    def _check_open(self) -> None:
        if self._closed:
            raise DeviceClosedError(f"{self.what} is closed")
