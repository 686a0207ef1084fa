"""The command line's own calls write nothing to stderr when all goes well: no warning of OpenCV's (its
``[ WARN:...]`` lines, written past Python), nor of Python's. Each command runs as a process of its own,
as a user runs it, since what OpenCV writes is the process's and is written once a process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from willughby.vision import pointnet

ROOT = Path(__file__).resolve().parents[2]
PHOTO = str(ROOT / "docs" / "examples" / "after-8-5-6-5.jpg")
CORNERS = "264,64 734,83 733,491 233,471"      # the photo's corners (docs/command-line.md)


def _run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONWARNINGS="default")      # Python's own warnings shown, as a user would see them
    return subprocess.run([sys.executable, "-m", "willughby.companion", *argv], capture_output=True, text=True,
                          timeout=180, check=False, cwd=cwd, env=env)


@pytest.mark.skipif(not pointnet.available(), reason="the trained point reader is not installed")
@pytest.mark.parametrize("argv", [
    ("vision", "read", PHOTO, "--corners", CORNERS, "--json"),
    ("vision", "dice", PHOTO, "--corners", CORNERS, "--json"),
    ("judge", "--variant", "backgammon", "--before", "@" + str(ROOT / "docs" / "examples" / "start.json"),
     "--dice", "3,1", "--after-image", PHOTO, "--corners", CORNERS, "--json"),
    ("doctor", "--config", "{config}"),
], ids=["vision read", "vision dice", "judge --after-image", "doctor"])
def test_a_command_that_succeeds_writes_nothing_to_stderr(tmp_path: Path, argv: tuple[str, ...]) -> None:
    config = tmp_path / "w.toml"
    config.write_text(f"[companion]\ndata_dir = '{tmp_path / 'data'}'\n[speech]\nenabled = 'off'\n")
    proc = _run(*(a.replace("{config}", str(config)) for a in argv), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()                                  # it did its work
    assert proc.stderr == "", proc.stderr
