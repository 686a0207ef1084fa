"""Meet a new release before a user does: install the newest versions pyproject.toml allows, run the tests.

The README installs the lock (``requirements/test.txt``), so a release upstream never changes a new install
by itself. This is the other half: a fresh virtual environment in a scratch folder, the package installed in
it as it would be without the lock (``pip install -e '.[test]'``, so pip takes the newest of every range), the
versions that differ from the lock listed, then the README's test command run there. What breaks is what the
next ``python tools/lock.py --upgrade`` would break: mend it, or narrow the range in pyproject.toml, then
refresh the lock.

    python tools/newest_allowed.py                  # the whole suite (minutes); .ci/run runs it as a report
    python tools/newest_allowed.py -- tests/vision  # pytest's own arguments after --

Exit status 0: the newest versions pass the tests (or are the lock's own); 1: some tests fail with them
(their names and the versions that changed are printed); 2: they could not be installed (pip's reason).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lock import canonical, pins  # noqa: E402  (the lock's format is read where it is written)

ROOT = Path(__file__).resolve().parent.parent
TEST_LOCK = ROOT / "requirements" / "test.txt"
FAILED = re.compile(r"^(FAILED|ERROR) (\S+)")
SUMMARY = re.compile(r"\d+ (passed|failed|errors?|skipped)")




def changed(newest: dict[str, str], lock: dict[str, set[str]]) -> list[str]:
    """Each distribution whose newest allowed version is not the lock's, in a line (new ones too)."""
    out = []
    for name in sorted(newest):
        if name in ("pip", "willughby"):
            continue
        if name not in lock:
            out.append(f"{name} {newest[name]} (not in the lock)")
        elif newest[name] not in lock[name]:
            out.append(f"{name} {', '.join(sorted(lock[name]))} -> {newest[name]}")
    return out


def failures(pytest_output: str) -> list[str]:
    """The tests pytest's short summary (``-ra``) names as failed or in error."""
    return [m.group(2) for m in map(FAILED.match, pytest_output.splitlines()) if m]


def say(line: str) -> None:
    print(f"newest allowed: {line}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/newest_allowed.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments (default: the whole suite)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="willughby-newest-") as scratch:
        venv = Path(scratch) / "venv"
        python = venv / "bin" / "python"
        started = time.monotonic()
        say(f"installing the newest versions allowed into {venv} ...")
        try:
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
            done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                   "--upgrade", "--upgrade-strategy", "eager", "-e", f"{ROOT}[test]"],
                                  capture_output=True, text=True, timeout=1800)
        except (OSError, subprocess.SubprocessError) as exc:
            print(f"newest allowed: the environment could not be made: {exc}", file=sys.stderr)
            return 2
        if done.returncode != 0:
            reason = [ln for ln in done.stderr.splitlines() if ln.startswith("ERROR")] or done.stderr.splitlines()[-3:]
            print("newest allowed: pip could not install them: " + " / ".join(reason), file=sys.stderr)
            return 2
        listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
                                capture_output=True, text=True, check=False)
        newest = {canonical(n): v for n, _, v in (ln.partition("==") for ln in listed.stdout.splitlines()) if v}
        moved = changed(newest, pins(TEST_LOCK.read_text()))
        say(f"installed in {time.monotonic() - started:.0f} s; "
            + (f"{len(moved)} differ from the lock: " + "; ".join(moved) if moved else "every version is the lock's"))
        say("running the tests with them ...")
        env = dict(os.environ, VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
        run = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *args.pytest_args],
                             cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    tail = [ln.strip("= ") for ln in run.stdout.splitlines() if SUMMARY.search(ln)][-1:] or ["(no summary)"]
    broken = failures(run.stdout)
    if run.returncode == 0:
        say(f"the tests pass with the newest versions allowed: {tail[0]}")
        return 0
    for name in broken:
        say(f"breaks: {name}")
    say(f"{len(broken)} tests break with the newest versions allowed ({tail[0]}); "
        + ("what changed: " + "; ".join(moved) if moved else "no version differs from the lock"))
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
