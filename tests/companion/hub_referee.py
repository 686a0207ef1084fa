"""A referee in a process of its own for the kill -9 test of publishing (test_hub_publish.py): it plays
*steps* random turns on the store at *path*, publishing to the broker on *port*, says ``played`` and waits to
be killed.

    python -m tests.companion.hub_referee PATH PORT SEED STEPS
"""

from __future__ import annotations

import random
import sys
import time

from willughby.companion.service import Companion
from willughby.companion.store import GameStore

from .test_hub_publish import _play, _real_publisher


def main(argv: list[str]) -> int:
    path, port, seed, steps = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    store = GameStore(path)
    c = Companion(store)
    _real_publisher(store, c, port)
    _play(c, random.Random(seed), steps)
    print("played", flush=True)
    while True:
        time.sleep(1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
