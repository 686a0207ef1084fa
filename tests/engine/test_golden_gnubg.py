"""The engine against GNU Backgammon: for every (position, throw) pair of the
golden file, the set of resulting positions must be exactly the one GNU
Backgammon 1.07 lists (``hint`` at 0 ply).  The file was made by
``tests/engine/golden/make_gnubg_golden.py`` (see the README beside it); this
test needs no gnubg.
"""

import json
from collections import Counter
from pathlib import Path

from willughby.engine.errors import NotationError
from willughby.engine.moves import legal_plays
from willughby.engine.notation import parse_play
from willughby.engine.position import Position
from willughby.engine.rules import preset_rules

GOLDEN = Path(__file__).parent / "golden" / "backgammon_gnubg.jsonl"


def load():
    with GOLDEN.open(encoding="utf-8") as f:
        header = json.loads(f.readline())
        cases = [json.loads(line) for line in f if line.strip()]
    return header, cases


HEADER, CASES = load()


def test_the_golden_file_is_what_the_issue_asks_for():
    """At least 3,000 (position, throw) pairs, all 21 throws, contact, bar, prime and bear-off positions."""
    assert HEADER["format"] == "willughby-gnubg-golden/1"
    assert len(CASES) >= 3000
    throws = {tuple(c["dice"]) for c in CASES}
    assert len(throws) == 21
    kinds = Counter(c["kind"] for c in CASES)
    for kind in ("contact", "bar", "prime", "bearoff"):
        assert kinds[kind] >= 300, kinds
    assert any(not c["plays"] for c in CASES), "some pairs with no legal play"


def test_gnubg_ids_decode_to_gnubgs_own_boards():
    for case in CASES[:: 21]:
        pos = Position.from_gnubg_id(case["position_id"])
        opponent, on_roll = case["board"]
        assert list(pos.light) == on_roll[:24] and pos.bar[0] == on_roll[24]
        assert [pos.dark[24 - k - 1] for k in range(24)] == opponent[:24] and pos.bar[1] == opponent[24]
        assert pos.gnubg_id() == case["position_id"]


def test_every_pair_gives_exactly_gnubgs_resulting_positions():
    rules = preset_rules("backgammon")
    mismatches = []
    for case in CASES:
        before = Position.from_gnubg_id(case["position_id"])
        dice = tuple(case["dice"])
        ours = {p.position.gnubg_id() for p in legal_plays(rules, before, dice) if p.steps}
        theirs = {p["result_id"] for p in case["plays"]}
        if ours != theirs:
            mismatches.append((case["position_id"], dice, sorted(ours - theirs), sorted(theirs - ours)))
    assert not mismatches, f"{len(mismatches)} of {len(CASES)} pairs differ; first: {mismatches[:3]}"


def test_gnubgs_move_text_reads_as_the_same_play():
    """Our notation reader takes GNU Backgammon's move text (``8/7(3) 6/5``,
    ``bar/22*``, ``6/off``, ``13/7*/5``) to the position gnubg reached."""
    failures = []
    for case in CASES:
        before = Position.from_gnubg_id(case["position_id"])
        for play in case["plays"]:
            try:
                after = parse_play(before, play["move"]).with_turn("dark")
                if after.gnubg_id() != play["result_id"]:
                    failures.append((case["position_id"], play["move"], "different position"))
            except NotationError as exc:
                failures.append((case["position_id"], play["move"], str(exc)))
    assert not failures, f"{len(failures)} moves misread; first: {failures[:5]}"
