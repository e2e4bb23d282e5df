"""Steps about clickjacking protection of the pages where the user logs in and decides
(feature: consent)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from pytest_bdd import then

from steps.consent import ConsentDriver, ServicePage
from steps.consent.base import redirect_target
from steps.http.layer import HttpLayer
from steps.outcomes import require
from steps.profiles.profile import TargetProfile
from steps.rules.ids import RULE
from steps.scenario.kinds import check
from steps.scenario.scene import AuthRequest, Scene
from steps.scenario.service import Service

#: Redirects followed from the authorization URL to the page a logged-out user sees.
MAX_REDIRECTS = 6


def forbids_framing(headers: dict[str, str]) -> bool:
    """X-Frame-Options DENY/SAMEORIGIN, or a CSP whose frame-ancestors allow no other site:
    'none' or 'self' alone (a source list that adds a host lets that host frame the page).
    Repeated fields arrive joined by commas (one CSP policy each)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    xfo = lowered.get("x-frame-options", "").strip().upper()
    policies = lowered.get("content-security-policy", "").split(",")
    return xfo in ("DENY", "SAMEORIGIN") or any(_closed_to_others(p) for p in policies)


def _closed_to_others(policy: str) -> bool:
    """Whether one CSP policy's frame-ancestors directive names only 'none' or 'self'."""
    for directive in policy.split(";"):
        words = directive.split()
        if words and words[0].lower() == "frame-ancestors":
            return {source.lower() for source in words[1:]} in ({"'none'"}, {"'self'"})
    return False


def framing_headers(headers: dict[str, str]) -> dict[str, str]:
    """Only the headers that speak of framing (never cookies: the message goes in reports)."""
    wanted = ("x-frame-options", "content-security-policy")
    return {k: v for k, v in headers.items() if k.lower() in wanted}


@then("the consent page forbids framing")
@check("AUTHZ-FRAMING")
def consent_page_unframeable(scene: Scene, driver: ConsentDriver) -> None:
    """Clickjacking protection on the page where the user decides."""
    if not driver.observes_pages:
        pytest.skip(f"the {driver.name} driver cannot read page headers")
    outcome = scene.outcome
    shown = isinstance(outcome, ServicePage) and outcome.consent
    require(shown, f"no consent page to judge: {outcome}", see=RULE.AUTHZ_APPROVAL_FORCE)
    assert isinstance(outcome, ServicePage)
    headers = dict(outcome.headers)
    assert forbids_framing(headers), f"framing allowed: {framing_headers(headers)}"


@then("the page a logged-out user sees forbids framing")
@check()
def landing_page_unframeable(
    auth_request: AuthRequest, service: Service, http: HttpLayer, profile: TargetProfile
) -> None:
    """The first page of the flow (usually the login page) without a session: the other half
    of RULE.AUTHZ_FRAMING's check (`consent_page_unframeable`)."""
    url = service.authorize_url(auth_request.params)
    for _ in range(MAX_REDIRECTS):
        response = http.request("GET", url)
        target = redirect_target(response)
        if target is None:
            break
        url = target
        if urlsplit(url).netloc != urlsplit(profile.base_url).netloc:
            pytest.fail(f"a logged-out user was sent off the service to {url}")
    headers = dict(response.headers)
    assert forbids_framing(headers), f"framing allowed on {url}: {framing_headers(headers)}"
