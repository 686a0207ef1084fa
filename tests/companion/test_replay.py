"""``willughby watch``: a recorded game refereed by the companion's own judging (companion/replay.py).
The recording is drawn by the demo's painter: the opening position, a few turns of legal plays, and one
illegal attempt followed by the board put right and the turn played again."""

from __future__ import annotations

import json
import random

import cv2
import pytest

from willughby.companion.cli import main
from willughby.companion.replay import RecordedReferee, ReplayError, read_answers, read_throws
from willughby.companion.store import GameStore
from willughby.engine.position import Position
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet

needs_reader = pytest.mark.skipif(not pointnet.available(), reason="no point reader installed")


def _wrong_move(before: Position, after: Position) -> Position:
    """*after* with one of the mover's men moved a pip on, to an empty point: no play of the throw leaves it."""
    mover = before.turn
    other = "dark" if mover == "light" else "light"
    doc = after.to_board()
    pts = doc[mover]
    order = range(24) if mover == "light" else range(23, -1, -1)
    for i in order:
        j = i - 1 if mover == "light" else i + 1
        if pts[i] and 0 <= j < 24 and not doc[other][j]:
            pts[i] -= 1
            pts[j] += 1
            break
    doc.pop("turn", None)
    return Position.from_board(doc)


class _Stills:
    """Draws a recording's stills, one board a still, into *folder*, named in order, on the demo's table."""

    def __init__(self, folder, start: Position) -> None:
        from willughby.companion.demo import DemoTable

        self.folder, self.n = folder, 0
        self.table = DemoTable(start, image_size=(960, 540))

    def __call__(self, p: Position) -> None:
        self.table.set(p)
        cv2.imwrite(str(self.folder / f"{self.n:03d}.png"), self.table.read())
        self.n += 1

    def corners(self) -> str:
        return " ".join(f"{x},{y}" for x, y in self.table.corners())


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """Stills of a short game (turn 3's first attempt illegal, then put right), its throws, the true boards
    and rulings."""
    folder = tmp_path_factory.mktemp("recording")
    rules = preset_rules("backgammon")
    pos = start_position(rules, "light")
    still = _Stills(folder, pos)
    rng = random.Random(5)
    throws, answers, truth = [], [], []

    still(pos)
    for turn in range(1, 6):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        throws.append(dice)
        outcome = rng.choice(turn_outcomes(rules, pos, dice))
        if turn == 3:
            wrong = _wrong_move(pos, outcome.position)
            still(wrong)
            answers.append(wrong.to_board())
            truth.append(("illegal", None))
            still(pos)
            answers.append(pos.to_board())
            truth.append(("legal", None))                     # put right: the board stands
        still(outcome.position)
        answers.append(outcome.position.to_board())
        truth.append(("legal", outcome.play.notation))
        pos = outcome.position
    (folder / "throws.txt").write_text("".join(f"{a},{b}\n" for a, b in throws))
    (folder / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    corners = still.corners()
    still.table.close()
    return folder, corners, truth, pos


@needs_reader
def test_a_recorded_game_is_refereed_as_at_the_table(recording, tmp_path, capsys):
    folder, corners, truth, end = recording
    status = main(["watch", str(folder), "--throws", str(folder / "throws.txt"), "--first", "light",
                   "--corners", corners, "--answers", str(folder / "answers.jsonl"), "--json",
                   "--data-dir", str(tmp_path / "data")])
    assert status == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["still"] for x in lines] == list(range(2, len(truth) + 2))
    for line, (verdict, play) in zip(lines, truth):
        assert line["verdict"] == verdict, line
        if verdict == "legal":
            assert line["play"] == play
    illegal = next(x for x in lines if x["verdict"] == "illegal")
    assert illegal["turn"] == 3 and illegal["attempt"] == 1 and illegal["reason"] and illegal["citation"]
    again = lines[lines.index(illegal) + 2]
    assert again["turn"] == 3 and again["attempt"] == 2
    assert Position.from_board(lines[-1]["after"]).physical_key() == end.physical_key()
    # the game is kept in the data directory, as the live referee keeps it: its record and the board learnt
    with GameStore(tmp_path / "data" / "games.sqlite") as store:
        game = store.games()[0]
        record = store.record(game["id"])
    assert game["preset"] == "backgammon"
    assert len(record["actions"]) >= len(truth)             # a throw and a move (or answer) per turn, at least
    saved = json.loads((tmp_path / "data" / "calibration.json").read_text())
    assert len(saved["colours"]["head"]["examples"]["classes"]) >= 24 * 2     # the start and turns learnt


