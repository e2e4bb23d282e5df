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
from steps.http.readers import auth_param, challenges, granted, json_body, strict_json
from steps.outcomes import PremiseFailed, require
from steps.profiles.profile import TargetProfile
from steps.rules.ids import RULE
from steps.scenario.authorization import exchange_rule
from steps.scenario.clock import Clock
from steps.scenario.grants import GrantCache
from steps.scenario.kinds import check, premise
from steps.scenario.negatives import Negative, TwinSender, require_twin
from steps.scenario.observations import Observations
from steps.scenario.probes import INVALID, NEVER_ISSUED, delivery, near_miss
from steps.scenario.sampling import SAMPLES, samples, sampling_note
from steps.scenario.scene import Scene
from steps.scenario.service import Service
from steps.scenario.target import Target

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


def _granting_token(scene: Scene, grants: GrantCache, target: Target) -> str:
    """A live access token like the scene's, with the profile and email scopes: of the same
    kind of application, from a refresh where the scene's came from one (the twin of a request
    whose fault is the token it presents)."""
    held = scene.grant()
    role, offline = held.client.role, held.offline or held.client.role == "installed"
    sibling = grants.get(role, "profile email", offline=offline)
    if held.history and sibling.refresh_token:  # the scene's token came from a refresh
        answer = granted(target.service.refresh(sibling.client, sibling.refresh_token))
        if answer is not None:
            sibling.renewed(answer.fields, target.clock.now())
    return sibling.access_token


def _reads_user(service: Service, token: str, how: str, value: str, lacks: str) -> TwinSender:
    """The twin of a user information request: `token` passed `how` gives `value` back. Its
    refusal is the delivery's rule when the token is not accepted that way at all, and `lacks`
    when it is but the answer lacks the value."""

    def send_twin() -> str:
        response = service.userinfo(token, how)
        if not response.is_success:
            return DELIVERY_RULES.get(how, RULE.USERINFO_HEADER)
        return "" if _reveals(response, value) else lacks

    return send_twin


def _token_or_doubled(way: str) -> tuple[str, ...]:
    """A token passed one way, or two at once."""
    return ("doubled_token",) if "+" in delivery(way) else ("token",)


@when(parsers.re(r"the application asks for the user's profile with the token (?P<way>in .+)"))
@premise(touches=_token_or_doubled)
def ask_profile(
    scene: Scene,
    service: Service,
    observations: Observations,
    grants: GrantCache,
    target: Target,
    profile: TargetProfile,
    way: str,
) -> None:
    """User information with the token passed one way (or two). A token without the profile
    (or email) scope, or passed two ways, is a negative: its twin is a token with the scopes
    passed the same way (one way: the header, where it went two)."""
    how = delivery(way)
    grant = scene.grant()
    response = scene.keep(service.userinfo(grant.access_token, how))
    scene.delivery = how
    scopes = grant.scope.split() if grant.scope else ["profile", "email"]
    if "profile" not in scopes:
        scene.refusal_rule = RULE.SCOPE_PROFILE_WITHHELD
    elif how == "body":  # section 9: a token with the profile scope, read from a form body
        observations.describe("userinfo_post_body", response.status_code == 200)
    if "+" in how:
        user, twin_how, lacks = profile.user.username, "header", RULE.USERINFO_HEADER
        fault = "the token's second way"
        token = grant.access_token
    elif "profile" not in scopes or ("email" not in scopes and profile.user.email):
        wanted = "profile" if "profile" not in scopes else "email"
        user = profile.user.username if wanted == "profile" else str(profile.user.email)
        lacks = (
            RULE.SCOPE_PROFILE_GRANTS_PROFILE
            if wanted == "profile"
            else RULE.SCOPE_EMAIL_GRANTS_EMAIL
        )
        twin_how, fault = how, f"a token lacking the {wanted} scope"
        token = _granting_token(scene, grants, target)
    else:
        return
    scene.negative = Negative(fault, _reads_user(service, token, twin_how, user, lacks))


@when(
    parsers.parse(
        'the application asks for the user\'s profile with the token under the "{scheme}" scheme'
    )
)
@premise(touches=("token", "scheme"))
def ask_profile_scheme(scene: Scene, service: Service, profile: TargetProfile, scheme: str) -> None:
    """The token under another authorization scheme (or none: the token alone); its twin, the
    same token under Bearer."""
    word = "" if scheme == "no scheme word" else scheme
    token = scene.grant().access_token
    scene.keep(service.userinfo(token, f"scheme:{word}"))
    send_twin = _reads_user(service, token, "header", profile.user.username, RULE.USERINFO_HEADER)
    scene.negative = Negative(f"the scheme {scheme!r}", send_twin)


