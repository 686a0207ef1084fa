"""The example session of ``docs/control-api.md`` runs as written.

A real ``willughby serve`` is started on a free port with a fresh data
directory and a known PIN; the shell blocks of the document's "An example
session" are run with bash (``set -e``) against it, and every line the
document shows after ``# ->`` must be printed, in order (``...`` stands for
anything). Only the command line and HTTP are relied on, so the test holds
whatever web server ``serve`` runs.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "control-api.md"
SECTION = "## An example session"
PIN = "2468"
START_TIMEOUT_S = 60.0


def session_blocks(text: str) -> list[str]:
    """The ```sh blocks of the example session, in order."""
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start:end if end != -1 else len(text)]
    return re.findall(r"^```sh\n(.*?)^```", section, flags=re.S | re.M)


def expected_lines(blocks: list[str]) -> list[str]:
    """Every ``# -> ...`` line of the blocks, without the marker."""
    return [line.strip()[len("# -> "):] for block in blocks for line in block.splitlines()
            if line.strip().startswith("# -> ")]


def matches(expected: str, line: str) -> bool:
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, line.rstrip()) is not None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``willughby serve`` in a subprocess, its output collected as it comes."""

    def __init__(self, config: Path) -> None:
        self.lines: list[str] = []
        self.address: str | None = None
        self._ready = threading.Event()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "willughby.companion", "serve", "--config", str(config)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            found = re.search(r"Willughby on (http://\S+?)/?$", line.strip())
            if found and self.address is None:
                self.address = found.group(1)
                self._ready.set()
        self._ready.set()           # the output ended: started or not, stop waiting

    def wait(self) -> str:
        self._ready.wait(START_TIMEOUT_S)
        if self.address is None:
            self.stop()
            pytest.fail("willughby serve did not start; it printed:\n" + "".join(self.lines))
        return self.address

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture
def server(tmp_path: Path):
    port = free_port()
    config = tmp_path / "willughby.toml"
    config.write_text(
        "[companion]\n"
        f"data_dir = {str(tmp_path / 'data')!r}\n"
        'preset = "backgammon"\n'
        "[web]\n"
        'host = "127.0.0.1"\n'
        f"port = {port}\n"
        f'pin = "{PIN}"\n'
        "[speech]\n"
        'enabled = "off"\n', encoding="utf-8")
    s = Server(config)
    try:
        yield s.wait()
    finally:
        s.stop()


def test_the_session_blocks_are_found_and_show_their_outputs():
    blocks = session_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 5
    assert "control undo" in "".join(blocks)
    assert len(expected_lines(blocks)) >= 15


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed (the example session uses it)")
@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_example_session_runs_against_a_real_server(server: str, tmp_path: Path):
    blocks = session_blocks(DOC.read_text(encoding="utf-8"))
    script = "set -e\n" + "\n".join(blocks)
    env = dict(os.environ, BASE=server, PIN=PIN)
    # the document's pick helper calls python3: make it this interpreter's
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    started = time.monotonic()
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    output = done.stdout.splitlines()
    report = (f"exit status {done.returncode} after {time.monotonic() - started:.1f} s\n"
              f"--- stdout\n{done.stdout}--- stderr\n{done.stderr}")
    assert done.returncode == 0, report
    at = 0
    for want in expected_lines(blocks):
        while at < len(output) and not matches(want, output[at]):
            at += 1
        assert at < len(output), f"the document shows {want!r}, which was not printed (in order)\n{report}"
        at += 1
