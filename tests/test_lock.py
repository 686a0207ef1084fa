"""The lock (requirements/, kept by tools/lock.py) and the check of the newest versions allowed
(tools/newest_allowed.py): what they read and write, without the network (.ci/run resolves and installs)."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lock = _tool("lock")
newest_allowed = _tool("newest_allowed")


def _names(requirements: list[str]) -> set[str]:
    return {lock.canonical(re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0]) for r in requirements}


def test_every_dependency_and_test_extra_is_pinned_with_hashes_in_the_lock():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    text = (ROOT / "requirements" / "test.txt").read_text()
    pinned = lock.pins(text)
    wanted = _names(project["dependencies"] + project["optional-dependencies"]["test"]) | {"setuptools", "wheel"}
    assert wanted <= set(pinned), wanted - set(pinned)
    # "Installs are reproducible": every pin carries its hashes, so pip's hash-checking mode takes it
    blocks = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    assert all("--hash=sha256:" in b for b in blocks if b.strip() and not b.startswith("#")), blocks[:2]


def test_the_pi_lock_holds_the_pi_extras_not_the_tests_and_the_tests_versions():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pi = lock.pins((ROOT / "requirements" / "pi.txt").read_text())
    tested = lock.pins((ROOT / "requirements" / "test.txt").read_text())
    assert _names(project["dependencies"] + project["optional-dependencies"]["pi"]) <= set(pi)
    assert "pytest" not in pi and "mypy" not in pi
    assert all(pi[name] <= tested[name] for name in pi if name in tested)


def test_the_lock_is_made_universal_for_tests_and_for_a_bookworm_pi_alone():
    tests = lock.compile_args(lock.TEST_LOCK, pi=False, constraints=None)
    pi = lock.compile_args(lock.PI_LOCK, pi=True, constraints=lock.TEST_LOCK)
    for args in (tests, pi):
        assert "--generate-hashes" in args and args[args.index("--only-binary") + 1] == ":all:"
        assert args[args.index("--python-version") + 1] == "3.11"
    assert "--universal" in tests and "--extra" in tests and tests[tests.index("--extra") + 1] == "test"
    assert pi[pi.index("--python-platform") + 1] == "aarch64-manylinux_2_36"
    assert pi[pi.index("--constraints") + 1] == "requirements/test.txt"     # named as in the checkout
    assert pi[pi.index("-o") + 1] == "requirements/pi.txt"


def test_the_newest_check_names_what_moved_and_what_broke():
    pinned = {"numpy": {"2.4.6"}, "flask": {"3.1.3"}}
    assert newest_allowed.changed({"numpy": "2.5.0", "flask": "3.1.3", "pip": "26.0", "blinker2": "1.0"},
                                  pinned) == ["blinker2 1.0 (not in the lock)", "numpy 2.4.6 -> 2.5.0"]
    out = ("....F\n=========== short test summary info ============\n"
           "FAILED tests/a.py::test_b - AssertionError: x\nERROR tests/c.py::test_d\n1 failed, 4 passed in 2.0s\n")
    assert newest_allowed.failures(out) == ["tests/a.py::test_b", "tests/c.py::test_d"]
