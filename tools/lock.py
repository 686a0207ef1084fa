"""Keep the lock: the exact versions (and their hashes) that a new install takes, on a PC and on a Pi.

Two files under ``requirements/``, both written by uv (``uv pip compile``, pinned in the test extras) from
``pyproject.toml``, each with every distribution's sha256 so that ``pip install --require-hashes`` takes
nothing else:

- ``requirements/test.txt``: the package's dependencies, its test extras and what builds it (setuptools,
  wheel: ``requirements/build.in``), one universal resolution for Python 3.11 and newer on any platform.
  The README's install and ``.ci/run`` install exactly this, so the tests always run on what a newcomer gets.
- ``requirements/pi.txt``: what a Raspberry Pi runs (Raspberry Pi OS Bookworm, 64-bit: aarch64, glibc 2.36,
  Python 3.11): the dependencies without the test extras, with the ``pi`` extras (a ``simplejpeg`` built for
  numpy 2, found before Debian's), at the same versions as ``test.txt`` (it is resolved under that file as
  constraints). ``hardware/install-pi.sh`` installs it; ``tools/pi_wheels.py`` checks it.

Wheels only (``--only-binary :all:``): nothing is compiled on a Pi. Where one version can serve every
Python the project allows, one is chosen (``--fork-strategy fewest``).

    python tools/lock.py              # after a change to pyproject.toml: keeps every pin it can
    python tools/lock.py --upgrade    # take the newest versions allowed (then run the tests, commit both)
    python tools/lock.py --check      # exit 1 where the files are not what pyproject.toml resolves to now

Exit status 0: done (or, with --check, the lock is up to date); 1: --check found a difference; 2: uv could
not be run or could not resolve (its message is printed).
"""

from __future__ import annotations

import argparse
import difflib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK_DIR = ROOT / "requirements"
TEST_LOCK = LOCK_DIR / "test.txt"
PI_LOCK = LOCK_DIR / "pi.txt"
BUILD_IN = LOCK_DIR / "build.in"
#: the command named in each lock's header, so that a reader knows how to remake it
COMPILE_COMMAND = "python tools/lock.py"
PI_PLATFORM = "aarch64-manylinux_2_36"     # Bookworm's glibc 2.36
PYTHON = "3.11"                            # the oldest allowed, and Bookworm's
#: a pin line of a lock: ``name==version``, then markers or a backslash
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def canonical(name: str) -> str:
    """A distribution's name as pip compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str) -> dict[str, set[str]]:
    """The versions a lock pins, by canonical name (a universal lock may pin two, under exclusive markers).

    >>> pins("Opencv_Python.Headless==5.1.0.95 ; python_full_version < '3.15'")
    {'opencv-python-headless': {'5.1.0.95'}}
    """
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        match = PIN.match(line)
        if match:
            out.setdefault(canonical(match.group(1)), set()).add(match.group(2))
    return out


def uv_command() -> list[str]:
    """How to run uv: the ``uv`` installed beside this Python (the test extras pin it), else one on PATH."""
    here = Path(sys.executable).with_name("uv")
    if here.exists():
        return [str(here)]
    found = shutil.which("uv")
    if found:
        return [found]
    try:
        import uv  # type: ignore[import-not-found, unused-ignore]  # the PyPI package ships its binary
    except ImportError:
        raise SystemExit("lock: uv is not installed: pip install --require-hashes -r requirements/test.txt "
                         "installs the version the lock was made with") from None
    return [uv.find_uv_bin()]


def shown(path: Path) -> str:
    """A path as the lock files name it: relative to the checkout, so the files say nothing of this machine."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def compile_args(out: Path, *, pi: bool, constraints: Path | None) -> list[str]:
    """The arguments of ``uv pip compile`` for one lock, written to ``out``."""
    args = ["pip", "compile", "pyproject.toml", str(BUILD_IN.relative_to(ROOT)),
            "--python-version", PYTHON, "--generate-hashes", "--only-binary", ":all:",
            "--custom-compile-command", COMPILE_COMMAND, "--quiet", "-o", shown(out)]
    if pi:
        args += ["--extra", "pi", "--python-platform", PI_PLATFORM]
    else:
        args += ["--extra", "test", "--universal", "--fork-strategy", "fewest"]
    if constraints is not None:
        args += ["--constraints", shown(constraints)]
    return args


def run_uv(args: list[str]) -> None:
    try:
        done = subprocess.run(uv_command() + args, cwd=ROOT, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SystemExit(f"lock: uv could not be run: {exc}") from None
    if done.returncode != 0:
        message = " / ".join(ln.strip() for ln in done.stderr.splitlines() if ln.strip()) or "no message"
        print(f"lock: uv could not resolve: {message}", file=sys.stderr)
        raise SystemExit(2)


def write_locks(test_lock: Path, pi_lock: Path, *, upgrade: bool) -> None:
    """Resolve both locks into the paths given (the test lock first: the Pi's is resolved under it)."""
    extra = ["--upgrade"] if upgrade else []
    run_uv(compile_args(test_lock, pi=False, constraints=None) + extra)
    run_uv(compile_args(pi_lock, pi=True, constraints=test_lock) + extra)


def check() -> int:
    """Resolve again, keeping the pins, into a scratch folder and compare with the files kept."""
    differ = False
    with tempfile.TemporaryDirectory(prefix="willughby-lock-") as scratch:
        fresh = {TEST_LOCK: Path(scratch) / "test.txt", PI_LOCK: Path(scratch) / "pi.txt"}
        for kept, new in fresh.items():
            if kept.exists():
                shutil.copy(kept, new)         # uv keeps the pins of the file it writes over
        write_locks(fresh[TEST_LOCK], fresh[PI_LOCK], upgrade=False)
        for kept, new in fresh.items():
            old_text = kept.read_text() if kept.exists() else ""
            # the Pi's lock names the test lock it was resolved under: here, the scratch copy
            new_text = new.read_text().replace(str(fresh[TEST_LOCK]), shown(TEST_LOCK))
            if old_text != new_text:
                differ = True
                diff = difflib.unified_diff(old_text.splitlines(), new_text.splitlines(),
                                            shown(kept), "resolved now", lineterm="", n=0)
                print("\n".join(list(diff)[:40]), file=sys.stderr)
    if differ:
        print("lock: the lock is not what pyproject.toml resolves to: run python tools/lock.py and commit it",
              file=sys.stderr)
        return 1
    print(f"lock: {TEST_LOCK.relative_to(ROOT)} and {PI_LOCK.relative_to(ROOT)} are what pyproject.toml "
          "resolves to")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/lock.py", description=__doc__.split("\n\n")[0])
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--upgrade", action="store_true", help="take the newest versions pyproject.toml allows")
    how.add_argument("--check", action="store_true", help="change nothing; exit 1 where the lock is stale")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    LOCK_DIR.mkdir(exist_ok=True)
    write_locks(TEST_LOCK, PI_LOCK, upgrade=args.upgrade)
    print(f"lock: wrote {TEST_LOCK.relative_to(ROOT)} and {PI_LOCK.relative_to(ROOT)}; run the tests "
          "(README, \"Run the tests\") before committing them")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
