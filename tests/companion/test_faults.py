"""Faults that say what to do: a setting or a device that cannot be used ends
``willughby`` with exit status 2 and one line on standard error naming what
is wrong and what to do, never a traceback (docs/command-line.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from willughby.companion.cli import main

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "tests" / "vision" / "golden" / "img_0001.jpg"


def fails(capsys, *argv: str) -> str:
    """Run ``willughby`` *argv*; assert it failed as a user's fault should, and return its one line."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert "Traceback" not in err and err.count("\n") == 1 and err.endswith("\n"), err
    return err


def test_four_corners_in_one_place_are_named_and_the_order_given(capsys):
    line = fails(capsys, "vision", "read", str(PHOTO), "--corners", "10,10 10,10 10,10 10,10")
    assert "C1 and C2 are the same point (10,10)" in line
    assert "C1 touching point 1" in line and "C4 point 24" in line
