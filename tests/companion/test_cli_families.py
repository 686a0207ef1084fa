"""The command line for every family of game (cli.md): the unstacking games
(Doublets, Dames Rabattues, Doblet, Ofanfelling) and the counting game
Sice-Ace, through ``variants``, ``moves`` and ``judge``; their bad input."""

import json

import pytest

from willughby.companion.cli import main
from willughby.engine.counting import Tally, count_throw, judge_tally
from willughby.engine.position import Position
from willughby.engine.referee import judge, turn_outcomes
from willughby.engine.rules import preset_rules, start_position

UNSTACKING = ["doublets", "doublets-cotton", "dames-rabattues", "doblet", "ofanfelling"]
Z = [0] * 24


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    assert err == ""
    return json.loads(out)


def start_doc(preset, turn="light"):
    return json.dumps(start_position(preset_rules(preset), turn).to_board())


def board(light, dark, turn="light", **extra):
    doc = {"format": "board/1", "light": light, "dark": dark, "turn": turn}
    doc.update(extra)
    return json.dumps(doc)


def at(points):
    """24 counts from {physical point: men}."""
    out = list(Z)
    for p, n in points.items():
        out[p - 1] = n
    return out


def expected_notation(outcome):
    """cli.md: the play's text, with the opponent's use of passed dice shown."""
    text = outcome.play.notation or "(no play)"
    if outcome.opponent_play is not None and outcome.opponent_play.notation:
        text += "; opponent " + outcome.opponent_play.notation
    return text


def tally(men, pool=0, turn=0):
    doc = {"format": "tally/1", "men": men, "pool": pool}
    if turn is not None:
        doc["turn"] = turn
    return json.dumps(doc)


# ----------------------------------------------------------------- variants
def test_variants_json_lists_the_new_presets(capsys):
    doc = run_json(capsys, "variants")
    by_id = {p["id"]: p for p in doc["presets"]}
    for preset in UNSTACKING:
        assert by_id[preset]["family"] == "unstacking"
        assert by_id[preset]["options"] == preset_rules(preset).options()
        assert by_id[preset]["source"]
    assert by_id["doblet"]["men"] == 12 and by_id["doblet"]["options"]["dice"] == "3"
    assert by_id["doublets"]["options"]["doubles"] == "pip-total"
    assert by_id["dames-rabattues"]["options"]["doublet_rethrow"] == "true"
    sice = by_id["sice-ace"]
    assert sice["family"] == "counting" and sice["options"]["players"] == "2"
    assert sice["source"] == "seed 003"


def test_variants_readable_says_each_family(capsys):
    code, out, _ = run(capsys, "variants")
    assert code == 0
    assert "unstacking game: 12 men a side in piles; phases unstack, restack, bear_off" in out
    assert "counting game: 2 to 5 players" in out


# ---------------------------------------------------------- unstacking: moves
@pytest.mark.parametrize("preset, dice", [
    ("doublets", "4,1"), ("doublets", "3,3"), ("doublets-cotton", "6,2"), ("dames-rabattues", "5,5"),
    ("dames-rabattues", "6,1"), ("doblet", "2,2,5"), ("doblet", "6,4,1"), ("ofanfelling", "6,6"),
    ("ofanfelling", "3,2"),
])
def test_moves_lists_one_entry_per_outcome_as_the_engine_finds_them(capsys, preset, dice):
    rules = preset_rules(preset)
    before = start_position(rules, "light")
    thrown = tuple(int(d) for d in dice.split(","))
    doc = run_json(capsys, "moves", "--variant", preset, "--board", start_doc(preset), "--dice", dice)
    assert doc["variant"] == preset and doc["dice"] == list(thrown)
    outcomes = turn_outcomes(rules, before, thrown)
    want = {expected_notation(o): o.position.to_board() for o in outcomes}
    assert doc["count"] == len(doc["plays"]) == len(want)
    assert {p["notation"]: p["board"] for p in doc["plays"]} == want
    for play in doc["plays"]:
        assert set(play) == {"notation", "board"}  # no gnubg_id: not a race game
        assert play["board"]["format"] == "board/1" and "stacked" in play["board"]


