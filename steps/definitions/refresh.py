"""Steps of the refresh at the token endpoint (features: refresh, lifetime, desktop)."""

from __future__ import annotations

from pytest_bdd import given, parsers, when

from steps.http.readers import require_granted
from steps.rules.ids import RULE
from steps.scenario.kinds import premise
from steps.scenario.probes import NEVER_ISSUED, WRONG_SECRETS, wrong_secret
from steps.scenario.scene import Scene
from steps.scenario.target import Target
from steps.scenario.token import refresh, refresh_token


@when(parsers.re(r"the application refreshes the access token(?: again)?"))
@premise()
def refreshes(scene: Scene, target: Target) -> None:
    """A plain refresh."""
    refresh(scene, target, refresh_token(scene))


@given("the application has refreshed the access token")
@premise(see=RULE.REFRESH_NEW_ACCESS_TOKEN)
def has_refreshed(scene: Scene, target: Target) -> None:
    """A refresh that must have been granted for the scenario to go on (read leniently)."""
    refresh(scene, target, refresh_token(scene))
    require_granted(scene.last(), "the refresh", see=RULE.REFRESH_NEW_ACCESS_TOKEN)


@when("the application refreshes the access token again with the refresh token it sent first")
@premise()
def refresh_with_first(scene: Scene, target: Target) -> None:
    """Spec 3: the refresh token stays valid, so the ORIGINAL one still works after a refresh
    (a server that rotates refresh tokens and retires the old one fails here)."""
    first = scene.history.first_refresh_token
    assert first, "no earlier refresh in this scenario"  # a premise: see has_refreshed
    refresh(scene, target, first)


@when(parsers.parse("the application refreshes the access token without the {field} field"))
@premise()
def refresh_without(scene: Scene, target: Target, field: str) -> None:
    """A refresh missing one field."""
    refresh(scene, target, refresh_token(scene), {field: None})


@when(parsers.re(r"the application refreshes the access token with " + WRONG_SECRETS))
@premise()
def refresh_wrong_secret(scene: Scene, target: Target, how: str) -> None:
    """Client authentication fails, also for a secret that shares all but its end."""
    secret = wrong_secret(scene.app(), how)
    refresh(scene, target, refresh_token(scene), {"client_secret": secret})


@when(
    parsers.parse('the application refreshes the access token with the token type "{token_type}"')
)
@premise()
def refresh_token_type(scene: Scene, target: Target, token_type: str) -> None:
    """token_type on the refresh (only bearer allowed)."""
    refresh(scene, target, refresh_token(scene), {"token_type": token_type})


@when("another web application refreshes the access token with its own credentials")
@premise()
def refresh_by_other(scene: Scene, target: Target) -> None:
    """A refresh token stolen by another registered application."""
    other = target.profile.client("other_web")
    scene.keep(target.service.refresh(other, refresh_token(scene)))
    scene.refusal_rule = RULE.REFRESH_CROSS_CLIENT


@when("the application refreshes with a refresh token the service never issued")
@premise()
def refresh_unknown(scene: Scene, target: Target) -> None:
    """A made-up refresh token."""
    scene.keep(target.service.refresh(scene.app(), NEVER_ISSUED))
