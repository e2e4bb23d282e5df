"""The system Chromium under Playwright: skipped where it is missing, unless CI requires it."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """The system Chromium, never a downloaded one; fail or skip when it is absent."""
    path = os.environ.get("MB_OAUTH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if Path(path).exists():
        return path
    if os.environ.get("MB_OAUTH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"Chromium is required (MB_OAUTH_REQUIRE_BROWSER=1) but {path} is missing")
    pytest.skip("the system Chromium is not installed (apt-get install chromium)")
    raise AssertionError  # unreachable: skip raises


@contextmanager
def chromium_page() -> Iterator[object]:
    """A fresh page in a fresh profile; HTTPS is real, the local CA is simply accepted."""
    executable = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        context = browser.new_context(ignore_https_errors=True)
        try:
            yield context.new_page()
        finally:
            context.close()
            browser.close()