def test_a_doublet_rethrow_keeps_the_turn_in_the_boards_after(capsys):
    """Dames Rabattues: "a player who throws a doublet keeps the dice and has another throw"."""
    doc = run_json(capsys, "moves", "--variant", "dames-rabattues", "--board", start_doc("dames-rabattues"),
                   "--dice", "5,5")
    assert doc["count"] == 1
    assert doc["plays"][0]["notation"] == "down 5, down 5"
    assert doc["plays"][0]["board"]["turn"] == "light"
    assert doc["plays"][0]["board"]["stacked"]["light"][4] == 0  # the pile of three, played down by both


def test_a_doublet_rethrow_keeps_the_turn_even_when_a_die_of_it_is_lost(capsys):
    doc = run_json(capsys, "moves", "--variant", "ofanfelling", "--board", start_doc("ofanfelling"),
                   "--dice", "6,6")
    assert [p["notation"] for p in doc["plays"]] == ["down 6"]
    assert doc["plays"][0]["board"]["turn"] == "light"


def test_moves_shows_the_opponents_use_of_passed_dice(capsys):
    """Doblet: two alike are a doublet but each die acts once; the second 2 finds
    the pile of two already played down and passes to dark, who plays it."""
    doc = run_json(capsys, "moves", "--variant", "doblet", "--board", start_doc("doblet"), "--dice", "2,2,5")
    assert doc["count"] == 1
    play = doc["plays"][0]
    assert play["notation"] == "down 5, down 2; opponent down 2"
    assert play["board"]["turn"] == "dark"
    assert play["board"]["stacked"]["light"][:6] == [2, 0, 2, 2, 0, 2]
    assert play["board"]["stacked"]["dark"][22] == 0  # dark's 2 point is physical 23


def test_pip_total_doublets_act_on_any_men(capsys):
    doc = run_json(capsys, "moves", "--variant", "doublets", "--board", start_doc("doublets", "dark"),
                   "--dice", "3,3")
    assert doc["count"] == 35  # six actions, on any men (unstacking.outcomes' doctest)
    assert all(p["board"]["turn"] == "light" for p in doc["plays"])


def test_a_throw_nobody_can_use_gives_count_zero(capsys):
    """Light bears off with men on his 6 point only; a 2 and a 1 find nothing, and are lost."""
    before = board(at({6: 3}), at({19: 3, 20: 3, 21: 3, 22: 2, 23: 2, 24: 2}),
                   off={"light": 12, "dark": 0}, stacked={"light": Z, "dark": at({19: 3})})
    doc = run_json(capsys, "moves", "--variant", "doublets", "--board", before, "--dice", "2,1")
    assert doc == {"variant": "doublets", "dice": [2, 1], "count": 0, "plays": []}


def test_moves_readable_draws_the_piles(capsys):
    code, out, err = run(capsys, "moves", "--variant", "doublets", "--board", start_doc("doublets"),
                         "--dice", "4,1")
    assert code == 0 and err == ""
    assert "light >     [oo]   [oo]   [oo]  [ooo]  [ooo]  [ooo]      0  unstack" in out
    assert "light to play 4-1 (doublets): 1 legal outcome" in out
    assert "down 4, down 1" in out and "then dark throws" in out


def test_ofanfelling_board_is_drawn_in_dark_right_hand_table(capsys):
    code, out, _ = run(capsys, "moves", "--variant", "ofanfelling", "--board", start_doc("ofanfelling"),
                       "--dice", "6,6")
    assert code == 0
    assert "dark's 12 + n" in out and "light throws again" in out


# ---------------------------------------------------------- unstacking: judge
@pytest.mark.parametrize("preset, dice", [
    ("doublets", "4,1"), ("doublets-cotton", "6,2"), ("dames-rabattues", "5,5"), ("doblet", "2,2,5"),
    ("ofanfelling", "6,6"),
])
def test_judge_a_legal_turn_gives_the_engines_ruling(capsys, preset, dice):
    rules = preset_rules(preset)
    before = start_position(rules, "light")
    thrown = tuple(int(d) for d in dice.split(","))
    for outcome in turn_outcomes(rules, before, thrown)[:3]:
        after = json.dumps(outcome.position.to_board())
        doc = run_json(capsys, "judge", "--variant", preset, "--before", start_doc(preset), "--dice", dice,
                       "--after", after)
        ruling = judge(rules, before, thrown, outcome.position)
        assert doc["verdict"] == "legal" and doc["play"] == outcome.play.notation
        assert doc["events"] == [e.to_json() for e in ruling.events]
        assert doc["reason"] is None and doc["citation"] is None and doc["game_over"] is None
        assert doc["board"] == outcome.position.to_board()


