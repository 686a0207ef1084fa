"""The live events: the whole state on connect, one event per change,
keepalives in between, and the subscription closed when the client goes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from willughby.web_ui import WebConfig, create_app
from willughby.web_ui.events import format_event, watcher_gate

from .conftest import PIN, SECRET, log_in
from .fakes import FakeCompanion


def _open(client: FlaskClient) -> tuple[TestResponse, Iterator[bytes]]:
    response = client.get("/api/events")
    return response, iter(response.response)


def _parse(chunk: bytes) -> dict[str, Any]:
    """One event's fields; ``data`` decoded from JSON."""
    text = chunk.decode("utf-8")
    assert text.endswith("\n\n")
    fields: dict[str, Any] = {}
    for line in text.strip("\n").split("\n"):
        name, _, value = line.partition(": ")
        fields[name] = value
    fields["data"] = json.loads(fields["data"])
    return fields


def _next_event(chunks: Iterator[bytes]) -> dict[str, Any]:
    """The next event, skipping keepalives."""
    for chunk in chunks:
        if not chunk.startswith(b":"):
            return _parse(chunk)
    raise AssertionError("the stream ended")


def test_headers(client: FlaskClient) -> None:
    response = client.get("/api/events")
    try:
        assert response.mimetype == "text/event-stream"
        assert response.headers["Cache-Control"] == "no-cache"
        assert response.headers["X-Accel-Buffering"] == "no"
    finally:
        response.close()


def test_the_first_event_is_the_whole_state(client: FlaskClient, companion: FakeCompanion) -> None:
    response, chunks = _open(client)
    try:
        event = _parse(next(chunks))
        assert event["event"] == "state"
        assert event["data"] == companion.state()
        assert event["id"] == str(companion.state()["version"])
        assert event["retry"] == "3000"
    finally:
        response.close()


def test_each_change_is_one_event(client: FlaskClient, companion: FakeCompanion) -> None:
    response, chunks = _open(client)
    try:
        first = _parse(next(chunks))
        companion.announce("light hits the blot on dark's 5 point", "hit")
        second = _next_event(chunks)
        assert second["event"] == "state"
        assert int(second["id"]) == int(first["id"]) + 1
        assert second["data"]["announcements"][-1]["text"] == "light hits the blot on dark's 5 point"
        assert "retry" not in second
    finally:
        response.close()


def test_a_keepalive_comes_when_nothing_changes(client: FlaskClient) -> None:
    response, chunks = _open(client)
    try:
        next(chunks)
        assert next(chunks) == b": keepalive\n\n"  # the test's keepalive is 0.05 s
    finally:
        response.close()


def test_the_subscription_closes_when_the_client_goes(client: FlaskClient, companion: FakeCompanion) -> None:
    response, chunks = _open(client)
    next(chunks)
    assert len(companion.subscriptions) == 1
    subscription = companion.subscriptions[0]
    response.close()
    assert subscription.closed
    assert companion.subscriptions == []


def test_each_client_has_its_own_subscription(client: FlaskClient, companion: FakeCompanion) -> None:
    first, first_chunks = _open(client)
    second, second_chunks = _open(client)
    try:
        next(first_chunks)
        next(second_chunks)
        assert len(companion.subscriptions) == 2
        companion.announce("dark enters", "enter")
        assert _next_event(first_chunks)["data"]["version"] == _next_event(second_chunks)["data"]["version"]
    finally:
        first.close()
        second.close()
    assert companion.subscriptions == []


def test_a_control_reaches_the_stream(client: FlaskClient, companion: FakeCompanion) -> None:
    response, chunks = _open(client)
    try:
        next(chunks)
        token = log_in(client)
        client.post("/api/dice", json={"dice": [4, 4]}, headers={"X-CSRF-Token": token})
        assert _next_event(chunks)["data"]["dice"] == [4, 4]
    finally:
        response.close()


def test_an_event_is_one_data_line_even_with_newlines_in_text() -> None:
    text = format_event({"version": 3, "announcements": [{"text": "line one\nline two"}]})
    lines = text.split("\n")
    assert lines[:2] == ["id: 3", "event: state"]
    assert lines[2].startswith("data: ") and lines[3:] == ["", ""]
    assert json.loads(lines[2][6:])["announcements"][0]["text"] == "line one\nline two"


def test_an_event_without_a_version_has_no_id() -> None:
    assert not format_event({"phase": "start"}).startswith("id:")


def test_one_watcher_more_than_the_limit_is_refused_politely(companion: FakeCompanion) -> None:
    app = create_app(WebConfig(pin=PIN, secret_key=SECRET, events_keepalive_s=0.05, max_watchers=2), companion)
    client = app.test_client()
    first, first_chunks = _open(client)
    second, second_chunks = _open(client)
    try:
        next(first_chunks)
        next(second_chunks)
        refused = client.get("/api/events")
        assert refused.status_code == 503
        assert refused.headers["Retry-After"] == "30"
        assert refused.json == {"error": "2 pages are following the game already, the most this table allows: "
                                         "try again in a while"}
        assert refused.headers["X-Frame-Options"] == "DENY"  # the page's headers, as on every answer
        assert len(companion.subscriptions) == 2
        assert client.get("/api/state").status_code == 200  # the players are not watchers
    finally:
        first.close()
    again, again_chunks = _open(client)  # the place the first one left
    try:
        assert again.status_code == 200 and _parse(next(again_chunks))["event"] == "state"
    finally:
        again.close()
        second.close()
    assert watcher_gate(app).count == 0


def test_a_stream_never_read_gives_its_place_back(app: Flask) -> None:
    client = app.test_client()
    response = client.get("/api/events")
    assert watcher_gate(app).count == 1
    response.close()
    assert watcher_gate(app).count == 0

