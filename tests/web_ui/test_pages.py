"""The pages: they render, carry the SVG container and the CSRF meta tag,
send the security headers, escape what players typed, and run no inline script."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from willughby.web_ui import create_app
from willughby.web_ui.security import CONTENT_SECURITY_POLICY

from .conftest import SECRET, Post, log_in
from .fakes import START_BOARD, FakeCompanion

EVIL = '<script>alert("x")</script>'


def _csrf_meta(html: str) -> str:
    found = re.search(r'<meta name="csrf-token" content="([^"]*)">', html)
    assert found, "no csrf meta tag"
    return found.group(1)


def _played(post: Post) -> None:
    post("/api/dice", {"dice": [6, 3]})
    post("/api/board", {"board": START_BOARD})


@pytest.mark.parametrize("url, svg_id", [("/", "board"), ("/games/g-1", "board"), ("/calibrate", "camera-overlay")])
def test_pages_render_with_their_svg(client: FlaskClient, url: str, svg_id: str) -> None:
    response = client.get(url)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert f'<svg id="{svg_id}"' in html
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html


def test_the_calibration_page_can_ask_the_players_which_corner_is_c1(client: FlaskClient) -> None:
    html = client.get("/calibrate").get_data(as_text=True)
    block = html[html.index('id="confirm-c1"'):]
    block = block[:block.index("</div>\n  </div>")]
    assert "order of the corners is unknown" in block
    assert [f'data-c1="{i}"' in block for i in range(4)] == [True] * 4


def test_dispute_page_shows_both_boards_the_ruling_and_the_source(post: Post, client: FlaskClient) -> None:
    _played(post)
    html = client.get("/dispute/1").get_data(as_text=True)
    assert '<svg id="board-before"' in html and '<svg id="board-after"' in html
    assert "Legal: 8/5 6/5" in html
    assert "<blockquote>Play all you can.</blockquote>" in html
    assert 'data-index="0">8/5 6/5</button>' in html


def test_games_page_lists_the_games(client: FlaskClient) -> None:
    html = client.get("/games").get_data(as_text=True)
    assert '<a href="/games/g-1">2025-03-01 20:15</a>' in html
    assert "<td>Ann</td>" in html
    # the game in progress is marked so, not called "unfinished"
    assert '<tr class="in-progress">' in html and "<strong>in progress</strong>" in html
    assert "<td>unfinished</td>" not in html


def test_a_game_left_for_another_is_unfinished_and_the_new_one_in_progress(
        client: FlaskClient, companion: FakeCompanion) -> None:
    companion.new_game("backgammon", {}, {"light": "Cat", "dark": "Dan"}, who="test")
    html = client.get("/games").get_data(as_text=True)
    rows = re.findall(r"<tr(?: class=\"in-progress\")?>.*?</tr>", html, re.S)
    marked = [r for r in rows if 'class="in-progress"' in r]
    assert len(marked) == 1 and "Cat" in marked[0]
    assert any("Ann" in r and "<td>unfinished</td>" in r for r in rows)


def test_game_page_links_the_exports(client: FlaskClient) -> None:
    html = client.get("/games/g-1").get_data(as_text=True)
    assert 'href="/api/games/g-1/export.json"' in html and 'href="/api/games/g-1/export.mat"' in html


def test_an_unknown_game_page_is_a_404_page(client: FlaskClient) -> None:
    response = client.get("/games/g-404")
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert "no game &#39;g-404&#39;" in response.get_data(as_text=True)


def test_an_unknown_dispute_page_is_a_404_page(client: FlaskClient) -> None:
    response = client.get("/dispute/5")
    assert response.status_code == 404
    assert "no turn 5" in response.get_data(as_text=True)


def test_the_csrf_meta_tag_is_empty_before_login(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert _csrf_meta(html) == ""
    assert '<body class="logged-out">' in html


@pytest.mark.parametrize("url", ["/", "/games", "/games/g-1", "/calibrate"])
def test_after_login_the_page_carries_the_token(client: FlaskClient, url: str) -> None:
    token = log_in(client)
    html = client.get(url).get_data(as_text=True)
    assert _csrf_meta(html) == token
    assert '<body class="logged-in">' in html


def test_board_page_offers_the_presets_and_controls_after_login(client: FlaskClient) -> None:
    log_in(client)
    html = client.get("/").get_data(as_text=True)
    assert '<option value="backgammon-cotton">Backgammon (Cotton)</option>' in html
    assert 'id="dice-form"' in html and 'id="board-editor"' in html


def test_a_read_only_page_has_no_controls() -> None:
    html = create_app(None, FakeCompanion()).test_client().get("/").get_data(as_text=True)
    assert 'id="controls"' not in html and 'id="login-form"' not in html


@pytest.mark.parametrize("url", ["/", "/games", "/api/state", "/api/nothing", "/static/board.js", "/nothing"])
def test_security_headers_on_every_response(client: FlaskClient, url: str) -> None:
    headers = client.get(url).headers
    assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["X-Frame-Options"] == "DENY"


def test_the_policy_allows_only_the_page_itself() -> None:
    assert "'self'" in CONTENT_SECURITY_POLICY
    assert "unsafe" not in CONTENT_SECURITY_POLICY and "http" not in CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY


def _pages(client: FlaskClient, post: Post) -> list[str]:
    _played(post)
    return [client.get(url).get_data(as_text=True) for url in ("/", "/games", "/games/g-1", "/dispute/1",
                                                               "/calibrate", "/games/nope")]


def test_no_page_runs_an_inline_script(client: FlaskClient, post: Post) -> None:
    for html in _pages(client, post):
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert 'src="/static/' in tag or 'type="application/json"' in tag, tag
        assert not re.search(r"\son[a-z]+\s*=", html), "an inline event handler"
        assert "style=" not in html


def test_every_script_and_stylesheet_is_served_from_static(client: FlaskClient, post: Post) -> None:
    for html in _pages(client, post):
        for path in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
            assert client.get(path).status_code == 200, path


def test_a_players_name_is_escaped_everywhere(client: FlaskClient, companion: FakeCompanion) -> None:
    token = log_in(client, name=EVIL[:40])
    client.post("/api/game", json={"preset": "backgammon", "players": {"light": EVIL[:40], "dark": EVIL[:40]}},
                headers={"X-CSRF-Token": token})
    client.post("/api/dice", json={"dice": [6, 3]}, headers={"X-CSRF-Token": token})
    client.post("/api/board", json={"board": START_BOARD}, headers={"X-CSRF-Token": token})
    for url in ("/", "/games", "/games/g-2", "/dispute/1"):
        html = client.get(url).get_data(as_text=True)
        assert "<script>alert" not in html, url
    assert "&lt;script&gt;alert" in client.get("/games").get_data(as_text=True)
    assert "&lt;script&gt;alert" in client.get("/").get_data(as_text=True)  # the name in the header


def test_json_in_a_page_cannot_close_its_script_block(client: FlaskClient, companion: FakeCompanion) -> None:
    companion._games["g-1"]["players"]["dark"] = "</script><script>alert(1)</script>"
    html = client.get("/games/g-1").get_data(as_text=True)
    block = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert block and "<" not in block.group(1)
    assert "\\u003c/script\\u003e" in block.group(1)


def test_the_page_title_is_the_configured_one() -> None:
    app = create_app({"pin": "1", "secret_key": SECRET, "title": "Tables <at> home"}, FakeCompanion())
    html = app.test_client().get("/").get_data(as_text=True)
    assert "<title>Tables &lt;at&gt; home</title>" in html


class _BrokenGames(FakeCompanion):
    def games(self) -> list[dict[str, object]]:
        raise ZeroDivisionError("a fault in the store")


def test_a_fault_on_a_page_is_a_plain_500_page() -> None:
    client = create_app({"pin": "1", "secret_key": SECRET}, _BrokenGames()).test_client()
    response = client.get("/games")
    assert response.status_code == 500
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert "the server failed" in html and "ZeroDivision" not in html and "Traceback" not in html


def test_the_board_page_carries_the_state_so_it_is_drawn_before_the_stream_answers(
        client: FlaskClient, companion: FakeCompanion) -> None:
    html = client.get("/").get_data(as_text=True)
    block = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert block is not None
    import json

    served = json.loads(block.group(1))
    assert served == companion.state()             # the present state, in the first response
    assert served["board"] is not None


def test_the_board_page_served_at_the_roll_for_the_start_hides_the_cube_buttons(
        client: FlaskClient, companion: FakeCompanion) -> None:
    assert companion.state()["phase"] == "start"
    html = client.get("/").get_data(as_text=True)
    assert '<span class="cube-buttons" id="cube-buttons" hidden>' in html
    companion.enter_dice([3, 1], who="test")
    html = client.get("/").get_data(as_text=True)
    assert '<span class="cube-buttons" id="cube-buttons">' in html


def test_the_games_page_and_a_games_page_name_the_game_played(client: FlaskClient, companion: FakeCompanion) -> None:
    companion.new_game("irish", {}, {"light": "Cat", "dark": "Dan"}, who="test")
    html = client.get("/games").get_data(as_text=True)
    # the preset's name, as the new-game form offers it, not its id
    assert "<td>Irish</td>" in html and "<td>Backgammon</td>" in html
    assert "<td>irish</td>" not in html and "<td>backgammon</td>" not in html
    html = client.get("/games/g-1").get_data(as_text=True)
    assert '<p class="subtle">Backgammon · g-1 ·' in html
