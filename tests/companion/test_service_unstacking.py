"""The companion referees the unstacking games (Doublets, Dames Rabattues,
Doblet, Ofanfelling): a turn played down, an illegal board, a die passed to
the opponent, a doublet's rethrow, the end and its stake, the state the page
draws (piles, phases, passed dice), the record, and a game resumed after a
crash. The camera cannot rule on piles yet: its readings are set aside and
the board is entered."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from willughby.companion.service import Companion, CompanionError, NotNowError
from willughby.companion.store import GameStore
from willughby.engine.position import Position

UNSTACKING = ("doublets", "doublets-cotton", "dames-rabattues", "doblet", "ofanfelling")
NAMES = {"light": "Ann", "dark": "Bob"}


def board(light: list[int], light_piles: list[int], dark: list[int], dark_piles: list[int],
          turn: str = "light", off: dict[str, int] | None = None) -> dict[str, Any]:
    """A board of the facing tables: light's own points 1-6 are physical 1-6,
    dark's are physical 24-19 (``dark`` given in dark's own order 1..6)."""
    doc: dict[str, Any] = {"format": "board/1", "light": light + [0] * 18, "dark": [0] * 18 + dark[::-1],
                           "stacked": {"light": light_piles + [0] * 18, "dark": [0] * 18 + dark_piles[::-1]},
                           "turn": turn}
    if off:
        doc["off"] = off
    return doc


FULL = [2, 2, 2, 3, 3, 3]


def game(preset: str, start: dict[str, Any] | None = None, store: GameStore | None = None) -> Companion:
    c = Companion(store or GameStore(":memory:"))
    c.new_game(preset, {}, NAMES, who="test", start=start)
    return c


def said(c: Companion) -> list[str]:
    return [a["text"] for a in reversed(c.state()["announcements"])]


def test_a_turn_played_down_is_ruled_legal_and_said_point_by_point() -> None:
    c = game("doublets")
    c.enter_dice([4, 1])                      # the roll for start: Ann 4, Bob 1; Ann throws afresh
    c.enter_dice([4, 1])
    plays = c.legal_boards()
    assert list(plays) == ["down 4, down 1"]
    ruling = c.on_reading(plays["down 4, down 1"], None, who="page")
    assert ruling is not None and ruling["verdict"] == "legal"
    assert [e["type"] for e in ruling["events"]] == ["unstack", "unstack"]
    assert said(c)[-3:] == ["Ann (light) plays 4-1: down 4, down 1", "Ann (light) plays a man down on the 4 point",
                            "Ann (light) plays a man down on the 1 point"]
    state = c.state()
    # the board carries its piles: point 4's pile of 3 is now 2 standing and 1 flat, point 1's pile of 2 is down
    assert state["board"]["stacked"]["light"][:6] == [0, 2, 2, 2, 3, 3]
    assert state["phases"] == {"light": "unstack", "dark": "unstack"}
    assert state["family"] == "unstacking" and state["camera_reads"] is True
    assert state["board"]["turn"] == "dark" and state["phase"] == "throw"


def test_a_board_no_play_leads_to_is_ruled_illegal_and_the_game_waits() -> None:
    c = game("doublets", board(FULL, FULL, FULL, FULL))
    c.enter_dice([4, 1])
    wrong = board(FULL, [2, 2, 0, 2, 3, 3], FULL, FULL)   # played down on 3 and 4: the throw was 4-1
    wrong.pop("turn")
    ruling = c.on_reading(wrong, None, who="page")
    assert ruling is not None and ruling["verdict"] == "illegal"
    assert ruling["reason"] and ruling["citation"]
    assert said(c)[-1].startswith("illegal play by Ann (light): ")
    assert c.state()["phase"] == "move" and c.state()["board"]["turn"] == "light"
    assert c.on_reading(c.legal_boards()["down 4, down 1"], None, who="page")["verdict"] == "legal"


def test_a_die_the_player_cannot_use_passes_to_the_opponent_in_the_same_turn() -> None:
    # Doublets as Cotton: Ann's 1 point is played down, so her 1 goes to Bob, who plays down his 1
    c = game("doublets-cotton", board(FULL, [0, 0, 0, 3, 3, 3], FULL, FULL))
    c.enter_dice([1, 4])
    plays = c.legal_boards()
    assert list(plays) == ["down 4; opponent down 1"]
    ruling = c.on_reading(plays["down 4; opponent down 1"], None, who="page")
    assert ruling["verdict"] == "legal" and ruling["opponent_play"] == "down 1"
    assert {"type": "opponent_uses_die", "player": "dark", "die": 1} in ruling["events"]
    assert "Bob (dark) uses the 1 Ann (light) could not" in said(c)
    assert "Bob (dark) plays a man down on the 1 point" in said(c)
    last = c.state()["last_play"]
    assert last["passed"] == [1] and last["opponent_play"] == "down 1" and last["lost"] == []


def test_a_die_that_is_lost_is_said_lost() -> None:
    c = game("doublets", board(FULL, [0, 0, 0, 3, 3, 3], FULL, FULL))
    c.enter_dice([1, 4])
    ruling = c.on_reading(c.legal_boards()["down 4"], None, who="page")
    assert {"type": "lost_die", "player": "light", "die": 1} in ruling["events"]
    assert "Ann (light) cannot use the 1: it is lost" in said(c)
    assert c.state()["last_play"]["lost"] == [1]


def test_a_doublet_gives_the_same_player_another_throw() -> None:
    c = game("dames-rabattues", board(FULL, FULL, FULL, FULL))
    c.enter_dice([2, 2])                      # plain doubles: her 2 plays down once; the other 2 goes to Bob
    ruling = c.on_reading(c.legal_boards()["down 2; opponent down 2"], None, who="page")
    assert ruling["verdict"] == "legal"
    state = c.state()
    assert state["phase"] == "throw" and state["board"]["turn"] == "light"
    assert said(c)[-1] == "Ann (light) threw a doublet (2-2): another throw"
    assert state["awaiting"].startswith("Ann (light) is to throw")
    assert c.state()["rulings"][-1]["turn"] == 1 and c.state()["turn_number"] == 2


def test_the_last_man_borne_off_ends_the_game_with_its_stake() -> None:
    c = game("doublets", board([1, 0, 0, 0, 0, 0], [0] * 6, FULL, FULL, off={"light": 14, "dark": 0}))
    c.enter_dice([1, 3])
    ruling = c.on_reading(c.legal_boards()["off 1"], None, who="page")
    assert ruling["game_over"] == {"winner": "light", "kind": "single", "stake": 1}
    state = c.state()
    assert state["phase"] == "over" and state["game_over"] == {"winner": "light", "kind": "single", "stake": 1}
    assert said(c)[-3:] == ["Ann (light) bears a man off the 1 point", "Ann (light) cannot use the 3: it is lost",
                            "Ann (light) wins: single, stake 1"]
    stored = c.games()[0]
    assert stored["status"] == "over" and stored["result"]["winner"] == "light"


def _camera(board: dict[str, Any], pile_sure: float = 0.9, places: dict[int, list[int]] | None = None,
            before_read: dict[str, Any] | None = None) -> Any:
    """What the camera gives the referee: the point reader's counts (sure) and piles (*pile_sure*), and,
    with the frame before (which showed *before_read*), the places along each point that changed."""
    import numpy as np

    from willughby.vision.strips import MM_PER_PX, STRIP_BEYOND
    from willughby.vision.turns import TurnEvidence, board_classes, pile_classes

    counts = np.full((24, 31), 1e-5 / 30)
    counts[np.arange(24), board_classes(board)] = 1 - 1e-5
    piles = np.full((24, 3), (1 - pile_sure) / 2)
    piles[np.arange(24), pile_classes(board)] = pile_sure
    ev = TurnEvidence(counts, pile_probs=piles)
    if places is not None:
        prof = np.zeros((24, 140))
        for point, ks in places.items():
            for k in ks:
                prof[point - 1, int(round((36 * k + STRIP_BEYOND) / MM_PER_PX)):
                     int(round((36 * (k + 1) + STRIP_BEYOND) / MM_PER_PX))] = 1.0
        ev.profiles, ev.changes, ev.before_read = prof, prof.mean(axis=1), before_read
    return ev


def _camera_turn_4_1() -> tuple[Companion, dict[str, Any], dict[str, Any]]:
    """A Doublets game at the start, refereed by the turn reader, light to play 4-1: the companion, the
    board before (as the frame before showed it) and the play's board."""
    from willughby.vision.turns import TurnConfig, TurnReader

    c = game("doublets", board(FULL, FULL, FULL, FULL))
    c.judging.turn_reader = TurnReader(TurnConfig(temperature=1.0))
    before = {k: v for k, v in c.state()["board"].items() if k in ("light", "dark", "bar", "stacked")}
    c.enter_dice([4, 1])
    return c, before, c.legal_boards()["down 4, down 1"]


