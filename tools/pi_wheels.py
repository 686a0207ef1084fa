"""Check that every dependency installs on a Raspberry Pi from a wheel, at the versions installed here.

A Pi running Raspberry Pi OS Bookworm (64-bit) runs Python 3.11 on aarch64
with glibc 2.36: it takes wheels tagged ``manylinux_2_17_aarch64`` up to
``manylinux_2_36_aarch64`` (``manylinux2014_aarch64`` is 2_17), and pure
Python ones. Anything else pip would compile from source there, which on a
Pi takes hours or fails. This asks pip for the project's dependencies, and
theirs, as such a Pi would (``pip download --only-binary=:all:`` with those
tags, nothing installed), and compares each version with the one installed
in this environment (the x86 install the tests ran against): a dependency
with no wheel for the Pi, or whose newest wheel there is another version
(numpy 2.4's aarch64 wheels are tagged ``manylinux_2_27`` and ``_2_28`` only,
so a check with ``manylinux2014`` alone would quietly pick an older numpy),
fails the check.

    python tools/pi_wheels.py            # run by .ci/run after the install

Exit status 0: every version matches; 1: a difference or a dependency with
no wheel (each named); 2: pip could not be run or the network could not be
reached.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = "3.11"
GLIBC_MINORS = range(17, 37)          # manylinux_2_17 .. manylinux_2_36: what Bookworm's glibc 2.36 accepts
#: what ``python3 -m venv`` puts in every new environment (Python 3.11): pip does not replace them to satisfy
#: a requirement they meet (gpiozero's colorzero asks for setuptools), so ``pip download``'s newest says nothing
SEEDED = frozenset({"pip", "setuptools"})


def platform_tags() -> list[str]:
    """The platform tags a Bookworm Pi (64-bit) accepts, newest first, then pure Python."""
    return ([f"manylinux_2_{m}_aarch64" for m in reversed(GLIBC_MINORS)]
            + ["manylinux2014_aarch64", "linux_aarch64", "any"])


def requirements(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """The project's own dependencies (not its test extras), as pyproject.toml gives them."""
    with pyproject.open("rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def canonical(name: str) -> str:
    """A distribution's name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_version(filename: str) -> tuple[str, str]:
    """(name, version) of a wheel file's name; ValueError for anything that is not a wheel (an sdist)."""
    if not filename.endswith(".whl"):
        raise ValueError(f"{filename}: not a wheel")
    parts = filename[:-4].split("-")
    if len(parts) < 5:
        raise ValueError(f"{filename}: not a wheel's name")
    return canonical(parts[0]), parts[1]


def differences(wheels: list[str], installed: dict[str, str]) -> list[str]:
    """Each wheel whose version is not the one installed here (by canonical name), in a line. A
    distribution a new virtual environment already holds (``SEEDED``: pip keeps the one there, which
    satisfies the requirement, on the Pi as here) or that is not installed here is no difference."""
    out = []
    for filename in sorted(wheels):
        name, version = wheel_version(filename)
        here = None if name in SEEDED else installed.get(name)
        if here is not None and here != version:
            out.append(f"{name}: {version} on the Pi, {here} here")
    return out


def installed_versions() -> dict[str, str]:
    return {canonical(d.metadata["Name"]): d.version for d in metadata.distributions() if d.metadata["Name"]}


def main() -> int:
    reqs = requirements()
    with tempfile.TemporaryDirectory(prefix="pi-wheels-") as dest:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
               "--only-binary=:all:", "--python-version", PYTHON, "--implementation", "cp",
               "--abi", "cp311", "--abi", "abi3", "--abi", "none", "--dest", dest]
        for tag in platform_tags():
            cmd += ["--platform", tag]
        try:
            done = subprocess.run(cmd + reqs, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as exc:
            print(f"pi wheels: pip could not be run: {exc}", file=sys.stderr)
            return 2
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.splitlines() if ln.startswith("ERROR")] or done.stderr.splitlines()[-3:]
            print("pi wheels: no wheel for a Raspberry Pi (Bookworm, aarch64, Python 3.11): "
                  + " / ".join(lines), file=sys.stderr)
            return 1
        wheels = [p.name for p in Path(dest).iterdir()]
    try:
        diff = differences(wheels, installed_versions())
    except ValueError as exc:
        print(f"pi wheels: {exc}", file=sys.stderr)
        return 1
    for line in diff:
        print(f"pi wheels: {line}", file=sys.stderr)
    if diff:
        print(f"pi wheels: {len(diff)} of {len(wheels)} dependencies would install another version on a Pi",
              file=sys.stderr)
        return 1
    print(f"pi wheels: all {len(wheels)} dependencies install on a Pi from wheels, at the versions installed here")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
