"""Fixtures for the page's tests: a fake companion, the app around it, and
clients logged out and logged in."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from willughby.web_ui import WebConfig, create_app

from .fakes import FakeCompanion

PIN = "2468"
SECRET = b"a test secret of thirty-two byte"


@pytest.fixture
def companion() -> FakeCompanion:
    return FakeCompanion()


@pytest.fixture
def config() -> WebConfig:
    return WebConfig(pin=PIN, secret_key=SECRET, events_keepalive_s=0.05)


@pytest.fixture
def app(config: WebConfig, companion: FakeCompanion) -> Flask:
    return create_app(config, companion)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def log_in(client: FlaskClient, name: str | None = "Ann", pin: str = PIN) -> str:
    """Log *client* in; returns its CSRF token."""
    body: dict[str, Any] = {"pin": pin}
    if name is not None:
        body["name"] = name
    response = client.post("/api/login", json=body)
    assert response.status_code == 200, response.json
    token: str = response.json["csrf"]
    return token


Post = Callable[..., TestResponse]


@pytest.fixture
def post(client: FlaskClient) -> Post:
    """POST JSON as a logged-in page does: ``post(url, body)`` with the token."""
    token = log_in(client)

    def send(url: str, body: Any = None, headers: dict[str, str] | None = None) -> TestResponse:
        return client.post(url, json={} if body is None else body,
                           headers={"X-CSRF-Token": token, **(headers or {})})
    return send
