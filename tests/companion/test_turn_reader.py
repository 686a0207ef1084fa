"""The companion judges the camera's turns with the turn reader (issue 16):
a settled reading is weighed against the throw's legal boards; a question is
asked only when the turn reader is unsure, listing the plays it could not
tell apart with their probabilities; an illegal turn is ruled only when the
turn reader says so; the dispute view shows what it weighed."""

from __future__ import annotations

import numpy as np
import pytest

from willughby.companion.service import Companion
from willughby.vision.turns import TurnEvidence, board_classes


@pytest.fixture()
def c(camera_judged_game: Companion) -> Companion:
    return camera_judged_game


def _evidence(board: dict, sure: float = 0.9999, **kw) -> TurnEvidence:
    p = np.full((24, 31), (1 - sure) / 30)
    p[np.arange(24), board_classes(board)] = sure
    return TurnEvidence(p, dict(board.get("bar") or {"light": 0, "dark": 0}), **kw)


def test_a_picture_of_a_legal_play_is_ruled_with_what_the_camera_weighed(c):
    after = c.legal_boards()["8/5 6/5"]
    ruling = c.on_reading(after, None, evidence=_evidence(after))
    assert ruling["verdict"] == "legal" and ruling["play"] == "8/5 6/5"
    d = c.dispute(1)
    assert d["camera"]["verdict"] == "legal" and d["camera"]["candidates"][0]["play"] == "8/5 6/5"
    assert d["camera"]["candidates"][0]["p"] > 0.99


def test_an_unsure_picture_is_a_question_listing_the_plays_with_their_chances(c):
    a, b = c.legal_boards()["8/5 6/5"], c.legal_boards()["8/7 8/5"]
    ev = _evidence(a)
    for i in np.flatnonzero(board_classes(a) != board_classes(b)):
        ev.count_probs[i] = 1e-5
        ev.count_probs[i, board_classes(a)[i]] = 0.5
        ev.count_probs[i, board_classes(b)[i]] = 0.5
    assert c.on_reading(a, None, evidence=ev) is None
    s = c.state()
    q = s["question"]
    assert s["rulings"] == [] and q is not None
    assert q["text"].startswith("Which play was made? The camera cannot tell these apart: ")
    first_two = {ch["play"] for ch in q["choices"][:2]}
    assert first_two == {"8/5 6/5", "8/7 8/5"}
    assert all(0.2 < ch["p"] < 0.7 for ch in q["choices"][:2])
    # the plays the turn reader did not rank (beyond those it shows) carry no chance, not a "0%"
    shown = set(ch["play"] for ch in q["choices"][:2])
    assert all("p" not in ch or ch["play"] in shown or ch["p"] > 0 for ch in q["choices"])
    c.answer(q["id"], q["choices"][0]["index"], who="Ann")
    assert c.state()["rulings"][-1]["verdict"] == "legal"


def test_a_clear_picture_of_a_board_no_play_leads_to_is_ruled_illegal(c):
    wrong = c.legal_boards()["8/5 6/5"]
    wrong["light"][4] -= 1
    wrong["light"][3] += 1                        # 8/4 6/5 with a 3-1
    ruling = c.on_reading(wrong, None, evidence=_evidence(wrong))
    assert ruling["verdict"] == "illegal"
    assert c.state()["phase"] == "move"          # the game waits for the board to be put right


def test_a_board_no_play_leads_to_read_unsurely_is_asked_never_ruled_illegal(c):
    wrong = c.legal_boards()["8/5 6/5"]
    wrong["light"][4] -= 1
    wrong["light"][3] += 1
    ev = _evidence(wrong)
    for i, legal in ((3, 0), (4, 2)):             # the points that tell it from 8/5 6/5, read at 90% only
        ev.count_probs[i] = 1e-4 / 29
        ev.count_probs[i, board_classes(wrong)[i]] = 0.9
        ev.count_probs[i, legal] = 0.1
    assert c.on_reading(wrong, None, evidence=ev) is None
    assert c.state()["rulings"] == [] and c.state()["question"] is not None


def test_the_men_not_moved_yet_ask_nothing(c):
    before = c.state()["board"]
    before = {k: v for k, v in before.items() if k != "turn"}
    assert c.on_reading(before, None, evidence=_evidence(before)) is None
    assert c.state()["question"] is None and c.state()["rulings"] == []


def test_a_covered_frame_is_never_ruled_on(c):
    after = c.legal_boards()["8/5 6/5"]
    assert c.on_reading(after, None, evidence=_evidence(after, settled=False)) is None
    assert c.state()["rulings"] == [] and c.state()["question"] is None


