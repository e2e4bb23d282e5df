"""What the server's page tests in Chromium share: one browser per module, a fresh context
per test, and logging in through the form."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

import pytest

from tests.support.browser import chromium

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as running:
        yield cast("Browser", running)


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(ignore_https_errors=True)  # the local CA, TLS stays real
    context.set_default_timeout(15_000)  # a missing element fails in seconds, not minutes
    try:
        yield context.new_page()
    finally:
        context.close()


def log_in(page: Page, username: str, password: str) -> None:
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-form button[type=submit]")
