"""A fake dice box on a pseudo-terminal, with faults on demand.

It runs the box firmware's own logic (``firmware/box.py``) on a thread and
speaks to a pseudo-terminal, so the Pi's link opens it with pySerial like a
real port: ``box.port`` is a stable path (a symbolic link to the current
``/dev/pts/N``, as ``/dev/serial/by-id/...`` is for a real box). Faults
(:class:`Faults`) spoil the bytes the box sends -- garbage between and
inside frames, dropped bytes, lost and duplicated frames, flipped bits --
and :meth:`FakeBox.vanish` pulls the cable.

>>> with FakeBox(faults=Faults(duplicate=0.5), seed=1) as box:
...     box.port.endswith("dicebox")
True
"""

from __future__ import annotations

import errno
import os
import queue
import random
import select
import shutil
import tempfile
import threading
import time
import tty
from dataclasses import dataclass
from typing import Any, Callable

from .firmware.box import Box

__all__ = ["Faults", "FakeBox"]

BUTTONS = ("roll", "done", "undo", 1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Faults:
    """How the line spoils what the box sends: each a chance per frame written."""

    garbage: float = 0.0       # random bytes (zeros among them) written before the frame
    drop_byte: float = 0.0     # one byte of the frame lost
    drop_frame: float = 0.0    # the whole frame lost
    duplicate: float = 0.0     # the frame written twice
    corrupt: float = 0.0       # one bit of the frame flipped

    def __post_init__(self) -> None:
        for name in ("garbage", "drop_byte", "drop_frame", "duplicate", "corrupt"):
            p = getattr(self, name)
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"fault chance {name}={p!r} must be between 0 and 1")

    @classmethod
    def parse(cls, text: str) -> "Faults":
        """``"garbage=0.1,duplicate=0.05"`` -> Faults; raises ValueError naming a bad item."""
        kwargs: dict[str, float] = {}
        for item in filter(None, (t.strip() for t in text.split(","))):
            name, _, value = item.partition("=")
            if name not in cls.__dataclass_fields__:
                raise ValueError(f"no fault {name!r}: one of {', '.join(cls.__dataclass_fields__)}")
            try:
                kwargs[name] = float(value)
            except ValueError:
                raise ValueError(f"fault {name} needs a number, not {value!r}") from None
        return cls(**kwargs)


class FakeBox:
    """The dice box, faked on a pseudo-terminal (POSIX)."""

    def __init__(self, *, faults: Faults = Faults(), seed: int | None = None, session: int | None = None,
                 dice_count: int = 2, random_bytes: Callable[[int], bytes] | None = None,
                 tick: float = 0.002) -> None:
        self.faults = faults
        self._rng = random.Random(seed)
        self._dir = tempfile.mkdtemp(prefix="willughby-fakebox-")
        self.port = os.path.join(self._dir, "dicebox")
        self._tick = tick
        self._lock = threading.Lock()
        self._presses: queue.Queue[Any] = queue.Queue()
        self._master: int | None = None
        self._slave: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()
        self.frames_written = 0          # frames the box handed to the line
        self.bytes_lost = 0              # bytes the line could not take (nobody reading)
        self.box = Box(self._write, self._now_ms, random_bytes or os.urandom, session=session,
                       dice_count=dice_count)
        self.closed = False

    # -- lifecycle ---------------------------------------------------------
    def start(self) -> "FakeBox":
        if self.closed:
            raise RuntimeError("the fake box is closed")
        if self._thread is None:
            self._plug()
            self._thread = threading.Thread(target=self._run, name="fake-box", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the box and remove its port; harmless twice."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            self._unplug()
        shutil.rmtree(self._dir, ignore_errors=True)
        self.closed = True

    def __enter__(self) -> "FakeBox":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what a test does --------------------------------------------------
    def press(self, button: Any) -> None:
        """Press a button: ``"roll"``, ``"done"``, ``"undo"`` or a pip 1..6 (handled on the box's thread)."""
        if button not in BUTTONS:
            raise ValueError(f"no button {button!r}: one of {BUTTONS}")
        self._presses.put(button)

    def vanish(self) -> None:
        """Pull the cable: the port disappears (the box keeps its state)."""
        with self._lock:
            self._unplug()

    def reappear(self) -> None:
        """Put the cable back: the port is there again (a new pseudo-terminal)."""
        with self._lock:
            if self._master is None:
                self._plug()

    @property
    def present(self) -> bool:
        return self._master is not None

    def idle(self) -> bool:
        """Whether every press has been handled and every event acknowledged."""
        return self._presses.empty() and not self.box.outbox

    # -- the line ----------------------------------------------------------
    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)                # no echo, no line editing: bytes pass as they are
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.port + ".new"
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.port)

    def _unplug(self) -> None:
        if self._master is None:
            return
        try:
            os.unlink(self.port)
        except FileNotFoundError:
            pass
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def _now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def _write(self, frame: bytes) -> None:
        """The box writes a frame: spoil it as the faults say, then put it on the line."""
        self.frames_written += 1
        f, rng = self.faults, self._rng
        data = bytearray(frame)
        if f.drop_frame and rng.random() < f.drop_frame:
            return
        if f.corrupt and rng.random() < f.corrupt:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        if f.drop_byte and rng.random() < f.drop_byte:
            del data[rng.randrange(len(data))]
        if f.garbage and rng.random() < f.garbage:
            data[0:0] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        if f.duplicate and rng.random() < f.duplicate:
            data = data + data
        self._put(bytes(data))

    def _put(self, data: bytes) -> None:
        if self._master is None:
            self.bytes_lost += len(data)
            return
        try:
            n = os.write(self._master, data)
        except BlockingIOError:
            n = 0
        except OSError as exc:
            if exc.errno not in (errno.EIO, errno.EBADF):
                raise
            n = 0
        self.bytes_lost += len(data) - n

    def _run(self) -> None:
        with self._lock:
            self.box.start()
        while not self._stop.is_set():
            master = self._master
            if master is None:
                time.sleep(self._tick)
            else:
                try:
                    select.select([master], [], [], self._tick)
                except (OSError, ValueError):
                    pass                  # unplugged while waiting
            # every call into the box, and so every write, happens under the
            # lock, so a write never meets a descriptor closed (or reused) by vanish()
            with self._lock:
                if self._master is not None:
                    try:
                        data = os.read(self._master, 4096)
                    except (BlockingIOError, OSError):
                        data = b""
                    if data:
                        self.box.receive(data)
                while not self._presses.empty():
                    self.box.press(self._presses.get())
                self.box.tick()
