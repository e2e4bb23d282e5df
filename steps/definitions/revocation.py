"""Steps at the revocation endpoint and the user's manual revocation (feature: revocation):
the revocations, each a negative one with its twin where the service must refuse it; what
the answers said and the tokens' state after are judged in revocation_outcomes.py."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from pytest_bdd import given, parsers, when

from steps.consent import ConsentDriver
from steps.consent.base import DriverError, UnrecognisedPage
from steps.http.readers import granted
from steps.outcomes import NotChecked, require
from steps.profiles.profile import TargetProfile
from steps.rules.ids import RULE
from steps.scenario.clock import Clock
from steps.scenario.kinds import premise
from steps.scenario.negatives import Negative, twin
from steps.scenario.observations import Observations
from steps.scenario.probes import (
    INVALID,
    NEVER_ISSUED,
    WRONG_SECRETS,
    near_miss,
    wrong_secret,
)
from steps.scenario.scene import Scene
from steps.scenario.service import Service
from steps.scenario.token import refresh_rule
from steps.scenario.visits import Visits, visits_consent


def grant_token(scene: Scene, which: str) -> str:
    """The grant's access or refresh token (a premise: see the rule that issues it)."""
    tokens = scene.grant()
    token = tokens.access_token if which == "access" else tokens.refresh_token
    require(token, f"the grant has no {which} token", see=refresh_rule(tokens.client.role))
    assert token is not None
    return token


def _seen(observations: Observations, response_status: int) -> None:
    observations.describe("revocation_endpoint", response_status not in (404, 405, 501))


def _refused_unless(scene: Scene, service: Service, token: str, fault: str) -> None:
    """The revocation just sent is a negative: the application's usual revocation of the same
    token is its twin, sent by the check that comes last (it ends the token it names)."""
    client = scene.app()

    def send_twin() -> bool:
        return service.revoke(client, token).is_success

    scene.negative = Negative(fault, twin(send_twin, RULE.REVOKE_EMPTY_200))


@dataclass
class WebsiteRevocations:
    """Whether the consent driver has revoked a grant on the website in this run: then a
    grant it cannot find there is one the website does not offer the user to revoke."""

    worked: int = 0


@pytest.fixture(scope="session")
def website_revocations() -> WebsiteRevocations:
    """Manual revocations the driver managed in this run (this process)."""
    return WebsiteRevocations()


@dataclass
class Revocations:
    """What the scenario revoked: the grant's tokens the application revoked ("access",
    "refresh", in order), and why the user's revocation on the website may not have reached
    the grant."""

    revoked: list[str] = field(default_factory=list)
    website_note: str = ""


@pytest.fixture
def revocations() -> Revocations:
    """The scenario's revocations."""
    return Revocations()


@when(parsers.re(r"the application revokes the (?P<which>access|refresh) token$"))
@premise(touches=("revocation",))
def revoke(
    scene: Scene,
    service: Service,
    observations: Observations,
    revocations: Revocations,
    which: str,
) -> None:
    """RFC 7009 revocation of one of the grant's tokens."""
    _revoke(scene, service, observations, revocations, which)


def _revoke(
    scene: Scene,
    service: Service,
    observations: Observations,
    revocations: Revocations,
    which: str,
) -> None:
    response = scene.keep(service.revoke(scene.app(), grant_token(scene, which)))
    revocations.revoked.append(which)
    _seen(observations, response.status_code)


@given(parsers.re(r"the application has revoked the (?P<which>access|refresh) token"))
@premise(see=RULE.REVOKE_EMPTY_200)
def has_revoked(
    scene: Scene,
    service: Service,
    observations: Observations,
    revocations: Revocations,
    which: str,
) -> None:
    """A revocation the service must have accepted (any 2xx: its exact answer is
    RULE.REVOKE_EMPTY_200's business) for the scenario to go on. The spec rule that then requires
    the revoked token to be refused is noted for the checks of the refusal's shape."""
    _revoke(scene, service, observations, revocations, which)
    response = scene.last()
    assert response.is_success, f"the revocation answered {response.status_code}"
    if which == "refresh":
        scene.refusal_rule = RULE.REVOKE_REFRESH_WHOLE_GRANT
    elif scene.grant().refresh_token:
        scene.refusal_rule = RULE.REVOKE_ACCESS_KEEPS_REFRESH  # that access token is revoked
    else:
        scene.refusal_rule = RULE.REVOKE_ONLINE_WHOLE_GRANT


@given("the grant lives on without a live access token")
@premise(see=RULE.REVOKE_ACCESS_KEEPS_REFRESH)
def grant_without_access_token(
    scene: Scene, service: Service, clock: Clock, revocations: Revocations
) -> None:
    """A grant whose only live token is its refresh token, confirmed: its access token revoked,
    a refresh granted (the grant still lives: a deployment that ends the whole grant here
    fails RULE.REVOKE_ACCESS_KEEPS_REFRESH, not the scenario's rule), and that refresh's access
    token revoked too."""
    client = scene.app()
    for turn in ("first", "renewed"):
        response = scene.keep(service.revoke(client, grant_token(scene, "access")))
        revocations.revoked.append("access")
        require(response.is_success, f"the revocation of the {turn} access token answered "
                f"{response.status_code}", see=RULE.REVOKE_EMPTY_200)  # fmt: skip
        if turn == "first":
            refreshed = granted(service.refresh(client, grant_token(scene, "refresh")))
            require(refreshed, "the grant yields no access token after its access token was "
                    "revoked", see=RULE.REVOKE_ACCESS_KEEPS_REFRESH)  # fmt: skip
            assert refreshed is not None and scene.tokens is not None
            scene.tokens.renewed(refreshed.fields, clock.now())


