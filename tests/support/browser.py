"""The system Chromium under Playwright: skipped where it is missing, unless CI requires it.

The flags and the executable come from the suite's browser driver, the one place that knows
how to start Chromium on these machines.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from steps.consent.browser import CHROMIUM_ARGS, chromium_path


def required_chromium() -> str:
    """The system Chromium, never a downloaded one; fail or skip when it is absent."""
    path = chromium_path()
    if Path(path).exists():
        return path
    reason = f"the system Chromium is not installed at {path} (apt-get install chromium)"
    if os.environ.get("MB_OAUTH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"MB_OAUTH_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)
    raise AssertionError  # unreachable: skip raises


@contextmanager
def chromium() -> Iterator[object]:
    """A browser instance; HTTPS stays real, the local CA is simply accepted by each context."""
    executable = required_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def chromium_page() -> Iterator[object]:
    """A fresh page in a fresh profile."""
    with chromium() as browser:
        context = browser.new_context(ignore_https_errors=True)
        try:
            yield context.new_page()
        finally:
            context.close()
