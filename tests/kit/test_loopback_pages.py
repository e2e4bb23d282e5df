"""The application's own page, or its URL, after the loopback login."""

from __future__ import annotations

import http.client
from urllib.parse import urlsplit

import pytest

from client_kit import LoopbackPages, Session, _errors
from tests.kit.helpers import CLIENT_ID, CLIENT_SECRET, FakeUI, query, redirect_with
from tests.kit.test_login import server  # noqa: F401 - the recording token endpoint


def raw_get(url: str) -> tuple[int, dict[str, str], str]:
    """A GET that does not follow redirects (urllib would)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        connection.request("GET", f"{parts.path}?{parts.query}")
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


def login_with(pages, store, profile, **params: str):
    """Log in while a 'browser' records what the listener answered it: (answer, error)."""
    answers: list[tuple[int, dict[str, str], str]] = []

    def browser(url: str) -> None:
        answers.append(raw_get(redirect_with(url, state=query(url)["state"], **params)))

    session = Session(profile, CLIENT_ID, CLIENT_SECRET, store=store, ui=FakeUI(browser=browser))
    error = None
    try:
        session.login(["profile"], timeout=30, pages=pages)
    except _errors.KitError as exc:
        error = exc
    return answers[0], error, session


def test_the_applications_own_success_page(mb_profile, memory_store, server) -> None:  # noqa: F811
    page = "<!doctype html><title>MyApp</title><h1>Welcome to MyApp, you may close this</h1>"
    pages = LoopbackPages(success_html=page)
    (status, headers, body), error, _ = login_with(pages, memory_store, mb_profile, code="C")
    assert error is None and status == 200 and body == page
    assert headers["Cache-Control"] == "no-store"


def test_a_redirect_to_the_applications_url(mb_profile, memory_store, server) -> None:  # noqa: F811
    pages = LoopbackPages(success_url="https://myapp.example/welcome")
    (status, headers, _), error, session = login_with(pages, memory_store, mb_profile, code="C")
    assert status == 303 and headers["Location"] == "https://myapp.example/welcome"
    assert error is None and memory_store.load(session.key) is not None


def test_the_applications_failure_page_and_url(mb_profile, memory_store, server) -> None:  # noqa: F811
    pages = LoopbackPages(failure_html="<p>MyApp: no access</p>", success_html="<p>yes</p>")
    (status, _, body), error, _ = login_with(pages, memory_store, mb_profile, error="access_denied")
    assert isinstance(error, _errors.AccessDenied) and body == "<p>MyApp: no access</p>"
    pages = LoopbackPages(failure_url="https://myapp.example/sorry")
    (status, headers, _), error, _ = login_with(pages, memory_store, mb_profile, error="x")
    assert isinstance(error, _errors.AuthorizationError)
    assert status == 303 and headers["Location"] == "https://myapp.example/sorry"


def test_pages_are_checked() -> None:
    with pytest.raises(_errors.ConfigurationError, match="not both"):
        LoopbackPages(success_html="<p>x</p>", success_url="https://x.example/")
    with pytest.raises(_errors.ConfigurationError, match="http"):
        LoopbackPages(success_url="javascript:alert(1)")