@when("the application revokes a token the service never issued")
@premise()
def revoke_unknown(scene: Scene, service: Service, observations: Observations) -> None:
    """An invalid token: still 200."""
    response = scene.keep(service.revoke(scene.app(), NEVER_ISSUED))
    _seen(observations, response.status_code)


@when(parsers.re(r"the application revokes a token " + INVALID))
@premise(touches=("invalid",))
def revoke_invalid(scene: Scene, service: Service, how: str) -> None:
    """A token that is not valid: never issued, near the grant's access token, or revoked
    already (still 200, RFC 7009 2.2)."""
    client = scene.app()
    if how == "that the service never issued":
        token = NEVER_ISSUED
    elif how == "that was revoked":
        token = grant_token(scene, "access")
        first = service.revoke(client, token)
        require(first.is_success, f"the revocation answered {first.status_code}",
                see=RULE.REVOKE_EMPTY_200)  # fmt: skip
    else:
        token = near_miss(grant_token(scene, "access"), how)
    scene.keep(service.revoke(client, token))


@when(parsers.re(r"the application revokes the (?P<which>access|refresh) token with a GET request"))
@premise(touches=("revocation",))
def revoke_by_get(scene: Scene, service: Service, which: str) -> None:
    """POST is the only method."""
    token = grant_token(scene, which)
    scene.keep(service.revoke(scene.app(), token, method="GET"))
    _refused_unless(scene, service, token, "the GET method")


@when(
    parsers.re(
        r"the application revokes the (?P<which>access|refresh) token"
        r" without the (?P<field>\w+) field"
    )
)
@premise(touches=("revocation", "missing_field"))
def revoke_without(scene: Scene, service: Service, which: str, field: str) -> None:
    """A revocation missing one field."""
    token = grant_token(scene, which)
    scene.keep(service.revoke(scene.app(), token, overrides={field: None}))
    _refused_unless(scene, service, token, f"leaving out the {field} field")


@when(
    parsers.re(r"the application revokes the (?P<which>access|refresh) token with " + WRONG_SECRETS)
)
@premise(touches=("revocation", "secret"))
def revoke_wrong_secret(scene: Scene, service: Service, which: str, how: str) -> None:
    """Client authentication fails, also for a near miss of the right secret."""
    token, client = grant_token(scene, which), scene.app()
    secret = wrong_secret(client, how)
    scene.keep(service.revoke(client, token, overrides={"client_secret": secret}))
    scene.refusal_rule = RULE.AUTH_REVOKE_CLIENT_SECRET
    _refused_unless(scene, service, token, how)


@when(
    parsers.re(
        r"another web application revokes the (?P<which>access|refresh) token"
        r" with its own credentials"
    )
)
@premise(touches=("revocation",))
def revoke_by_other(scene: Scene, service: Service, profile: TargetProfile, which: str) -> None:
    """Another application tries to revoke this one's token."""
    token = grant_token(scene, which)
    scene.keep(service.revoke(profile.client("other_web"), token))
    _refused_unless(scene, service, token, "another application naming it")


@when(
    parsers.re(
        r"the application revokes the (?P<which>access|refresh) token with all parameters"
        r" in the URL query string(?: of a (?P<method>GET|POST) request)?"
    )
)
@premise(touches=("revocation", "url_parameters"))
def revoke_in_query(scene: Scene, service: Service, which: str, method: str | None) -> None:
    """Credentials in the URL: a POST with an empty body, or a GET."""
    token = grant_token(scene, which)
    if method == "GET":
        scene.keep(service.revoke(scene.app(), token, method="GET"))
    else:
        scene.keep(service.revoke(scene.app(), token, in_query=True))
    _refused_unless(scene, service, token, "its parameters in the URL")


@visits_consent(Visits.EACH)
@when("the user revokes the application's access on the website")
@premise(touches=("refresh_token",))
def revoke_manually(
    scene: Scene,
    driver: ConsentDriver,
    profile: TargetProfile,
    revocations: Revocations,
    website_revocations: WebsiteRevocations,
) -> None:
    """The user's own revocation on the authorized-applications page (spec 3).

    A profile declaring that the website offers no way to revoke (`manual_revocation =
    "none"`) lets the check fail; a driver that cannot revoke (`false`) leaves it unchecked.
    When the application revoked the access token first and the driver then finds no way to
    revoke the grant, although it revoked one in this run before, the website does not offer it
    (the real musicbrainz-server hides such grants): the refresh token check then decides."""
    capabilities = profile.capabilities
    if capabilities.no_manual_revocation:
        revocations.website_note = "the profile declares the deployment has no way to revoke"
        return
    if not capabilities.manual_revocation:
        raise NotChecked("the profile says the consent driver cannot revoke on the website")
    tokens = scene.grant()
    scope = profile.scope(tokens.scope) if tokens.scope else None
    try:
        driver.revoke_manually(scene.app().client_id, scope)
    except UnrecognisedPage:
        raise  # a page the driver cannot read says nothing of what the website offers
    except DriverError as error:
        if not (website_revocations.worked and "access" in revocations.revoked):
            raise
        revocations.website_note = f"the website offered no way to revoke it: {error}"
    else:
        website_revocations.worked += 1