@when("the application asks for the user's profile without a token")
@premise()
def ask_profile_no_token(
    scene: Scene, service: Service, grants: GrantCache, profile: TargetProfile
) -> None:
    """No credentials; the twin, a live token in the header."""
    scene.keep(service.userinfo(None))
    token = grants.get("web", "profile email", offline=True).access_token
    send_twin = _reads_user(service, token, "header", profile.user.username, RULE.USERINFO_HEADER)
    scene.negative = Negative("a missing token", send_twin)


@when(
    parsers.re(
        r"the application asks for the user's profile with (?:its access token|a token) "
        + INVALID
        + r", passed (?P<way>in .+)"
    )
)
@premise(touches=("token", "invalid"))
def ask_profile_invalid(
    scene: Scene,
    service: Service,
    clock: Clock,
    grants: GrantCache,
    profile: TargetProfile,
    how: str,
    way: str,
) -> None:
    """A token that is not valid, passed one way: never issued, near the grant's access token
    (what a comparison of a prefix or a fixed length lets through), revoked by the application
    (a premise: the revocation accepted) or past its lifetime. Where a spec rule requires the
    token to be refused, that rule is noted for the checks of the refusal's shape. Its twin is
    the valid token passed the same way: asked first, where the revocation or the time that
    passes is what ends it."""
    unknown = how == "that the service never issued"
    scene.delivery = delivery(way)
    user = profile.user.username
    valid = (
        grants.get("web", "profile email", offline=True).access_token
        if unknown
        else scene.grant().access_token
    )
    see = DELIVERY_RULES.get(scene.delivery, RULE.USERINFO_HEADER)
    send_twin = _reads_user(service, valid, scene.delivery, user, see)
    if how in ("that was revoked", "that has expired"):  # the valid token, before it ended
        before = send_twin()
        send_twin = lambda: before  # noqa: E731 - the answer kept
    scene.negative = Negative(f"a token {how}", send_twin)
    token = NEVER_ISSUED if unknown else valid
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
    scene.keep(service.userinfo(token, scene.delivery))


@when(
    parsers.re(
        r"the application asks for the user's profile over plain HTTP"
        r"(?: with the token (?P<way>in .+))?"
    )
)
@premise(touches=("token",))
def ask_profile_plain_http(
    scene: Scene, service: Service, profile: TargetProfile, way: str | None
) -> None:
    """The bearer token over http:// (then revoked over HTTPS: it crossed the wire in clear).
    Its twin, the same token passed the same way over HTTPS, is asked first."""
    token, how = scene.grant().access_token, delivery(way)
    see = DELIVERY_RULES.get(how, RULE.USERINFO_HEADER)
    over_https = _reads_user(service, token, how, profile.user.username, see)()
    scene.negative = Negative("plain HTTP", lambda: over_https)
    try:
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


@then("the user's profile is included")
@check("SCOPE-PROFILE-GRANTS-PROFILE", touches=("token",))
def profile_included(scene: Scene, profile: TargetProfile, http: HttpLayer) -> None:
    """The user's name is in the granted answer (sampled). Premise: the token was accepted
    the way it went (a way the service does not read is that way's USERINFO-* rule's)."""
    _accepted(scene)
    for response in _again(scene, http):
        assert _reveals(response, profile.user.username), "the user's name is not in the answer"


@then("the service returns the user's profile")
@check(
    "USERINFO-HEADER",
    "USERINFO-POST-BODY",
    "USERINFO-QUERY",
    "VERSION-USERINFO-POST",
    touches=("token",),
)
def returns_profile(
    scene: Scene, profile: TargetProfile, http: HttpLayer, service: Service
) -> None:
    """2xx with the user's name in the answer (among a JSON document's values; the spec does
    not show the shape, so in the text of any other answer), sampled. A token refused every
    way is dead: that is the rule's that issued it, not this way's."""
    _require_alive(scene, service)
    for response in _again(scene, http):
        assert response.is_success, f"status {response.status_code}: {response.text[:200]}"
        assert _reveals(response, profile.user.username), "the user's name is not in the answer"


