"""What the user information endpoint answered (features: user information, scopes,
transport): the checks of the answers the steps of userinfo.py asked for. A token refused the
way it went must be alive another way for that way's rule to fail; a refusal stands beside its
twin (steps/scenario/negatives.py); every check that costs no person is sampled."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from pytest_bdd import parsers, then

from steps.definitions.userinfo import DELIVERY_RULES
from steps.http.layer import HttpLayer
from steps.http.readers import auth_param, challenges, reveals, strict_json
from steps.outcomes import PremiseFailed, require
from steps.profiles.profile import TargetProfile
from steps.rules.ids import RULE
from steps.scenario.authorization import exchange_rule
from steps.scenario.kinds import check
from steps.scenario.negatives import require_twin
from steps.scenario.scene import Scene
from steps.scenario.service import Service
from steps.scheduling.sampling import SAMPLES, samples, sampling_note


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
        assert reveals(response, profile.user.username), "the user's name is not in the answer"


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
        assert reveals(response, profile.user.username), "the user's name is not in the answer"


@then("the service does not return the user's profile")
@check("AUTH-BEARER-ONLY", "BEARER-HTTP-IGNORED", "SCOPE-PROFILE-WITHHELD", touches=("token",))
def no_profile(scene: Scene, profile: TargetProfile, http: HttpLayer) -> None:
    """The user's profile is not in the answer (or there was no connection at all), sampled.
    Spec 7.2 does not show the answers for a missing, refused or ignored token, so the status
    is not part of the check: a 200 without the user's data passes, a 401 with it fails."""
    if scene.transport_error is None:
        for response in _again(scene, http):
            assert not reveals(response, profile.user.username), (
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
        assert reveals(response, email), "the email is not shown"


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
    scene.require_refusal(not reveals(response, profile.user.username), "the profile came back")
    require_twin(scene.negative)
    return response
