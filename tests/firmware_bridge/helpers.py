"""What the firmware's tests share."""

from __future__ import annotations


class Script:
    """A random source that gives the bytes it was given, in order, and fails when they run out."""

    def __init__(self, data: bytes = b"") -> None:
        self.data = bytearray(data)
        self.taken = 0

    def add(self, data: bytes) -> None:
        self.data += data

    def __call__(self, n: int) -> bytes:
        if n > len(self.data):
            raise AssertionError("the scripted random source ran out")
        out = bytes(self.data[:n])
        del self.data[:n]
        self.taken += n
        return out