def test_judge_events_of_a_passed_die(capsys):
    after = json.dumps(turn_outcomes(preset_rules("doblet"), start_position(preset_rules("doblet"), "light"),
                                     (2, 2, 5))[0].position.to_board())
    doc = run_json(capsys, "judge", "--variant", "doblet", "--before", start_doc("doblet"), "--dice", "2,2,5",
                   "--after", after)
    assert doc["events"] == [
        {"type": "unstack", "player": "light", "point": 5},
        {"type": "unstack", "player": "light", "point": 2},
        {"type": "opponent_uses_die", "player": "dark", "die": 2},
        {"type": "unstack", "player": "dark", "point": 2},
    ]
    assert doc["opponent_play"] == "down 2"


def test_judge_a_lost_die(capsys):
    rules = preset_rules("ofanfelling")
    after = turn_outcomes(rules, start_position(rules, "light"), (6, 6))[0].position
    doc = run_json(capsys, "judge", "--variant", "ofanfelling", "--before", start_doc("ofanfelling"),
                   "--dice", "6,6", "--after", json.dumps(after.to_board()))
    assert doc["events"] == [{"type": "unstack", "player": "light", "point": 6},
                             {"type": "lost_die", "player": "light", "die": 6}]
    assert doc["board"]["turn"] == "light"


def test_judge_a_pass(capsys):
    before = board(at({6: 3}), at({19: 3, 20: 3, 21: 3, 22: 2, 23: 2, 24: 2}),
                   off={"light": 12, "dark": 0}, stacked={"light": Z, "dark": at({19: 3})})
    doc = run_json(capsys, "judge", "--variant", "doublets", "--before", before, "--dice", "2,1",
                   "--after", before)
    assert doc["verdict"] == "legal" and doc["play"] == "(no play)"
    assert doc["events"] == [{"type": "pass", "player": "light"},
                             {"type": "lost_die", "player": "light", "die": 2},
                             {"type": "lost_die", "player": "light", "die": 1}]


def test_judge_a_restack(capsys):
    """Ofanfelling: the 1 plays down light's last pile, then the 5 puts a man back onto a pile."""
    before = board(at({k: 2 for k in range(1, 7)}), at({k: 2 for k in range(13, 19)}),
                   stacked={"light": at({1: 2}), "dark": at({k: 2 for k in range(13, 19)})})
    after = board(at({k: 2 for k in range(1, 7)}), at({k: 2 for k in range(13, 19)}), turn="dark",
                  stacked={"light": at({5: 2}), "dark": at({k: 2 for k in range(13, 19)})})
    doc = run_json(capsys, "judge", "--variant", "ofanfelling", "--before", before, "--dice", "5,1",
                   "--after", after)
    assert doc["verdict"] == "legal" and doc["play"] == "down 1, restack 5"
    assert doc["events"] == [{"type": "unstack", "player": "light", "point": 1},
                             {"type": "restack", "player": "light", "point": 5}]
    assert doc["board"]["phase"] == {"light": "restack"}  # the board alone cannot show it


def test_judge_the_opponent_may_win_on_passed_dice(capsys):
    """Doblet (Alfonso X): the opponent "may even win in doing so"."""
    rules = preset_rules("doblet")
    before = board(at({1: 2, 2: 2}), at({22: 1}), off={"light": 8, "dark": 11})
    outcome = turn_outcomes(rules, Position.from_board(before, men=12), (3, 1, 1))[0]
    doc = run_json(capsys, "judge", "--variant", "doblet", "--before", before, "--dice", "3,1,1",
                   "--after", json.dumps(outcome.position.to_board()))
    assert doc["verdict"] == "legal" and doc["play"] == "off 1, off 1" and doc["opponent_play"] == "off 3"
    assert doc["events"][-3:] == [{"type": "opponent_uses_die", "player": "dark", "die": 3},
                                  {"type": "bear_off", "player": "dark", "point": 3},
                                  {"type": "win", "player": "dark"}]
    assert doc["game_over"] == {"winner": "dark", "kind": "single", "stake": 1}


