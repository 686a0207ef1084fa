"""Check the program's types: ``mypy --strict`` over every package, with the
settings in ``pyproject.toml`` (``[tool.mypy]``).

The packages' folders stand at the repository's root and are installed
under the one name ``willughby``, which mypy cannot follow through an
editable install. So this script makes a folder holding one link,
``willughby`` -> the repository, and runs mypy there on
``willughby.engine``, ``willughby.vision`` and the rest. It prints mypy's
report and exits with mypy's status.

    python tools/typecheck.py            # every package
    python tools/typecheck.py engine     # one or more of them
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "vision", "companion", "web_ui", "hardware", "firmware_bridge", "hub")


def run(packages: tuple[str, ...] = PACKAGES, cache_dir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """mypy's run over *packages*; its output in ``stdout``."""
    with tempfile.TemporaryDirectory(prefix="willughby-types-") as folder:
        os.symlink(ROOT, Path(folder) / "willughby")
        command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                   "--cache-dir", str(cache_dir or ROOT / ".mypy_cache")]
        for package in packages:
            command += ["-p", f"willughby.{package}"]
        return subprocess.run(command, cwd=folder, capture_output=True, text=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="*", metavar="PACKAGE",
                        help=f"which to check (default: all of {', '.join(PACKAGES)})")
    args = parser.parse_args(argv)
    unknown = [p for p in args.packages if p not in PACKAGES]
    if unknown:
        parser.error(f"no package {unknown[0]!r}: the packages are {', '.join(PACKAGES)}")
    done = run(tuple(args.packages) or PACKAGES)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
