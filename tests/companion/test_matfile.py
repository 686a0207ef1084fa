"""Game records as Jellyfish .mat files: the text of a known game, the
layout GNU Backgammon's importer reads (re-read here the way import.c reads
it), and -- where gnubg is installed -- gnubg itself importing random games
and reaching the same board after every turn."""

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from willughby.companion.matfile import GNUBG_OPTIONS, to_mat
from willughby.companion.store import GameStore
from willughby.engine.errors import InvalidRecordError
from willughby.engine.game import Game
from willughby.engine.notation import parse_play
from willughby.engine.position import DARK, LIGHT, Position
from willughby.engine.rules import PRESETS, start_position

FIXTURES = Path(__file__).parent / "fixtures"
GNUBG_SCRIPT = FIXTURES / "gnubg_import_mat.py"
GNUBG = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")  # Debian: /usr/games
PLAYERS = {"light": "Ann", "dark": "Bob"}


def known_game() -> Game:
    """Ann (light) wins the opening 3-1; a hit, a man entering from the bar,
    a doublet, an illegal board put right, a cube taken, a cube dropped."""
    m = Game.new("backgammon", players=PLAYERS)
    m.start_roll(3, 1)
    assert m.play_notation("8/5 6/5").legal
    m.throw([4, 6])
    assert m.play_notation("24/18 13/9").legal
    m.throw([2, 6])
    assert m.play_notation("13/7* 13/11").legal
    m.offer_double()
    m.take()
    m.throw([4, 4])
    assert m.play_notation("bar/21 13/9 13/5").legal
    m.throw([5, 5])
    assert not m.play(m.position).legal        # nothing moved: illegal, put right
    assert m.play_notation("13/3(2)").legal
    m.throw([1, 2])
    assert m.play_notation("6/4 6/5").legal
    m.offer_double()
    m.drop()
    return m


KNOWN_MAT = """\
; [Site "Willughby"]
; [Player 1 "Ann"]
; [Player 2 "Bob"]
; [Variation "Backgammon"]
; [Jacoby "Off"]

 0 point match

 Game 1
 Ann : 0                        Bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2) 62: 13/11 13/7*              Doubles => 2
  3)  Takes                      44: 25/21 13/9 13/9 9/5
  4) 55: 13/8 13/8 8/3 8/3       21: 6/5 6/4
  5)  Doubles => 4                Drops
      Wins 2 points
"""


def random_match(seed: int, *, max_turns: int = 500, cube: float = 0.04, illegal: float = 0.05,
                 options: dict | None = None) -> Game:
    """A game of random legal turns, with cube turns and illegal boards put right."""
    rng = random.Random(seed)
    m = Game.new("backgammon", options, players={"light": f"Light {seed}", "dark": f"Dark {seed}"})
    while m.phase == "start":
        m.start_roll(rng.randint(1, 6), rng.randint(1, 6))
    turns = 0
    while m.phase != "over" and turns < max_turns:
        if m.phase == "throw":
            if m.can_double() and m.cube_value < 16 and rng.random() < cube:
                m.offer_double()
                m.take() if rng.random() < 0.75 else m.drop()
            else:
                m.throw([rng.randint(1, 6), rng.randint(1, 6)])
        else:
            outcomes = m.legal_outcomes()
            if len(outcomes) > 1 and rng.random() < illegal:
                m.play(m.position)
            else:
                m.play(rng.choice(outcomes).position)
                turns += 1
    return m


# ------------------------------------------------ reading it as gnubg does
def gnubg_halves(line: str) -> tuple[str, str | None]:
    """Split a move line as gnubg's ImportGame does: at the second ``dd:``
    roll, else at the first double space after the 15th character; the left
    half starts after the line number's ``)``."""
    first = line.find(":")
    second = line.find(":", first + 1) if first >= 0 else -1
    if first >= 0 and second > 3:
        left, right = line[:second - 3], line[second - 2:]
    elif len(line) > 15 and line.find("  ", 15) >= 0:
        k = line.find("  ", 15)
        left, right = line[:k], line[k + 1:]
    else:
        left, right = line, None
    if ")" in left:
        left = left[left.index(")") + 1:]
    return left.strip(), (right.strip() if right is not None else None)


