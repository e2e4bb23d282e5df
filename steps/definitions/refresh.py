"""Steps of the refresh at the token endpoint (features: refresh, lifetime, desktop)."""

from __future__ import annotations

import functools

from pytest_bdd import given, parsers, when

from steps.http.readers import require_granted
from steps.outcomes import require
from steps.rules.ids import RULE
from steps.scenario.grants import Authorizer
from steps.scenario.kinds import premise
from steps.scenario.negatives import Negative, twin
from steps.scenario.probes import (
    INVALID,
    NEVER_ISSUED,
    WRONG_SECRET,
    WRONG_SECRETS,
    near_miss,
    wrong_secret,
)
from steps.scenario.scene import Scene
from steps.scenario.target import Target
from steps.scenario.token import refresh, refresh_token


def _refused_unless(scene: Scene, authorizer: Authorizer, token: str | None, fault: str) -> None:
    """The refresh just sent is a negative: the usual refresh of the grant's refresh token (or
    of a new grant's, where that one ended) is its twin (negatives.py)."""
    client = scene.app()
    send_twin = functools.partial(authorizer.refreshes, client, token)
    scene.negative = Negative(fault, twin(send_twin, RULE.REFRESH_NEW_ACCESS_TOKEN))


@when(parsers.re(r"the application refreshes the access token(?: again)?"))
@premise(touches=("refresh_token",))
def refreshes(scene: Scene, target: Target) -> None:
    """A plain refresh."""
    refresh(scene, target, refresh_token(scene))


@given("the application has refreshed the access token")
@premise(see=RULE.REFRESH_NEW_ACCESS_TOKEN)
def has_refreshed(scene: Scene, target: Target) -> None:
    """A refresh that must have been granted for the scenario to go on (read leniently)."""
    refresh(scene, target, refresh_token(scene))
    require_granted(scene.last(), "the refresh", see=RULE.REFRESH_NEW_ACCESS_TOKEN)


@when(
    parsers.re(r"the application's (?P<grant>code exchange|refresh) is (?P<answer>granted|refused)")
)
@premise(see=RULE.REFRESH_NEW_ACCESS_TOKEN, touches=("token_answer", "answer"))
def token_request_answered(scene: Scene, target: Target, grant: str, answer: str) -> None:
    """A token request of the grant's own that the service grants (a refresh; the code
    exchange that issued the grant) or must refuse (its code replayed; a refresh with a wrong
    secret), for the checks of its answer's headers."""
    held = scene.grant()
    if grant == "code exchange" and answer == "granted":
        require(
            held.answer is not None, "no code exchange answer kept", see=RULE.TOKEN_CODE_EXCHANGE
        )
        assert held.answer is not None
        scene.keep(held.answer)
    elif grant == "code exchange":
        require(held.code, "the grant's code is not known", see=RULE.TOKEN_CODE_EXCHANGE)
        service = target.service
        assert held.code is not None
        scene.keep(service.exchange(held.client, held.code, held.client.redirect_uri))
    elif answer == "granted":
        refresh(scene, target, refresh_token(scene))
        require_granted(scene.last(), "the refresh", see=RULE.REFRESH_NEW_ACCESS_TOKEN)
    else:
        token = refresh_token(scene)
        refresh(scene, target, token, {"client_secret": WRONG_SECRET})
        send_twin = functools.partial(Authorizer(target).refreshes, scene.app(), token)
        scene.negative = Negative(
            "a wrong client secret", twin(send_twin, RULE.REFRESH_NEW_ACCESS_TOKEN)
        )


@when("the application refreshes the access token again with the refresh token it sent first")
@premise(touches=("refresh_token",))
def refresh_with_first(scene: Scene, target: Target) -> None:
    """Spec 3: the refresh token stays valid, so the ORIGINAL one still works after a refresh
    (a server that rotates refresh tokens and retires the old one fails here)."""
    first = scene.history.first_refresh_token
    assert first, "no earlier refresh in this scenario"  # a premise: see has_refreshed
    refresh(scene, target, first)


@when(parsers.parse("the application refreshes the access token without the {field} field"))
@premise(touches=("refresh_token", "missing_field"))
def refresh_without(scene: Scene, target: Target, authorizer: Authorizer, field: str) -> None:
    """A refresh missing one field."""
    token = refresh_token(scene)
    refresh(scene, target, token, {field: None})
    _refused_unless(scene, authorizer, token, f"leaving out the {field} field")
    scene.refusal_rule = RULE.REFRESH_REQUIRED_PARAMS


@when(parsers.re(r"the application refreshes the access token with " + WRONG_SECRETS))
@premise(touches=("refresh_token", "secret"))
def refresh_wrong_secret(scene: Scene, target: Target, authorizer: Authorizer, how: str) -> None:
    """Client authentication fails, also for a near miss of the right secret."""
    token = refresh_token(scene)
    refresh(scene, target, token, {"client_secret": wrong_secret(scene.app(), how)})
    _refused_unless(scene, authorizer, token, how)
    scene.refusal_rule = RULE.AUTH_TOKEN_CLIENT_SECRET


@when(
    parsers.parse('the application refreshes the access token with the token type "{token_type}"')
)
@premise(touches=("refresh_token", "token_type"))
def refresh_token_type(
    scene: Scene, target: Target, authorizer: Authorizer, token_type: str
) -> None:
    """token_type on the refresh (only bearer allowed)."""
    token = refresh_token(scene)
    refresh(scene, target, token, {"token_type": token_type})
    _refused_unless(scene, authorizer, token, f'the token type "{token_type}"')


@when("another web application refreshes the access token with its own credentials")
@premise(touches=("refresh_token",))
def refresh_by_other(scene: Scene, target: Target, authorizer: Authorizer) -> None:
    """A refresh token stolen by another registered application."""
    other, token = target.profile.client("other_web"), refresh_token(scene)
    scene.keep(target.service.refresh(other, token))
    scene.refusal_rule = RULE.REFRESH_CROSS_CLIENT
    _refused_unless(scene, authorizer, token, "another application presenting it")


@when(parsers.re(r"the service is asked to refresh with a refresh token " + INVALID))
@premise(touches=("refresh_token", "invalid"))
def refresh_invalid(scene: Scene, target: Target, authorizer: Authorizer, how: str) -> None:
    """A refresh of the application with a refresh token that is not valid, otherwise right:
    never issued, near its own, revoked, or issued to another application (which then
    presents it: the token's owner is the one fault)."""
    token = refresh_token(scene)
    service = target.service
    if how == "that the service never issued":
        refresh(scene, target, NEVER_ISSUED)
    elif how == "that was revoked":
        revoked = service.revoke(scene.app(), token)
        require(revoked.is_success, f"the revocation answered {revoked.status_code}",
                see=RULE.REVOKE_EMPTY_200)  # fmt: skip
        refresh(scene, target, token)
        scene.refusal_rule = RULE.REVOKE_REFRESH_WHOLE_GRANT
    elif how == "issued to another application":
        scene.keep(service.refresh(target.profile.client("other_web"), token))
        scene.refusal_rule = RULE.REFRESH_CROSS_CLIENT
    else:
        refresh(scene, target, near_miss(token, how))
    _refused_unless(scene, authorizer, token, f"a refresh token {how}")