def test_the_camera_referees_a_turn_of_piles_from_where_the_men_were_laid() -> None:
    c, before, after = _camera_turn_4_1()
    # the piles alone, read at 90%, do not settle it: a question, not a guess
    assert c.on_reading(after, None, who="camera", evidence=_camera(after)) is None
    assert c.state()["question"] is not None
    # a frame before with the same men but other piles (between two men played down, say) is not the board
    # before: where along the points the picture changed since then says nothing of this turn
    c.judging.question = None
    between = dict(before, stacked={"light": [0, 2, 2, 3, 3, 3] + [0] * 18, "dark": before["stacked"]["dark"]})
    ev = _camera(after, places={4: [1]}, before_read=between)
    assert c.on_reading(after, None, who="camera", evidence=ev) is None
    # with the frame before the turn, a man laid beside the piles of points 4 and 1 settles it
    c.judging.question = None
    ev = _camera(after, places={4: [1], 1: [1]}, before_read=before)
    ruling = c.on_reading(after, None, who="camera", evidence=ev)
    assert ruling is not None and (ruling["verdict"], ruling["play"]) == ("legal", "down 4, down 1")
    assert ev.shown is not None and ev.shown["stacked"] == after["stacked"]   # the next frame is compared with it
    assert c.dispute(1)["camera"]["verdict"] == "legal"


