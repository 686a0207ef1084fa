"""The board drawing (static/board.js), run under node where node is
installed: the numbering of the board-document contract seen from light's seat, both
sides' numbers on every point, the men, the counts, the bar, the tray, the
dice, the cube, the turn marker and the marks of the last play.

And, read as text, the page's scripts build the page without innerHTML or eval.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .fakes import START_BOARD

HARNESS = Path(__file__).with_name("board_harness.js")
STATIC = Path(__file__).parents[2] / "web_ui" / "static"
NODE = shutil.which("node")

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def draw(board: dict[str, Any] | None, options: dict[str, Any] | None = None,
         before: dict[str, Any] | None = None) -> dict[str, Any]:
    assert NODE is not None
    payload = json.dumps({"board": board, "options": options or {}, "before": before})
    done = subprocess.run([NODE, str(HARNESS)], input=payload, capture_output=True, text=True, timeout=30,
                          check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@needs_node
def test_the_numbering_seen_from_lights_seat() -> None:
    points = draw(START_BOARD)["points"]
    bottom = sorted((p for p in points.values() if p["base"] > p["tip"]), key=lambda p: p["left"])
    top = sorted((p for p in points.values() if p["base"] < p["tip"]), key=lambda p: p["left"])
    by_place = {id(p): int(n) for n, p in points.items()}
    # 12..7 | bar | 6..1 along the near edge; 13..18 | bar | 19..24 along the far edge
    assert [by_place[id(p)] for p in bottom] == list(range(12, 0, -1))
    assert [by_place[id(p)] for p in top] == list(range(13, 25))
    # 13 faces 12 and 24 faces 1; the bar stands between 7 and 6
    assert points["13"]["left"] == points["12"]["left"] and points["24"]["left"] == points["1"]["left"]
    assert points["6"]["left"] - points["7"]["left"] > 56


@needs_node
def test_the_men_of_the_start() -> None:
    drawn = draw(START_BOARD)
    points = drawn["points"]
    assert (points["6"]["light"], points["8"]["light"], points["13"]["light"], points["24"]["light"]) == (5, 3, 5, 2)
    assert (points["1"]["dark"], points["12"]["dark"], points["17"]["dark"], points["19"]["dark"]) == (2, 5, 3, 5)
    assert sum(p["light"] + p["dark"] for p in points.values()) == 30
    assert all((p["data"]["light"], p["data"]["dark"]) == (p["light"], p["dark"]) for p in points.values())


@needs_node
def test_every_point_carries_both_numberings() -> None:
    # each side counts from its own home: light's point p is dark's point 25 - p
    drawn = draw(START_BOARD)
    points, numbers = drawn["points"], drawn["numbers"]
    for side in ("light", "dark"):
        mine = [n for n in numbers if n["side"] == side]
        assert sorted(n["point"] for n in mine) == list(range(1, 25)), side
        assert all(n["text"] == str(n["point"]) for n in mine)
    for n in numbers:
        assert n["point"] == (n["place"] if n["side"] == "light" else 25 - n["place"]), n
        point = points[str(n["place"])]
        assert n["x"] == point["left"] + 28, n                 # centred on the point it names
        top_row = point["base"] < point["tip"]
        assert (n["y"] < point["base"]) if top_row else (n["y"] > point["base"]), n  # beyond the row's edge
    # dark's numbers in the row towards dark's seat (the far edge), light's towards light's
    y = {(n["side"], n["place"]): n["y"] for n in numbers}
    assert all(y["dark", p] < y["light", p] for p in range(1, 25))
    assert len({y["dark", p] for p in range(13, 25)}) == 1 and len({y["light", p] for p in range(1, 13)}) == 1


@needs_node
def test_the_point_dark_calls_n_is_lights_25_minus_n() -> None:
    drawn = draw(START_BOARD)
    dark = {n["point"]: n["place"] for n in drawn["numbers"] if n["side"] == "dark"}
    light = {n["point"]: n["place"] for n in drawn["numbers"] if n["side"] == "light"}
    points = drawn["points"]
    # dark's 24, 13, 8 and 6 points hold its men at the start, as light's do on light's own
    assert [points[str(dark[n])]["dark"] for n in (24, 13, 8, 6)] == [2, 5, 3, 5]
    assert [points[str(light[n])]["light"] for n in (24, 13, 8, 6)] == [2, 5, 3, 5]
    assert (dark[20], dark[1], light[20]) == (5, 24, 20)


@needs_node
def test_each_row_of_numbers_is_keyed_with_its_side() -> None:
    drawn = draw(START_BOARD)
    keys = drawn["keys"]
    assert sorted((k["side"], k["text"]) for k in keys) == [("dark", "dark")] * 2 + [("light", "light")] * 2
    rows = {(n["side"], n["y"]) for n in drawn["numbers"]}
    assert {(k["side"], k["y"]) for k in keys} == rows


@needs_node
def test_the_turn_marker_points_to_the_movers_seat() -> None:
    for turn, down in (("light", True), ("dark", False)):
        board = dict(START_BOARD, turn=turn)
        (marker,) = draw(board)["marker"]
        assert (marker["turn"], marker["men"]) == (turn, [f"man-{turn}"])
        (arrow,) = marker["arrow"]
        base, tip = arrow[0][1], arrow[2][1]
        assert (tip > base) is down, (turn, arrow)
    assert draw(dict(START_BOARD, turn=None))["marker"] == []


@needs_node
def test_more_than_five_men_show_five_and_a_count() -> None:
    board = copy.deepcopy(START_BOARD)
    board["light"][5], board["light"][7] = 8, 0
    point = draw(board)["points"]["6"]
    assert (point["light"], point["labels"]) == (5, ["8"])
    assert point["data"] == {"light": 8, "dark": 0}
    assert draw(START_BOARD)["points"]["6"]["labels"] == []


@needs_node
def test_bar_and_tray() -> None:
    board = copy.deepcopy(START_BOARD)
    board["dark"][0], board["bar"], board["off"] = 0, {"light": 0, "dark": 2}, {"light": 3, "dark": 0}
    drawn = draw(board)
    assert drawn["barMen"] == ["man-dark", "man-dark"]
    assert drawn["bar"] == ["2"]
    assert drawn["off"] == ["3 off", ""]


@needs_node
def test_dice_and_cube() -> None:
    drawn = draw(START_BOARD, {"dice": [6, 1], "cube": {"value": 2, "owner": "dark", "offered_by": None,
                                                        "enabled": True}})
    assert drawn["dice"] == [6, 1]  # pips
    assert drawn["cube"] == [["2", "dark's cube"]]   # the word cube beside its face
    assert draw(START_BOARD, {"cube": {"value": 1, "enabled": False}})["cube"] == []


@needs_node
def test_the_last_play_is_marked() -> None:
    after = copy.deepcopy(START_BOARD)
    after["light"][7], after["light"][5], after["light"][4] = 2, 4, 1
    after["dark"][0], after["bar"] = 1, {"light": 0, "dark": 1}
    drawn = draw(after, before=START_BOARD)
    assert sorted(int(n) for n, p in drawn["points"].items() if p["changed"]) == [1, 5, 6, 8]
    assert drawn["barChanged"] is True


@needs_node
def test_no_board_yet() -> None:
    assert draw(None)["noBoard"] == ["No board yet"]


@pytest.mark.parametrize("script", sorted(p.name for p in STATIC.glob("*.js")))
def test_scripts_build_the_page_without_html_strings(script: str) -> None:
    text = (STATIC / script).read_text(encoding="utf-8")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)  # comments may name what the code avoids
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    assert not re.search(r"\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|document\.write|\beval\(|new Function",
                         text)
