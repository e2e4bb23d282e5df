"""Steps at the user information endpoint (features: user information, scopes, transport)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pytest_bdd import parsers, then, when

from steps.definitions.lifetime import ACCESS_TOKEN_LIFETIME
from steps.http.layer import HttpLayer
from steps.http.readers import auth_param, challenges, json_body, strict_json
from steps.outcomes import require
from steps.profiles.profile import TargetProfile
from steps.rules.ids import RULE
from steps.scenario.clock import Clock
from steps.scenario.grants import GrantCache
from steps.scenario.kinds import check, premise
from steps.scenario.observations import Observations
from steps.scenario.probes import INVALID, NEVER_ISSUED, delivery, near_miss
from steps.scenario.sampling import SAMPLES, samples, sampling_note
from steps.scenario.scene import Scene
from steps.scenario.service import Service

#: Seconds past an access token's lifetime at which it is presented as expired.
EXPIRY_MARGIN = 100
#: The rule that says the user information is returned for each way of passing the token.
DELIVERY_RULES = {
    "header": RULE.USERINFO_HEADER,
    "body": RULE.USERINFO_POST_BODY,
    "query": RULE.USERINFO_QUERY,
}


def _values(body: Any) -> list[str]:
    """Every string value of a JSON document (the response's shape is not in the spec)."""
    if isinstance(body, dict):
        return [v for item in body.values() for v in _values(item)]
    if isinstance(body, list):
        return [v for item in body for v in _values(item)]
    return [body] if isinstance(body, str) else []


@when(parsers.re(r"the application asks for the user's profile with the token (?P<way>in .+)"))
@premise()
def ask_profile(scene: Scene, service: Service, observations: Observations, way: str) -> None:
    """User information with the token passed one way (or two)."""
    how = delivery(way)
    grant = scene.grant()
    response = scene.keep(service.userinfo(grant.access_token, how))
    scene.delivery = how
    if grant.scope and "profile" not in grant.scope.split():
        scene.refusal_rule = RULE.SCOPE_PROFILE_WITHHELD
    elif how == "body":  # section 9: a token with the profile scope, read from a form body
        observations.describe("userinfo_post_body", response.status_code == 200)


@when(
    parsers.parse(
        'the application asks for the user\'s profile with the token under the "{scheme}" scheme'
    )
)
@premise()
def ask_profile_scheme(scene: Scene, service: Service, scheme: str) -> None:
    """The token under another authorization scheme (or none: the token alone)."""
    word = "" if scheme == "no scheme word" else scheme
    scene.keep(service.userinfo(scene.grant().access_token, f"scheme:{word}"))


@when("the application asks for the user's profile without a token")
@premise()
def ask_profile_no_token(scene: Scene, service: Service) -> None:
    """No credentials."""
    scene.keep(service.userinfo(None))


@when(
    parsers.re(
        r"the application asks for the user's profile with (?:its access token|a token) "
        + INVALID
        + r", passed (?P<way>in .+)"
    )
)
@premise()
def ask_profile_invalid(scene: Scene, service: Service, clock: Clock, how: str, way: str) -> None:
    """A token that is not valid, passed one way: never issued, near the grant's access token
    (what a comparison of a prefix or a fixed length lets through), revoked by the application
    (a premise: the revocation accepted) or past its lifetime. Where a spec rule requires the
    token to be refused, that rule is noted for the checks of the refusal's shape."""
    unknown = how == "that the service never issued"
    token = NEVER_ISSUED if unknown else scene.grant().access_token
    if how == "that was revoked":
        revoked = service.revoke(scene.app(), token)
        require(revoked.is_success, f"the revocation answered {revoked.status_code}",
                see=RULE.REVOKE_EMPTY_200)  # fmt: skip
        scene.refusal_rule = (
            RULE.REVOKE_ACCESS_KEEPS_REFRESH if scene.grant().offline
            else RULE.REVOKE_ONLINE_WHOLE_GRANT
        )  # fmt: skip
    elif how == "that has expired":
        clock.advance(ACCESS_TOKEN_LIFETIME + EXPIRY_MARGIN)
        scene.refusal_rule = RULE.LIFETIME_ACCESS_EXPIRES
    elif not unknown:
        token = near_miss(token, how)
    scene.delivery = delivery(way)
    scene.keep(service.userinfo(token, scene.delivery))


@when(
    parsers.re(
        r"the application asks for the user's profile over plain HTTP"
        r"(?: with the token (?P<way>in .+))?"
    )
)
@premise()
def ask_profile_plain_http(
    scene: Scene, service: Service, profile: TargetProfile, way: str | None
) -> None:
    """The bearer token over http:// (then revoked over HTTPS: it crossed the wire in clear)."""
    token = scene.grant().access_token
    try:
        how = delivery(way)
        scene.keep(service.userinfo(token, how, base=profile.plain_http_base))
    except httpx.HTTPError as exc:
        scene.transport_error = exc
    finally:
        with contextlib.suppress(httpx.HTTPError):
            service.revoke(scene.app(), token)


def _reveals(response: httpx.Response, value: str) -> bool:
    """Whether an answer holds a value: among the strings of a JSON document, anywhere in any
    other body (the spec does not show the shape of the answer)."""
    body = json_body(response)
    return value in _values(body) if body is not None else value in response.text


def _accepted(scene: Scene) -> httpx.Response:
    """The premise of the checks on what a granted answer holds: the endpoint accepted the
    token (2xx, whatever it returned), as the USERINFO-* rule of the way it went says."""
    response = scene.last()
    see = DELIVERY_RULES.get(scene.delivery, RULE.USERINFO_HEADER)
    require(response.is_success, f"the user information answered {response.status_code}", see=see)
    return response


@then("the service returns the user's profile")
@check(
    "SCOPE-PROFILE-GRANTS-PROFILE",
    "USERINFO-HEADER",
    "USERINFO-POST-BODY",
    "USERINFO-QUERY",
    "VERSION-USERINFO-POST",
)
def returns_profile(scene: Scene, profile: TargetProfile) -> None:
    """2xx with the user's name in the answer (among a JSON document's values; the spec does
    not show the shape, so in the text of any other answer)."""
    response = scene.last()
    assert response.is_success, f"status {response.status_code}: {response.text[:200]}"
    assert _reveals(response, profile.user.username), "the user's name is not in the answer"


@then("the service does not return the user's profile")
@check("AUTH-BEARER-ONLY", "BEARER-HTTP-IGNORED", "SCOPE-PROFILE-WITHHELD")
def no_profile(scene: Scene, profile: TargetProfile) -> None:
    """The user's profile is not in the answer (or there was no connection at all). Spec 7.2
    does not show the answers for a missing, refused or ignored token, so the status is not
    part of the check: a 200 without the user's data passes, a 401 with it fails."""
    if scene.transport_error is not None:
        return
    response = scene.last()
    assert not _reveals(response, profile.user.username), (
        f"the user's profile was returned ({response.status_code})"
    )


def _email(profile: TargetProfile) -> str:
    if not profile.user.email:
        pytest.skip("the profile does not name the user's email")
    return str(profile.user.email)


@then("the user's email is not revealed")
@check("SCOPE-EMAIL-WITHHELD")
def email_not_revealed(scene: Scene, profile: TargetProfile) -> None:
    """Whatever the answer (granted or refused, JSON or not), the user's email is not in it: a
    refusal withholds it too."""
    email = _email(profile)
    response = scene.last()
    assert email not in response.text, (
        f"the email is shown without the email scope ({response.status_code})"
    )


@then("the user's email is included")
@check("SCOPE-EMAIL-GRANTS-EMAIL")
def email_included(scene: Scene, profile: TargetProfile) -> None:
    """The user's email address is in the granted answer."""
    email = _email(profile)
    response = _accepted(scene)
    assert _reveals(response, email), "the email is not shown"


def _challenge(response: httpx.Response) -> str:
    """The Bearer challenge among the answer's challenges."""
    offered = challenges(response)
    bearer = [c for c in offered if c.split(None, 1)[0].lower() == "bearer"]
    assert bearer, f"no Bearer challenge in WWW-Authenticate: {offered!r}"
    return bearer[0]


@then(parsers.parse("the service answers {status:d} with a Bearer challenge without an error code"))
@check("USERINFO-ERR-NO-TOKEN")
def challenge_no_error(scene: Scene, profile: TargetProfile, http: HttpLayer, status: int) -> None:
    """RFC 6750 3.1: no error attribute when no credentials were sent (sampled)."""
    for response in _sampled(scene, profile, http):
        assert response.status_code == status, f"status {response.status_code}"
        challenge = _challenge(response)
        assert auth_param(challenge, "error") is None, f"an error code: {challenge!r}"


@then(
    parsers.parse('the service answers {status:d} with a Bearer challenge with the error "{error}"')
)
@check("USERINFO-ERR-INSUFFICIENT-SCOPE", "USERINFO-ERR-INVALID-TOKEN")
def challenge_error(
    scene: Scene,
    profile: TargetProfile,
    http: HttpLayer,
    request: pytest.FixtureRequest,
    status: int,
    error: str,
) -> None:
    """RFC 6750 3.1 error in the challenge (sampled). Premise: the service reads a token passed
    this way at all; where it fails, a control with a token it must accept (the profile scope,
    the same way) tells a refusal of the token from a way the service does not read."""
    try:
        for response in _sampled(scene, profile, http):
            assert response.status_code == status, f"status {response.status_code}"
            challenge = _challenge(response)
            assert auth_param(challenge, "error") == error, f"challenge {challenge!r}"
    except AssertionError:
        _require_delivery_read(scene, request)
        raise


@then(parsers.parse('the service answers {status:d} with the error "{error}"'))
@check("USERINFO-ERR-MULTIPLE-METHODS")
def plain_error(
    scene: Scene, profile: TargetProfile, http: HttpLayer, status: int, error: str
) -> None:
    """An error named in a JSON document (application/json) or in the challenge (sampled)."""
    for response in _sampled(scene, profile, http):
        assert response.status_code == status, f"status {response.status_code}"
        read = strict_json(response)
        named = [read.body.get("error")] if read.body is not None else []
        named += [auth_param(c, "error") for c in challenges(response)]
        assert error in named, f"no error {error!r}: {response.text[:200]} {challenges(response)!r}"


def _require_delivery_read(scene: Scene, request: pytest.FixtureRequest) -> None:
    """When the token went in a form body or the query, a token with the profile scope must
    be accepted the same way, or the way is the USERINFO-* rule's failure, not this one's."""
    if scene.delivery not in ("body", "query"):
        return
    grants: GrantCache = request.getfixturevalue("grants")
    service: Service = request.getfixturevalue("service")
    control = service.userinfo(grants.get("web", "profile email").access_token, scene.delivery)
    see = DELIVERY_RULES[scene.delivery]
    where = {"body": "a form body", "query": "the query string"}[scene.delivery]
    require(control.is_success, f"the service reads no token from {where}", see=see)


def _sampled(scene: Scene, profile: TargetProfile, http: HttpLayer) -> Iterator[httpx.Response]:
    """The answer and SAMPLES - 1 more to the same request: a user-information request asks no
    person and trips no guard, so an answer that varies between tries is found (noted)."""
    response = _refused(scene, profile)
    http.note(sampling_note(SAMPLES))
    return samples(response, lambda: http.resend(response), SAMPLES)


def _refused(scene: Scene, profile: TargetProfile) -> httpx.Response:
    """The premise of a check of an error's shape: the user's data was not returned (where a
    spec rule requires that, a request let through is that rule's failure)."""
    response = scene.last()
    scene.require_refusal(not _reveals(response, profile.user.username), "the profile came back")
    return response
