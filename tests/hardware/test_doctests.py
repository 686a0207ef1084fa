"""The examples in the hardware part's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["willughby.hardware", "willughby.hardware.config", "willughby.hardware.dice",
           "willughby.hardware.errors", "willughby.hardware.pins", "willughby.hardware.camera_controls"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
