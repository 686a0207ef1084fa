"""Check the lock against a Raspberry Pi and against this install: the Pi gets what the tests ran with.

``requirements/pi.txt`` (written by ``tools/lock.py``) is what ``hardware/install-pi.sh`` installs on a Pi
running Raspberry Pi OS Bookworm (64-bit): Python 3.11 on aarch64 with glibc 2.36, which takes wheels tagged
``manylinux_2_17_aarch64`` up to ``manylinux_2_36_aarch64`` (``manylinux2014_aarch64`` is 2_17) and pure
Python ones; anything else pip would compile there, which on a Pi takes hours or fails. Three checks:

1. every version the Pi's lock pins is the one ``requirements/test.txt`` pins (the lock the tests run on);
2. every one installed in this environment is the test lock's (so the tests here ran on the lock);
3. ``pip download`` as such a Pi would (``--only-binary=:all:`` with those tags, ``--require-hashes``, nothing
   installed) finds a wheel of each pinned version whose hash the lock holds.

    python tools/pi_wheels.py            # run by .ci/run after the install

Exit status 0: all three hold; 1: a difference or a version with no wheel for the Pi (each named); 2: a lock
is missing, or pip could not be run or the network could not be reached.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lock import canonical, pins  # noqa: E402  (the lock's format is read where it is written)

ROOT = Path(__file__).resolve().parent.parent
TEST_LOCK = ROOT / "requirements" / "test.txt"
PI_LOCK = ROOT / "requirements" / "pi.txt"
PYTHON = "3.11"
GLIBC_MINORS = range(17, 37)          # manylinux_2_17 .. manylinux_2_36: what Bookworm's glibc 2.36 accepts
#: what ``python3 -m venv`` puts in every new environment: the lock installs over it, but a venv that was
#: made before the lock may still hold its own, which says nothing of the tests
SEEDED = frozenset({"pip"})


def platform_tags() -> list[str]:
    """The platform tags a Bookworm Pi (64-bit) accepts, newest first, then pure Python."""
    return ([f"manylinux_2_{m}_aarch64" for m in reversed(GLIBC_MINORS)]
            + ["manylinux2014_aarch64", "linux_aarch64", "any"])




def pi_differs_from_tests(pi: dict[str, set[str]], tested: dict[str, set[str]]) -> list[str]:
    """Each version the Pi's lock pins that the test lock does not, in a line. A distribution only the Pi needs
    (its ``pi`` extras) is no difference."""
    out = []
    for name in sorted(pi):
        if name in tested and not pi[name] <= tested[name]:
            out.append(f"{name}: {', '.join(sorted(pi[name]))} on the Pi, "
                       f"{', '.join(sorted(tested[name]))} in the tests' lock")
    return out


def installed_differs_from_lock(installed: dict[str, str], tested: dict[str, set[str]]) -> list[str]:
    """Each distribution installed here whose version the test lock does not pin, in a line. What the lock does
    not name at all (the project itself, a tool someone added by hand) is reported too: the tests ran beside it."""
    out = []
    for name in sorted(installed):
        if name in SEEDED or name == "willughby":
            continue
        if name not in tested:
            out.append(f"{name}: {installed[name]} installed here, not in the lock")
        elif installed[name] not in tested[name]:
            out.append(f"{name}: {installed[name]} installed here, {', '.join(sorted(tested[name]))} in the lock")
    return out


def installed_versions() -> dict[str, str]:
    return {canonical(d.metadata["Name"]): d.version for d in metadata.distributions() if d.metadata["Name"]}


def download_for_pi(lock: Path) -> tuple[int, str]:
    """``pip download`` of the lock's pins as a Bookworm Pi would take them; (status, a line saying why)."""
    with tempfile.TemporaryDirectory(prefix="pi-wheels-") as dest:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
               "--no-deps", "--require-hashes", "--only-binary=:all:", "--python-version", PYTHON,
               "--implementation", "cp", "--abi", "cp311", "--abi", "abi3", "--abi", "none", "--dest", dest]
        for tag in platform_tags():
            cmd += ["--platform", tag]
        try:
            done = subprocess.run(cmd + ["-r", str(lock)], capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return 2, f"pip could not be run: {exc}"
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.splitlines() if ln.startswith("ERROR")] or done.stderr.splitlines()[-3:]
            return 1, "no wheel for a Raspberry Pi (Bookworm, aarch64, Python 3.11): " + " / ".join(lines)
        return 0, f"{sum(1 for _ in Path(dest).iterdir())} wheels"


def main() -> int:
    for lock in (TEST_LOCK, PI_LOCK):
        if not lock.exists():
            print(f"pi wheels: no {lock.relative_to(ROOT)}: python tools/lock.py writes it", file=sys.stderr)
            return 2
    tested, pi = pins(TEST_LOCK.read_text()), pins(PI_LOCK.read_text())
    faults = pi_differs_from_tests(pi, tested) + installed_differs_from_lock(installed_versions(), tested)
    for line in faults:
        print(f"pi wheels: {line}", file=sys.stderr)
    status, said = download_for_pi(PI_LOCK)
    if status:
        print(f"pi wheels: {said}", file=sys.stderr)
        return status
    if faults:
        print(f"pi wheels: {len(faults)} differences between the Pi's lock, the tests' lock and this install",
              file=sys.stderr)
        return 1
    print(f"pi wheels: all {len(pi)} of the Pi's dependencies install there from wheels ({said}, hashes checked), "
          "at the versions of the tests' lock, which is what is installed here")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
