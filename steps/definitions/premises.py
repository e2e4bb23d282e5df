"""Steps that set a scenario up: the application in play, and the code or grant it starts
from (features: registration, code exchange, refresh, revocation, user information, ...).

The code and the grant of a Given are fixtures (`target_fixture`, pytest-bdd's way of handing
a step's product to the steps after it): `code` and `grant`."""

from __future__ import annotations

from pytest_bdd import given, parsers, then

from steps.http.layer import HttpLayer
from steps.profiles.profile import RegisteredApp, TargetProfile
from steps.scenario.grants import Authorizer, GrantCache, shared_key
from steps.scenario.kinds import check, premise
from steps.scenario.probes import APPS
from steps.scenario.scene import HeldGrant, IssuedCode, Scene
from steps.scenario.visits import Visit, Visits, visits_consent


@given("a web application registered with the service")
@premise()
def web_application(scene: Scene, profile: TargetProfile) -> None:
    """The confidential web application of the profile."""
    scene.client = profile.client("web")


@given("an installed application registered with the service")
@premise()
def installed_application(scene: Scene, profile: TargetProfile) -> None:
    """The public installed application of the profile."""
    scene.client = profile.client("installed")


@given("another web application registered with the service", target_fixture="other_client")
@premise()
def other_application(profile: TargetProfile) -> RegisteredApp:
    """The second confidential application, for cross-client checks."""
    return profile.client("other_web")


@then("the two applications have different Client IDs")
@check("APP-CLIENT-ID-UNIQUE")
def different_client_ids(scene: Scene, other_client: RegisteredApp) -> None:
    """Client IDs identify applications."""
    assert scene.app().client_id != other_client.client_id


@then("every registered application has a Client ID of its own")
@check()
def unique_client_ids(profile: TargetProfile) -> None:
    """Spec 2.1: unique, whatever the application type (RULE.APP_CLIENT_ID_UNIQUE, with
    `different_client_ids`)."""
    ids = [client.client_id for client in profile.clients.values()]
    assert len(set(ids)) == len(ids), f"{len(ids)} applications share {len(set(ids))} Client IDs"


@visits_consent(Visits.EACH)
@given(
    parsers.re(
        r"an authorization code issued to the (?P<kind>web|installed|second web) application"
        r"(?P<offline> for offline access)?"
    ),
    target_fixture="code",
)
@premise()
def issued_code(scene: Scene, authorizer: Authorizer, kind: str, offline: str | None) -> IssuedCode:
    """A fresh code (the user approves once)."""
    issued = authorizer.code(APPS[kind], "profile", offline=bool(offline))
    scene.client = issued.client
    return issued


def _grant_visit(
    kind: str, scope: str, fresh: str | None, offline: str | None, **_: object
) -> Visit:
    """A shared grant's visit, or a fresh one (which a writer may take from the shared ones)."""
    key = shared_key(APPS[kind], scope, bool(offline))
    return Visit(Visits.FRESH if fresh else Visits.SHARED, key)


@visits_consent(_grant_visit)
@given(
    parsers.re(
        r"the user has (?P<fresh>just )?granted the "
        r"(?P<kind>web application|installed application|second web application)"
        r' (?P<offline>offline )?access to "(?P<scope>[^"]*)"'
    ),
    target_fixture="grant",
)
@premise()
def granted(
    scene: Scene,
    http: HttpLayer,
    grants: GrantCache,
    fresh: str | None,
    kind: str,
    offline: str | None,
    scope: str,
) -> HeldGrant:
    """A grant: shared among read-only scenarios (steps/scenario/isolation.py), or ("just") one of
    the scenario's own (a writer's may be the shared grant no writer touched: GrantCache.take).
    Its code exchange goes into the evidence (once: a fresh grant's exchange is there already)."""
    issue = grants.take if fresh else grants.get
    grant = issue(APPS[kind], scope, offline=bool(offline))
    scene.tokens, scene.client = grant, grant.client
    if grant.exchange is not None:
        http.record(grant.exchange, reused=True)
    return grant