def test_changes_are_used_only_when_the_frame_before_showed_the_referees_board(c):
    after = c.legal_boards()["8/5 6/5"]
    ev = _evidence(after)
    ev.count_probs[18] = 0.1 / 30                 # point 19 misread at 90%: 4 dark men for 5
    ev.count_probs[18, 19] = 0.9
    ev.changes = np.zeros(24)
    ev.changes[[4, 5, 7]] = 0.05
    ev.before_read = {"light": [0] * 24, "dark": [0] * 24, "bar": {"light": 0, "dark": 0}}   # not the board before
    assert c.on_reading(after, None, evidence=ev) is None          # so the changes are not trusted: asked
    board = c.state()["board"]
    ev.before_read = {k: board[k] for k in ("light", "dark", "bar")}
    c.judging.question = None
    ruling = c.on_reading(after, None, evidence=ev)
    assert ruling is not None and ruling["play"] == "8/5 6/5"


# -- "nothing moved" is a claim about the picture (issue 44) ------------------------------------------------------


def _bar_game(c: Companion) -> dict:
    """Dark to play 3-6 with a man on the bar and five dark men on point 3: the only play is bar/22, onto his
    own men (light holds points 6, 9 and 18). Returns the board before."""
    dark = [0] * 24
    dark[2], dark[11] = 5, 9
    light = [0] * 24
    light[5] = light[8] = light[17] = 3
    light[12] = 6
    start = {"format": "board/1", "turn": "dark", "light": light, "dark": dark, "bar": {"light": 0, "dark": 1},
             "off": {"light": 0, "dark": 0}}
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test", start=start)
    c.enter_dice([3, 6])
    assert list(c.legal_boards()) == ["bar/22"]
    board = c.state()["board"]
    return {k: board[k] for k in ("light", "dark", "bar", "off")}


def _unchanged_but_the_bar(before: dict, sure: float, **changed_points: float) -> TurnEvidence:
    """The point reader reads *before* at every point (*sure*), and finds no man on the bar; the frame before
    showed *before*, and since then the bar's picture changed by a man's worth, each point named ("p3") by
    its share."""
    ev = _evidence(before, sure)
    ev.bar = {"light": 0, "dark": 0}
    ev.changes = np.zeros(24)
    for name, share in changed_points.items():
        ev.changes[int(name[1:]) - 1] = share
    ev.before_read = dict(before)
    ev.bar_change = 0.7
    return ev


def test_an_entry_onto_the_movers_own_men_the_points_do_not_show_is_ruled_or_asked_never_held_unmoved(c):
    # the man left the bar for point 3, where five of his own stand: the point's picture barely changed and the
    # point reader reads it as before; the bar shows him gone, so the board is not as the referee holds it
    before = _bar_game(c)
    ruling = c.on_reading(before, None, evidence=_unchanged_but_the_bar(before, 0.999, p3=0.01))
    s = c.state()
    assert ruling is not None or s["question"] is not None
    if ruling is not None:
        assert (ruling["verdict"], ruling["play"]) == ("legal", "bar/22")
    else:                                          # the entry is offered first, the likelier by the bar
        assert s["question"]["choices"][0]["play"] == "bar/22"
        assert c.judging.last_camera["candidates"][0]["play"] == "bar/22"


def test_an_illegal_attempt_with_the_bar_man_moved_is_not_passed_as_nothing_moved(c):
    # the bar man played where the throw cannot take him (point 4: no 3-6 enters there), the point reader
    # sure the board is as it was (p = 1.0 that nothing moved): the referee asks, or rules it, never waits
    before = _bar_game(c)
    ruling = c.on_reading(before, None, evidence=_unchanged_but_the_bar(before, 0.999999, p4=0.15))
    s = c.state()
    assert ruling is not None or s["question"] is not None
    assert ruling is None or ruling["verdict"] in ("illegal", "legal")
    assert s["question"] is None or "the bar" in s["question"]["text"]


def test_dice_thrown_on_the_board_with_the_bar_as_it_was_still_ask_nothing(c):
    before = _bar_game(c)
    ev = _unchanged_but_the_bar(before, 0.9999)
    ev.bar, ev.bar_change = {"light": 0, "dark": 1}, 0.0          # the man still on the bar, its picture unchanged
    assert c.on_reading(before, None, evidence=ev) is None
    assert c.state()["question"] is None and c.state()["rulings"] == []
