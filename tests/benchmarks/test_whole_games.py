"""The whole-games benchmark's own parts (``benchmarks/whole_games.py``): its true game and its misreads
are the same under any referee, a ruling counts right only where it rules a true play, and with no misread
the referee it measures rules nothing wrongly."""

from __future__ import annotations

import random

import pytest

from .test_real_photos import _load

bench = _load("whole_games")


def test_with_no_misread_every_ruling_is_a_true_play_and_the_referee_never_loses_the_board():
    figures = bench.run_games(2, seed=3, misread_rate=0.0)
    t = figures["totals"]
    assert t["games"] == 2 and t["stills"] > 20 and t["rulings"] >= t["stills"]
    assert t.get("wrong", 0) == 0 and not figures["recover"]


def test_a_missed_play_is_counted_and_the_way_back_measured():
    figures = bench.run_games(3, seed=5, misread_rate=0.2, kinds=("miss",))
    t = figures["totals"]
    assert t["misread_miss"] == len(figures["recover"]) > 0
    assert all(r is None or r >= 0 for r in figures["recover"])


def test_the_misreads_drawn_do_not_depend_on_the_referee():
    """The same seed meets the same misread draws whatever the referee does (their own generator)."""
    a, b = bench.Game(random.Random(9), 0.5), bench.Game(random.Random(9), 0.5)
    assert [a.misreads.random() for _ in range(5)] == [b.misreads.random() for _ in range(5)]


def test_a_swap_makes_another_board_and_an_unknown_kind_is_refused(capsys):
    doc = {"light": [2] + [0] * 23, "dark": [0] * 23 + [2], "bar": {"light": 0, "dark": 0}}
    swapped = bench._swapped(doc, random.Random(1))
    assert swapped is not None and swapped != doc and sorted(swapped["light"]) == sorted(doc["light"])
    with pytest.raises(SystemExit):
        bench.main(["--kinds", "blur"])
    assert "--kinds takes some of" in capsys.readouterr().err
