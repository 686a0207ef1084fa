"""Every command the README and ``docs/`` show runs as written.

The shell blocks (fenced ```sh) of ``README.md`` and ``docs/*.md`` are read
line by line (a line ending in ``\\`` goes on on the next); each command is
run with bash in a fresh temporary folder that sees the repository's
``docs/``, ``tests/``, ``hardware/``, ``benchmarks/`` and ``tools/`` (so
``@docs/examples/start.json`` resolves as it does from the repository's
root), with ``HOME`` and ``XDG_DATA_HOME`` there too, so that nothing
touches the user's games or calibration. A variable set on a line of its own
(``G=tests/vision/golden``) holds for the rest of its block.

What a command must do:

- exit with status 0, or with the status its doc shows after it
  (``#   ... (exit status 2)``);
- print every line the doc shows after it as its output (comment lines
  indented by two spaces or more after ``#``; ``...`` stands for anything,
  and a line of ``...`` alone for lines left out), in order, on standard
  output or standard error;
- if it serves until stopped (``willughby demo``, ``willughby serve``):
  print its banner, answer ``GET /api/state``, and exit 0 on SIGTERM;
  ``willughby bridge monitor`` without ``--seconds``: print what it is
  looking for, and exit 0 on Ctrl-C (SIGINT), as the doc says it stops;
  ``willughby bridge fake-box``: take the lines the doc says to type and
  exit 0 when its input ends.

A block fenced plainly (```) is a synopsis (``[--json]``, ``ID``), output,
or a format, never a command to type: ``test_plain_blocks_hold_no_command``
keeps commands out of them.

The few commands not run as written are listed, each with why: in
``NOT_RUN`` (by what they begin with: installing, a Pi's setup as root,
the benchmarks that take long, training), ``RUN_ELSEWHERE`` (a document
another test runs whole) and ``REWRITES`` (what is changed: the install
steps before the README's ``willughby demo``, ``/tmp`` made the test's own,
``--port 0`` for a server, a fake box's pseudo-terminal for ``/dev/pts/N``);
``TRANSCRIPTS`` names the plain blocks that show a session rather than a
command to type. ``test_every_exception_is_still_in_the_docs`` keeps those
lists from outliving the lines they are about.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "bash", "shell", "console"}
# what the temporary folder sees of the repository, for the paths the docs give relative to its root
SEEN = ("docs", "tests", "hardware", "benchmarks", "tools", "pyproject.toml")
TIMEOUT_S = 120.0

# Documents whose shell blocks another test runs, with why (their commands are counted, not run here).
RUN_ELSEWHERE = {
    "docs/control-api.md": "an example session with curl against a live server: tests/web_ui/test_api_docs.py "
                           "starts `willughby serve` and runs these blocks in order, checking every `# ->` line",
}

# Commands not run here, by how they begin (as written, after joining continued lines), each with why.
NOT_RUN = {
    "sudo apt-get ": "installs Debian packages as root (CI installs them)",
    "sudo bash hardware/install-pi.sh": "installs the service on a Pi, as root (its --check mode is run)",
    "sudo python3 tools/pi_install_qemu.py": "runs the Pi's installer in an arm64 Debian root under emulation, "
                                             "as root: minutes (tests/hardware/test_install_pi_qemu.py runs it, "
                                             "with -m slow)",
    "willughby doctor --config /etc/willughby/willughby.toml": "checks a Pi's own configuration under /etc "
                                                               "(tests/companion/test_doctor.py runs the command)",
    ". .venv/bin/activate && WILLUGHBY_REQUIRE_BROWSER=1 python -m pytest": "the test suite itself (CI runs it)",
    # the benchmarks are reports run by hand or in CI, never pass/fail; the cheap one,
    # benchmarks/dice_fairness.py (4 s), is run
    "python benchmarks/movegen.py": "a benchmark: 25 s on one core",
    "python tools/lock.py --upgrade": "rewrites the lock with the newest versions (tools/lock.py --check is run "
                                      "by .ci/run, with the network)",
    "python tools/lock.py --check": "resolves pyproject.toml against the package index (.ci/run runs it)",
    "python tools/newest_allowed.py": "installs the newest versions in a scratch venv and runs the whole suite "
                                      "there (.ci/run runs it, as a report)",
    "python benchmarks/bridge.py": "a benchmark: 75 s (decoding megabytes, twenty reconnections per outage)",
    "python benchmarks/vision_reader.py": "a benchmark: 200 frames drawn and read, and the dev set of real photos "
                                          "(--dev DIR), which is not shipped",
    "python benchmarks/turns.py": "a benchmark: 1,000 turns drawn and judged",
    "python benchmarks/clock_drift.py": "a benchmark: a match of 2,000 moves on the real timer, about 25 s",
    "python benchmarks/whole_games.py": "a benchmark: 100 whole games under two referees, about a minute and a half",
    "python benchmarks/turns_dev.py --dev DIR": "a benchmark over the dev set of real photos, which is not shipped",
    "python benchmarks/companion.py": "a benchmark: demo games played through, twice (with the memory's baseline)",
    "python benchmarks/watchers.py": "a benchmark: 50 to 500 open pages against a server, about a minute",
    "python benchmarks/dice.py": "a benchmark over the dice dataset's held-out part and the real boards' photos "
                                 "(neither shipped) and painted boards: minutes",
    "python -m willughby.vision.synth OUTDIR --count 200 ": "draws 200 frames (about 25 s on one core); the "
                                                           "same command with 20 frames runs from "
                                                           "docs/vision-labels.md",
    "python tools/point_reader_data.py ": "makes training data for the point reader: thousands of frames, minutes "
                                          "to hours",
    "python -m venv /tmp/trainenv ": "installs PyTorch (gigabytes) for training",
    "/tmp/trainenv/bin/python tools/": "trains the point reader: hours, in the PyTorch environment",
    "cp /tmp/v12.onnx vision/data/": "replaces the shipped network with one trained by the steps above",
    "cp /tmp/v13.onnx vision/data/": "replaces the shipped network with one trained by the steps above",
    "cp /tmp/v14.onnx vision/data/": "replaces the shipped network with one trained by the steps above",
    "cp /tmp/v15.onnx vision/data/": "replaces the shipped network with one trained by the steps above",
    "cp /tmp/v16.onnx vision/data/": "replaces the shipped network with one trained by the steps above",
    "python tools/blender_frames.py /tmp/blend": "renders thousands of training frames with Blender, about a second "
                                                 "each (tests/vision/test_blender_frames.py renders small ones)",
    "for s in blend blend2 blend3; do python tools/point_reader_data.py": "cuts the strips of the thousands of "
                                                                         "frames rendered above: minutes",
    "for s in blend4 blend5; do python tools/point_reader_data.py": "cuts the strips of the thousands of frames "
                                                                   "rendered above: minutes",
    "python tools/fit_turn_reader.py --errors-only": "fits the turn reader's error table on 1,600 drawn turns "
                                                     "(minutes) and rewrites the shipped calibration",
}

# Commands run with a change, each with why: (doc, what the command begins with) -> (what is run, why).
REWRITES = {
    ("README.md", "python3 -m venv .venv && . .venv/bin/activate && pip install --require-hashes -r "
                  "requirements/test.txt && pip install --no-deps --no-build-isolation -e . && willughby demo"): (
        "willughby demo",
        "the install steps before it are what CI does; the demo they end in is run"),
}
# Rewrites for every command, each with why.
TMP_WHY = "/tmp/... becomes a folder of the test's own, so that runs never share or leave files"
PORT_ZERO_WHY = "a command that serves on the default port 8080 is given --port 0: 8080 may be taken where tests run"
PTS_WHY = "/dev/pts/N, the port `willughby bridge fake-box` printed, is that of a fake box started for the test"
# What `willughby bridge fake-box` is typed (its doc line says: type roll, 6 3, done, vanish, back).
FAKE_BOX_INPUT = "roll\n6 3\ndone\nvanish\nback\n"


@dataclass(frozen=True)
class DocCommand:
    """One command of a document's shell block."""

    doc: str            # the document, relative to the repository's root
    line: int           # where the command begins (1-based)
    text: str           # the command, its continued lines joined
    prelude: tuple[str, ...]   # variable assignments earlier in its block
    shown: tuple[str, ...]     # the output the document shows after it
    status: int         # the exit status the document says (0 when it says none)

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}:{self.text[:60]}"


ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
EXIT_STATUS = re.compile(r"\s*\(exit status (\d+)\)\s*$")


