"""A board the players placed in the record: the record, its replay, its JSON
export and import and its ``.mat`` all say the same (issue 44, item 4).

GNU Backgammon's ``.mat`` has no way to set a board: the turns before the
board placed are written, then a comment line that names the gap and the
board (gnubg skips it), and the turns after it are not written.
"""

from __future__ import annotations

import json

import pytest

from willughby.companion.matfile import to_mat
from willughby.companion.records import import_game, read_export
from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.companion.views import stored_game
from willughby.engine.game import Game
from willughby.engine.position import Position

from .test_matfile import GNUBG, gnubg_import, match_id_fields

SURE = {str(p): 1.0 for p in range(1, 25)} | {"bar": 1.0}


def _near_end(c: Companion) -> Position:
    """Light's 3-1 played, then the board the players place while dark's 6-4 is awaited:
    light with one man left on his ace point, dark far behind (a play of each unseen between)."""
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    c.enter_dice([3, 1], who="test")
    c.on_reading(c.legal_boards()["8/5 6/5"], SURE)
    c.enter_dice([6, 4], who="test")
    return Position((1,) + (0,) * 23, (0,) * 18 + (15, 0, 0, 0, 0, 0), off=(14, 0), turn="light")


@pytest.fixture
def game(tmp_path):
    store = GameStore(tmp_path / "games.sqlite")
    c = Companion(store)
    placed = _near_end(c)
    doc = placed.to_board()
    doc.pop("turn")
    c.submit_board(doc)                                # no two plays lead there: whose turn?
    q = c.state()["question"]
    assert q["kind"] == "turn"
    c.answer(q["id"], next(ch["index"] for ch in q["choices"] if ch["board"]["turn"] == "light"))
    c.enter_dice([2, 1], who="test")
    c.on_reading(c.legal_boards()["1/off"], SURE)     # light bears off his last man
    assert c.state()["game_over"] is not None
    yield store, c.state()["game_id"]
    store.close()


def test_record_replay_export_import_and_mat_agree_with_a_placed_board(game, tmp_path):
    store, gid = game
    record = store.record(gid)
    kinds = [a["type"] for a in record["actions"]]
    assert kinds == ["start_roll", "move", "throw", "placed", "throw", "move"]
    replayed = Game.from_record(record)                           # the record replays
    assert replayed.result is not None and replayed.result.winner == "light"
    exported = json.loads(json.dumps(stored_game(store, gid)))     # the JSON export
    assert exported["record"]["actions"] == record["actions"] and exported["status"] == "over"
    placed = [t for t in exported["turns"] if t["verdict"] == "placed"]
    assert [(t["player"], t["dice"], t["turns"], t["turn"]) for t in placed] == [("dark", [6, 4], 1, 2)]
    back = read_export(exported)                                   # read back: the same game, the same turns
    assert back.match.position == replayed.position and back.turns == exported["turns_played"] == 3
    with GameStore(tmp_path / "other.sqlite") as other:            # imported into another store, exported again
        imported = import_game(other, exported)
        again = stored_game(other, imported.game_id)
        assert again["record"] == exported["record"] and again["turns"] == exported["turns"]
        assert any(e["kind"] == "gap" for e in again["log"])
    mat = to_mat(record)                                           # the .mat: the turns before, the gap, the end
    lines = mat.splitlines()
    assert "  1) 31: 8/5 6/5" in lines
    [comment] = [line for line in lines if line.startswith("; [Willughby ")]
    assert comment.startswith('; [Willughby "after turn 1 of game 1, dark\'s 64 not seen; the players placed the '
                              "board, GNU Backgammon Position ID "
                              f"{Position.from_id(record['actions'][3]['after']).gnubg_id('light')}, "
                              "light to throw;")
    assert lines.index(comment) < lines.index(" 0 point match")       # in the head, where gnubg skips it
    assert not any(") 21:" in line for line in lines)             # nothing after the board placed
    assert any("Wins 2 points" in line for line in lines)     # a gammon: dark bore off none


@pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed (Debian: apt-get install gnubg)")
def test_gnubg_reads_the_turns_before_a_placed_board_and_the_end(game, tmp_path):
    store, gid = game
    path = tmp_path / "placed.mat"
    path.write_text(to_mat(store.record(gid)), encoding="utf-8")
    [theirs] = gnubg_import([path], tmp_path / "out.json")         # no warning, no invalid move
    records = theirs["match"]["games"][0]["game"]
    assert [(r["player"], r["action"], r.get("move")) for r in records][:1] == [("X", "move", [[8, 5], [6, 5]])]
    assert all(r["action"] != "move" for r in records[1:])         # the turns after the board are not there
    fields = match_id_fields(theirs["match_id"])
    assert (fields["score0"], fields["score1"]) == (2, 0)          # light's gammon, as ours


def test_the_turn_numbers_after_a_placed_board_count_its_turns(game):
    store, gid = game
    turns = stored_game(store, gid)["turns"]
    assert [(t["turn"], t["verdict"]) for t in turns] == [(1, "legal"), (2, "placed"), (3, "legal")]
