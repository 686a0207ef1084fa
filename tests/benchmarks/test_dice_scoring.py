"""The dice benchmark's counting (``benchmarks/dice.py``): each labelled die
matched to the nearest report within half a die, once; a report with the
label's face right, another face wrong, no face unsure; a report on no die
false."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _bench():
    if "dice_bench" in sys.modules:
        return sys.modules["dice_bench"]
    spec = importlib.util.spec_from_file_location("dice_bench", BENCHMARKS / "dice.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["dice_bench"] = module
    spec.loader.exec_module(module)
    return module


def test_a_die_is_found_once_and_counted_right_wrong_or_unsure_and_a_report_on_no_die_false():
    bench = _bench()
    dice = [(100.0, 100.0, 20.0, 3), (200.0, 100.0, 20.0, 5), (300.0, 100.0, 20.0, 6), (400.0, 100.0, 20.0, 1)]
    example = bench.Example("four dice", np.zeros((200, 500, 3), np.uint8), dice)
    reports = [(102.0, 98.0, 3),        # right
               (104.0, 100.0, 3),       # a second report on the same die: no die of its own, so false
               (198.0, 103.0, 2),       # wrong face
               (300.0, 100.0, None),    # unsure
               (415.0, 100.0, 1),       # 15 px off a die 20 across: not on it, so false, and the die missed
               (250.0, 180.0, 4)]       # on nothing: false
    tally = bench.Tally()
    bench.score(example, reports, tally)
    assert (tally.labelled, tally.found, tally.right, tally.wrong, tally.unsure) == (4, 3, 1, 1, 1)
    assert (tally.reported, tally.false) == (6, 3)
    assert "wrong    1" in tally.line("reader")