def shell_blocks(path: Path) -> list[tuple[str, int, list[str]]]:
    """``(language, first line number, lines)`` of every fenced block of *path*."""
    blocks: list[tuple[str, int, list[str]]] = []
    fence: tuple[str, int, str] | None = None      # (language, line, indent)
    lines: list[str] = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = raw.strip()
        if fence is None:
            if stripped.startswith("```"):
                fence = (stripped[3:].strip(), number + 1, raw[: len(raw) - len(raw.lstrip())])
                lines = []
        elif stripped == "```":
            blocks.append((fence[0], fence[1], lines))
            fence = None
        else:
            lines.append(raw[len(fence[2]):] if raw.startswith(fence[2]) else raw.lstrip())
    return blocks


def doc_commands(path: Path) -> list[DocCommand]:
    """Every command of *path*'s shell blocks, with what the document says it prints."""
    rel = path.relative_to(ROOT).as_posix()
    found: list[DocCommand] = []
    for language, first, lines in shell_blocks(path):
        if language not in SHELL:
            continue
        if rel in RUN_ELSEWHERE:        # run whole, in order, by another test: one entry a block
            found.append(DocCommand(rel, first, "\n".join(lines).strip(), (), (), 0))
            continue
        prelude: list[str] = []
        entries: list[list] = []      # [line, text, prelude, shown]
        at = 0
        while at < len(lines):
            start = at
            text = lines[at].rstrip()
            while text.endswith("\\") and at + 1 < len(lines):
                at += 1
                text = text[:-1].rstrip() + " " + lines[at].strip()
            at += 1
            stripped = text.strip()
            if not stripped:
                continue
            if stripped.startswith("#"):
                if entries and re.match(r"#\s{2,}\S", stripped):
                    entries[-1][3].append(stripped[1:].strip())
                continue
            if ASSIGNMENT.match(stripped):
                prelude.append(stripped)
                continue
            entries.append([first + start, stripped, tuple(prelude), []])
        for line, text, pre, shown in entries:
            status = 0
            for said in shown:
                m = EXIT_STATUS.search(said)
                if m:
                    status = int(m.group(1))
            found.append(DocCommand(rel, line, text, pre, tuple(shown), status))
    return found


