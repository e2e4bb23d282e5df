"""Steps of the refresh at the token endpoint (features: refresh, lifetime, desktop)."""

from __future__ import annotations

from pytest_bdd import given, parsers, when

from steps.http.readers import require_granted
from steps.scenario.application import Application
from steps.scenario.kinds import premise
from steps.scenario.probes import NEVER_ISSUED, WRONG_SECRETS, wrong_secret


@when(parsers.re(r"the application refreshes the access token(?: again)?"))
@premise()
def refresh(application: Application) -> None:
    """A plain refresh."""
    application.refresh(application.refresh_token())


@given("the application has refreshed the access token")
@premise(see="REFRESH-NEW-ACCESS-TOKEN")
def has_refreshed(application: Application) -> None:
    """A refresh that must have been granted for the scenario to go on (read leniently)."""
    application.refresh(application.refresh_token())
    require_granted(application.scene.last(), "the refresh", see="REFRESH-NEW-ACCESS-TOKEN")


@when("the application refreshes the access token again with the refresh token it sent first")
@premise()
def refresh_with_first(application: Application) -> None:
    """Spec 3: the refresh token stays valid, so the ORIGINAL one still works after a refresh
    (a server that rotates refresh tokens and retires the old one fails here)."""
    first = application.history.first_refresh_token
    assert first, "no earlier refresh in this scenario"  # a premise: see has_refreshed
    application.refresh(first)


@when(parsers.parse("the application refreshes the access token without the {field} field"))
@premise()
def refresh_without(application: Application, field: str) -> None:
    """A refresh missing one field."""
    application.refresh(application.refresh_token(), {field: None})


@when(parsers.re(r"the application refreshes the access token with " + WRONG_SECRETS))
@premise()
def refresh_wrong_secret(application: Application, how: str) -> None:
    """Client authentication fails, also for a secret that shares all but its end."""
    secret = wrong_secret(application.client, how)
    application.refresh(application.refresh_token(), {"client_secret": secret})


@when(
    parsers.parse('the application refreshes the access token with the token type "{token_type}"')
)
@premise()
def refresh_token_type(application: Application, token_type: str) -> None:
    """token_type on the refresh (only bearer allowed)."""
    application.refresh(application.refresh_token(), {"token_type": token_type})


@when("another web application refreshes the access token with its own credentials")
@premise()
def refresh_by_other(application: Application) -> None:
    """A refresh token stolen by another registered application."""
    other = application.profile.client("other_web")
    application.keep(application.service.refresh(other, application.refresh_token()))
    application.scene.refusal_rule = "REFRESH-CROSS-CLIENT"


@when("the application refreshes with a refresh token the service never issued")
@premise()
def refresh_unknown(application: Application) -> None:
    """A made-up refresh token."""
    application.keep(application.service.refresh(application.client, NEVER_ISSUED))
