"""Steps that set a scenario up: the application in play, and the code or grant it starts
from (features: registration, code exchange, refresh, revocation, user information, ...).

The code and the grant of a Given are fixtures (`target_fixture`, pytest-bdd's way of handing
a step's product to the steps after it): `code` and `grant`."""

from __future__ import annotations

from pytest_bdd import given, parsers, step, then

from steps.http.layer import HttpLayer
from steps.http.readers import require_granted
from steps.profiles.profile import RegisteredApp, TargetProfile
from steps.rules.ids import RULE
from steps.scenario.grants import Authorizer, GrantCache, shared_key
from steps.scenario.kinds import check, premise
from steps.scenario.probes import CLIENT_WORDS, PKCE_WORDS, client_kind
from steps.scenario.scene import HeldGrant, IssuedCode, Scene
from steps.scenario.target import Target
from steps.scenario.token import refresh, refresh_token
from steps.scenario.visits import Visit, Visits, visits_consent


@given("a web application registered with the service")
@premise()
def web_application(scene: Scene, profile: TargetProfile) -> None:
    """The confidential web application of the profile."""
    scene.client = profile.client("web")


@given(parsers.re(rf"an? (?P<kind>{CLIENT_WORDS}) registered with the service"))
@premise()
def kind_of_application(scene: Scene, profile: TargetProfile, kind: str) -> None:
    """An application of the profile, as the kind of application named (an offline web
    application asks for offline access in its authorization requests)."""
    role, offline = client_kind(kind)
    scene.client, scene.offline = profile.client(role), offline and role != "installed"


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
        r"an authorization code issued to the "
        rf"(?P<kind>{CLIENT_WORDS}|web application|installed application|second web application)"
        r"(?P<offline> for offline access)?"
        rf"(?: for a request with (?P<pkce>{'|'.join(PKCE_WORDS)}))?$"
    ),
    target_fixture="code",
)
@premise()
def issued_code(
    scene: Scene, authorizer: Authorizer, kind: str, offline: str | None, pkce: str | None
) -> IssuedCode:
    """A fresh code (the user approves once) for the real client's request, with the PKCE
    challenge named (S256 when none is: what a real client sends)."""
    role, offline_access = client_kind(kind, bool(offline))
    challenge = PKCE_WORDS[pkce] if pkce else "S256"
    issued = authorizer.code(role, "profile", offline=offline_access, pkce=challenge)
    scene.client = issued.client
    return issued


def _grant_visit(
    kind: str, scope: str, fresh: str | None, offline: str | None, **_: object
) -> Visit:
    """A shared grant's visit, or a fresh one (which a writer may take from the shared ones)."""
    role, offline_access = client_kind(kind, bool(offline))
    key = shared_key(role, scope, offline_access)
    return Visit(Visits.FRESH if fresh else Visits.SHARED, key)


@visits_consent(_grant_visit)
@given(
    parsers.re(
        r"the user has (?P<fresh>just )?granted the "
        rf"(?P<kind>{CLIENT_WORDS}|web application|installed application|second web application)"
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
    """A grant: shared among read-only scenarios (steps/scheduling/isolation.py), or ("just") one of
    the scenario's own (a writer's may be the shared grant no writer touched: GrantCache.take).
    Its code exchange goes into the evidence (once: a fresh grant's exchange is there already)."""
    issue = grants.take if fresh else grants.get
    role, offline_access = client_kind(kind, bool(offline))
    grant = issue(role, scope, offline=offline_access)
    scene.tokens, scene.client = grant, grant.client
    scene.offline = offline_access and role != "installed"  # its later requests ask alike
    if grant.exchange is not None:
        http.record(grant.exchange, reused=True)
    return grant


@step(
    parsers.re(
        r"the application holds (?:tokens|an access token) from "
        r"(?P<origin>the code exchange|the refresh|a refresh)$"
    )
)
@premise(see=RULE.REFRESH_NEW_ACCESS_TOKEN, touches=("token_answer",))
def holds_tokens_from(scene: Scene, target: Target, origin: str) -> None:
    """The grant's tokens as the code exchange gave them, or as a refresh renewed them (a
    refresh that must be granted for the scenario to go on: read leniently). The answer that
    gave them is the one the checks of a token answer read."""
    if origin == "the code exchange":
        return
    refresh(scene, target, refresh_token(scene))
    require_granted(scene.last(), "the refresh", see=RULE.REFRESH_NEW_ACCESS_TOKEN)