ALL = [c for doc in DOCS for c in doc_commands(doc)]


def not_run_reason(cmd: DocCommand) -> str | None:
    if cmd.doc in RUN_ELSEWHERE:
        return RUN_ELSEWHERE[cmd.doc]
    for start, why in NOT_RUN.items():
        if cmd.text.startswith(start):
            return why
    return None


RUN = [c for c in ALL if not_run_reason(c) is None]


# ---------------------------------------------------------------- running

def strip_comment(text: str) -> str:
    """The command without a trailing ``# comment`` (outside quotes)."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and i > 0 and text[i - 1].isspace():
            return text[:i].rstrip()
    return text


def as_run(cmd: DocCommand, tmp: Path) -> tuple[str, list[str]]:
    """The command as it is run: the document's, with the rewrites above; and why each was made."""
    text, why = strip_comment(cmd.text), []
    for (doc, start), (instead, reason) in REWRITES.items():
        if cmd.doc == doc and text.startswith(start):
            text = instead + text[len(start):]
            why.append(reason)
    text, count = re.subn(r"(?<![\w.])/tmp/", str(tmp / "tmp") + "/", text)
    if count:
        why.append(TMP_WHY)
    if re.match(r"willughby (demo|serve)\b", text) and "--port" not in text:
        text += " --port 0"
        why.append(PORT_ZERO_WHY)
    if "/dev/pts/N" in text:
        why.append(PTS_WHY)             # run_monitor puts the fake box's port in
    return text, why