@needs_reader
def test_without_an_answer_where_the_referee_asks_it_stops_with_one_line(recording, tmp_path, capsys):
    folder, corners, truth, _ = recording
    blank = tmp_path / "none.jsonl"
    blank.write_text("null\n" * len(truth))
    # dark said to throw first: the stills show light's plays, which no play of dark's throw leads to; where
    # the referee turns to the players, no answer is given, and the game cannot go on
    status = main(["watch", str(folder), "--throws", str(folder / "throws.txt"), "--first", "dark",
                   "--corners", corners, "--answers", str(blank)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and err.startswith("willughby watch: ")


def test_bad_throws_and_answers_are_one_clear_error(tmp_path):
    bad = tmp_path / "throws.txt"
    bad.write_text("5,2\n7,1\n")
    with pytest.raises(ReplayError, match="line 2: a throw is two dice 1-6"):
        read_throws(bad)
    bad.write_text("# nothing\n\n")
    with pytest.raises(ReplayError, match="holds no throw"):
        read_throws(bad)
    answers = tmp_path / "answers.jsonl"
    answers.write_text('null\n{"format": "board/1", "light": [1]}\n')
    with pytest.raises(ReplayError, match="line 2: not a board document"):
        read_answers(answers)
    with pytest.raises(ReplayError, match="cannot read the throws"):
        read_throws(tmp_path / "missing.txt")


def test_the_command_refuses_bad_input_with_one_line(tmp_path, capsys):
    throws = tmp_path / "throws.txt"
    throws.write_text("5,2\n")
    assert main(["watch", str(tmp_path / "nowhere"), "--throws", str(throws), "--first", "light",
                 "--corners", "1,1 2,1 2,2 1,2"]) == 2
    assert "no such folder or video" in capsys.readouterr().err
    with pytest.raises(ReplayError, match="one of them"):
        RecordedReferee("backgammon", "light", [(5, 2)], corners=None, calibration=None)
    with pytest.raises(ReplayError, match="light or dark"):
        RecordedReferee("backgammon", "blue", [(5, 2)], corners=[[0, 0]] * 4)


@needs_reader
def test_a_game_that_awaits_more_throws_than_the_file_holds_stops_clearly(recording, tmp_path, capsys):
    folder, corners, truth, _ = recording
    short = tmp_path / "throws.txt"
    short.write_text("".join(line + "\n" for line in (folder / "throws.txt").read_text().split()[:2]))
    status = main(["watch", str(folder), "--throws", str(short), "--first", "light", "--corners", corners,
                   "--answers", str(folder / "answers.jsonl")])
    out, err = capsys.readouterr()
    assert status == 2 and "awaits throw 3" in err and len(out.splitlines()) == 2


@needs_reader
def test_a_video_of_the_game_is_settled_as_the_live_camera_settles_it(recording, tmp_path, capsys):
    folder, corners, truth, _ = recording
    stills = sorted(folder.glob("*.png"))
    first = cv2.imread(str(stills[0]))
    video = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (first.shape[1], first.shape[0]))
    for path in stills:
        frame = cv2.imread(str(path))
        for _ in range(10):                       # each board held still for a second
            writer.write(frame)
    writer.release()
    status = main(["watch", str(video), "--throws", str(folder / "throws.txt"), "--first", "light",
                   "--corners", corners, "--answers", str(folder / "answers.jsonl"), "--json"])
    assert status == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    # the board put right after the illegal attempt is the board before it: as the live camera, the video
    # settles on it again only where it changed, so it may give no line of its own
    ruled = [(x["verdict"], x["play"]) for x in lines if x["play"] or x["verdict"] == "illegal"]
    assert ruled == [t for t in truth if t[1] or t[0] == "illegal"]


@needs_reader
def test_a_play_the_camera_missed_does_not_derail_the_recorded_game(tmp_path, capsys):
    """Issue 44: a still that shows no play while one is awaited (the camera missed dark's play: the
    recording holds the board before it again) is followed by the next player's; the next throw is entered
    early (held for him, as at the table), and the still two plays on is never ruled illegal: the referee
    rules both plays, or asks once and takes the players' answer, and the game goes on with the right
    player to throw."""
    from willughby.engine.notation import parse_play

    folder = tmp_path / "missed"
    folder.mkdir()
    rules = preset_rules("backgammon")
    pos = start_position(rules, "light")
    still = _Stills(folder, pos)

    plays = [((3, 1), "8/5 6/5"), ((6, 4), "24/18 13/9"), ((5, 2), "13/8 13/11"), ((6, 5), "24/13")]
    boards = [pos]
    for dice, text in plays:
        boards.append(parse_play(boards[-1], text).with_turn("dark" if boards[-1].turn == "light" else "light"))
    still(boards[0])
    still(boards[1])                  # light's 3-1
    still(boards[1])                  # dark's 6-4 played, but the camera saw nothing move
    still(boards[3])                  # light's 5-2 after it: two plays on from the board the referee holds
    still(boards[4])                  # dark's 6-5
    (folder / "throws.txt").write_text("".join(f"{a},{b}\n" for (a, b), _ in plays))
    answers = [boards[1], boards[1], boards[3], boards[4]]
    (folder / "answers.jsonl").write_text("".join(json.dumps(b.to_board()) + "\n" for b in answers))
    corners = still.corners()
    still.table.close()
    status = main(["watch", str(folder), "--throws", str(folder / "throws.txt"), "--first", "light",
                   "--corners", corners, "--answers", str(folder / "answers.jsonl"), "--json",
                   "--data-dir", str(tmp_path / "data")])
    assert status == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert all(x["verdict"] != "illegal" and (x.get("answer") or {}).get("verdict") != "illegal" for x in lines), lines
    assert Position.from_board(lines[-1]["after"]).physical_key() == boards[4].physical_key()
    assert lines[-1]["after"]["turn"] == "light"           # the turn order found again: light to throw
