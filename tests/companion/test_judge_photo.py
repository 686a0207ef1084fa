"""``willughby judge --after-image``: a turn judged from a photo of the board,
given the board before and the throw (docs/command-line.md). Bad input gives
one clear line and status 2, a covered board ``unsure`` with ``settled``
false: never a traceback, never a ruling the photo does not settle."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from willughby.companion.cli import main
from willughby.engine.referee import turn_outcomes
from willughby.engine.rules import preset_rules, start_position
from willughby.vision import pointnet

pytestmark = pytest.mark.skipif(not pointnet.available(), reason="the point reader's weights are not installed")

RULES = preset_rules("backgammon")
START = start_position(RULES, "light")
SPEC = dict(image_size=(1280, 720), tilt_deg=8.0, board_yaw_deg=2.0, cam_az_deg=0.0, cam_roll_deg=0.5, mirror=False,
            focal_mm=35.0, fill=0.85, n_dice=0, wood="walnut", men="white_black", points="red_cream",
            field="felt_green", table="light_table", lighting="overhead", row_max=5, men_thick_mm=9.0)


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    from willughby.vision.synth import SceneSpec, render

    d = tmp_path_factory.mktemp("photos")
    after = next(o for o in turn_outcomes(RULES, START, (3, 1)) if o.play.notation == "8/5 6/5").position.to_board()
    wrong = dict(after, light=list(after["light"]))
    wrong["light"][4] -= 1
    wrong["light"][3] += 1
    out = {}
    for name, board, extra in (("after", after, {"occluded": False}), ("before", START.to_board(), {"occluded": False}),
                               ("wrong", wrong, {"occluded": False}), ("hand", after, {"occluded": True})):
        image, label = render(np.random.default_rng(5), SceneSpec(position=board, occluded_share=0.3, **SPEC, **extra))
        cv2.imwrite(str(d / f"{name}.jpg"), image)
        out[name] = str(d / f"{name}.jpg")
    out["corners"] = " ".join(f"{x:.1f},{y:.1f}" for x, y in label["corners"])
    out["start"] = "@" + str(d / "start.json")
    (d / "start.json").write_text(json.dumps(dict(START.to_board(), turn="light")))
    return out


def _judge(photos, *extra, capsys):
    code = main(["judge", "--variant", "backgammon", "--before", photos["start"], "--dice", "3,1",
                 "--corners", photos["corners"], *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_photo_of_a_legal_play_is_ruled_that_play(photos, capsys):
    code, out, err = _judge(photos, "--after-image", photos["after"], "--before-image", photos["before"], "--json",
                            capsys=capsys)
    doc = json.loads(out)
    assert code == 0 and err == ""
    assert (doc["verdict"], doc["play"], doc["settled"]) == ("legal", "8/5 6/5", True)
    assert doc["candidates"][0]["play"] == "8/5 6/5" and doc["reading"]["confidence"]


def test_a_photo_of_a_wrong_move_is_never_ruled_legal(photos, capsys):
    code, out, _ = _judge(photos, "--after-image", photos["wrong"], "--json", capsys=capsys)
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] in ("illegal", "unsure") and doc["play"] is None
    assert doc["candidates"][0]["play"] == "another board"        # what the photo shows most likely
    if doc["verdict"] == "illegal":
        assert doc["reason"] and doc["citation"]


def test_a_photo_with_a_hand_over_the_board_is_unsure_and_unsettled(photos, capsys):
    code, out, _ = _judge(photos, "--after-image", photos["hand"], "--json", capsys=capsys)
    doc = json.loads(out)
    assert code == 0 and (doc["verdict"], doc["settled"], doc["play"]) == ("unsure", False, None)


@pytest.mark.parametrize("extra, says", [
    (("--after-image", "/nonexistent/photo.jpg"), "no such image file"),
    (("--after-image", "__TEXT__"), "is not an image"),
    (("--after-image", "__AFTER__", "--corners", "5000,1 2,3 4,5 6,7"), "the corners must lie in the image"),
    ((), "give the board after the turn"),
    (("--after", "@x.json", "--after-image", "__AFTER__"), "give the board after the turn"),
])
def test_bad_input_is_one_clear_line_and_status_2(photos, capsys, tmp_path, extra, says):
    text = tmp_path / "photo.jpg"
    text.write_text("not a picture")
    extra = tuple(str(text) if e == "__TEXT__" else photos["after"] if e == "__AFTER__" else e for e in extra)
    code = main(["judge", "--variant", "backgammon", "--before", photos["start"], "--dice", "3,1", *extra]
                + ([] if "--corners" in extra else ["--corners", photos["corners"]]))
    err = capsys.readouterr().err
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_the_photo_before_keeps_a_board_s_own_frame_from_being_taken_for_a_hand(tmp_path, capsys):
    # a black leather board on ivory felt under a low lamp, whose frame judged alone looks crossed
    # (tests/vision/test_occlusion.py): with the photo before, only what changed since can be a hand
    from willughby.vision.synth import Scene, SceneSpec

    scene = Scene(np.random.default_rng(2), SceneSpec(n_dice=0, wood="black_leather", field="felt_ivory",
                                                      men="olive_ebony", points="purple_silver",
                                                      lighting="side_lamp_shadows"))
    after = next(o for o in turn_outcomes(RULES, START, (3, 1)) if o.play.notation == "8/5 6/5").position.to_board()
    paths = {}
    for name, board, occluded in (("before", START.to_board(), False), ("after", after, False),
                                  ("hand", after, True)):
        image, label = scene.render(board, np.random.default_rng(len(name)), occluded=occluded)
        paths[name] = str(tmp_path / f"{name}.png")
        cv2.imwrite(paths[name], image)
    (tmp_path / "start.json").write_text(json.dumps(dict(START.to_board(), turn="light")))
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in label["corners"])
    base = ["judge", "--variant", "backgammon", "--before", "@" + str(tmp_path / "start.json"), "--dice", "3,1",
            "--corners", corners, "--json"]
    assert main(base + ["--after-image", paths["after"]]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert alone["verdict"] == "unsure" and alone["settled"] is False      # the frame taken for an arm
    assert main(base + ["--after-image", paths["after"], "--before-image", paths["before"]]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["verdict"], doc["play"]) == ("legal", "8/5 6/5")
    assert main(base + ["--after-image", paths["hand"], "--before-image", paths["before"]]) == 0
    covered = json.loads(capsys.readouterr().out)
    assert covered["verdict"] == "unsure" and covered["settled"] is False  # a real hand is still refused


def test_a_hand_that_moves_the_layout_found_in_the_photo_after_is_still_reported_as_covering_the_board(
        tmp_path, capsys):
    # the same board: in a fresh run the layout found in the photo with the hand differs from the one found in
    # the photo before; both are compared with the one before, so the turn is asked (the board is covered),
    # never a traceback about layouts
    from willughby.vision.reader import forget_layouts
    from willughby.vision.synth import Scene, SceneSpec

    scene = Scene(np.random.default_rng(2), SceneSpec(n_dice=0, wood="black_leather", field="felt_ivory",
                                                      men="olive_ebony", points="purple_silver",
                                                      lighting="side_lamp_shadows"))
    after = next(o for o in turn_outcomes(RULES, START, (3, 1)) if o.play.notation == "8/5 6/5").position.to_board()
    paths = {}
    for name, board, occluded, seed in (("before", START.to_board(), False, 6), ("hand", after, True, 4)):
        image, label = scene.render(board, np.random.default_rng(seed), occluded=occluded)
        paths[name] = str(tmp_path / f"{name}.png")
        cv2.imwrite(paths[name], image)
    (tmp_path / "start.json").write_text(json.dumps(dict(START.to_board(), turn="light")))
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in label["corners"])
    base = ["judge", "--variant", "backgammon", "--before", "@" + str(tmp_path / "start.json"), "--dice", "3,1",
            "--corners", corners, "--after-image", paths["hand"], "--before-image", paths["before"]]
    forget_layouts()                    # as a fresh command finds them
    assert main(base + ["--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert captured.err == ""
    assert (doc["verdict"], doc["settled"], doc["play"], doc["after"]) == ("unsure", False, None, None)
    assert any("something lies across" in note for note in doc["notes"])
    forget_layouts()
    assert main(base) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("unsure: the photo does not settle this turn; ask the players (the board cannot "
                                   "be read: something lies across") and captured.err == ""


def test_a_doublets_turn_is_judged_from_its_photo_and_the_one_before(tmp_path, capsys):
    # "Players play down a man for each cast of the die" (Willughby, seed 002): 4-1 from the start lays a man
    # beside the piles of points 4 and 1, which changes no count; the photo before shows where the men lay
    from willughby.vision.synth import Scene, SceneSpec

    rules = preset_rules("doublets")
    start = start_position(rules, "light")
    scene = Scene(np.random.default_rng(3), SceneSpec(n_dice=0, tilt_deg=8.0, wood="walnut", men="white_black",
                                                      points="red_cream", field="felt_green", lighting="overhead"))
    after = turn_outcomes(rules, start, (4, 1))[0].position.to_board()
    wrong = json.loads(json.dumps(after))
    wrong["stacked"]["light"][5] = 2                 # point 6's pile played down as well: no die called it
    paths = {}
    for name, board in (("before", start.to_board()), ("after", after), ("wrong", wrong)):
        image, label = scene.render(board, np.random.default_rng(7))
        paths[name] = str(tmp_path / f"{name}.png")
        cv2.imwrite(paths[name], image)
    (tmp_path / "start.json").write_text(json.dumps(dict(start.to_board(), turn="light")))
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in label["corners"])
    base = ["judge", "--variant", "doublets", "--before", "@" + str(tmp_path / "start.json"), "--dice", "4,1",
            "--corners", corners, "--json", "--before-image", paths["before"]]
    assert main(base + ["--after-image", paths["after"]]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["verdict"], doc["play"]) == ("legal", "down 4, down 1")
    assert [e["type"] for e in doc["events"]] == ["unstack", "unstack"]
    assert main(base + ["--after-image", paths["wrong"]]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["verdict"] in ("illegal", "unsure") and doc["play"] is None


def _physical(board):
    return {k: board[k] for k in ("light", "dark", "bar", "off")}


def test_a_legal_turn_s_document_carries_the_board_settled_on_as_after(photos, capsys):
    # cli.md: `after` is the board the referee settled on, for a legal turn the result of the play; `board`
    # beside it is the same board (the page and the store read that key)
    code, out, _ = _judge(photos, "--after-image", photos["after"], "--before-image", photos["before"], "--json",
                          capsys=capsys)
    doc = json.loads(out)
    played = next(o for o in turn_outcomes(RULES, START, (3, 1)) if o.play.notation == "8/5 6/5").position
    assert code == 0 and doc["verdict"] == "legal"
    assert doc["after"] == doc["board"] == played.to_board()


def test_an_illegal_turn_s_document_carries_the_board_as_read_as_after(photos, capsys, monkeypatch):
    # the painted wrong move is asked about by the shipped reader, which is not sure enough of every point to
    # rule; here the turn reader is made sure of the board it read best, so the command writes an illegal ruling
    from dataclasses import replace

    from willughby.vision import turns

    judge = turns.TurnReader.judge

    def sure(self, *args, **kwargs):
        found = judge(self, *args, **kwargs)
        assert found.other_board is not None
        return replace(found, verdict="illegal", play=None, board=found.other_board)

    monkeypatch.setattr(turns.TurnReader, "judge", sure)
    code, out, _ = _judge(photos, "--after-image", photos["wrong"], "--json", capsys=capsys)
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] == "illegal" and doc["reason"] and doc["play"] is None
    assert doc["after"] == doc["board"]
    assert _physical(doc["after"]) == _physical(doc["reading"])       # the board as read


def test_an_unsure_turn_settles_on_no_board(photos, capsys):
    code, out, _ = _judge(photos, "--after-image", photos["hand"], "--json", capsys=capsys)
    doc = json.loads(out)
    assert code == 0 and doc["verdict"] == "unsure" and doc["after"] is None and "board" not in doc


@pytest.fixture(scope="module")
def thrown(tmp_path_factory):
    """Photos of the board after 8/5 6/5 with the 3-1 still lying on it, with one die only, with one die and a
    hand over the board, and of the board after 24/13 (a play of a 6-5) with a 3-1 lying on it."""
    from willughby.vision.synth import SceneSpec, render

    d = tmp_path_factory.mktemp("thrown")
    after = next(o for o in turn_outcomes(RULES, START, (3, 1)) if o.play.notation == "8/5 6/5").position.to_board()
    run = next(o for o in turn_outcomes(RULES, START, (6, 5)) if o.play.notation == "24/13").position.to_board()
    out: dict = {}
    corners: dict[str, str] = {}
    for name, dice, board, hand in (("both", (3, 1), after, False), ("one", (3,), after, False),
                                    ("one-hand", (3,), after, True), ("other", (3, 1), run, False)):
        spec = dict(SPEC, n_dice=len(dice), dice_values=dice)
        image, label = render(np.random.default_rng(5), SceneSpec(position=board, occluded=hand, **spec))
        cv2.imwrite(str(d / f"{name}.png"), image)
        out[name] = str(d / f"{name}.png")
        corners[name] = " ".join(f"{x:.1f},{y:.1f}" for x, y in label["corners"])
    out["corners"] = corners
    out["start"] = "@" + str(d / "start.json")
    (d / "start.json").write_text(json.dumps(dict(START.to_board(), turn="light")))
    return out


def _judge_read(thrown, name, capsys):
    code = main(["judge", "--variant", "backgammon", "--before", thrown["start"], "--after-image", thrown[name],
                 "--corners", thrown["corners"][name], "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out else None, out.err


def test_without_dice_the_throw_is_read_from_the_dice_on_the_board(thrown, capsys):
    code, doc, err = _judge_read(thrown, "both", capsys)
    assert code == 0 and err == ""
    assert sorted(doc["dice"]) == [1, 3] and sorted(d["value"] for d in doc["dice_read"]) == [1, 3]
    assert (doc["verdict"], doc["play"]) == ("legal", "8/5 6/5")


def test_dice_that_make_no_throw_leave_the_turn_unsure_never_a_guess(thrown, capsys):
    code, doc, err = _judge_read(thrown, "one", capsys)
    assert code == 0 and err == ""
    assert (doc["verdict"], doc["play"], doc["dice"]) == ("unsure", None, None)
    assert "1 die seen on the board, not the 2 dice of a throw" in doc["notes"][0]


def test_a_play_only_another_throw_gives_is_asked_never_ruled_illegal_on_the_dice_read(thrown, capsys):
    # cli.md: a play legal only for another throw than the camera read is asked, never ruled on the camera's
    # dice alone (they may have been misread)
    code, doc, err = _judge_read(thrown, "other", capsys)
    assert code == 0 and err == ""
    assert sorted(doc["dice"]) == [1, 3]
    assert (doc["verdict"], doc["after"]) == ("unsure", None) and doc["candidates"][0]["play"] == "another board"
    assert any("no play of the throw read from the photo" in n for n in doc["notes"])
    # the same photo with the throw given by the players: the referee rules on it
    code = main(["judge", "--variant", "backgammon", "--before", thrown["start"], "--after-image", thrown["other"],
                 "--corners", thrown["corners"]["other"], "--dice", "3,1", "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["verdict"] == "illegal"


def test_a_throw_not_read_still_says_whether_the_board_could_be_read(thrown, capsys):
    _, clear, _ = _judge_read(thrown, "one", capsys)
    _, covered, _ = _judge_read(thrown, "one-hand", capsys)
    assert clear["settled"] and clear["reading"]["confidence"]
    assert covered["verdict"] == "unsure" and not covered["settled"] and len(covered["notes"]) == 2


def test_without_dice_or_a_photo_the_dice_are_asked_for(thrown, capsys):
    code = main(["judge", "--variant", "backgammon", "--before", thrown["start"], "--after", thrown["start"]])
    err = capsys.readouterr().err
    assert code == 2 and "give the dice thrown" in err and len(err.strip().splitlines()) == 1


def test_with_the_photo_before_a_man_gone_from_the_bar_is_weighed_as_the_watcher_weighs_it(tmp_path, monkeypatch):
    # docs/house-conventions.md, convention 18: "nothing moved" is a claim about the picture. A man entered
    # from the bar onto a point of his own colour may change that point too little to show, but the bar's
    # picture changes: judged from two photos, the turn reader is given the bar's change, as at the table
    from willughby.engine.position import Position
    from willughby.vision.synth import SceneSpec, render
    from willughby.vision.turns import TurnReader

    before = dict(START.to_board(), turn="dark")
    before["dark"] = list(before["dark"])
    before["dark"][0] -= 1                           # one of dark's men from his 24 point on the bar
    before["bar"] = {"light": 0, "dark": 1}
    pos = Position.from_board(before)
    entry = next(o for o in turn_outcomes(RULES, pos, (6, 5)) if o.position.to_board()["bar"]["dark"] == 0)
    paths = {}
    for name, board in (("before", before), ("after", entry.position.to_board())):
        image, label = render(np.random.default_rng(9), SceneSpec(position=board, occluded_share=0.3, occluded=False,
                                                                  **SPEC))
        cv2.imwrite(str(tmp_path / f"{name}.png"), image)
        paths[name] = str(tmp_path / f"{name}.png")
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in label["corners"])
    (tmp_path / "before.json").write_text(json.dumps(before))
    seen = []
    real = TurnReader.judge

    def spy(self, candidates, evidence, *a, **k):
        seen.append(evidence.bar_change)
        return real(self, candidates, evidence, *a, **k)

    monkeypatch.setattr(TurnReader, "judge", spy)
    base = ["judge", "--variant", "backgammon", "--before", "@" + str(tmp_path / "before.json"), "--dice", "6,5",
            "--corners", corners, "--json", "--after-image", paths["after"]]
    assert main(base + ["--before-image", paths["before"]]) == 0
    assert main(base + ["--before-image", paths["after"]]) == 0           # the same photo: the bar unchanged
    assert main(base) == 0                                                # no photo before: nothing compared
    cfg = TurnReader().config
    assert seen[0] is not None and seen[0] > cfg.bar_moved_share
    assert seen[1] is not None and seen[1] <= cfg.bar_moved_share
    assert seen[2] is None