def bin_dir(tmp: Path) -> Path:
    """A folder for the front of PATH: this interpreter as python and python3, and its willughby
    (``python -m willughby.companion``, which is what the installed ``willughby`` runs)."""
    d = tmp / "bin"
    d.mkdir()
    # scripts, not links: a link to a virtual environment's python, elsewhere, is not in that environment
    shims = {"python": '"$@"', "python3": '"$@"', "willughby": '-m willughby.companion "$@"'}
    for name, args in shims.items():
        (d / name).write_text(f'#!/bin/sh\nexec "{sys.executable}" {args}\n')
        (d / name).chmod(0o755)
    return d


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A working folder that sees the repository, and an environment whose data lives under it."""
    work = tmp_path / "work"
    work.mkdir()
    for name in SEEN:
        (work / name).symlink_to(ROOT / name)
    (tmp_path / "tmp").mkdir()
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WILLUGHBY_", "XDG_"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local" / "share"),
               PATH=f"{bin_dir(tmp_path)}{os.pathsep}{env.get('PATH', '')}", PYTHONUNBUFFERED="1")
    return work, env


def script(cmd: DocCommand, text: str, exec_: bool = False) -> str:
    return "\n".join([*cmd.prelude, ("exec " if exec_ else "") + text])


class Running:
    """A command that runs until stopped, its output collected as it comes."""

    def __init__(self, source: str, cwd: Path, env: dict[str, str], stdin: bool = False) -> None:
        self.out: list[str] = []
        self.err: list[str] = []
        self.proc = subprocess.Popen(["bash", "-c", source], cwd=cwd, env=env, text=True,
                                     stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for stream, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, into), daemon=True).start()

    @staticmethod
    def _read(stream, into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float = 60.0) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.out):
                m = re.search(pattern, line)
                if m:
                    return m
            if self.proc.poll() is not None:
                time.sleep(0.2)     # the last lines
                break
            time.sleep(0.05)
        for line in list(self.out):
            m = re.search(pattern, line)
            if m:
                return m
        self.stop(signal.SIGKILL)
        pytest.fail(f"no line matching {pattern!r} within {timeout:.0f} s\n{self.report()}")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            pytest.fail(f"still running {timeout:.0f} s after signal {sig}\n{self.report()}")

    def report(self) -> str:
        return "--- stdout\n" + "\n".join(self.out) + "\n--- stderr\n" + "\n".join(self.err)


def check_shown(cmd: DocCommand, out: list[str], err: list[str]) -> None:
    """Every line the document shows is printed, in order (``...`` stands for anything)."""
    printed = [" ".join(line.split()) for line in [*out, *err]]
    at = 0
    for said in cmd.shown:
        said = EXIT_STATUS.sub("", said).removeprefix("(on standard error)").strip()
        said = " ".join(said.split())
        if said in ("", "..."):
            continue
        pattern = ".*".join(re.escape(part.strip()) for part in said.split("..."))
        while at < len(printed) and not re.fullmatch(pattern, printed[at]):
            at += 1
        assert at < len(printed), (f"{cmd.doc}:{cmd.line} shows {said!r}, which was not printed (in order)\n"
                                   "--- printed\n" + "\n".join(printed))
        at += 1


def run_serving(cmd: DocCommand, text: str, work: Path, env: dict[str, str]) -> None:
    running = Running(script(cmd, text, exec_=True), work, env)
    try:
        address = running.wait_for(r" on (http://\S+?)/?$").group(1)
        with urllib.request.urlopen(f"{address}/api/state", timeout=30) as answer:
            assert answer.status == 200
            assert "phase" in json.load(answer)
    finally:
        status = running.stop(signal.SIGTERM)
    assert status == 0, f"exit status {status} after SIGTERM\n{running.report()}"


def run_fake_box(cmd: DocCommand, text: str, work: Path, env: dict[str, str]) -> None:
    running = Running(script(cmd, text, exec_=True), work, env, stdin=True)
    running.wait_for(r"fake dice box on (\S+)")
    assert running.proc.stdin is not None
    running.proc.stdin.write(FAKE_BOX_INPUT)
    running.proc.stdin.close()
    try:
        status = running.proc.wait(30)
    except subprocess.TimeoutExpired:
        running.stop(signal.SIGKILL)
        pytest.fail(f"the fake box did not stop when its input ended\n{running.report()}")
    assert status == 0, f"exit status {status}\n{running.report()}"
    assert not [line for line in running.err if line.startswith("not understood")], running.report()


def run_monitor(cmd: DocCommand, text: str, work: Path, env: dict[str, str]) -> None:
    box = None
    if "/dev/pts/N" in text:
        box = Running(f'exec "{sys.executable}" -m willughby.companion bridge fake-box', work, env, stdin=True)
        port = box.wait_for(r"fake dice box on (\S+)").group(1)
        text = text.replace("/dev/pts/N", port)
    running = Running(script(cmd, text, exec_=True), work, env)
    try:
        running.wait_for(r"looking for the box on")
        if box is not None:
            running.wait_for(r"link connected")
            assert box.proc.stdin is not None
            box.proc.stdin.write("roll\n")
            box.proc.stdin.flush()
            running.wait_for(r"throw #\d+: \d-\d")
    finally:
        status = running.stop(signal.SIGINT)
        if box is not None:
            box.stop(signal.SIGTERM)
    assert status == 0, f"exit status {status} after Ctrl-C\n{running.report()}"


@pytest.mark.parametrize("cmd", RUN, ids=[c.id for c in RUN])
def test_the_command_runs_as_written(cmd: DocCommand, place: tuple[Path, dict[str, str]]) -> None:
    work, env = place
    text, why = as_run(cmd, work.parent)
    if why:
        print(f"{cmd.doc}:{cmd.line} is run as {text!r}:", *why, sep="\n  ")
    if re.match(r"willughby (demo|serve)\b", text):
        return run_serving(cmd, text, work, env)
    if text.startswith("willughby bridge fake-box"):
        return run_fake_box(cmd, text, work, env)
    if text.startswith("willughby bridge monitor") and "--seconds" not in text:
        return run_monitor(cmd, text, work, env)
    done = subprocess.run(["bash", "-o", "pipefail", "-c", script(cmd, text)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    report = f"ran: {text}\nexit status {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"
    assert done.returncode == cmd.status, report
    assert "Traceback" not in done.stderr, report
    check_shown(cmd, done.stdout.splitlines(), done.stderr.splitlines())


def test_the_recorded_game_example_runs_as_written_from_the_root() -> None:
    """``willughby watch`` as docs/command-line.md shows it, on the recorded game shipped in docs/examples/,
    run from the repository's root: every turn of it ruled legal, with the play made."""
    watch = [c for c in RUN if c.doc == "docs/command-line.md" and c.text.startswith("willughby watch ")]
    assert len(watch) == 1, [c.text for c in watch]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-c", watch[0].text], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["player"], r["dice"], r["verdict"], r["play"]) for r in lines] == [
        ("light", [3, 1], "legal", "8/5 6/5"), ("dark", [6, 4], "legal", "24/18 13/9")]


