"""``willughby demo --match N``: the automatic players begin a match, go on to its next game after each end,
and stand up once it is won (``companion/demo.py``, ``companion/runtime.py``)."""

from __future__ import annotations

from typing import Any

from willughby.companion.config import CompanionConfig
from willughby.companion.demo import DemoPlayers
from willughby.companion.runtime import build

from .test_matfile import needs_gnubg
from .waiting import until


class _Companion:
    """Records what the players ask of the companion between games."""

    def __init__(self, state: dict[str, Any]) -> None:
        self._state = state
        self.calls: list[tuple[str, Any]] = []

    def state(self) -> dict[str, Any]:
        return self._state

    def new_match(self, length: int, preset: str, options: Any, players: Any, who: str) -> None:
        self.calls.append(("new_match", length))

    def next_game(self, who: str, after_end_of: str | None = None) -> None:
        self.calls.append(("next_game", after_end_of))

    def new_game(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append(("new_game", kwargs.get("after_end_of")))


class _Table:
    def set(self, position: Any) -> None:
        pass


def _players(state: dict[str, Any]) -> tuple[DemoPlayers, _Companion]:
    companion = _Companion(dict({"board": None, "question": None}, **state))
    players = DemoPlayers(companion, _Table(), None, speed=1e6, seed=1, match=5)   # type: ignore[arg-type]
    return players, companion


def test_with_no_game_the_players_begin_the_match():
    players, companion = _players({"phase": "none", "game_id": None, "match": None})
    assert players._act(companion.state())
    assert companion.calls == [("new_match", 5)]


def test_after_a_game_of_the_match_the_players_begin_its_next_game():
    match = {"status": "playing", "winner": None}
    players, companion = _players({"phase": "over", "game_id": "g-000000000001", "match": match})
    assert players._act(companion.state())
    assert companion.calls == [("next_game", "g-000000000001")]


def test_once_the_match_is_won_the_players_stand_up():
    match = {"status": "over", "winner": "dark"}
    players, companion = _players({"phase": "over", "game_id": "g-000000000001", "match": match})
    assert not players._act(companion.state())
    assert companion.calls == [] and players.finished.is_set()


def test_the_demo_with_a_match_begins_it_and_a_game_in_progress_is_kept_abandoned(tmp_path):
    config = CompanionConfig(data_dir=tmp_path, speech="off")
    rt = build(config, demo=True, speed=50, seed=4, games=1)         # a game in progress, not of a match
    try:
        assert until(lambda: rt.companion.state()["phase"] != "none", 30)
        first = rt.companion.state()["game_id"]
    finally:
        rt.close()
    rt = build(config, demo=True, speed=50, seed=4, match=2)
    try:
        assert until(lambda: (rt.companion.state()["match"] or {}).get("length") == 2, 30)
        state = rt.companion.state()
        assert state["game_id"] != first and state["match"]["game"] == 1
        assert rt.companion.store.game(first)["status"] == "abandoned"
        match_id = state["match"]["id"]
    finally:
        rt.close()
    rt = build(config, demo=True, speed=50, seed=4, match=2)          # started again: the match carried on
    try:
        assert until(lambda: rt.companion.state()["match"] is not None, 30)
        assert rt.companion.state()["match"]["id"] == match_id
    finally:
        rt.close()


def test_demo_match_of_no_points_or_of_a_game_that_is_no_race_is_refused_in_one_line(tmp_path, capsys):
    from willughby.companion.cli import main

    assert main(["demo", "--match", "0", "--data-dir", str(tmp_path)]) == 2
    assert "--match is the points a match is played to, 1 to 64, not 0" in capsys.readouterr().err
    assert main(["demo", "--match", "5", "--preset", "doublets", "--data-dir", str(tmp_path)]) == 2
    assert "a match is played with a race game" in capsys.readouterr().err


@needs_gnubg
def test_a_match_to_5_played_by_the_automatic_players_is_exported_and_gnubg_reads_its_final_score(tmp_path, capsys):
    """The issue's proof: the demo's automatic players (``DemoPlayers``, with their mistakes put right after the
    referee's rulings, the camera reading the men they set) play a match to 5 to its end; ``willughby export
    m-... --format mat`` writes it and GNU Backgammon's import of the file ends at the match's score."""
    from willughby.companion.cli import main
    from willughby.companion.store import GameStore
    from willughby.engine.match import Match

    from .record_driver import Box, Driver
    from .test_match_mat import gnubg_match_disagrees
    from .test_matfile import gnubg_import

    d = Driver(tmp_path / "data" / "games.sqlite", seed=7)
    d.players = DemoPlayers(d.companion, d.table, Box(d.companion, d.rng), speed=1e9, seed=7,  # type: ignore[arg-type]
                            mistakes=0.1, hold_s=0.0, question_s=0.0, match=5,
                            players={"light": "Ann", "dark": "Bob"})
    seen = None
    for _ in range(40_000):
        if d.players.finished.is_set():
            break
        d.demo_players()
        table = d.table.position.physical_key() if d.table.position is not None else None
        if table != seen:                      # the camera reads the board when the men have moved, as it does
            d.camera(True)
            seen = table
    else:
        raise AssertionError(f"the match was not finished: {d.companion.state()['match']}")
    match_id = d.companion.state()["match"]["id"]
    assert d.players.mistakes_made > 0 and d.players.moves > 50      # their mistakes were put right on the way
    d.close()
    out = tmp_path / "match.mat"
    assert main(["export", match_id, "--format", "mat", "--out", str(out), "--data-dir", str(tmp_path / "data")]) == 0
    capsys.readouterr()
    [theirs] = gnubg_import([out], tmp_path / "out.json")
    with GameStore(tmp_path / "data" / "games.sqlite") as store:
        m = Match.from_record(store.match_record(match_id))
    assert m.over and max(m.score.values()) >= 5 and len(m.games) >= 2
    assert gnubg_match_disagrees(m, theirs) == []