def read_mat(text: str) -> tuple[int, tuple[str, str], list[tuple[str, str]]]:
    """(match length, (player 1, player 2), [(colour, turn text), ...])."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    k = next(i for i, ln in enumerate(lines) if not ln.startswith(";"))
    length = int(lines[k].split()[0])
    assert lines[k].strip().endswith("point match")
    assert lines[k + 1] == " Game 1"
    first, rest = lines[k + 2].split(":", 1)
    score0, rest = rest.split(None, 1)
    second, score1 = rest.split(":", 1)
    assert (score0.strip(), score1.strip()) == ("0", "0")
    turns = []
    for line in lines[k + 3:]:
        left, right = gnubg_halves(line)
        if left:
            turns.append((LIGHT, left))
        if right:
            turns.append((DARK, right))
    return length, (first.strip(), second.strip()), turns


def expected_turns(m: Game) -> list[tuple[str, str, object]]:
    """What the file must say, from the match: (colour, kind, ruling)."""
    out = []
    rulings = iter(m.rulings)
    for action in m.actions:
        if action["type"] == "move":
            ruling = next(rulings)
            if ruling.legal:
                out.append((ruling.player, "roll", ruling))
        elif action["type"] in ("double", "take", "drop"):
            out.append((action["player"], action["type"], None))
    if m.result is not None:
        out.append((m.result.winner, "wins", None))
    return out


def expected_positions(m: Game) -> list[tuple[Position, object]]:
    """(position before, ruling) for each legal turn of *m*."""
    position = m.start
    out = []
    rulings = iter(m.rulings)
    for action in m.actions:
        if action["type"] == "start_roll" and action["light"] != action["dark"]:
            position = position.with_turn(LIGHT if action["light"] > action["dark"] else DARK)
        elif action["type"] == "move":
            ruling = next(rulings)
            if ruling.legal:
                out.append((position.with_turn(ruling.player), ruling))
                position = ruling.after
    return out


def as_our_notation(moves: list[tuple[int, int]]) -> str:
    return " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b in moves)


# --------------------------------------------------------------- the text
def test_a_short_known_game_is_written_line_by_line():
    assert to_mat(known_game().record()) == KNOWN_MAT


def test_dark_winning_the_opening_roll_leaves_the_first_left_half_empty():
    m = Game.new("backgammon", players=PLAYERS)
    m.start_roll(1, 4)
    assert m.play_notation("24/23 13/9").legal
    last = to_mat(m.record()).splitlines()[-1]
    assert last == "  1)" + " " * 29 + "41: 24/23 13/9"
    assert last.index("41:") == 33   # Jellyfish's right column


def test_a_drop_by_light_puts_darks_win_on_the_same_line():
    m = Game.new("backgammon", players=PLAYERS)
    m.start_roll(3, 1)
    m.play_notation("8/5 6/5")
    m.offer_double()
    m.drop()
    lines = to_mat(m.record(), match_length=1).splitlines()
    assert lines[-2:] == ["  1) 31: 8/5 6/5                  Doubles => 2",
                          "  2)  Drops                       Wins 1 point and the match"]


def test_every_turn_of_random_games_reads_back_as_gnubg_reads_it():
    """Read back the way gnubg's importer splits the lines: the turns come in
    order, in the right player's column; each roll's moves, applied one by
    one, make the board the referee ruled; a throw that cannot be played is
    its roll alone; the cube and the win say what happened."""
    passes = 0
    for seed in range(12):
        m = random_match(seed, max_turns=[500, 25, 7][seed % 3])
        length = [0, 0, 15, 64][seed % 4]
        text = to_mat(m.record(), match_length=length)
        assert text.endswith("\n") and "\t" not in text
        got_length, names, turns = read_mat(text)
        assert got_length == length and names == (f"Light {seed}", f"Dark {seed}")
        want = expected_turns(m)
        assert [c for c, _ in turns] == [c for c, _, _ in want], seed
        positions = iter(expected_positions(m))
        cube = 1
        for (_, said), (_, kind, _) in zip(turns, want):
            if kind == "roll":
                before, ruling = next(positions)
                dice, colon, moves = said.partition(":")
                assert colon and dice == "".join(map(str, sorted(ruling.dice, reverse=True)))
                pairs = [tuple(int(p.rstrip("*")) for p in mv.split("/")) for mv in moves.split()]
                assert len(pairs) <= 4 and all(a > b for a, b in pairs)
                if ruling.play == "(no play)":
                    assert said == dice + ":"
                    passes += 1
                after = parse_play(before, as_our_notation(pairs)) if pairs else before
                assert after.physical_key() == ruling.after.physical_key(), (seed, said)
                assert said.count("*") == sum(1 for e in ruling.events if e.type == "hit")
            elif kind == "double":
                cube *= 2
                assert said == f"Doubles => {cube}"
            elif kind in ("take", "drop"):
                assert said == {"take": "Takes", "drop": "Drops"}[kind]
            else:
                n = m.result.stake
                assert said == (f"Wins {n} point{'s' if n > 1 else ''}"
                                + (" and the match" if length and n >= length else ""))
    assert passes > 0, "no game had a throw that could not be played"


def test_a_match_length_gives_the_header_crawford_and_the_match():
    text = to_mat(known_game().record(), match_length=2)
    assert "\n 2 point match\n" in text and '; [Crawford "On"]' in text
    assert text.endswith("      Wins 2 points and the match\n")
    assert "and the match" not in to_mat(known_game().record(), match_length=3)
    assert text.count("point match") == 1


def test_a_date_is_the_event_date():
    import datetime
    text = to_mat(known_game().record(), date=datetime.date(2024, 6, 7))
    assert '; [EventDate "2024.06.07"]' in text.splitlines()


def test_a_game_without_the_cube_says_so_for_xg():
    m = Game.new("backgammon", {"cube": "false"}, players=PLAYERS)
    m.start_roll(3, 1)
    m.play_notation("8/5 6/5")
    assert '; [CubeLimit "1"]' in to_mat(m.record()).splitlines()


def test_names_are_made_safe_for_the_player_line():
    cases = {
        ("Ann: the Great", "Bob"): ("Ann the Great", "Bob"),
        ("Ann", "Ann"): ("Ann (light)", "Ann (dark)"),
        ("", "  "): ("light", "dark"),
        ("x" * 40, "Bob\nSmith"): ("x" * 31, "Bob Smith"),
        ("é" * 20, "Zoë"): ("é" * 15, "Zoë"),      # 31 bytes of UTF-8 at most, whole letters
    }
    for (light, dark), want in cases.items():
        m = Game.new("backgammon", players={"light": light, "dark": dark})
        _, names, _ = read_mat(to_mat(m.record()))
        assert names == want


# --------------------------------------------------------------- refusals
@pytest.mark.parametrize("preset", sorted(p for p in set(PRESETS) - {"backgammon"}
                                           if PRESETS[p].rules.family != "counting"))
def test_games_gnubg_does_not_play_are_refused_naming_the_preset(preset):
    record = Game.new(preset).record()
    with pytest.raises(ValueError, match=f"game of {preset} differs"):
        to_mat(record)


def test_backgammon_with_other_rules_is_refused_naming_the_option():
    with pytest.raises(ValueError, match="bear_off=over"):
        to_mat(Game.new("backgammon", {"bear_off": "over"}).record())
    assert GNUBG_OPTIONS["doubles"] == "fourfold" and "cube" not in GNUBG_OPTIONS


def test_a_game_from_a_position_set_by_hand_is_refused():
    rules = Game.new("backgammon").rules
    race = Position.from_board({"format": "board/1", "light": [3, 3, 3, 3, 3] + [0] * 19,
                                "dark": [0] * 19 + [3, 3, 3, 3, 3], "turn": "light"}, men=15)
    with pytest.raises(ValueError, match="set up by hand"):
        to_mat(Game(rules, preset="backgammon", start=race).record())
    # the opening layout with light to throw first is still the opening position
    opening = Game(rules, preset="backgammon", start=start_position(rules, turn="light"))
    opening.throw([6, 6])
    opening.play_notation("24/18(2) 13/7(2)")
    assert to_mat(opening.record()).endswith("  1) 66: 24/18 24/18 13/7 13/7\n")


@pytest.mark.parametrize("length", [-1, 65, True, "3", 2.0])
def test_a_match_length_is_0_to_64_points(length):
    with pytest.raises(ValueError, match="match_length"):
        to_mat(known_game().record(), match_length=length)


def test_a_record_that_does_not_replay_is_refused():
    record = known_game().record()
    record["actions"][3]["after"] = record["actions"][1]["after"]
    with pytest.raises(InvalidRecordError):
        to_mat(record)


def test_a_record_from_the_store_leaves_out_a_move_taken_back(tmp_path):
    m = known_game()
    with GameStore(tmp_path / "g.sqlite3") as store:
        gid = store.create_game("backgammon", {}, PLAYERS, m.start.id())
        store.append_many(gid, [("action", a, None) for a in m.actions[:5]])   # light to play 6-2
        resumed = Game.from_record(store.record(gid))
        assert resumed.play_notation("24/18 24/22").legal                       # then thought better
        n = store.append(gid, "action", resumed.actions[-1], "light")
        store.append(gid, "undo", {"undoes": [n]}, "light")
        store.append_many(gid, [("action", a, None) for a in m.actions[5:]])   # 13/7* 13/11 ...
        store.finish(gid, m.result.to_json())
        assert store.game(gid)["log"][n]["data"] == resumed.actions[-1]   # still in the log
        assert to_mat(store.record(gid)) == KNOWN_MAT


# ----------------------------------------------------- GNU Backgammon itself
needs_gnubg = pytest.mark.skipif(
    GNUBG is None, reason="GNU Backgammon is not installed (Debian: apt-get install gnubg, "
                          "which puts it in /usr/games)")


def gnubg_import(paths: list[Path], out: Path) -> list[dict]:
    """Import each .mat file into gnubg; gnubg's own account of what it read."""
    env = dict(os.environ, GNUBG_MAT_FILES=os.pathsep.join(map(str, paths)), GNUBG_MAT_OUT=str(out))
    proc = subprocess.run([GNUBG, "-t", "-q", "-r", "-p", str(GNUBG_SCRIPT)], env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for word in ("WARNING", "Invalid move", "Unrecognised", "not a valid", "had errors"):
        assert word not in proc.stdout, proc.stdout[-3000:]
    return json.loads(out.read_text())


def match_id_fields(match_id: str) -> dict[str, int]:
    """GNU Backgammon's Match ID (manual, "Match ID"): 66 bits, little-endian."""
    import base64
    bits = int.from_bytes(base64.b64decode(match_id + "=" * (-len(match_id) % 4)), "little")
    def field(start: int, width: int) -> int:
        return (bits >> (start - 1)) & ((1 << width) - 1)
    return {"cube_log2": field(1, 4), "on_roll": field(7, 1), "state": field(9, 3),
            "match_length": field(22, 15), "score0": field(37, 15), "score1": field(52, 15)}


def gnubg_disagrees(m: Game, length: int, theirs: dict) -> list[str]:
    """Where gnubg's reading of our file differs from the match (empty: nowhere)."""
    problems = []
    colour = {"X": LIGHT, "O": DARK}  # gnubg's player 0 (X) is the file's left column
    info = theirs["match"].get("match-info", {})
    if (info.get("X", {}).get("name"), info.get("O", {}).get("name")) != (
            m.players[LIGHT], m.players[DARK]):
        problems.append(f"names {info}")
    games = theirs["match"].get("games") or [{"game": []}]
    records = games[0]["game"]
    want = expected_turns(m)
    if m.result is not None:
        want = want[:-1]       # gnubg keeps no record for "Wins"
    if len(records) != len(want):
        problems.append(f"gnubg has {len(records)} turns, we have {len(want)}")
    positions = iter(expected_positions(m))
    for k, (rec, (who, kind, ruling)) in enumerate(zip(records, want)):
        if (colour.get(rec.get("player")), rec.get("action")) != (who, "move" if kind == "roll" else kind):
            problems.append(f"turn {k}: gnubg has {rec}, we have {who} {kind}")
            break
        if kind == "roll":
            before, ruling = next(positions)
            if sorted(rec["dice"]) != sorted(ruling.dice):
                problems.append(f"turn {k}: dice {rec['dice']} not {ruling.dice}")
            moved = parse_play(before, as_our_notation(rec["move"])) if rec["move"] else before
            if moved.physical_key() != ruling.after.physical_key():
                problems.append(f"turn {k}: gnubg played {rec['move']}, we ruled {ruling.play}")
                break
    fields = match_id_fields(theirs["match_id"])
    on_roll = (LIGHT, DARK)[fields["on_roll"]]
    if theirs["position_id"] != m.position.gnubg_id(on_roll=on_roll):
        problems.append(f"final position {theirs['position_id']} is not ours "
                        f"{m.position.gnubg_id(on_roll=on_roll)}")
    score = (0, 0)
    if m.result is not None:
        score = (m.result.stake, 0) if m.result.winner == LIGHT else (0, m.result.stake)
    if (fields["score0"], fields["score1"]) != score or fields["match_length"] != length:
        problems.append(f"score {fields} is not {score} of {length}")
    return problems


@needs_gnubg
def test_gnubg_reads_the_known_game(tmp_path):
    path = tmp_path / "known.mat"
    path.write_text(KNOWN_MAT, encoding="utf-8")
    [theirs] = gnubg_import([path], tmp_path / "out.json")
    records = theirs["match"]["games"][0]["game"]
    moves = [(r["player"], r["action"], r.get("dice"), r.get("move")) for r in records]
    assert moves == [
        ("X", "move", [3, 1], [[8, 5], [6, 5]]),
        ("O", "move", [6, 4], [[24, 18], [13, 9]]),
        ("X", "move", [6, 2], [[13, 11], [13, 7]]),
        ("O", "double", None, None),
        ("X", "take", None, None),
        ("O", "move", [4, 4], [[25, 21], [13, 9], [13, 9], [9, 5]]),
        ("X", "move", [5, 5], [[13, 8], [13, 8], [8, 3], [8, 3]]),
        ("O", "move", [2, 1], [[6, 5], [6, 4]]),
        ("X", "double", None, None),
        ("O", "drop", None, None),
    ]
    assert not gnubg_disagrees(known_game(), 0, theirs)


@needs_gnubg
def test_gnubg_replays_random_games_turn_by_turn_to_our_final_board(tmp_path):
    games = []
    for seed in range(16):
        m = random_match(100 + seed, max_turns=[500, 500, 500, 30][seed % 4])
        length = [0, 25, 0, 7][seed % 4]
        path = tmp_path / f"game {seed}.mat"   # a space in the name, as a user's folder may have
        path.write_text(to_mat(m.record(), match_length=length), encoding="utf-8")
        games.append((m, length, path))
    results = gnubg_import([p for _, _, p in games], tmp_path / "out.json")
    assert len(results) == len(games)
    assert sum(1 for m, _, _ in games if m.result is not None) >= 10
    assert any(r.play == "(no play)" for m, _, _ in games for r in m.rulings)
    for (m, length, path), theirs in zip(games, results):
        assert gnubg_disagrees(m, length, theirs) == [], path.read_text()


@needs_gnubg
def test_the_gnubg_check_notices_a_wrong_move(tmp_path):
    """The comparison above can fail: a file with one move changed is caught."""
    path = tmp_path / "wrong.mat"
    path.write_text(KNOWN_MAT.replace("13/8 13/8 8/3 8/3", "13/8 13/8 8/3 6/1"))
    [theirs] = gnubg_import([path], tmp_path / "out.json")
    problems = gnubg_disagrees(known_game(), 0, theirs)
    assert any("turn 6" in p for p in problems), problems
