"""The page's settings and the factory's arguments."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from willughby.web_ui import ConfigError, WebConfig, create_app

from .conftest import SECRET
from .fakes import FakeCompanion


def test_defaults() -> None:
    config = WebConfig(pin="1", secret_key=SECRET)
    assert (config.title, config.events_keepalive_s, config.trusted_hosts) == ("Willughby", 15.0, None)
    assert (config.login_attempts, config.login_lockout_s) == (5, 30.0)


def test_repr_keeps_the_pin_and_the_key_out_of_logs() -> None:
    text = repr(WebConfig(pin="97531", secret_key=SECRET))
    assert "97531" not in text and "secret" not in text


def test_a_string_secret_is_encoded() -> None:
    assert WebConfig(pin="1", secret_key="a secret of many letters").secret_key == b"a secret of many letters"


@pytest.mark.parametrize("changes, named", [
    ({"secret_key": b"short"}, "secret_key"),
    ({"pin": 1234}, "pin"),
    ({"events_keepalive_s": 0}, "events_keepalive_s"),
    ({"events_keepalive_s": float("nan")}, "events_keepalive_s"),
    ({"login_attempts": 0}, "login_attempts"),
    ({"login_lockout_s": -1}, "login_lockout_s"),
    ({"title": " "}, "title"),
    ({"trusted_hosts": []}, "trusted_hosts"),
])
def test_bad_settings_are_refused_by_name(changes: dict[str, object], named: str) -> None:
    settings: dict[str, object] = {"pin": "1", "secret_key": SECRET, **changes}
    with pytest.raises(ConfigError, match=named):
        WebConfig(**settings)  # type: ignore[arg-type]


def test_config_error_is_a_value_error() -> None:
    assert issubclass(ConfigError, ValueError)


def test_from_mapping_refuses_unknown_and_missing_settings() -> None:
    with pytest.raises(ConfigError, match="'colour'"):
        WebConfig.from_mapping({"pin": "1", "secret_key": SECRET, "colour": "red"})
    with pytest.raises(ConfigError, match="'secret_key'"):
        WebConfig.from_mapping({"pin": "1"})


def test_from_mapping_takes_a_host_list() -> None:
    config = WebConfig.from_mapping({"pin": "1", "secret_key": SECRET, "trusted_hosts": ["willughby.local"]})
    assert config.trusted_hosts == ("willughby.local",)


def test_create_app_takes_a_mapping() -> None:
    app = create_app({"pin": "1", "secret_key": SECRET, "title": "Tables"}, FakeCompanion())
    assert b"<title>Tables</title>" in app.test_client().get("/").data


def test_create_app_needs_the_companion() -> None:
    with pytest.raises(TypeError, match="companion"):
        create_app({"pin": "1", "secret_key": SECRET})


def test_without_a_config_the_page_is_read_only() -> None:
    client = create_app(None, FakeCompanion()).test_client()
    assert client.get("/api/state").status_code == 200
    response = client.post("/api/login", json={"pin": ""})
    assert response.status_code == 403
    assert "no PIN" in response.json["error"]
    assert b"Read-only" in client.get("/").data


def test_trusted_hosts_refuse_other_hosts() -> None:
    app = create_app(WebConfig(pin="1", secret_key=SECRET, trusted_hosts=("willughby.local",)), FakeCompanion())
    client = app.test_client()
    assert client.get("/api/state", base_url="http://willughby.local").status_code == 200
    response = client.get("/api/state", base_url="http://evil.example")
    assert response.status_code == 400
    assert response.json == {"error": "this host name is not served here"}
    page = client.get("/", base_url="http://evil.example")
    assert page.status_code == 400
    assert page.get_data(as_text=True) == "this host name is not served here\n"


def test_session_cookie_is_strict_and_http_only(client: FlaskClient) -> None:
    response = client.post("/api/login", json={"pin": "2468"})
    cookie = response.headers["Set-Cookie"]
    assert "SameSite=Strict" in cookie and "HttpOnly" in cookie
