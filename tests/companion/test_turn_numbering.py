"""One numbering of turns, everywhere (issue 15).

A turn is one player's go: the throw and the play made with it, a pass
included, numbered from 1 in the order played. A board ruled illegal is an
attempt within the turn in progress, not a turn of its own; a turn taken
back by undo is no longer counted. The store, the state, the page, the
games list, the replay and the dispute view must all say the same.

The game below is walked through a real companion and its real page: two
illegal attempts before a legal play, undos of a throw and of a move, an
illegal attempt taken back, and at every step every place is asked what
turn it is.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from willughby.companion.service import Companion
from willughby.companion.store import GameStore
from willughby.web_ui import create_app

SECRET = b"s" * 32


@pytest.fixture()
def game():
    store = GameStore(":memory:")
    c = Companion(store)
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test")
    client = create_app({"pin": "2468", "secret_key": SECRET}, c).test_client()
    yield c, client
    store.close()


def _illegal_board(c: Companion) -> dict[str, Any]:
    """A board no play of the throw leads to: a legal one with one more man moved a pip."""
    board = c.legal_boards()[sorted(c.legal_boards())[0]]
    mover = c.state()["board"]["turn"]
    men = board[mover]
    step = -1 if mover == "light" else 1
    for i, n in enumerate(men):
        j = i + step
        other = board["dark" if mover == "light" else "light"]
        if n and 0 <= j < 24 and not other[j]:
            men[i] -= 1
            men[j] += 1
            if all(json.dumps(b, sort_keys=True) != json.dumps(board, sort_keys=True)
                   for b in c.legal_boards().values()):
                return board
            men[i] += 1
            men[j] -= 1
    raise AssertionError("no illegal board found")


def _every_place(c: Companion, client: Any) -> dict[str, Any]:
    """What each place says of the turns."""
    state = client.get("/api/state").json
    games = client.get("/api/games").json["games"]
    game = client.get(f"/api/games/{state['game_id']}").json
    games_page = client.get("/games").get_data(as_text=True)
    cells = re.findall(r'<td class="num">(\d+)</td>', games_page)
    return {"state": state, "store_turns": c.store.games()[0]["turns"], "api_games_turns": games[0]["turns"],
            "games_page_turns": int(cells[0]), "replay": game}


def _check_agree(c: Companion, client: Any, *, played: int, rulings: list[tuple[int, int, str]]) -> None:
    p = _every_place(c, client)
    s = p["state"]
    over = s["phase"] == "over"
    # the state: the turn in progress is the next after those played
    assert s["turns_played"] == played
    assert s["turn_number"] == (played if over else played + 1)
    # the store, the API's games list and the games page: turns played
    assert p["store_turns"] == p["api_games_turns"] == p["games_page_turns"] == played
    # the rulings of the state and the replay's steps: (turn, attempt, verdict), the same
    numbered = [(r["turn"], r["attempt"], r["verdict"]) for r in s["rulings"]]
    assert numbered == rulings
    assert [(t["turn"], t["attempt"], t["verdict"]) for t in p["replay"]["turns"]] == rulings
    assert p["replay"]["turns_played"] == played
    # the last play names the turn whose play it was
    legal = [r for r in rulings if r[2] == "legal"]
    if legal:
        assert s["last_play"]["turn"] == legal[-1][0]
    # the dispute view of each ruling says the same turn and attempt, in its data and on its page
    for turn, attempt, verdict in rulings:
        d = client.get(f"/api/dispute/{turn}?attempt={attempt}").json
        assert (d["turn"], d["attempt"], d["ruling"]["verdict"]) == (turn, attempt, verdict)
        attempts = sum(1 for t, _, _ in rulings if t == turn)
        page = client.get(f"/dispute/{turn}?attempt={attempt}").get_data(as_text=True)
        heading = f"Turn {turn}, attempt {attempt} of {attempts}:" if attempts > 1 else f"Turn {turn}:"
        assert heading in page
        assert "None" not in page


def test_every_place_numbers_the_turns_alike_through_illegal_attempts_and_undos(game):
    c, client = game
    _check_agree(c, client, played=0, rulings=[])
    c.enter_dice([3, 1])                                     # Ann goes first with 3-1
    c.on_reading(c.legal_boards()["8/5 6/5"], None)          # turn 1
    _check_agree(c, client, played=1, rulings=[(1, 1, "legal")])

    c.enter_dice([6, 4])                                     # Bob's throw, turn 2
    c.submit_board(_illegal_board(c))                        # attempt 1: illegal
    c.submit_board(_illegal_board(c))                        # attempt 2: illegal again
    _check_agree(c, client, played=1, rulings=[(1, 1, "legal"), (2, 1, "illegal"), (2, 2, "illegal")])
    assert c.state()["turn_number"] == 2                     # still Bob's turn 2: attempts are not turns
    c.on_reading(c.legal_boards()[sorted(c.legal_boards())[0]], None)   # attempt 3: legal, ends turn 2
    expected = [(1, 1, "legal"), (2, 1, "illegal"), (2, 2, "illegal"), (2, 3, "legal")]
    _check_agree(c, client, played=2, rulings=expected)
    # the dispute view of turn 2 with no attempt named is its last ruling, and lists the others
    d = client.get("/api/dispute/2").json
    assert d["attempt"] == 3 and [o["attempt"] for o in d["others"]] == [1, 2]

    c.enter_dice([5, 2])                                     # Ann's turn 3
    c.on_reading(c.legal_boards()[sorted(c.legal_boards())[0]], None)
    _check_agree(c, client, played=3, rulings=expected + [(3, 1, "legal")])
    c.enter_dice([4, 4])                                     # Bob's throw for turn 4 ...
    c.undo(who="Bob")                                        # ... taken back
    _check_agree(c, client, played=3, rulings=expected + [(3, 1, "legal")])
    c.undo(who="Ann")                                        # and Ann's turn 3 with it
    _check_agree(c, client, played=2, rulings=expected)
    assert c.state()["turn_number"] == 3 and c.state()["phase"] == "move"

    c.submit_board(_illegal_board(c))                        # turn 3, attempt 1 ...
    _check_agree(c, client, played=2, rulings=expected + [(3, 1, "illegal")])
    c.undo(who="Ann")                                        # ... taken back: no longer counted
    _check_agree(c, client, played=2, rulings=expected)
    c.on_reading(c.legal_boards()[sorted(c.legal_boards())[-1]], None)
    _check_agree(c, client, played=3, rulings=expected + [(3, 1, "legal")])


def test_a_game_over_is_numbered_by_its_last_turn(game):
    c, client = game
    c.new_game("backgammon", {}, {"light": "Ann", "dark": "Bob"}, who="test",
               start={"format": "board/1", "turn": "light",
                      "light": [1] + [0] * 23, "dark": [0] * 23 + [1],
                      "off": {"light": 14, "dark": 14}})
    c.enter_dice([6, 5])
    c.on_reading(c.legal_boards()[sorted(c.legal_boards())[0]], None)
    s = client.get("/api/state").json
    assert s["phase"] == "over" and s["turns_played"] == 1 and s["turn_number"] == 1
    assert [(r["turn"], r["attempt"]) for r in s["rulings"]] == [(1, 1)]
    game_page = client.get(f"/games/{s['game_id']}").get_data(as_text=True)
    assert "Ann (light) wins" in game_page and "1 turn" in game_page
    assert "Ann (light) wins" in client.get("/games").get_data(as_text=True)


def test_errors_say_what_the_game_awaits_in_the_players_words(game):
    c, client = game
    c.enter_dice([3, 1])
    from willughby.companion.service import NotNowError
    c.enter_dice([6, 6])                   # Bob's throw, early: held for his turn (issue 44)
    with pytest.raises(NotNowError) as caught:
        c.enter_dice([5, 5])                   # a second early throw is refused, in the players' words
    # issue 15: "dice are not wanted now: the game is at 'move'"
    assert str(caught.value) == ("a throw is held already for Bob (dark) (6-6), while Ann (light)'s play is "
                                 "awaited: Ann (light) is to move the 3-1 thrown")
    assert "'" not in str(caught.value).split(":")[1]
    assert c.state()["awaiting"] == "Ann (light) is to move the 3-1 thrown"
    assert c.state()["undo"] == "the roll for the start (Ann (light) threw 3, Bob (dark) 1)"