@then("the service does not return the user's profile")
@check("AUTH-BEARER-ONLY", "BEARER-HTTP-IGNORED", "SCOPE-PROFILE-WITHHELD", touches=("token",))
def no_profile(scene: Scene, profile: TargetProfile, http: HttpLayer) -> None:
    """The user's profile is not in the answer (or there was no connection at all), sampled.
    Spec 7.2 does not show the answers for a missing, refused or ignored token, so the status
    is not part of the check: a 200 without the user's data passes, a 401 with it fails."""
    if scene.transport_error is None:
        for response in _again(scene, http):
            assert not _reveals(response, profile.user.username), (
                f"the user's profile was returned ({response.status_code})"
            )
    require_twin(scene.negative)


def _require_alive(scene: Scene, service: Service) -> None:
    """When the token was refused the way it went, it must work another way for the refusal
    to be that way's failure; a token refused every way was never a live one (its origin's
    rule: the code exchange's, or the refresh's)."""
    if scene.last().is_success:
        return
    token = scene.grant().access_token
    others = [how for how in ("header", "body", "query") if how != scene.delivery]
    if any(service.token_accepted(token, how) for how in others):
        return
    held = scene.grant()
    see = RULE.REFRESH_NEW_ACCESS_TOKEN if held.history else exchange_rule(None, held.client)
    raise PremiseFailed("the token is refused every way it can travel", see=see)


def _email(profile: TargetProfile) -> str:
    if not profile.user.email:
        pytest.skip("the profile does not name the user's email")
    return str(profile.user.email)


@then("the user's email is not revealed")
@check("SCOPE-EMAIL-WITHHELD", touches=("token",))
def email_not_revealed(scene: Scene, profile: TargetProfile, http: HttpLayer) -> None:
    """Whatever the answer (granted or refused, JSON or not), the user's email is not in it: a
    refusal withholds it too (sampled)."""
    email = _email(profile)
    for response in _again(scene, http):
        assert email not in response.text, (
            f"the email is shown without the email scope ({response.status_code})"
        )
    require_twin(scene.negative)


@then("the user's email is included")
@check("SCOPE-EMAIL-GRANTS-EMAIL", touches=("token",))
def email_included(scene: Scene, profile: TargetProfile, http: HttpLayer) -> None:
    """The user's email address is in the granted answer (sampled)."""
    email = _email(profile)
    _accepted(scene)
    for response in _again(scene, http):
        assert _reveals(response, email), "the email is not shown"


def _bearer_challenges(response: httpx.Response) -> list[str]:
    """Every Bearer challenge among the answer's challenges (each is judged: a second one
    that says otherwise is as wrong as the first)."""
    offered = challenges(response)
    bearer = [c for c in offered if c.split(None, 1)[0].lower() == "bearer"]
    assert bearer, f"no Bearer challenge in WWW-Authenticate: {offered!r}"
    return bearer


@then(parsers.parse("the service answers {status:d} with a Bearer challenge without an error code"))
@check("USERINFO-ERR-NO-TOKEN")
def challenge_no_error(scene: Scene, profile: TargetProfile, http: HttpLayer, status: int) -> None:
    """RFC 6750 3.1: no error attribute when no credentials were sent (sampled)."""
    for response in _sampled(scene, profile, http):
        assert response.status_code == status, f"status {response.status_code}"
        for challenge in _bearer_challenges(response):
            assert auth_param(challenge, "error") is None, f"an error code: {challenge!r}"


@then(
    parsers.parse('the service answers {status:d} with a Bearer challenge with the error "{error}"')
)
@check("USERINFO-ERR-INSUFFICIENT-SCOPE", "USERINFO-ERR-INVALID-TOKEN")
def challenge_error(
    scene: Scene, profile: TargetProfile, http: HttpLayer, status: int, error: str
) -> None:
    """RFC 6750 3.1 error in every Bearer challenge (sampled). Premise: the refusal's twin, a
    token the service must accept passed the same way, is accepted (a way the service reads no
    token at all is the USERINFO-* rule's failure, not this one's)."""
    for response in _sampled(scene, profile, http):
        assert response.status_code == status, f"status {response.status_code}"
        for challenge in _bearer_challenges(response):
            assert auth_param(challenge, "error") == error, f"challenge {challenge!r}"


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


def _again(scene: Scene, http: HttpLayer) -> Iterator[httpx.Response]:
    """The scenario's last answer and SAMPLES - 1 more to the same request (noted): the user
    information endpoint asks no person, so an answer that varies between tries is found."""
    response = scene.last()
    http.note(sampling_note(SAMPLES))
    return samples(response, lambda: http.resend(response), SAMPLES)


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
    require_twin(scene.negative)
    return response
