"""The system Chromium under Playwright: skipped where it is missing, unless CI requires it
(MB_OAUTH_REQUIRE_BROWSER=1).

Every test that drives a browser is marked ``browser``; tests/conftest.py sends each such
test through :func:`required_chromium` before its fixtures start anything. The flags and
the executable come from the suite's browser driver, the one place that knows how to start
Chromium on these machines.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import pytest

from steps.consent.browser import CHROMIUM_ARGS, chromium_path


def required_chromium() -> str:
    """The system Chromium, never a downloaded one; fail or skip when it (or Playwright) is
    absent."""
    path = chromium_path()
    if not Path(path).exists():
        reason = f"the system Chromium is not installed at {path} (apt-get install chromium)"
    elif importlib.util.find_spec("playwright") is None:
        reason = "Playwright is not installed (pip install -e '.[browser]')"
    else:
        return path
    missing_browser_part(reason)
    raise AssertionError  # unreachable: the switch skips or fails


def missing_browser_part(reason: str) -> NoReturn:
    """Skip, or fail where CI requires the browser parts (MB_OAUTH_REQUIRE_BROWSER=1)."""
    if os.environ.get("MB_OAUTH_REQUIRE_BROWSER") == "1":
        pytest.fail(f"MB_OAUTH_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


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