def test_judge_the_last_man_off_wins_single(capsys):
    before = board(at({4: 1}), at({19: 3, 20: 3}), off={"light": 14, "dark": 9})
    after = board(Z, at({19: 3, 20: 3}), off={"light": 15, "dark": 9})
    doc = run_json(capsys, "judge", "--variant", "doublets", "--before", before, "--dice", "4,1",
                   "--after", after)
    assert doc["verdict"] == "legal" and doc["play"] == "off 4"
    assert {"type": "win", "player": "light"} in doc["events"]
    assert doc["game_over"] == {"winner": "light", "kind": "single", "stake": 1}
    code, out, _ = run(capsys, "judge", "--variant", "doublets", "--before", before, "--dice", "4,1",
                       "--after", after)
    assert "light wins: single, stake 1" in out


def test_judge_an_illegal_turn_names_reason_and_citation(capsys):
    rules = preset_rules("doublets")
    before = start_position(rules, "light")
    doc = run_json(capsys, "judge", "--variant", "doublets", "--before", start_doc("doublets"), "--dice", "4,1",
                   "--after", start_doc("doublets", "dark"))
    ruling = judge(rules, before, (4, 1), before)
    assert doc["verdict"] == "illegal" and doc["play"] is None
    assert doc["reason"] == ruling.reason and doc["citation"] == ruling.citation
    assert doc["reason"] and doc["citation"]
    code, out, _ = run(capsys, "judge", "--variant", "doublets", "--before", start_doc("doublets"),
                       "--dice", "4,1", "--after", start_doc("doublets", "dark"))
    assert code == 0 and out.startswith(f"illegal: {ruling.reason} ({ruling.citation})")


def test_judge_readable_draws_the_board_after(capsys):
    after = json.dumps(turn_outcomes(preset_rules("doblet"), start_position(preset_rules("doblet"), "light"),
                                     (2, 2, 5))[0].position.to_board())
    code, out, _ = run(capsys, "judge", "--variant", "doblet", "--before", start_doc("doblet"), "--dice", "2,2,5",
                       "--after", after)
    assert code == 0
    assert out.splitlines()[0] == "legal: down 5, down 2; opponent down 2"
    assert "dark used the 2 passed to him" in out
    assert "light       [oo]     oo   [oo]   [oo]     oo   [oo]      0  unstack" in out


# ------------------------------------------------------------------ Sice-Ace
THREE = '{"format": "tally/1", "men": [6, 6, 6], "pool": 0, "turn": 0}'
CLI_MD_EXAMPLE = """{"variant": "sice-ace", "dice": [5, 2], "count": 1,
 "plays": [{"board": {"format": "tally/1", "men": [6, 6, 6], "pool": 0, "turn": 0},
            "events": [{"type": "pool_in", "player": 0}, {"type": "pool_out", "player": 0},
                       {"type": "throw_again", "player": 0}],
            "game_over": null}]}"""


@pytest.mark.parametrize("options", [[], ["-o", "players=3"]])
def test_sice_ace_moves_is_cli_md_example(capsys, options):
    """cli.md, "The counting game": dice 5,2 from a three-player start."""
    code, out, err = run(capsys, "moves", "--variant", "sice-ace", *options, "--board", THREE, "--dice", "5,2",
                         "--json")
    assert code == 0 and err == ""
    expected = json.loads(CLI_MD_EXAMPLE)
    assert json.loads(out) == expected
    assert out.strip() == json.dumps(expected)  # the keys in cli.md's order too


@pytest.mark.parametrize("men, pool, turn, dice", [
    ([6, 6], 0, 0, "6,1"), ([6, 6, 6, 6, 6], 0, 4, "1,1"), ([1, 6, 0, 3], 2, 0, "5,3"), ([2, 5, 6], 3, 1, "2,2"),
    ([1, 1], 0, 1, "6,6"), ([3, 0, 2], 1, 2, "4,3"),
])
def test_sice_ace_moves_gives_the_one_outcome_of_the_throw(capsys, men, pool, turn, dice):
    rules = preset_rules("sice-ace", {"players": str(len(men))})
    thrown = [int(d) for d in dice.split(",")]
    doc = run_json(capsys, "moves", "--variant", "sice-ace", "-o", f"players={len(men)}",
                   "--board", tally(men, pool, turn), "--dice", dice)
    outcome = count_throw(rules, Tally(tuple(men), pool, turn), thrown)
    assert doc == {"variant": "sice-ace", "dice": thrown, "count": 1, "plays": [outcome.to_json()]}


