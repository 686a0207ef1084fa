"""The stable part of the command line (cli.md): variants, moves, judge."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from willughby.companion.cli import main

ROOT = Path(__file__).resolve().parents[2]
START = ROOT / "docs" / "examples" / "start.json"
AFTER = ROOT / "docs" / "examples" / "after-8-5-6-5.json"
BAD_AFTER = ROOT / "docs" / "examples" / "after-13-9.json"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_variants_json_lists_every_race_preset_with_options_and_source(capsys):
    code, out, _ = run(capsys, "variants", "--json")
    assert code == 0
    doc = json.loads(out)
    ids = [p["id"] for p in doc["presets"]]
    assert ids[:7] == ["irish", "backgammon-willughby", "backgammon-cotton", "backgammon",
                       "dutch", "english", "filling"]
    irish = doc["presets"][0]
    assert irish["name"] == "Irish" and irish["options"]["dice"] == "2"
    assert irish["options"]["doubles"] == "plain" and irish["options"]["binding"] == "true"
    assert "Willughby" in irish["source"]


def test_moves_json_matches_cli_md(capsys):
    code, out, _ = run(capsys, "moves", "--variant", "backgammon", "--gnubg-id", "4HPwATDgc/ABMA",
                       "--dice", "3,1", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["variant"] == "backgammon" and doc["dice"] == [3, 1] and doc["count"] == 16
    play = next(p for p in doc["plays"] if p["notation"] == "8/5 6/5")
    assert play["board"]["turn"] == "dark"
    assert play["board"]["light"][4] == 2   # two men made light's 5 point
    assert len(play["gnubg_id"]) == 14


def test_moves_with_board_file_and_options(capsys):
    code, out, _ = run(capsys, "moves", "--variant", "irish", "-o", "doubles=fourfold", "--board",
                       f"@{START}", "--dice", "6,6", "--json")
    assert code == 0 and json.loads(out)["count"] > 0


def test_a_throw_that_cannot_be_played_gives_count_zero(capsys):
    """cli.md: "A throw that cannot be played at all gives "count": 0 and no plays, not an error." """
    board = {"format": "board/1", "light": [0] * 24, "dark": [0] * 24,
             "bar": {"light": 1, "dark": 0}, "turn": "light"}
    board["dark"][18:24] = [2, 2, 2, 2, 2, 2]  # dark's home table closed
    board["light"][5] = 14
    code, out, _ = run(capsys, "moves", "--variant", "backgammon", "--board", json.dumps(board),
                       "--dice", "3,1", "--json")
    assert code == 0
    assert json.loads(out) == {"variant": "backgammon", "dice": [3, 1], "count": 0, "plays": []}


def test_judge_legal_json_matches_cli_md(capsys):
    code, out, _ = run(capsys, "judge", "--variant", "backgammon", "--before", f"@{START}",
                       "--dice", "3,1", "--after", f"@{AFTER}", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["verdict"] == "legal" and doc["play"] == "8/5 6/5"
    assert doc["events"] == [] and doc["reason"] is None and doc["citation"] is None
    assert doc["game_over"] is None


def test_judge_illegal_names_reason_and_citation(capsys):
    code, out, _ = run(capsys, "judge", "--variant", "backgammon", "--before", f"@{START}",
                       "--dice", "5,2", "--after", f"@{BAD_AFTER}", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["verdict"] == "illegal" and doc["play"] is None
    assert doc["reason"] and doc["citation"] == "Hoyle 1753"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["moves", "--variant", "nosuch", "--gnubg-id", "4HPwATDgc/ABMA", "--dice", "3,1"], "unknown preset 'nosuch'"),
        (["moves", "--variant", "irish", "-o", "bear_off=sometimes", "--gnubg-id", "4HPwATDgc/ABMA", "--dice", "3,1"], "option bear_off cannot be 'sometimes'"),
        (["moves", "--variant", "irish", "-o", "colour=red", "--gnubg-id", "4HPwATDgc/ABMA", "--dice", "3,1"], "unknown option 'colour'"),
        (["moves", "--variant", "irish", "--gnubg-id", "4HPwATDgc/ABMA", "--dice", "3,7"], "a die shows 1 to 6, not 7"),
        (["moves", "--variant", "irish", "--gnubg-id", "4HPwATDgc/ABMA", "--dice", "3,1,2"], "throws 2 dice"),
        (["moves", "--variant", "english", "--gnubg-id", "4HPwATDgc/ABMA", "--dice", "3,1"], "throws 3 dice"),
        (["moves", "--variant", "irish", "--board", "{\"format\": \"board/1\"}", "--dice", "3,1"], "--board: light is missing"),
        (["moves", "--variant", "irish", "--board", "@/nonexistent/board.json", "--dice", "3,1"], "cannot read"),
        (["moves", "--variant", "irish", "--dice", "3,1"], "exactly one of --board or --gnubg-id"),
        (["judge", "--variant", "irish", "--dice", "3,1"], "required"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    """cli.md: bad input "exits with status 2 and one line on standard error that
    names what was wrong; it never prints a traceback." """
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_the_installed_command_runs():
    proc = subprocess.run([sys.executable, "-m", "willughby.companion", "judge", "--variant", "backgammon",
                           "--before", f"@{START}", "--dice", "3,1", "--after", f"@{AFTER}"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("legal: 8/5 6/5")


# -- serve and demo: where they listen, and how they stop ---------------------------------------

@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--port", "99999"], "argument --port: must be a port number from 0 to 65535 (0: any free port), not 99999"),
        (["demo", "--port", "-1"], "argument --port: must be a port number from 0 to 65535"),
        (["demo", "--port", "eighty"], "argument --port: must be a port number from 0 to 65535, not 'eighty'"),
        (["demo", "--host", "300.1.1.1"], "argument --host: must be an address such as 0.0.0.0"),
        (["demo", "--host", "the pi"], "argument --host: must be an address such as 0.0.0.0"),
        (["demo", "--host", ""], "argument --host: must be an address"),
        (["demo", "--max-watchers", "0"], "argument --max-watchers: must be a whole number from 1 to 10000, not 0"),
        (["demo", "--max-watchers", "many"], "argument --max-watchers: must be a whole number, not 'many'"),
        (["demo", "--preset", "sice-ace", "--players", "6"], "--players must be 2 to 5, not 6"),
        (["demo", "--players", "3"], "--players applies to the counting game (sice-ace); backgammon is played by two"),
    ],
)
def test_demo_refuses_impossible_places_to_listen(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("willughby demo: ") and message in err


@pytest.mark.parametrize(
    "web, message",
    [
        ("port = 99999", "web.port must be a port number from 1 to 65535, not 99999"),
        ("port = 0", "web.port must be a port number from 1 to 65535, not 0"),
        ("host = '300.1.1.1'", "web.host must be an address such as 0.0.0.0"),
        ("host = 'my pi'", "web.host must be an address such as 0.0.0.0"),
        ("max_watchers = 0", "web.max_watchers must be a whole number from 1 to 10000, not 0"),
    ],
)
def test_serve_refuses_impossible_places_to_listen_in_its_configuration(capsys, tmp_path, web, message):
    config = tmp_path / "w.toml"
    config.write_text(f"[companion]\ndata_dir = '{tmp_path}'\n[web]\n{web}\n")
    code, out, err = run(capsys, "serve", "--config", str(config))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and str(config) in err
    assert not (tmp_path / "games.sqlite").exists()  # refused before anything started


def test_serve_ends_2_for_a_bad_setting_and_75_for_a_camera_not_there_yet(tmp_path):
    """Two exit statuses, for systemd (hardware/willughby.service): a setting no retry can mend ends with 2, not
    restarted; a camera that cannot be opened (a USB camera not yet found at boot) with 75, EX_TEMPFAIL,
    restarted until it is there. Each says what in one line."""
    def serve(body: str) -> subprocess.CompletedProcess:
        config = tmp_path / "w.toml"
        config.write_text(f"[companion]\ndata_dir = '{tmp_path}'\n{body}")
        return subprocess.run([sys.executable, "-m", "willughby.companion", "serve", "--config", str(config)],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)

    bad = serve("[camera]\nsource = 'camera:/dev/video99'\n[web]\nport = 0\n")
    assert bad.returncode == 2 and bad.stdout == "", bad.stderr
    assert bad.stderr.count("\n") == 1 and "web.port must be a port number" in bad.stderr
    absent = serve("[camera]\nsource = 'camera:/dev/video99'\n")
    assert absent.returncode == 75 and absent.stdout == "", absent.stderr
    assert absent.stderr.count("\n") == 1 and "Traceback" not in absent.stderr
    assert absent.stderr.startswith("willughby: camera.source 'camera:/dev/video99': cannot open camera /dev/video99")


def test_a_port_in_use_is_one_line(capsys, tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "w.toml"
        config.write_text(f"[companion]\ndata_dir = '{tmp_path}'\n[web]\nhost = '127.0.0.1'\nport = {port}\n"
                          "pin = '2468'\n[speech]\nenabled = 'off'\n")
        code, out, err = run(capsys, "serve", "--config", str(config))
    assert code == 2
    assert err.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in err


def test_listening_on_every_address_names_the_addresses_phones_can_open(monkeypatch):
    from willughby.companion import cli
    from willughby.web_ui import server

    monkeypatch.setattr(server, "lan_addresses", lambda: ["192.168.1.23", "10.0.0.5"])
    monkeypatch.setattr(server, "mdns_name", lambda: "willughby.local")
    lines = cli._banner("Willughby", "0.0.0.0", 8080, 300)
    assert lines[0] == "Willughby on port 8080 of every address of this machine: http://127.0.0.1:8080/ here"
    assert lines[1] == ("phones on the same network can open http://192.168.1.23:8080/ or http://10.0.0.5:8080/ "
                        "or http://willughby.local:8080/")
    assert lines[2] == "at most 300 pages may follow the game at once"


def test_listening_on_this_machine_only_says_how_to_let_phones_in():
    from willughby.companion import cli

    lines = cli._banner("Willughby demo", "127.0.0.1", 8080, 300)
    assert lines[0] == "Willughby demo on http://127.0.0.1:8080/"
    assert "--host 0.0.0.0" in lines[1]


def _start(argv, cwd):
    """Start ``willughby`` *argv*; returns the process and its port once it serves."""
    import re

    proc = subprocess.Popen([sys.executable, "-m", "willughby.companion", *argv], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    while True:
        line = proc.stdout.readline()
        if not line:
            proc.kill()
            raise AssertionError(f"it did not start: {lines} {proc.stderr.read()}")
        lines.append(line)
        if line.startswith("games are kept"):
            break
    port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", "".join(lines)).group(1))
    return proc, port


def _open_streams(port, count):
    import socket

    streams = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        streams.append(s)
    for s in streams:  # each has its headers and first event
        data = b""
        while b"event: state" not in data:
            chunk = s.recv(65536)
            assert chunk, "a stream ended before its first event"
            data += chunk
        assert data.startswith(b"HTTP/1.1 200 ")
    return streams


def _stop(proc, streams, sig):
    import time

    start = time.monotonic()
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    took = time.monotonic() - start
    for s in streams:
        s.close()
    return took, err


@pytest.mark.parametrize("how, signame", [("demo", "SIGTERM"), ("serve", "SIGTERM"), ("demo", "SIGINT")])
def test_sigterm_or_ctrl_c_stops_promptly_and_quietly_with_pages_open(tmp_path, how, signame, capsys):
    import signal

    if how == "demo":
        argv = ["demo", "--port", "0", "--speed", "20", "--data-dir", str(tmp_path)]
    else:
        import socket

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        config = tmp_path / "w.toml"
        config.write_text(f"[companion]\ndata_dir = '{tmp_path}'\n[web]\nhost = '127.0.0.1'\nport = {port}\n"
                          "pin = '2468'\n[speech]\nenabled = 'off'\n")
        argv = ["serve", "--config", str(config)]
    proc, port = _start(argv, tmp_path)
    streams = _open_streams(port, 5)
    took, err = _stop(proc, streams, getattr(signal, signame))
    with capsys.disabled():
        print(f"\n{how}: exited {took:.2f} s after {signame} with 5 event streams open")
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "still running" not in err
    assert err == "", err  # nothing at all: no warning from OpenCV or the server either
    assert took < 10.0  # generous: it takes well under a second


def test_version_prints_the_installed_version_and_exits_0():
    from importlib.metadata import version

    done = subprocess.run([sys.executable, "-m", "willughby.companion", "--version"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"willughby {version('willughby')}\n"
    assert "Traceback" not in done.stderr
