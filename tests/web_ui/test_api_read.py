"""Reading the game, the record and the camera: no PIN needed."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from willughby.engine.rules import PRESETS
from willughby.web_ui import create_app

from .conftest import SECRET, Post
from .fakes import FAKE_JPEG, FakeCompanion


def test_state_is_the_companions_state(client: FlaskClient, companion: FakeCompanion) -> None:
    response = client.get("/api/state")
    assert response.status_code == 200
    assert response.json == companion.state()


def test_api_answers_are_not_cached(client: FlaskClient) -> None:
    assert client.get("/api/state").headers["Cache-Control"] == "no-store"


def test_games_lists_the_stored_games(client: FlaskClient) -> None:
    games = client.get("/api/games").json["games"]
    assert [g["game_id"] for g in games] == ["g-1"]
    assert games[0]["players"] == {"light": "Ann", "dark": "Bob"}


def test_one_game(client: FlaskClient) -> None:
    game = client.get("/api/games/g-1").json
    assert game["game_id"] == "g-1" and game["turns"] == []


def test_an_unknown_game_is_404_with_the_companions_sentence(client: FlaskClient) -> None:
    response = client.get("/api/games/g-404")
    assert response.status_code == 404
    assert response.json == {"error": "no game 'g-404'"}


def test_export_json_is_an_attachment(client: FlaskClient) -> None:
    response = client.get("/api/games/g-1/export.json")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == 'attachment; filename="g-1.json"'
    assert response.json["game_id"] == "g-1"


def test_export_mat_is_a_text_attachment(client: FlaskClient) -> None:
    response = client.get("/api/games/g-1/export.mat")
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    assert response.headers["Content-Disposition"] == 'attachment; filename="g-1.mat"'
    assert "1 point match" in response.get_data(as_text=True)


def test_export_mat_of_a_game_that_is_not_backgammon_is_400(post: Post, client: FlaskClient) -> None:
    post("/api/game", {"preset": "irish"})
    response = client.get("/api/games/g-2/export.mat")
    assert response.status_code == 400
    assert "only backgammon" in response.json["error"]


def test_export_of_an_unknown_game_is_404(client: FlaskClient) -> None:
    assert client.get("/api/games/nope/export.json").status_code == 404
    assert client.get("/api/games/nope/export.mat").status_code == 404


def test_attachment_names_are_made_safe(client: FlaskClient, companion: FakeCompanion) -> None:
    companion._games['a"b\r\nc'] = {**companion.game("g-1"), "game_id": 'a"b\r\nc'}
    response = client.get('/api/games/a"b%0D%0Ac/export.json')
    assert response.headers["Content-Disposition"] == 'attachment; filename="a_b__c.json"'


def test_dispute_of_a_played_turn(post: Post, client: FlaskClient) -> None:
    post("/api/dice", {"dice": [6, 3]})
    post("/api/board", {"board": client.get("/api/state").json["board"]})
    dispute = client.get("/api/dispute/1").json
    assert dispute["turn"] == 1 and dispute["ruling"]["verdict"] == "legal"
    assert dispute["legal_plays"][0]["play"] == "8/5 6/5"


def test_dispute_of_an_unplayed_turn_is_404(client: FlaskClient) -> None:
    response = client.get("/api/dispute/9")
    assert response.status_code == 404
    assert response.json["error"] == "no turn 9 in the game in progress"


def test_dispute_turn_must_be_a_number(client: FlaskClient) -> None:
    response = client.get("/api/dispute/first")
    assert response.status_code == 404
    assert "error" in response.json


def test_presets_fall_back_to_the_engines_list(client: FlaskClient) -> None:
    presets = client.get("/api/presets").json["presets"]
    assert [p["id"] for p in presets] == [p.id for p in PRESETS.values()]     # every game, the counting one too
    assert presets[0] == {"id": "irish", "name": "Irish"}
    assert {"id": "sice-ace", "name": "Sice-Ace"} in presets


class _ListingCompanion(FakeCompanion):
    def presets(self) -> dict[str, Any]:
        return {"presets": [{"id": "irish", "name": "Irish", "options": {}}, "doublets"]}


def test_presets_come_from_the_companion_where_it_lists_them() -> None:
    client = create_app({"pin": "1", "secret_key": SECRET}, _ListingCompanion()).test_client()
    assert client.get("/api/presets").json == {"presets": [{"id": "irish", "name": "Irish"},
                                                           {"id": "doublets", "name": "doublets"}]}


def test_camera_image(client: FlaskClient) -> None:
    response = client.get("/api/camera.jpg")
    assert response.status_code == 200
    assert response.mimetype == "image/jpeg"
    assert response.data == FAKE_JPEG


def test_camera_corners(client: FlaskClient) -> None:
    assert client.get("/api/camera").json == {"corners": [[10, 10], [630, 12], [628, 470], [8, 468]],
                                              "size": [640, 480]}


def test_without_a_camera_both_are_404() -> None:
    client = create_app({"pin": "1", "secret_key": SECRET}, FakeCompanion(camera=False)).test_client()
    for url in ("/api/camera.jpg", "/api/camera"):
        response = client.get(url)
        assert response.status_code == 404
        assert response.json == {"error": "there is no camera"}


def test_an_unknown_api_address_is_json_404(client: FlaskClient) -> None:
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json == {"error": "there is nothing at this address"}


def test_a_wrong_method_is_json_405(client: FlaskClient) -> None:
    response = client.post("/api/state", json={})
    assert response.status_code == 405
    assert response.json == {"error": "this address does not take that method"}


class _BrokenCompanion(FakeCompanion):
    def state(self) -> dict[str, Any]:
        raise ZeroDivisionError("a fault in the companion")


def test_a_fault_is_a_json_500_without_a_traceback() -> None:
    client = create_app({"pin": "1", "secret_key": SECRET}, _BrokenCompanion()).test_client()
    response = client.get("/api/state")
    assert response.status_code == 500
    assert response.json == {"error": "the server failed; the fault is in its log"}
    assert b"Traceback" not in response.data and b"ZeroDivision" not in response.data


class _RecursingCompanion(FakeCompanion):
    def games(self) -> list[dict[str, Any]]:
        raise RecursionError("maximum recursion depth exceeded")


def test_a_recursion_error_is_a_fault_not_a_409() -> None:
    client = create_app({"pin": "1", "secret_key": SECRET}, _RecursingCompanion()).test_client()
    assert client.get("/api/games").status_code == 500


class _BuggyCompanion(FakeCompanion):
    def dispute(self, turn: int, attempt: int | None = None) -> dict[str, Any]:
        return {}["turn"]                                  # a programming error, not an answer


def test_an_undeclared_error_of_the_companion_is_a_logged_500_not_a_404(caplog) -> None:
    # issue 15: any LookupError became "404 'turn'" and nothing was logged
    client = create_app({"pin": "1", "secret_key": SECRET}, _BuggyCompanion()).test_client()
    with caplog.at_level("ERROR"):
        response = client.get("/api/dispute/1")
    assert response.status_code == 500
    assert response.json == {"error": "the server failed; the fault is in its log"}
    logged = [r for r in caplog.records if r.exc_info]
    assert logged and logged[0].exc_info[0] is KeyError       # with its traceback


def test_the_companions_declared_errors_keep_their_statuses() -> None:
    client = create_app({"pin": "1", "secret_key": SECRET}, FakeCompanion()).test_client()
    response = client.get("/api/dispute/7")
    assert response.status_code == 404 and "no turn 7" in response.json["error"]
    assert client.get("/api/dispute/1?attempt=x").status_code == 400