# ---------------------------------------------------------------- the lists themselves

def test_the_docs_commands_are_found() -> None:
    docs = {c.doc for c in ALL}
    assert {"README.md", "docs/command-line.md", "docs/board-document.md"} <= docs
    assert sum(c.text.startswith("willughby ") for c in RUN) >= 30
    # a continued line is one command
    judge = [c for c in RUN if c.text.startswith("willughby judge") and "race-end" in c.text]
    assert judge and "--after '" in judge[0].text


def test_every_exception_is_still_in_the_docs() -> None:
    for start in NOT_RUN:
        assert any(c.text.startswith(start) for c in ALL), f"NOT_RUN names {start!r}, which no doc shows now"
    for (doc, start) in REWRITES:
        assert any(c.doc == doc and c.text.startswith(start) for c in ALL), \
            f"REWRITES names {start!r} in {doc}, which it does not show now"
    for doc in RUN_ELSEWHERE:
        assert any(c.doc == doc for c in ALL), f"{doc} has no shell block now"
    for (doc, start) in TRANSCRIPTS:
        plain = [line for language, _, lines in shell_blocks(ROOT / doc) if not language for line in lines]
        assert any(line.startswith(start) for line in plain), \
            f"TRANSCRIPTS names {start!r} in {doc}, which it does not show in a plain block now"


SYNOPSIS = re.compile(r"\[|\b[A-Z]{2,}\b")
# Plain blocks that show a command as a transcript, not to be typed as it stands, each with why.
TRANSCRIPTS = {
    ("docs/command-line.md", "willughby games --data-dir /tmp/demo"):
        "a session over a store of games played before: the ids and dates are that store's own "
        "(tests/companion/test_cli_records.py runs games and export over games it plays)",
    ("docs/command-line.md", "willughby export "):
        "the same session: its games by the ids of that store (tests/companion/test_cli_records.py)",
    ("docs/command-line.md", "willughby analyse m-"):
        "a match of a store played before, named by that store's id (tests/companion/test_analyse.py plays a "
        "match and analyses it with gnubg)",
}


def test_plain_blocks_hold_no_command() -> None:
    """A command to type is fenced ```sh (and so run above); a plain block that
    begins with ``willughby`` must be a synopsis, with ``[options]`` or METAVARS."""
    for path in DOCS:
        for language, first, lines in shell_blocks(path):
            if language:
                continue
            rel = path.relative_to(ROOT).as_posix()
            for offset, line in enumerate(lines):
                if any(rel == doc and line.startswith(start) for doc, start in TRANSCRIPTS):
                    continue
                if line.startswith("willughby ") and not SYNOPSIS.search(line.split("#")[0]):
                    pytest.fail(f"{path.relative_to(ROOT)}:{first + offset}: a command in a plain block "
                                f"(fence it ```sh so that it is run): {line}")
