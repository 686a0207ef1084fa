"""The examples in the page's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["willughby.web_ui.config", "willughby.web_ui.errors", "willughby.web_ui.events",
           "willughby.web_ui.logins", "willughby.web_ui.pages", "willughby.web_ui.validate"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