def test_sice_ace_moves_at_the_end_names_who_pays(capsys):
    doc = run_json(capsys, "moves", "--variant", "sice-ace", "--board", tally([1, 1], 0, 1), "--dice", "6,6")
    play = doc["plays"][0]
    assert play["game_over"] == {"loser": 0, "kind": "single", "stake": 1}
    assert {"type": "out", "player": 1} in play["events"]


def test_sice_ace_moves_readable_draws_the_tally(capsys):
    code, out, _ = run(capsys, "moves", "--variant", "sice-ace", "--board", tally([6, 5, 6], 1, 1),
                       "--dice", "6,1")
    assert code == 0
    assert "player 1 throws 6-1 (sice-ace, read 6, then 1):" in out
    assert "player 1 hands a man to player 2 (a 1)" in out
    assert "> player 2  ooooooo  7" in out and "pool o 1, borne off 1" in out


@pytest.mark.parametrize("after, verdict", [
    ([4, 7, 6], "legal"), ([5, 7, 6], "illegal"), ([4, 6, 7], "illegal"),
])
def test_sice_ace_judge_rules_on_the_tally_kept(capsys, after, verdict):
    rules = preset_rules("sice-ace", {"players": "3"})
    doc = run_json(capsys, "judge", "--variant", "sice-ace", "--before", THREE, "--dice", "6,1",
                   "--after", tally(after, 0, None))
    ruling = judge_tally(rules, Tally.start(3), [6, 1], Tally(tuple(after)))
    assert doc == ruling.to_json()
    assert doc["verdict"] == verdict
    assert doc["events"] == [{"type": "bear_off", "player": 0}, {"type": "hand_left", "player": 0, "to": 1}]
    assert doc["board"] == {"format": "tally/1", "men": [4, 7, 6], "pool": 0, "turn": 1}
    if verdict == "illegal":
        assert doc["reason"] and doc["citation"] == "seed 003 (Sice-Ace)"


def test_sice_ace_judge_a_wrong_turn(capsys):
    doc = run_json(capsys, "judge", "--variant", "sice-ace", "--before", THREE, "--dice", "5,2",
                   "--after", tally([6, 6, 6], 0, 1))
    assert doc["verdict"] == "illegal"
    assert doc["reason"] == "player 0 throws again after 5-2, not player 1"


def test_sice_ace_judge_the_end(capsys):
    doc = run_json(capsys, "judge", "--variant", "sice-ace", "-o", "players=2", "--before", tally([1, 1], 0, 1),
                   "--dice", "6,6", "--after", tally([1, 0], 0, None))
    assert doc["verdict"] == "legal"
    assert doc["game_over"] == {"loser": 0, "kind": "single", "stake": 1}
    code, out, _ = run(capsys, "judge", "--variant", "sice-ace", "--before", tally([1, 1], 0, 1),
                       "--dice", "6,6", "--after", tally([1, 0], 0, None))
    assert "game over: player 0 is the last with men and pays" in out


# ------------------------------------------------------------------ bad input
DOUBLETS_START = start_doc("doublets")
RACE_START = json.dumps(start_position(preset_rules("backgammon"), "light").to_board())


