"""The companion referees Sice-Ace from the dice alone: two to five named
players, each throw counted die by die, another throw on a 2 and on a
doublet (not 2-2), players out, the last with men paying; the state the page
draws (the tally, whose throw, who is out, the pool, who pays), the record,
the replay, undo, and a game resumed after a crash."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from willughby.companion.service import Companion, CompanionError, NotNowError
from willughby.companion.store import GameStore


def game(names: Any = ("Ann", "Bob", "Cat"), start: dict[str, Any] | None = None,
         store: GameStore | None = None, players: int | None = None) -> Companion:
    c = Companion(store or GameStore(":memory:"))
    count = players or (len(names) if isinstance(names, (list, tuple)) else 2)
    c.new_game("sice-ace", {"players": str(count)}, list(names) if isinstance(names, tuple) else names,
               who="test", start=start)
    return c


def said(c: Companion) -> list[str]:
    return [a["text"] for a in reversed(c.state()["announcements"])]


def test_a_new_game_shows_the_tally_and_whose_throw() -> None:
    c = game()
    state = c.state()
    assert state["family"] == "counting" and state["preset"] == "sice-ace"
    assert state["board"] == {"format": "tally/1", "men": [6, 6, 6], "pool": 0, "turn": 0}
    assert state["players"] == ["Ann", "Bob", "Cat"]
    assert state["tally"]["players"][0] == {"index": 0, "name": "Ann", "men": 6, "out": False, "to_throw": True}
    assert state["tally"]["pool"] == 0 and state["tally"]["out"] == []
    assert state["awaiting"] == "Ann is to throw" and state["game_over"] is None
    assert state["camera_reads"] is False and state["cube"] is None
    assert said(c)[0] == "new game of Sice-Ace: Ann, Bob and Cat, six men each; Ann throws first"


def test_a_throw_is_counted_die_by_die_and_said() -> None:
    c = game()
    c.enter_dice([1, 6])                      # read higher die first: a 6 bears off, a 1 hands a man to Bob
    state = c.state()
    assert state["board"] == {"format": "tally/1", "men": [4, 7, 6], "pool": 0, "turn": 1}
    r = state["rulings"][-1]
    assert r["verdict"] == "legal" and r["dice"] == [6, 1] and r["turn"] == 1 and r["player"] == 0
    assert [e["type"] for e in r["events"]] == ["bear_off", "hand_left"]
    assert said(c)[-3:] == ["Ann throws 6-1", "Ann bears a man off", "Ann hands a man to Bob"]
    assert state["turn_number"] == 2 and state["turns_played"] == 1


def test_dice_the_game_cannot_throw_are_refused_and_nothing_on_the_board_is_wanted() -> None:
    c = game()
    with pytest.raises(CompanionError):
        c.enter_dice([6, 5, 4])
    with pytest.raises(CompanionError):
        c.enter_dice([7, 1])
    with pytest.raises(NotNowError):          # refereed from the dice alone: no board to judge
        c.legal_boards()
    with pytest.raises(NotNowError):
        c.submit_board({"format": "board/1", "light": [0] * 24, "dark": [0] * 24})
    with pytest.raises(NotNowError):
        c.dispute(1)
    assert c.on_reading({"format": "board/1", "light": [0] * 24, "dark": [0] * 24}, None) is None
    assert c.state()["turns_played"] == 0


def test_a_two_gives_another_throw_but_two_two_does_not() -> None:
    c = game(start={"format": "tally/1", "men": [5, 5, 5], "pool": 3, "turn": 0})
    c.enter_dice([5, 2])                      # 5: a man into the pool; 2: one out again, and throw again
    state = c.state()
    assert state["board"]["turn"] == 0 and state["awaiting"] == "Ann is to throw again"
    assert state["tally"]["throws_again"] is True
    assert said(c)[-1] == "Ann throws again"
    c.enter_dice([2, 2])                      # two from the pool, and no other throw
    assert c.state()["board"]["turn"] == 1
    assert c.state()["board"]["men"][0] == 7


def test_a_player_with_no_men_is_out_and_is_passed_over() -> None:
    c = game(start={"format": "tally/1", "men": [1, 6, 6], "pool": 0, "turn": 0})
    c.enter_dice([6, 3])
    state = c.state()
    assert state["tally"]["out"] == [0] and state["tally"]["players"][0]["out"] is True
    assert said(c)[-1] == "Ann has no men left and is out"
    assert state["board"]["turn"] == 1
    c.enter_dice([1, 3])                      # Bob hands a man on: to Cat, the next still in
    assert c.state()["board"]["men"] == [0, 5, 7]


def test_the_last_with_men_pays_and_the_game_is_stored_over() -> None:
    c = game(("Ann", "Bob"), start={"format": "tally/1", "men": [1, 3], "pool": 0, "turn": 0})
    c.enter_dice([6, 4])
    state = c.state()
    assert state["phase"] == "over" and state["game_over"] == {"loser": 1, "kind": "single", "stake": 1}
    assert said(c)[-1] == "Bob is the last with men and pays for the drinks (stake 1)"
    with pytest.raises(NotNowError):
        c.enter_dice([3, 4])
    stored = c.games()[0]
    assert stored["status"] == "over" and stored["result"] == {"loser": 1, "kind": "single", "stake": 1}
    assert stored["players"] == ["Ann", "Bob"] and stored["turns"] == 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_whole_game_is_recorded_replayed_and_exported(players: int) -> None:
    c = Companion(GameStore(":memory:"))
    c.new_game("sice-ace", {"players": str(players)}, None, who="test")
    assert c.state()["players"] == ["Ann", "Bob", "Cat", "Dan", "Eve"][:players]
    rng = random.Random(players)
    for _ in range(2000):
        if c.state()["phase"] == "over":
            break
        c.enter_dice([rng.randint(1, 6), rng.randint(1, 6)])
    state = c.state()
    assert state["phase"] == "over" and state["game_over"]["loser"] in range(players)
    stored = c.game(state["game_id"])
    assert stored["family"] == "counting" and stored["record"]["family"] == "counting"
    assert len(stored["turns"]) == stored["turns_played"] == state["turns_played"]
    assert stored["turns"][0]["before"]["men"] == [6] * players
    assert stored["turns"][-1]["after"] == state["board"]
    assert stored["result"] == state["game_over"]
    json.dumps(stored)
    with pytest.raises(CompanionError):
        c.export_mat(state["game_id"])


def test_undo_takes_back_a_throw() -> None:
    c = game()
    c.enter_dice([6, 3])
    c.enter_dice([5, 4])
    assert c.state()["undo"] == "the throw of Bob: 5-4"
    c.undo()
    state = c.state()
    assert state["board"] == {"format": "tally/1", "men": [5, 6, 6], "pool": 0, "turn": 1}
    assert state["turns_played"] == 1


def test_a_game_resumes_after_a_crash_mid_game(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite"
    store = GameStore(path)
    c = game(("Ann", "Bob", "Cat", "Dan"), store=store)
    rng = random.Random(9)
    for _ in range(12):
        c.enter_dice([rng.randint(1, 6), rng.randint(1, 6)])
    before = c.state()
    assert before["phase"] == "throw"
    again = Companion(GameStore(path))      # the process died: started again on the same store
    after = again.state()
    for key in ("game_id", "players", "board", "tally", "turn_number", "turns_played", "phase", "game_over"):
        assert after[key] == before[key], key
    assert after["rulings"] == before["rulings"]
    again.enter_dice([3, 4])
    assert again.state()["turns_played"] == before["turns_played"] + 1
    store.close()


def test_names_given_as_light_and_dark_are_the_first_two_players() -> None:
    c = Companion(GameStore(":memory:"))
    c.new_game("sice-ace", {"players": "3"}, {"light": "Xan", "dark": "Yve"}, who="serve")
    assert c.state()["players"] == ["Xan", "Yve", "Ann"]
    with pytest.raises(CompanionError):
        c.new_game("sice-ace", {"players": "2"}, ["A", "B", "C"], who="page")


def test_the_demo_seats_as_many_players_as_asked():
    """"Number of Players: 2-5" (seed 003): `willughby demo --preset sice-ace --players N`."""
    from willughby.companion.demo import DemoPlayers

    for seats in (2, 5):
        players = DemoPlayers(None, None, None, preset="sice-ace", seats=seats, seed=1)
        options, names = players._seating()
        assert options == {"players": str(seats)} and len(names) == seats
    by_seed = DemoPlayers(None, None, None, preset="sice-ace", seed=1)._seating()[0]["players"]
    assert by_seed in ("3", "4", "5")
