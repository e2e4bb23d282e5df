"""The foreign-style provider of tests/suite/foreign/ is what `foreign/truth.toml` says it is.

A few direct probes of the provider check the facts the table's reasons rest on, so a table
entry cannot silently outlive a change to the provider (the suite against the table:
test_foreign_target.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from steps.consent import RedirectResult, ServicePage
from steps.consent.metabrainz import MetaBrainzDriver
from steps.consent.react_props import page_props
from steps.http.layer import HttpLayer
from steps.http.readers import json_body
from steps.profiles.profile import TargetProfile, load_profile
from steps.scenario.service import Service
from tests.suite.foreign.target import ForeignTarget, foreign_target

# Runs on one xdist worker (tests/conftest.py, ONE_WORKER): its tests share one provider.
pytestmark = pytest.mark.slow


class Probe:
    """Direct calls to the provider, through the built-in metabrainz consent driver."""

    def __init__(self, target: ForeignTarget) -> None:
        self.profile: TargetProfile = load_profile(target.profile_path)
        self.http = HttpLayer(self.profile.ca_file)
        self.driver = MetaBrainzDriver(self.profile, self.http)
        self.service = Service(self.profile, self.http)

    def authorize(self, role: str, scopes: str, **params: str) -> RedirectResult | ServicePage:
        """Approve a request for the spec's scope names (`scope=` sends raw words instead)."""
        query = self.service.authorize_params(self.profile.client(role), scopes) | params
        return self.driver.approve(self.service.authorize_url(query))

    def grant(self, role: str = "web", scope: str = "profile") -> dict[str, Any]:
        outcome = self.authorize(role, scope, approval_prompt="force")
        assert isinstance(outcome, RedirectResult) and outcome.code, outcome
        client = self.profile.client(role)
        body = json_body(self.service.exchange(client, outcome.code, client.redirect_uri))
        assert body and "refresh_token" in body, body
        return body

    def refresh(self, refresh_token: str, role: str = "web") -> tuple[int, dict[str, Any]]:
        response = self.service.refresh(self.profile.client(role), refresh_token)
        return response.status_code, json_body(response) or {}


@pytest.fixture(scope="module")
def probe_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForeignTarget]:
    with foreign_target(tmp_path_factory.mktemp("probed")) as target:
        yield target


@pytest.fixture
def probe(probe_target: ForeignTarget) -> Iterator[Probe]:
    probing = Probe(probe_target)
    yield probing
    probing.driver.close()
    probing.http.close()


def test_provider_rotates_refresh_tokens_and_revokes_the_family_on_reuse(probe: Probe) -> None:
    first = probe.grant(scope="profile rating")
    status, second = probe.refresh(first["refresh_token"])
    assert status == 200 and second["refresh_token"] != first["refresh_token"]
    assert second["scope"] == ["musicbrainz:rating", "profile"]
    status, body = probe.refresh(first["refresh_token"])
    assert (status, body.get("error")) == (400, "invalid_request")
    assert probe.refresh(second["refresh_token"])[0] == 400
    assert probe.service.token_refused(second["access_token"])


def test_provider_shows_errors_on_its_own_page_and_denies_without_state(probe: Probe) -> None:
    page = probe.authorize("web", "profile", scope="tag", state="s1")
    assert isinstance(page, ServicePage) and page.status == 200 and not page.consent
    assert (page_props(page.html) or {})["error"]["name"] == "invalid_scope"
    assert len(page.html) > 8000 and page.html.rindex("invalid_scope") > len(page.html) - 500
    query = probe.service.authorize_params(probe.profile.client("web"), "profile")
    url = probe.service.authorize_url(query | {"state": "s1", "approval_prompt": "force"})
    denied = probe.driver.deny(url)
    assert isinstance(denied, RedirectResult) and dict(denied.params) == {"error": "access_denied"}
    approved = probe.driver.approve(url)
    assert isinstance(approved, RedirectResult) and approved.url and approved.url.endswith("#_")
    assert approved.state == "s1"