@pytest.mark.parametrize("argv, message", [
    (["moves", "--variant", "sice-ace", "--board", DOUBLETS_START, "--dice", "5,2"],
     "--board: sice-ace is refereed from the dice alone and takes a tally document"),
    (["judge", "--variant", "sice-ace", "--before", THREE, "--dice", "5,2", "--after", DOUBLETS_START],
     "--after: sice-ace is refereed from the dice alone and takes a tally document"),
    (["moves", "--variant", "doublets", "--board", THREE, "--dice", "5,2"],
     "--board: a tally document (\"tally/1\") is for the counting game (sice-ace); doublets takes a board"),
    (["judge", "--variant", "backgammon", "--before", RACE_START, "--dice", "5,2", "--after", THREE],
     "--after: a tally document (\"tally/1\") is for the counting game"),
    (["moves", "--variant", "sice-ace", "-o", "players=2", "--board", THREE, "--dice", "5,2"],
     "--board: men lists 3 players, but the game has players=2"),
    (["moves", "--variant", "sice-ace", "-o", "players=4", "--board", THREE, "--dice", "5,2"],
     "--board: men lists 3 players, but the game has players=4"),
    (["judge", "--variant", "sice-ace", "--before", THREE, "--dice", "5,2", "--after", tally([6, 6], 0, 0)],
     "--after: men lists 2 players, but the game has players=3"),
    (["moves", "--variant", "doblet", "--board", start_doc("doblet"), "--dice", "2,5"],
     "--dice: doblet throws 3 dice, but 2 were given: [2, 5]"),
    (["moves", "--variant", "doublets", "--board", DOUBLETS_START, "--dice", "2,5,1"],
     "--dice: doublets throws 2 dice, but 3 were given"),
    (["moves", "--variant", "sice-ace", "--board", THREE, "--dice", "5,2,1"],
     "--dice: Sice-Ace throws 2 dice, but 3 were given"),
    (["moves", "--variant", "sice-ace", "--board", THREE, "--dice", "5,7"], "a die shows 1 to 6, not 7"),
    (["moves", "--variant", "sice-ace", "--board", tally([0, 6, 6], 0, 0), "--dice", "5,2"],
     "--board: player 0 is out (no men left) and does not throw"),
    (["moves", "--variant", "sice-ace", "--board", tally([0, 6, 0], 0, 1), "--dice", "5,2"],
     "--board: the game is over"),
    (["moves", "--variant", "sice-ace", "--board", tally([6, 6, 6], 0, None), "--dice", "5,2"],
     "--board: turn is required"),
    (["moves", "--variant", "sice-ace", "--board", tally([7, 7, 7], 0, 0), "--dice", "5,2"], "more than the 18"),
    (["moves", "--variant", "doublets", "-o", "players=3", "--board", DOUBLETS_START, "--dice", "5,2"],
     "option players=3 applies to the counting games only"),
    (["moves", "--variant", "doublets", "--gnubg-id", "4HPwATDgc/ABMA", "--dice", "5,2"],
     "--gnubg-id: a GNU Backgammon Position ID holds a race game's board, and doublets is not a race game"),
    (["moves", "--variant", "sice-ace", "--gnubg-id", "4HPwATDgc/ABMA", "--dice", "5,2"],
     "--gnubg-id: a GNU Backgammon Position ID holds a race game's board, and sice-ace is not a race game"),
    (["judge", "--variant", "doublets", "--before", DOUBLETS_START, "--dice", "5,2", "--after-image", "/nonexistent.jpg"],
     "no such image file"),
    (["judge", "--variant", "sice-ace", "--before", THREE, "--dice", "5,2", "--after-image", "x.jpg"],
     "--after-image: sice-ace is refereed from the dice alone"),
    (["moves", "--variant", "doublets", "--board", board(at({8: 15}), at({19: 15})), "--dice", "5,2"],
     "--board: light has 15 men on point 8, outside his table"),
    (["moves", "--variant", "doublets", "--board", board(Z, at({19: 15}), off={"light": 15, "dark": 0}),
      "--dice", "5,2"], "--board: the game is already over: light has borne off every man"),
    (["moves", "--variant", "ofanfelling", "--board",
      board(at({k: 2 for k in range(1, 7)}), at({k: 2 for k in range(13, 19)}), phase={"light": "pile"}),
      "--dice", "5,2"], "--board: phase.light must be one of unstack, restack, bear_off, not 'pile'"),
    (["moves", "--variant", "doublets", "--board",
      board(at({k: 2 for k in range(1, 7)}), at({k: 2 for k in range(19, 25)}), phase={"light": "restack"}),
      "--dice", "5,2"], "--board: phase.light 'restack' is not a phase of this game"),
    (["moves", "--variant", "doblet", "--board", DOUBLETS_START, "--dice", "5,2,1"],
     "--board: light has 15 men"),
    (["moves", "--variant", "doublets", "--board", '{"format": "board/1"', "--dice", "5,2"],
     "--board: not a JSON document"),
    (["moves", "--variant", "sice-ace", "--board", "[6, 6]", "--dice", "5,2"],
     "--board: tally document must be a JSON object"),
    (["judge", "--variant", "sice-ace", "--before", THREE, "--dice", "5,2"], "give the board after the turn"),
    (["moves", "--variant", "sice-ace", "--board", "@/nonexistent/tally.json", "--dice", "5,2"], "cannot read"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_demo_refuses_a_board_to_start_sice_ace_from(capsys):
    code, out, err = run(capsys, "demo", "--preset", "sice-ace", "--start", THREE)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--start" in err
