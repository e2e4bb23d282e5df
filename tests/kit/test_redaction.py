"""Secrets never reach log output, whoever logs them."""

from __future__ import annotations

import logging

import httpx
import pytest

from client_kit import redaction
from client_kit.redaction import redact
from tests.kit.helpers import CLIENT_SECRET, FakeUI, http_get, query, redirect_with, token_json


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("POST body grant_type=refresh_token&refresh_token=R3fr3sh&client_id=x", "R3fr3sh"),
        ("GET /callback?code=C0de123&state=St4te", "C0de123"),
        ("GET /callback?code=C0de123&state=St4te", "St4te"),
        ('{"access_token": "Acc3ss", "token_type": "Bearer"}', "Acc3ss"),
        ("headers [(b'Authorization', b'Bearer Acc3ssT0k3n')]", "Acc3ssT0k3n"),
        ("Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
        ("client_secret=S3cr3t&x=1", "S3cr3t"),
        ("code_verifier=V3rifier", "V3rifier"),
    ],
)
def test_patterns(text, secret) -> None:
    masked = redact(text)
    assert secret not in masked and redaction.MASK in masked


def test_registered_values_are_masked_anywhere() -> None:
    redaction.register("opaque-value-without-a-field-name")
    assert "opaque" not in redact("weird place: opaque-value-without-a-field-name!")
    assert redact("nothing secret here") == "nothing secret here"


@pytest.mark.parametrize(
    "logger_name",
    ["httpx", "httpcore.http11", "httpcore.connection", "client_kit.session", "hpack.hpack"],
)
def test_library_loggers_are_filtered_at_debug(logger_name, all_logs) -> None:
    redaction.install()
    logging.getLogger(logger_name).debug("sent %s", "Authorization: Bearer T0k3nV4lue")
    assert all_logs.lines and "T0k3nV4lue" not in all_logs.lines[-1]


def test_a_whole_mocked_login_leaves_no_secret_in_logs(session, mock, all_logs) -> None:
    logging.getLogger("httpx").setLevel(logging.DEBUG)
    mock.post("/oauth2/token").respond(200, json=token_json("Acc3ssT0k3nXYZ", "R3fr3shXYZ"))
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    session.ui = FakeUI(
        browser=lambda url: http_get(
            redirect_with(url, code="C0deXYZ123", state=query(url)["state"])
        )
    )
    session.login()
    session.refresh()
    with httpx.Client(auth=session.auth()) as http:
        http.get("https://mb.test/oauth2/userinfo")
    logging.getLogger("client_kit.refresh").debug("token was %s", "R3fr3shXYZ")
    text = "\n".join(all_logs.lines)
    assert "HTTP Request" in text
    for secret in ("Acc3ssT0k3nXYZ", "R3fr3shXYZ", "C0deXYZ123", CLIENT_SECRET):
        assert secret not in text
