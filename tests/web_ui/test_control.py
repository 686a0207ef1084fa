"""The controls: each needs the PIN, the CSRF token, a same-site JSON request
and a well-formed body, and then does what it says."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask, request
from flask.testing import FlaskClient

from .conftest import Post, log_in
from .fakes import START_BOARD, FakeCompanion, FakeNotNow

GOOD_CORNERS = [[10, 10], [630, 12.5], [628, 470], [8, 468]]

#: a well-formed body for every control endpoint
CONTROLS: list[tuple[str, dict[str, Any]]] = [
    ("/api/game", {"preset": "irish", "options": {}, "players": {"light": "Cy", "dark": "Di"}}),
    ("/api/dice", {"dice": [6, 3]}),
    ("/api/board", {"board": START_BOARD}),
    ("/api/answer", {"question": "q-1", "choice": 0}),
    ("/api/undo", {}),
    ("/api/cube", {"action": "double"}),
    ("/api/calibrate", {"corners": GOOD_CORNERS}),
]


# -- who may ------------------------------------------------------------------

@pytest.mark.parametrize("url, body", CONTROLS)
def test_control_needs_the_login(client: FlaskClient, companion: FakeCompanion, url: str,
                                 body: dict[str, Any]) -> None:
    response = client.post(url, json=body, headers={"X-CSRF-Token": "anything"})
    assert response.status_code == 403
    assert response.json == {"error": "log in with the PIN first"}
    assert companion.calls == []


@pytest.mark.parametrize("url, body", CONTROLS)
def test_control_needs_the_csrf_token(client: FlaskClient, companion: FakeCompanion, url: str,
                                      body: dict[str, Any]) -> None:
    log_in(client)
    response = client.post(url, json=body)
    assert response.status_code == 403
    assert "X-CSRF-Token" in response.json["error"] and "missing" in response.json["error"]
    assert companion.calls == []


@pytest.mark.parametrize("url, body", CONTROLS)
def test_a_wrong_csrf_token_is_refused(client: FlaskClient, companion: FakeCompanion, url: str,
                                       body: dict[str, Any]) -> None:
    token = log_in(client)
    response = client.post(url, json=body, headers={"X-CSRF-Token": token + "0"})
    assert response.status_code == 403
    assert "wrong" in response.json["error"]
    assert companion.calls == []


def test_another_sessions_token_is_refused(client: FlaskClient, app: Flask, companion: FakeCompanion) -> None:
    other = app.test_client()
    other_token = log_in(other)
    log_in(client)
    response = client.post("/api/dice", json={"dice": [6, 3]}, headers={"X-CSRF-Token": other_token})
    assert response.status_code == 403
    assert companion.calls == []


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://localhost:8081"])
def test_a_cross_site_origin_is_refused(post: Post, companion: FakeCompanion, origin: str) -> None:
    response = post("/api/dice", {"dice": [6, 3]}, headers={"Origin": origin})
    assert response.status_code == 403
    assert response.json == {"error": "requests from another site are refused"}
    assert companion.calls == []


def test_a_cross_site_fetch_is_refused_without_origin(post: Post) -> None:
    assert post("/api/dice", {"dice": [6, 3]}, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403


def test_a_cross_site_login_is_refused(client: FlaskClient) -> None:
    response = client.post("/api/login", json={"pin": "2468"}, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403


def test_the_pages_own_origin_is_accepted(post: Post) -> None:
    response = post("/api/dice", {"dice": [6, 3]}, headers={"Origin": "http://localhost"})
    assert response.status_code == 200


def test_a_form_post_is_415(client: FlaskClient, companion: FakeCompanion) -> None:
    token = log_in(client)
    response = client.post("/api/dice", data={"dice": "63"}, headers={"X-CSRF-Token": token})
    assert response.status_code == 415
    assert response.json == {"error": "send the body as JSON (Content-Type: application/json)"}
    assert companion.calls == []


def test_malformed_json_is_400(client: FlaskClient) -> None:
    token = log_in(client)
    response = client.post("/api/dice", data="{dice: [6,", content_type="application/json",
                           headers={"X-CSRF-Token": token})
    assert response.status_code == 400
    assert response.json == {"error": "the body is not valid JSON"}


@pytest.mark.parametrize("depth", [40, 100_000])
def test_a_nesting_bomb_is_400_in_one_line(client: FlaskClient, companion: FakeCompanion, depth: int) -> None:
    """It used to end in a 500 and a traceback in the log, at the login as at any control."""
    bomb = '{"pin": ' + "[" * depth + "]" * depth + "}"
    response = client.post("/api/login", data=bomb, content_type="application/json")
    assert response.status_code == 400 and response.json == {"error": "the body nests deeper than 32 levels"}
    token = log_in(client)
    response = client.post("/api/board", data=bomb.replace("pin", "board"), content_type="application/json",
                           headers={"X-CSRF-Token": token})
    assert response.status_code == 400 and response.json == {"error": "the body nests deeper than 32 levels"}
    assert not [c for c in companion.calls if c[0] == "submit_board"]


def test_a_body_that_is_not_an_object_is_400(post: Post) -> None:
    response = post("/api/dice", [6, 3])
    assert response.status_code == 400
    assert "JSON object" in response.json["error"]


def test_an_empty_json_body_counts_as_an_empty_object(client: FlaskClient, companion: FakeCompanion) -> None:
    token = log_in(client)
    response = client.post("/api/undo", data="", content_type="application/json", headers={"X-CSRF-Token": token})
    assert response.status_code == 409  # reached the companion: there is no turn to take back
    assert companion.calls == [("undo", ("Ann",))]


def test_too_large_a_body_is_413(post: Post) -> None:
    response = post("/api/board", {"board": {"padding": "x" * 300_000}})
    assert response.status_code == 413
    assert response.json["error"] == "the request body is larger than 256 KiB, the most taken"


def test_too_large_a_body_for_a_page_is_413_on_a_page_naming_the_limit(app: Flask, client: FlaskClient) -> None:
    app.add_url_rule("/a-form", "a_form", lambda: str(len(request.get_data())), methods=["POST"])
    response = client.post("/a-form", data=b"x" * 300_000, content_type="application/octet-stream")
    assert response.status_code == 413 and response.mimetype == "text/html"
    assert "the request body is larger than 256 KiB, the most taken" in response.get_data(as_text=True)


# -- bad input, named ----------------------------------------------------------------

@pytest.mark.parametrize("url, body, named", [
    ("/api/game", {}, "'preset'"),
    ("/api/game", {"preset": 3}, "'preset'"),
    ("/api/game", {"preset": "irish", "options": ["cube=false"]}, "'options'"),
    ("/api/game", {"preset": "irish", "options": {"cube": [1]}}, "'cube'"),
    ("/api/game", {"preset": "irish", "players": "Ann"}, "'players'"),
    ("/api/game", {"preset": "irish", "players": {"white": "Ann"}}, "'white'"),
    ("/api/game", {"preset": "irish", "players": {"light": 5}}, "'players.light'"),
    ("/api/dice", {}, "'dice'"),
    ("/api/dice", {"dice": "63"}, "'dice'"),
    ("/api/dice", {"dice": [6, 3.0]}, "'dice'"),
    ("/api/dice", {"dice": [6, True]}, "'dice'"),
    ("/api/dice", {"dice": [7, 1]}, "'dice'"),
    ("/api/dice", {"dice": []}, "'dice'"),
    ("/api/board", {"board": "start"}, "'board'"),
    ("/api/board", {}, "'board'"),
    ("/api/answer", {"choice": 0}, "'question'"),
    ("/api/answer", {"question": "q-1", "choice": "0"}, "'choice'"),
    ("/api/answer", {"question": "q-1", "choice": -1}, "'choice'"),
    ("/api/answer", {"question": "q-1", "choice": False}, "'choice'"),
    ("/api/cube", {"action": "redouble"}, "'action'"),
    ("/api/cube", {}, "'action'"),
    ("/api/calibrate", {"corners": GOOD_CORNERS[:3]}, "'corners'"),
    ("/api/calibrate", {"corners": [[1, 2], [3, 4], [5, 6], [7]]}, "'corners'"),
    ("/api/calibrate", {"corners": [[1, 2], [3, 4], [5, 6], [7, "8"]]}, "'corners'"),
    ("/api/calibrate", {"corners": [[1, 2], [3, 4], [5, 6], [7, True]]}, "'corners'"),
    ("/api/calibrate", {"corners": "C1 C2 C3 C4"}, "'corners'"),
])
def test_bad_input_is_400_naming_the_field(post: Post, companion: FakeCompanion, url: str,
                                           body: dict[str, Any], named: str) -> None:
    response = post(url, body)
    assert response.status_code == 400
    assert named in response.json["error"]
    assert companion.calls == []


def test_corners_must_be_finite(client: FlaskClient, companion: FakeCompanion) -> None:
    token = log_in(client)
    body = '{"corners": [[1, 2], [3, 4], [5, 6], [7, NaN]]}'
    response = client.post("/api/calibrate", data=body, content_type="application/json",
                           headers={"X-CSRF-Token": token})
    assert response.status_code == 400
    assert "finite" in response.json["error"]
    assert companion.calls == []


# -- what each does -------------------------------------------------------------------

def test_new_game(post: Post, companion: FakeCompanion) -> None:
    response = post("/api/game", {"preset": " irish ", "options": {"cube": False},
                                  "players": {"light": " Cy ", "dark": "Di"}})
    assert response.status_code == 200
    assert response.json["game_id"] == "g-2" and response.json["players"] == {"light": "Cy", "dark": "Di"}
    assert companion.calls == [("new_game", ("irish", {"cube": "false"}, {"light": "Cy", "dark": "Di"}, "Ann"))]


def test_new_game_with_an_unknown_preset_is_400_in_the_companions_words(post: Post) -> None:
    response = post("/api/game", {"preset": "chess"})
    assert response.status_code == 400
    assert response.json == {"error": "unknown preset 'chess'"}


def test_dice(post: Post) -> None:
    response = post("/api/dice", {"dice": [6, 3]})
    assert response.status_code == 200
    assert (response.json["dice"], response.json["phase"]) == ([6, 3], "move")


def test_dice_the_game_cannot_take_are_400_from_the_companion(post: Post) -> None:
    response = post("/api/dice", {"dice": [6, 3, 2]})
    assert response.status_code == 400
    assert response.json == {"error": "two dice are thrown, not 3"}


def test_dice_at_the_wrong_step_are_409(post: Post) -> None:
    post("/api/dice", {"dice": [6, 3]})
    response = post("/api/dice", {"dice": [6, 3]})
    assert response.status_code == 409
    assert response.json == {"error": "not now: the game is at 'move'"}


def test_board_is_judged_as_the_move(post: Post, companion: FakeCompanion) -> None:
    post("/api/dice", {"dice": [6, 3]})
    response = post("/api/board", {"board": START_BOARD})
    assert response.status_code == 200
    assert response.json["last_play"]["play"] == "8/5 6/5"
    assert companion.calls[-1] == ("submit_board", (START_BOARD, "Ann"))


def test_a_bad_board_document_is_400_from_the_companion(post: Post) -> None:
    post("/api/dice", {"dice": [6, 3]})
    response = post("/api/board", {"board": {"format": "board/0"}})
    assert response.status_code == 400
    assert "format" in response.json["error"]


def test_answer(post: Post, companion: FakeCompanion) -> None:
    companion.ask_question("q-7")
    response = post("/api/answer", {"question": "q-7", "choice": 1})
    assert response.status_code == 200
    assert response.json["question"] is None
    assert companion.calls == [("answer", ("q-7", 1, "Ann"))]


def test_answering_no_open_question_is_404(post: Post) -> None:
    response = post("/api/answer", {"question": "q-9", "choice": 0})
    assert response.status_code == 404
    assert response.json == {"error": "no open question 'q-9'"}


def test_undo(post: Post) -> None:
    post("/api/dice", {"dice": [6, 3]})
    post("/api/board", {"board": START_BOARD})
    response = post("/api/undo")
    assert response.status_code == 200
    assert response.json["last_play"] is None and response.json["phase"] == "move"


def test_undo_with_nothing_to_undo_is_409(post: Post) -> None:
    response = post("/api/undo")
    assert response.status_code == 409
    assert response.json == {"error": "there is no turn to take back"}


def test_cube_double_then_take(post: Post) -> None:
    post("/api/dice", {"dice": [6, 3]})
    post("/api/board", {"board": START_BOARD})
    assert post("/api/cube", {"action": "double"}).json["cube"]["offered_by"] == "dark"
    cube = post("/api/cube", {"action": "take"}).json["cube"]
    assert (cube["value"], cube["owner"]) == (2, "light")


def test_cube_drop_ends_the_game(post: Post) -> None:
    post("/api/dice", {"dice": [6, 3]})
    post("/api/board", {"board": START_BOARD})
    post("/api/cube", {"action": "double"})
    assert post("/api/cube", {"action": "drop"}).json["game_over"] == {"winner": "dark", "kind": "single", "stake": 1}


def test_cube_at_the_wrong_step_is_409(post: Post) -> None:
    response = post("/api/cube", {"action": "take"})
    assert response.status_code == 409


def test_calibrate(post: Post, companion: FakeCompanion) -> None:
    response = post("/api/calibrate", {"corners": GOOD_CORNERS})
    assert response.status_code == 200
    assert companion.calibration == [[10.0, 10.0], [630.0, 12.5], [628.0, 470.0], [8.0, 468.0]]
    assert companion.calls[-1][1][1] == "Ann"
    assert companion.c1_confirmed is False                      # nobody said which corner is C1


def test_calibrate_hands_on_the_players_confirmation_of_c1(post: Post, companion: FakeCompanion) -> None:
    assert post("/api/calibrate", {"corners": GOOD_CORNERS, "c1_confirmed": True}).status_code == 200
    assert companion.c1_confirmed is True


def test_an_error_of_the_companion_carries_its_fields_into_the_answer(post: Post, companion: FakeCompanion,
                                                                      monkeypatch) -> None:
    class OrderNotKnown(FakeNotNow):
        fields = {"order_known": False, "error": "not this"}

    def refuse(corners, who, c1_confirmed=False):
        raise OrderNotKnown("the corners' order is unknown")

    monkeypatch.setattr(companion, "calibrate", refuse)
    response = post("/api/calibrate", {"corners": GOOD_CORNERS})
    assert response.status_code == 409
    assert response.json == {"error": "the corners' order is unknown", "order_known": False}


def test_a_match_is_started_with_its_length_and_the_crawford_rule(post: Post, companion: FakeCompanion) -> None:
    """POST /api/match: the length (1 to 64) and the Crawford rule (on unless said) reach the companion."""
    response = post("/api/match", {"length": 5, "preset": "backgammon", "players": {"light": "Ann", "dark": "Bob"}})
    assert response.status_code == 200 and response.json["match"]["length"] == 5
    made = [args for name, args in companion.calls if name == "new_match"]
    assert made[-1][:5] == (5, "backgammon", {}, {"light": "Ann", "dark": "Bob"}, True)
    assert post("/api/match", {"length": 3, "crawford": False}).status_code == 200
    assert [c for c in companion.calls if c[0] == "new_match"][-1][1][4] is False


@pytest.mark.parametrize("body", [{}, {"length": 0}, {"length": 65}, {"length": "5"}, {"length": True},
                                  {"length": 5, "crawford": "yes"}])
def test_a_match_of_no_length_or_a_bad_crawford_is_400(post: Post, body: dict) -> None:
    response = post("/api/match", body)
    assert response.status_code == 400 and ("'length'" in response.json["error"] or "crawford" in response.json["error"])


def test_the_next_game_of_a_match_not_over_is_409_and_new_game_may_abandon_a_match(post: Post,
                                                                                  companion: FakeCompanion) -> None:
    assert post("/api/match/next", {}).status_code == 409
    assert post("/api/game", {"preset": "backgammon", "abandon_match": True}).status_code == 200
    assert post("/api/game", {"preset": "backgammon", "abandon_match": "yes"}).status_code == 400


def test_a_match_with_a_clock_hands_its_terms_to_the_companion(post: Post, companion: FakeCompanion) -> None:
    """POST /api/match's ``clock``: its four fields reach the companion as given; a clock that is not an
    object, a field it has not, a reserve that is not a number, or one the companion refuses is 400."""
    terms = {"reserve_s": 600, "delay_s": 12, "mode": "bronstein", "on_flag": "announce"}
    assert post("/api/match", {"length": 5, "clock": terms}).status_code == 200
    assert [args for name, args in companion.calls if name == "clock"][-1] == (terms,)
    for bad, words in (("10 min", "'clock' must be an object"), ({"reserve": 600}, "not 'reserve'"),
                       ({"reserve_s": "600"}, "'clock.reserve_s' must be a number"),
                       ({"reserve_s": True}, "'clock.reserve_s' must be a number"),
                       ({"reserve_s": 600, "mode": 3}, "'clock.mode' must be a word"),
                       ({"reserve_s": 0}, "a reserve is 1 s to 24 hours")):
        response = post("/api/match", {"length": 5, "clock": bad})
        assert response.status_code == 400 and words in response.json["error"], (bad, response.json)


def test_the_pages_done_and_the_clocks_hold_reach_the_companion(post: Post, companion: FakeCompanion) -> None:
    """POST /api/done presses DONE as the box's button does; POST /api/clock holds the clock (409 where the
    game has none) and a hold that is not true or false is 400."""
    assert post("/api/done", {}).status_code == 200
    assert [args[0] for name, args in companion.calls if name == "press"] == ["done"]
    response = post("/api/clock", {"hold": True})
    assert response.status_code == 409 and "no clock" in response.json["error"]
    assert ("hold_clock", (True, companion.calls[-1][1][1])) == companion.calls[-1]
    assert post("/api/clock", {"hold": "yes"}).status_code == 400
