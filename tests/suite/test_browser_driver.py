"""The browser consent driver (the system Chromium) against the bundled server."""

from __future__ import annotations

import pytest

from steps.consent import make_driver
from steps.http import HttpLayer
from steps.service import Service
from tests.suite.consent_support import (
    driver_profile,
    exercise,
)
from tests.suite.target import Target
from tests.support.browser import required_chromium


@pytest.mark.browser
def test_the_browser_driver_gets_through_login_and_consent(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MB_OAUTH_CHROMIUM", required_chromium())
    profile = driver_profile(target, "browser")
    http = HttpLayer(profile.ca_file)
    driver = make_driver(profile, http)
    try:
        exercise(driver, Service(profile, http), profile)
    finally:
        driver.close()
