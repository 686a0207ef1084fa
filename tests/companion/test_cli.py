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
