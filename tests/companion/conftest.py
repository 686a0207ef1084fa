"""Fixtures shared by the companion's tests."""

from __future__ import annotations

from typing import Iterator

import pytest

from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.vision.turns import TurnConfig, TurnReader


@pytest.fixture()
def camera_judged_game() -> Iterator[Companion]:
    """A companion with a game of backgammon begun, Ann (light) to play the 3-1 of the roll for the
    start, its turns judged from the camera's readings by a turn reader."""
    store = GameStore(":memory:")
    comp = Companion(store)
    comp.judging.turn_reader = TurnReader(TurnConfig(temperature=1.0))
    comp.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    comp.enter_dice([3, 1])
    yield comp
    store.close()


@pytest.fixture()
def store_file(tmp_path) -> Iterator[GameStore]:
    """A game store in a file of the test's own, which a second companion can open again (a restart)."""
    s = GameStore(tmp_path / "games.sqlite")
    yield s
    s.close()
