"""The user of the kit's tests: the kit's own `client_kit.testing.BundledServerUser`.

Kit tests need "log in, then approve or deny" on the bundled server's pages, which is what the
kit offers applications' tests; this module only adapts its outcome to what the tests hand
on: the address the browser is sent to (not yet opened), or the out-of-band page's outcome.
"""

from __future__ import annotations

from client_kit.testing import BundledServerUser, ConsentOutcome


class FormDriver:
    """Follows an authorization URL as `username` until the service sends the browser away."""

    def __init__(self, base_url: str, ca_file: str, username: str, password: str) -> None:
        self.user = BundledServerUser(base_url, username, password, ca_bundle=ca_file)

    def authorize(self, url: str, decision: str = "approve") -> str | ConsentOutcome:
        """The redirect target outside the service, or the out-of-band page's outcome (its
        `redirect_url` and `code`: what a user pastes)."""
        answer = self.user.approve if decision == "approve" else self.user.deny
        outcome = answer(url, deliver=False)
        return outcome if outcome.oob else outcome.redirect_url


def oob_code(outcome: str | ConsentOutcome) -> str:
    """The code the out-of-band page shows."""
    assert isinstance(outcome, ConsentOutcome) and outcome.oob and outcome.code, outcome
    return outcome.code