def test_provider_reads_userinfo_from_the_header_under_any_scheme(probe: Probe) -> None:
    token = probe.grant(scope="tag")["access_token"]  # no profile scope: no scope check
    for how in ("header", "scheme:MAC", "scheme:Basic"):
        response = probe.service.userinfo(token, how)
        assert response.status_code == 200
        assert set(response.json()) == {"sub", "username", "member_since"}
    for how in ("body", "query"):
        assert probe.service.userinfo(token, how).status_code == 401
    for token_sent, status in ((None, 401), ("meba_unknown", 403)):
        response = probe.service.userinfo(token_sent)
        assert response.status_code == status and "www-authenticate" not in response.headers


def test_provider_asks_again_once_no_live_access_token_covers_the_scopes(probe: Probe) -> None:
    """The facts behind AUTHZ-APPROVAL-AUTO and REVOKE-ONLINE-WHOLE-GRANT being fails."""
    granted = probe.grant(scope="profile collection")
    status, renewed = probe.refresh(granted["refresh_token"])  # the only live access token now
    assert status == 200
    query = probe.service.authorize_params(probe.profile.client("web"), "profile collection")
    url = probe.service.authorize_url(query)
    assert isinstance(probe.driver.open(url), RedirectResult)
    revoked = probe.service.revoke(probe.profile.client("web"), renewed["access_token"])
    assert (revoked.status_code, revoked.text) == (200, "{}")
    again = probe.driver.open(url)
    assert isinstance(again, ServicePage) and again.consent
    assert probe.refresh(renewed["refresh_token"])[0] == 200  # the online grant lives on


def test_provider_token_endpoint_differences(probe: Probe) -> None:
    client = probe.profile.client("web")
    challenged = probe.authorize(
        "web",
        "profile",
        approval_prompt="force",
        code_challenge="A" * 44,
        code_challenge_method="S256",
    )
    assert isinstance(challenged, RedirectResult) and challenged.code  # 44 characters: accepted
    outcome = probe.authorize("web", "profile", approval_prompt="force")
    assert isinstance(outcome, RedirectResult) and outcome.code
    fields = {
        "grant_type": "authorization_code",
        "code": outcome.code,
        "redirect_uri": client.redirect_uri,
        "client_id": client.client_id,
        "client_secret": client.client_secret,
    }
    assert probe.service.token_request(fields, in_query=True).status_code == 400  # not read
    wrong = probe.service.exchange(
        client, outcome.code, client.redirect_uri, {"client_secret": client.client_secret[:-1]}
    )
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Basic"
    basic = (client.client_id, client.client_secret)
    mac = probe.http.api.post(
        probe.profile.url("token"),
        data={k: v for k, v in fields.items() if not k.startswith("client_")}
        | {"token_type": "mac"},
        auth=basic,
    )
    assert mac.status_code == 200 and mac.json()["scope"] == ["profile"]
    assert mac.json()["expires_in"] == 3600 and mac.json()["token_type"] == "Bearer"


def test_provider_login_page_can_be_framed_and_its_oauth_pages_cannot(probe: Probe) -> None:
    """As on metabrainz.org: X-Frame-Options DENY on /oauth2/*, none on /login, where an
    authorization sends a user who is not logged in (AUTHZ-FRAMING: a warning)."""
    client = probe.profile.client("web")
    url = probe.service.authorize_url(probe.service.authorize_params(client, "profile"))
    first = probe.http.request("GET", url)
    assert first.status_code == 302 and first.headers["x-frame-options"] == "DENY"
    login = probe.http.request("GET", str(first.url.join(first.headers["location"])))
    assert login.url.path == "/login" and login.status_code == 200
    assert "x-frame-options" not in login.headers
    assert "frame-ancestors" not in login.headers.get("content-security-policy", "")
