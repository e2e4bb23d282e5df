"""What the revocation endpoint answered, and the grant's tokens after a revocation (feature:
revocation; lifetime and consent use the same checks of a token's state). A refused
revocation's twin is sent by the check that comes last, since it ends the token it names."""

from __future__ import annotations

from pytest_bdd import parsers, then

from steps.definitions.revocation import Revocations, grant_token
from steps.http.layer import HttpLayer
from steps.http.readers import granted, issued_tokens
from steps.profiles.profile import TargetProfile
from steps.scenario.clock import Clock
from steps.scenario.grants import GrantCache
from steps.scenario.kinds import check
from steps.scenario.negatives import require_twin
from steps.scenario.probes import delivery
from steps.scenario.scene import Scene
from steps.scenario.service import Service
from steps.scheduling.sampling import SAMPLES, samples, sampling_note


@then("the service offers token revocation")
@check("VERSION-REVOCATION")
def revocation_offered(scene: Scene) -> None:
    """Section 9: the endpoint exists (whatever it answers, it is not 'no such endpoint')."""
    status = scene.last().status_code
    assert status not in (404, 405, 501), f"the revocation endpoint answered {status}"


@then("the revocation is answered 200 with an empty body")
@check("REVOKE-EMPTY-200", "REVOKE-INVALID-TOKEN-200")
def revoked_200_empty(scene: Scene, http: HttpLayer) -> None:
    """Section 4.4: 200, empty body, sampled (the same revocation again names a token that is
    no longer valid: still 200 and empty, as RULE.REVOKE_INVALID_TOKEN_200 wants too)."""
    response = scene.last()
    http.note(sampling_note(SAMPLES))
    for answer in samples(response, lambda: http.resend(response), SAMPLES):
        assert answer.status_code == 200, f"status {answer.status_code}: {answer.text[:200]}"
        assert answer.content == b"", f"body is {answer.text[:200]!r}"


@then("the revocation is not answered with success")
@check(
    "AUTH-REVOKE-CLIENT-SECRET",
    "REVOKE-NO-QUERY-PARAMS",
    "REVOKE-POST-ONLY",
    "REVOKE-REQUIRED-PARAMS",
)
def revoke_refused(scene: Scene) -> None:
    """Anything but a 2xx."""
    response = scene.last()
    assert not response.is_success, f"answered {response.status_code}"


@then(
    parsers.re(
        r"the access token (?P<still>still works|no longer works)"
        r"(?: when passed (?P<way>in .+))?"
    )
)
@check("LIFETIME-ACCESS-EXPIRES", touches=("token",))
def access_token_state(
    scene: Scene, service: Service, grants: GrantCache, still: str, way: str | None
) -> None:
    """Whether the service still accepts the grant's access token passed that way (any 2xx:
    what it returns is the USERINFO-* rules' business), or no longer gives the user's data
    for it. Either way beside a live token of the same kind accepted the same way (a way the
    service reads no token is its USERINFO-* rule's failure; a token "no longer" refused that
    way proves nothing)."""
    token, how = grant_token(scene, "access"), delivery(way)
    if still == "still works":
        if not service.token_accepted(token, how):
            grants.require_read(scene.grant(), how)
            raise AssertionError("the access token is refused")
        require_twin(scene.negative)  # a refused revocation's twin, now that it was checked
    else:
        assert service.token_refused(token, how), "the access token still gives the user's data"
        grants.require_read(scene.grant(), how)


@then("the refresh token no longer works")
@check("REVOKE-MANUAL", "REVOKE-REFRESH-WHOLE-GRANT", touches=("refresh_token",))
def refresh_dead(
    scene: Scene, service: Service, profile: TargetProfile, revocations: Revocations
) -> None:
    """A refresh with the token fails."""
    note = revocations.website_note
    if profile.capabilities.no_manual_revocation and note:
        raise AssertionError(note)
    response = service.refresh(scene.app(), grant_token(scene, "refresh"))
    note = f" ({note})" if note else ""
    assert not issued_tokens(response), f"it still yields tokens{note}"  # any status: spec 7.2


@then("no refresh token of the grant works either")
@check("REVOKE-ONLINE-WHOLE-GRANT")
def no_refresh_left(scene: Scene, service: Service) -> None:
    """An online grant has no refresh token; one a non-conforming service handed out anyway
    must have gone with the whole grant."""
    refresh_token = scene.grant().refresh_token
    if not refresh_token:
        return
    response = service.refresh(scene.app(), refresh_token)
    assert not issued_tokens(response), (  # any status: spec 7.2
        "the refresh token the service handed out for this online grant still yields tokens"
    )


@then(parsers.re(r"the refresh token (?:still yields new access tokens|still works)"))
@check(
    "LIFETIME-REFRESH-PERSISTS",
    "REVOKE-ACCESS-KEEPS-REFRESH",
    "REVOKE-OTHER-CLIENT",
    touches=("refresh_token",),
)
def refresh_alive(scene: Scene, service: Service, clock: Clock) -> None:
    """A refresh with the token is granted (read as a client reads it: its format is
    RULE.TOKEN_RESPONSE_ACCESS_TOKEN's business)."""
    response = service.refresh(scene.app(), grant_token(scene, "refresh"))
    answer = granted(response)
    assert answer is not None, f"refresh answered {response.status_code}: {response.text[:200]}"
    assert scene.tokens is not None
    scene.tokens.renewed(answer.fields, clock.now())
    require_twin(scene.negative)  # a refused revocation's twin, now that it was checked
