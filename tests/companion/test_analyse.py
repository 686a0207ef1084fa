"""``willughby analyse m-<id>``: GNU Backgammon's analysis of a finished match, checked against the match as
the store holds it, kept with the match, shown again without gnubg, and carried by ``export``; and the
one-line refusals (a match in play, none such, gnubg missing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from willughby.companion.analysis import notation, rating, report_text
from willughby.companion.cli import main
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.engine.match import Match

from .test_match_play import PLAYERS, _play_match
from .test_matfile import needs_gnubg


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Match]:
    """A data directory with a match to 3 played to its end through the companion: (dir, match id, match)."""
    data = tmp_path_factory.mktemp("data")
    with GameStore(data / "games.sqlite") as store:
        c = Companion(store)
        _play_match(c, 3, seed=5)
        match_id = c.state()["match"]["id"]
        match = Match.from_record(store.match_record(match_id))
    assert match.over
    return data, match_id, match


def _moves_by_player(match: Match) -> list[dict[str, list[tuple[int, ...]]]]:
    """Each game's legal turns' throws, player by player, in order."""
    out = []
    for game in match.games:
        turns: dict[str, list[tuple[int, ...]]] = {"light": [], "dark": []}
        for ruling in game.rulings:
            if ruling.legal:
                turns[ruling.player].append(tuple(sorted(ruling.dice)))
        out.append(turns)
    return out


@needs_gnubg
def test_gnubgs_analysis_of_a_finished_match_agrees_with_the_match_and_is_kept(finished, capsys):
    data, match_id, match = finished
    status, out, err = _run(capsys, "analyse", match_id, "--worst", "4", "--data-dir", str(data))
    assert status == 0, err
    assert "gnubg is analysing the match to 3" in err and "kept with the match" in err
    kept = json.loads((data / "analyses" / f"{match_id}.json").read_text())
    assert kept["match"] == match_id and kept["games"] == len(match.games) and kept["plies"] == 0
    turns = _moves_by_player(match)
    for colour in ("light", "dark"):
        player = kept["players"][colour]
        assert player["name"] == PLAYERS[colour]
        # gnubg counted the moves the match holds, every legal turn of this player in every game
        assert player["moves"] == sum(len(t[colour]) for t in turns), (colour, player)
        assert player["unforced_moves"] <= player["moves"] and player["error_rate_memg"] >= 0
        assert f"{PLAYERS[colour]} ({colour}): error rate {player['error_rate_memg']:.1f} mEMG" in out
    worst = kept["worst"]
    assert 1 <= len(worst) <= 4 and [m["lost"] for m in worst] == sorted((m["lost"] for m in worst), reverse=True)
    for m in worst:                   # each names a turn of the match: the game, the player's move, its throw
        assert tuple(sorted(m["dice"])) == turns[m["game"] - 1][m["player"]][m["move"] - 1], m
        assert m["lost"] > 0 and m["played"] != m["best"]
        assert f"game {m['game']}, {PLAYERS[m['player']]}'s move {m['move']}" in out

    # shown again from what was kept, without gnubg; and carried by export
    status, again, err = _run(capsys, "analyse", match_id, "--show", "--gnubg", "/nonexistent/gnubg",
                              "--data-dir", str(data))
    assert status == 0 and again == out
    status, exported, _ = _run(capsys, "export", match_id, "--data-dir", str(data))
    assert status == 0 and json.loads(exported)["analysis"]["worst"] == worst


def test_a_match_in_play_none_such_or_no_gnubg_is_refused_in_one_line(tmp_path, capsys):
    data = tmp_path / "data"
    with GameStore(data / "games.sqlite") as store:
        c = Companion(store)
        _play_match(c, 1, seed=2)
        over = c.state()["match"]["id"]
        c.new_match(3, "backgammon", {}, PLAYERS, who="test")
        playing = c.state()["match"]["id"]
    for argv, words in ((["analyse", playing], "is still in play"),
                        (["analyse", "m-000000000000"], "there is no match 'm-000000000000'"),
                        (["analyse", over, "--gnubg", "/nonexistent/gnubg"], "GNU Backgammon is not installed"),
                        (["analyse", over, "--show"], "has no analysis kept"),
                        (["analyse", over, "--worst", "0"], "--worst is 1 to 100")):
        status, out, err = _run(capsys, *argv, "--data-dir", str(data))
        assert status == 2 and words in err and len(err.strip().splitlines()) == 1 and out == "", (argv, err)
    status, _out, err = _run(capsys, "analyse", over, "--data-dir", str(tmp_path / "empty"))
    assert status == 2 and "no games stored" in err


def test_the_reports_words():
    assert notation([[25, 21], [20, 14]]) == "bar/21 20/14" and notation([]) == "(no move)"
    assert [rating(r) for r in (1.0, 4.9, 7.0, 11.0, 17.0, 25.0, 34.0, 60.0)] == [
        "supernatural", "world class", "expert", "advanced", "intermediate", "casual player", "beginner", "awful!"]
    report = {"gnubg": "GNU Backgammon 1.07", "plies": 2, "games": 1, "worst": [],
              "players": {c: {"name": n, "rating": "expert", "error_rate_memg": 6.25, "unforced_moves": 20,
                              "close_cube_decisions": 2, "move_error": 0.1, "cube_error": 0.0375, "luck": -0.2}
                          for c, n in PLAYERS.items()}}
    assert report_text(report).splitlines()[1] == (
        "  Ann (light): error rate 6.2 mEMG (expert) over 20 unforced moves and 2 close cube decisions; "
        "moves 0.100, cube 0.037 EMG; luck -0.200")
