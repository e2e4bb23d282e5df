"""The user of the kit's tests: the suite's own `form` consent driver, logged in as a test user.

Kit tests only need "log in, then approve or deny" on the bundled server's pages, which is what
the product's driver does (`steps.consent.form`); this module only adapts its outcome to what
the tests hand on: the address the browser is sent to, or the out-of-band page's outcome.
"""

from __future__ import annotations

from steps.consent.base import RedirectResult
from steps.consent.form import FormDriver as ConsentFormDriver
from steps.consent.presets import BUNDLED
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile, User


class FormDriver:
    """Follows an authorization URL as `username` until the service sends the browser away."""

    def __init__(self, base_url: str, ca_file: str, username: str, password: str) -> None:
        self.profile = TargetProfile(
            name="kit-tests",
            base_url=base_url,
            user=User(username, password),
            clients={},
            ca_file=ca_file,
        )

    def authorize(self, url: str, decision: str = "approve") -> str | RedirectResult:
        """The redirect target outside the service, or the out-of-band page's outcome (its
        `url` and `code`: what a user pastes)."""
        http = HttpLayer(self.profile.ca_file)
        driver = ConsentFormDriver(self.profile, http, BUNDLED)
        try:
            outcome = driver.approve(url) if decision == "approve" else driver.deny(url)
        finally:
            driver.close()
            http.close()
        if not isinstance(outcome, RedirectResult) or outcome.url is None:
            raise AssertionError(f"the service did not send the browser on: {outcome}")
        return outcome if outcome.oob else outcome.url


def oob_code(outcome: str | RedirectResult) -> str:
    """The code the out-of-band page shows."""
    assert isinstance(outcome, RedirectResult) and outcome.oob and outcome.code, outcome
    return outcome.code
