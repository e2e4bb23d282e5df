"""Evidence is recorded per scenario and redacted: secrets masked by name and by value."""

from __future__ import annotations

import json
import time
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from client_kit.redaction import Redactor, mask
from steps.http.evidence import Exchange, mask_body, mask_headers, mask_url
from steps.http.layer import HttpLayer, Pacer

TOKEN = "AbCdEfGhIjKlMnOpQrStUvWxYz012345"


def test_secret_query_parameters_are_masked_and_others_kept() -> None:
    url = f"https://client.example/cb?code={TOKEN}&state=keep%20me&access_token={TOKEN}"
    masked = mask_url(url, Redactor())
    assert TOKEN not in masked
    assert f"code={mask(TOKEN)}&state=keep+me" in masked


def test_a_masked_url_keeps_its_query_whole() -> None:
    """The mask is safe in a URL: the parameters after a masked one stay in the query."""
    url = f"https://client.example/cb?code={TOKEN}&state=s1"
    parts = urlsplit(mask_url(url, Redactor()))
    assert dict(parse_qsl(parts.query)) == {"code": mask(TOKEN), "state": "s1"}
    assert parts.fragment == ""


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (
            f"grant_type=refresh_token&refresh_token={TOKEN}&client_secret={TOKEN}",
            "application/x-www-form-urlencoded",
        ),
        (
            f"code_verifier={TOKEN}&password={TOKEN}&csrf_token={TOKEN}",
            "application/x-www-form-urlencoded",
        ),
        (
            json.dumps({"access_token": TOKEN, "nested": [{"refresh_token": TOKEN}]}),
            "application/json",
        ),
        (f'<form><input type="hidden" value="{TOKEN}" name="csrf_token"></form>', "text/html"),
    ],
)
def test_secret_fields_of_bodies_are_masked(body: str, content_type: str) -> None:
    masked = mask_body(body, content_type, Redactor())
    assert TOKEN not in masked
    assert mask(TOKEN) in masked


def test_credentials_and_cookies_in_headers_are_masked() -> None:
    headers = [
        ("Authorization", f"Bearer {TOKEN}"),
        ("Cookie", f"session={TOKEN}; theme=dark"),
        ("Set-Cookie", f"__Host-s={TOKEN}; Path=/; Secure"),
        ("Location", f"https://client.example/cb?code={TOKEN}"),
        ("Content-Type", "text/html"),
    ]
    masked = mask_headers(headers, Redactor())
    assert TOKEN not in json.dumps(masked)
    assert masked["Authorization"] == f"Bearer {mask(TOKEN)}"
    assert masked["Set-Cookie"].endswith("; Path=/; Secure")
    assert masked["Content-Type"] == "text/html"


def test_a_secret_seen_once_is_scrubbed_wherever_it_shows_up_again() -> None:
    exchange = Exchange(
        method="POST",
        url="https://svc/oauth2/token",
        request_headers=[("content-type", "application/x-www-form-urlencoded")],
        request_body=f"code={TOKEN}",
        status=200,
        response_headers=[("content-type", "text/plain")],
        response_body=f"your code was {TOKEN}",
    )
    redacted = json.dumps(exchange.redacted(Redactor()), ensure_ascii=False)
    assert TOKEN not in redacted
    assert f"your code was {mask(TOKEN)}" in redacted


def test_the_layer_learns_secrets_from_the_traffic_before_any_evidence_is_written() -> None:
    """No step registers a token: one met by name in a later answer (JSON), or in a page's
    CSRF input, is masked where an earlier exchange showed it without a name."""
    csrf = "CsRf-" + TOKEN[::-1]
    pages = iter(
        [
            httpx.Response(200, text=f"echo {TOKEN} and {csrf}"),
            httpx.Response(200, json={"access_token": TOKEN}),
            httpx.Response(200, html=f'<form><input name="csrf_token" value="{csrf}"></form>'),
        ]
    )
    layer = HttpLayer(None)
    layer.api = httpx.Client(transport=httpx.MockTransport(lambda _: next(pages)))
    layer.begin()
    for path in ("echo", "oauth2/token", "login"):
        layer.request("GET", f"https://svc/{path}")
    first, _, page = layer.evidence()
    assert first["response"]["body"] == f"echo {mask(TOKEN)} and {mask(csrf)}"
    assert csrf not in page["response"]["body"] and mask(csrf) in page["response"]["body"]


def test_the_reports_last_pass_knows_every_name_the_evidence_masks() -> None:
    from client_kit.redaction import SECRET_FIELDS
    from steps.reports.redact import last_pass

    for name in SECRET_FIELDS:
        assert TOKEN not in last_pass([]).redact(f"{name}={TOKEN}"), name
        assert TOKEN not in last_pass([]).redact(json.dumps({name: TOKEN})), name


def test_each_exchange_is_recorded_with_the_contract_shape() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, json={"access_token": TOKEN}, headers={"Cache-Control": "no-store"}
        )

    layer = HttpLayer(None)
    layer.api = httpx.Client(transport=httpx.MockTransport(answer))
    layer.begin()
    layer.request("POST", "https://svc/oauth2/token", data={"client_secret": TOKEN})
    layer.request("GET", "https://svc/_test/clock", record=False)
    [entry] = layer.evidence()
    assert set(entry) == {"request", "response"}
    assert set(entry["request"]) == {"method", "url", "headers", "body"}
    assert set(entry["response"]) == {"status", "headers", "body"}
    assert entry["response"]["status"] == 200
    assert TOKEN not in json.dumps(entry, ensure_ascii=False)


def test_the_pacer_keeps_the_minimum_interval_between_requests() -> None:
    pacer = Pacer(0.05)
    start = time.monotonic()
    for _ in range(3):
        pacer.wait()
    assert time.monotonic() - start >= 0.1