def test_the_players_answer_says_which_board_the_asked_frame_shows() -> None:
    # a turn asked is answered on the page; the camera's next frame is compared with the frame asked about,
    # which shows the board answered (without that, one question would leave every later turn to the pile
    # reader alone: the camera's own reading of a frame seldom has every pile right)
    c, before, after = _camera_turn_4_1()
    ev = _camera(after)
    assert c.on_reading(after, None, who="camera", evidence=ev) is None
    q = c.state()["question"]
    assert ev.shown is None
    c.answer(q["id"], next(ch["index"] for ch in q["choices"] if ch["play"] == "down 4, down 1"), who="page")
    assert ev.shown is not None and ev.shown["stacked"] == after["stacked"]


def test_the_unstacking_games_have_no_cube() -> None:
    # an unstacking game ends "single, stake 1" (variants.md): there is nothing to double
    c = game("doublets", board(FULL, FULL, FULL, FULL))
    with pytest.raises(NotNowError):
        c.cube("double")


def test_a_camera_turn_of_piles_played_down_wrongly_is_not_ruled_legal() -> None:
    c, before, after = _camera_turn_4_1()
    wrong = dict(after, stacked={"light": [0, 2, 2, 2, 3, 2] + [0] * 18, "dark": after["stacked"]["dark"]})
    ev = _camera(wrong, pile_sure=0.999, places={4: [1], 1: [1], 6: [1]}, before_read=before)
    ruling = c.on_reading(wrong, None, who="camera", evidence=ev)
    assert ruling is None or ruling["verdict"] == "illegal"
    assert c.state()["phase"] == "move" and ev.shown is None


@pytest.mark.parametrize("preset", UNSTACKING)
def test_a_whole_game_of_each_is_refereed_recorded_replayed_and_exported(preset: str) -> None:
    c = game(preset)
    rng = random.Random(preset)
    for _ in range(400):
        state = c.state()
        if state["phase"] == "over":
            break
        if state["phase"] in ("start", "throw"):
            c.enter_dice([rng.randint(1, 6) for _ in range(state["dice_wanted"])])
        else:
            plays = c.legal_boards()
            c.on_reading(plays[rng.choice(sorted(plays))], None, who="page")
    state = c.state()
    assert state["phase"] == "over" and state["game_over"]["kind"] == "single"
    assert state["dice_wanted"] == (3 if preset == "doblet" else 2)
    stored = c.game(state["game_id"])
    assert stored["family"] == "unstacking" and stored["turns_played"] == state["turns_played"]
    assert stored["turns"][-1]["after"] == {k: v for k, v in state["board"].items() if k != "turn"} \
        or stored["turns"][-1]["after"]["light"] == state["board"]["light"]
    json.dumps(stored)                        # exported as JSON
    with pytest.raises(CompanionError):       # a .mat file is for backgammon only
        c.export_mat(state["game_id"])


def test_ofanfelling_plays_in_the_right_hand_tables_and_shows_its_phases() -> None:
    c = game("ofanfelling")
    state = c.state()
    assert state["board"]["dark"][12:18] == [2] * 6 and state["board"]["stacked"]["dark"][12:18] == [2] * 6
    assert state["phases"] == {"light": "unstack", "dark": "unstack"}


def test_a_game_resumes_after_a_crash_mid_game(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite"
    store = GameStore(path)
    c = game("dames-rabattues", store=store)
    rng = random.Random(5)
    for _ in range(25):
        state = c.state()
        if state["phase"] in ("start", "throw"):
            c.enter_dice([rng.randint(1, 6), rng.randint(1, 6)])
        elif state["phase"] == "move":
            plays = c.legal_boards()
            c.on_reading(plays[rng.choice(sorted(plays))], None, who="page")
    c.enter_dice([5, 3]) if c.state()["phase"] == "throw" else None
    before = c.state()
    assert before["phase"] != "over"
    # the process dies here: nothing is closed, nothing flushed beyond what the store committed
    again = Companion(GameStore(path))
    after = again.state()
    for key in ("game_id", "board", "dice", "turn_number", "turns_played", "phase", "phases", "game_over"):
        assert after[key] == before[key], key
    assert [r["seq"] for r in after["rulings"]] == [r["seq"] for r in before["rulings"]]
    assert "resumed the game in progress" in after["announcements"][0]["text"]
    # and it plays on
    if after["phase"] == "move":
        plays = again.legal_boards()
        assert again.on_reading(next(iter(plays.values())), None, who="page")["verdict"] == "legal"
    Position.from_board(again.state()["board"])
    store.close()
