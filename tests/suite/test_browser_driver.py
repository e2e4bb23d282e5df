"""The browser consent driver (the system Chromium) against the bundled server."""

from __future__ import annotations

import pytest

from tests.suite.consent_support import (
    driver_profile,
    driving,
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
    with driving(profile) as (service, driver):
        exercise(driver, service, profile)
