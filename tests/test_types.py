"""The program's types check: ``mypy --strict`` over every package
(``tools/typecheck.py``, with the settings of ``pyproject.toml``), with no
module excused but the dice box's MicroPython firmware (run on the box)."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import typecheck  # noqa: E402


def _excused() -> list[str]:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    return [m for o in settings["overrides"] if o.get("ignore_errors") for m in o["module"]]


def test_no_module_is_excused_from_the_check_but_the_firmware() -> None:
    others = [name for name in _excused() if not name.startswith("willughby.firmware_bridge.firmware")]
    assert others == []
    assert importlib.util.find_spec("willughby.firmware_bridge.firmware") is not None


def test_the_packages_type_check_under_strict(tmp_path: Path) -> None:
    done = typecheck.run(cache_dir=tmp_path / "mypy-cache")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout
