"""Steps at the revocation endpoint and the user's manual revocation (feature: revocation)."""

from __future__ import annotations

import pytest
from pytest_bdd import parsers, then, when

from steps.clock import Clock
from steps.consent import ConsentDriver
from steps.grants import GrantCache
from steps.http import HttpLayer
from steps.observations import Observations
from steps.profile import Profile
from steps.scene import Scene
from steps.service import Service, json_body
from steps.token import NEVER_ISSUED, WRONG_SECRET


def _token(scene: Scene, which: str) -> str:
    assert scene.tokens is not None, "no grant from an earlier step"
    token = scene.tokens.access_token if which == "access" else scene.tokens.refresh_token
    assert token, f"the grant has no {which} token"
    return token


def _revoked(
    scene: Scene, response_status: int, grants: GrantCache, observations: Observations
) -> None:
    observations.describe("revocation_endpoint", response_status not in (404, 405, 501))
    grants.suspect()


@when(parsers.re(r"the application revokes the (?P<which>access|refresh) token"))
def revoke(
    scene: Scene, service: Service, grants: GrantCache, observations: Observations, which: str
) -> None:
    """RFC 7009 revocation of one of the grant's tokens."""
    response = scene.keep(service.revoke(scene.app(), _token(scene, which)))
    _revoked(scene, response.status_code, grants, observations)


@when("the application revokes a token the service never issued")
def revoke_unknown(scene: Scene, service: Service, observations: Observations) -> None:
    """An invalid token: still 200."""
    response = scene.keep(service.revoke(scene.app(), NEVER_ISSUED))
    observations.describe("revocation_endpoint", response.status_code not in (404, 405, 501))


@when("the application revokes the refresh token with a GET request")
def revoke_by_get(scene: Scene, service: Service, grants: GrantCache) -> None:
    """POST is the only method."""
    scene.keep(service.revoke(scene.app(), _token(scene, "refresh"), method="GET"))
    grants.suspect()


@when(parsers.parse("the application revokes the refresh token without the {field} field"))
def revoke_without(scene: Scene, service: Service, grants: GrantCache, field: str) -> None:
    """A revocation missing one field."""
    scene.keep(service.revoke(scene.app(), _token(scene, "refresh"), overrides={field: None}))
    grants.suspect()


@when("the application revokes the refresh token with a wrong client secret")
def revoke_wrong_secret(scene: Scene, service: Service, grants: GrantCache) -> None:
    """Client authentication fails."""
    token = _token(scene, "refresh")
    scene.keep(service.revoke(scene.app(), token, overrides={"client_secret": WRONG_SECRET}))
    grants.suspect()


@when("another web application revokes the refresh token with its own credentials")
def revoke_by_other(scene: Scene, service: Service, profile: Profile, grants: GrantCache) -> None:
    """Another application tries to revoke this one's grant."""
    scene.keep(service.revoke(profile.client("other_web"), _token(scene, "refresh")))
    grants.suspect()


@when("the application revokes the refresh token with all parameters in the URL query string")
def revoke_in_query(scene: Scene, service: Service, grants: GrantCache) -> None:
    """Credentials in the URL."""
    scene.keep(service.revoke(scene.app(), _token(scene, "refresh"), in_query=True))
    grants.suspect()


@when("the user revokes the application's access on the website")
def revoke_manually(
    scene: Scene, driver: ConsentDriver, profile: Profile, grants: GrantCache
) -> None:
    """The user's own revocation on the authorized-applications page."""
    if not profile.capabilities.manual_revocation:
        pytest.skip("the profile says the consent driver cannot revoke on the website")
    assert scene.tokens is not None
    driver.revoke_manually(scene.app().client_id, scene.tokens.scope or None)
    grants.suspect()


@then("the service offers token revocation")
def revocation_offered(scene: Scene) -> None:
    """Section 9: the endpoint exists (whatever it answers, it is not 'no such endpoint')."""
    status = scene.last().status_code
    assert status not in (404, 405, 501), f"the revocation endpoint answered {status}"


@then("the revocation is answered 200 with an empty body")
def revoked_200_empty(scene: Scene) -> None:
    """Section 4.4: 200, empty body."""
    response = scene.last()
    assert response.status_code == 200, f"status {response.status_code}: {response.text[:200]}"
    assert response.content == b"", f"body is {response.text[:200]!r}"


@then("the revocation is not answered with success")
def revoke_refused(scene: Scene) -> None:
    """Anything but a 2xx."""
    response = scene.last()
    assert not response.is_success, f"answered {response.status_code}"


@then(parsers.re(r"the access token (?P<still>still works|no longer works)"))
def access_token_state(scene: Scene, service: Service, still: str) -> None:
    """Whether the service still accepts the grant's access token."""
    works = service.token_works(_token(scene, "access"))
    assert works == (still == "still works"), f"the access token {'works' if works else 'fails'}"


@then("the refresh token no longer works")
def refresh_dead(scene: Scene, service: Service) -> None:
    """A refresh with the token fails."""
    response = service.refresh(scene.app(), _token(scene, "refresh"))
    body = json_body(response) or {}
    assert "access_token" not in body, "it still yields tokens"  # any status: spec 7.2


@then("the refresh token still yields new access tokens")
def refresh_alive(scene: Scene, service: Service, clock: Clock, http: HttpLayer) -> None:
    """A refresh with the token succeeds."""
    response = service.refresh(scene.app(), _token(scene, "refresh"))
    body = json_body(response) or {}
    assert response.status_code == 200 and "access_token" in body, (
        f"refresh answered {response.status_code}: {response.text[:200]}"
    )
    assert scene.tokens is not None
    http.secrets.add(body["access_token"])
    scene.tokens.renewed(body, clock.now())
