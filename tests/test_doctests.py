"""The examples in every module's docstrings run and give what they show:
the engine's, the companion's, the camera's and the dice box's (the page's
and the hardware's have their own lists, in tests/web_ui and tests/hardware).

A module is found by walking the packages, so a new module's examples are
run without being listed here."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ["engine", "companion", "vision", "firmware_bridge"]


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        found = importlib.import_module(f"willughby.{package}")
        for info in pkgutil.walk_packages(found.__path__, f"willughby.{package}."):
            if not info.name.endswith("__main__"):        # running it would run the command
                names.append(info.name)
    return sorted(names)


MODULES = _modules()


def test_the_walk_finds_the_modules() -> None:
    assert {"willughby.engine.referee", "willughby.companion.photos", "willughby.vision.reader"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS, report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (run it with -v)"
