# Types of box.py for the Pi's type check (box.py runs on MicroPython: see wire.pyi).
from typing import Any, Callable

FIRMWARE: str
HEARTBEAT_MS: int
RETRANSMIT_MS: int
RESEND_AT_MOST: int
OUTBOX_SIZE: int
LINK_TIMEOUT_MS: int
ERROR_BLINK_MS: int

def fair_die(random_bytes: Callable[[int], bytes]) -> int: ...

class Box:
    session: int
    firmware: str
    dice_count: int
    roll_enabled: bool
    turn: str
    shown: tuple[int, ...]
    entry: tuple[int, ...]
    next_seq: int
    outbox: list[tuple[int, bytes]]
    rejected: int
    def __init__(self, write: Callable[[bytes], Any], now_ms: Callable[[], int],
                 random_bytes: Callable[[int], bytes], session: int | None = ..., firmware: str = ...,
                 dice_count: int = ...) -> None: ...
    @property
    def link_ok(self) -> bool: ...
    @property
    def error(self) -> bool: ...
    @property
    def oldest(self) -> int: ...
    def hello(self) -> None: ...
    def start(self) -> None: ...
    def snapshot(self) -> None: ...
    def press(self, button: str | int) -> None: ...
    def receive(self, data: bytes) -> None: ...
    def tick(self) -> None: ...
