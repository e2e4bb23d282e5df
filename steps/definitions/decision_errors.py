"""Where the browser ended when the service refused an authorization request (features:
authorization, consent, PKCE, scopes): an error redirect to the application, or an error page
of the service's own where it cannot trust the redirect URI. Each refusal is sampled and stands
beside its twin, the same request without its fault (steps/scenario/authorization.py)."""

from __future__ import annotations

from pytest_bdd import parsers, then

from steps.consent import ServicePage
from steps.consent.base import RedirectResult
from steps.definitions.decision import sampled_outcomes, sent_to_request, state_of
from steps.outcomes import PremiseFailed
from steps.rules.ids import RULE
from steps.scenario.authorization import require_faultless_accepted
from steps.scenario.kinds import check
from steps.scenario.scene import AuthRequest, Scene
from steps.scenario.target import Target

#: The rule that says each kind of authorization error is redirected to the application.
ERROR_REDIRECT_RULES = {
    "access_denied": RULE.AUTHZ_ERR_ACCESS_DENIED,
    "invalid_scope": RULE.AUTHZ_ERR_INVALID_SCOPE,
    "unsupported_response_type": RULE.AUTHZ_ERR_UNSUPPORTED_RESPONSE_TYPE,
    "invalid_request": RULE.AUTHZ_ERR_INVALID_REQUEST,
}


@then(parsers.parse('the application receives the error "{error}"'))
@check(
    "AUTHZ-ERR-ACCESS-DENIED",
    "AUTHZ-ERR-INVALID-REQUEST",
    "AUTHZ-ERR-INVALID-SCOPE",
    "AUTHZ-ERR-UNSUPPORTED-RESPONSE-TYPE",
    touches=("error_redirect",),
)
def receives_error(scene: Scene, target: Target, auth_request: AuthRequest, error: str) -> None:
    """An error redirect to the application: `error` once in the query, and no code, sampled
    (beside the request's positive twin, the same request without its fault)."""
    for outcome in sampled_outcomes(scene, target, auth_request):
        assert isinstance(outcome, RedirectResult), (
            f"the browser was not sent back to the application; it ended on {outcome}"
        )
        assert not (outcome.code or outcome.fragment_code), "a code was issued"
        assert "error" not in outcome.repeated, "the query gives `error` more than once"
        assert outcome.error == error, f"error={outcome.error!r}, expected {error!r}"
        sent_to_request(outcome, auth_request, "error")
    require_faultless_accepted(target, auth_request)


@then(parsers.parse('the request is refused as "{error}"'))
@check(
    "PKCE-BAD-METHOD", "PKCE-CHALLENGE-FORMAT", "SCOPE-CASE-SENSITIVE", touches=("error_redirect",)
)
def refused_as(scene: Scene, target: Target, auth_request: AuthRequest, error: str) -> None:
    """Refused with that error, by an error redirect or on the service's own page: how the
    error reaches the user is the business of the rules about error delivery (7.1), not of
    the rule that uses this step. Sampled."""
    for outcome in sampled_outcomes(scene, target, auth_request):
        if isinstance(outcome, RedirectResult):
            assert not (outcome.code or outcome.fragment_code), "a code was issued"
            assert outcome.error == error, f"error={outcome.error!r}, expected {error!r}"
            continue
        assert isinstance(outcome, ServicePage), f"no answer to check: {outcome}"
        assert not outcome.consent, "the service asked for consent: it accepted the request"
        if outcome.html:  # a driver that cannot read pages (manual) shows no text
            assert error in outcome.html, f"the service's page does not name {error!r}"
    require_faultless_accepted(target, auth_request)


@then(parsers.re(r'the error redirect carries (?:the state "(?P<state>[^"]*)"|the same state)'))
@check("AUTHZ-STATE-ON-ERROR", touches=("error_redirect", "state"))
def error_carries_state(
    scene: Scene, target: Target, auth_request: AuthRequest, state: str | None
) -> None:
    """Spec 4.1: a failure redirect carries `error` and the `state` that was sent, sampled.
    Which error the service names is another rule's business; without an error redirect at all
    there is no state to check (the rule about redirecting that kind of error judges it)."""
    state = state if state is not None else str(auth_request.params.get("state"))
    for outcome in sampled_outcomes(scene, target, auth_request):
        if not (isinstance(outcome, RedirectResult) and outcome.error):
            see = ERROR_REDIRECT_RULES[expected_error(auth_request, scene.act)]
            raise PremiseFailed(f"no error redirect to check the state of: {outcome}", see=see)
        found = state_of(outcome, target)
        assert found == state, (
            f"state came back as {found!r} with error={outcome.error!r}, sent {state!r}"
        )


def expected_error(request: AuthRequest, act: str) -> str:
    """The error a request is refused with: the user's refusal, else its fault's (recorded by
    the step that made it: a PKCE challenge alone is no fault)."""
    if act == "denies":
        return "access_denied"
    return request.error or "invalid_request"


@then("the service shows an error page without sending the user back")
@check(
    "AUTHZ-ERR-BAD-CLIENT",
    "AUTHZ-ERR-BAD-REDIRECT",
    "AUTHZ-REDIRECT-URI-BYPASS",
    "DESKTOP-LOOPBACK-PATH",
)
def error_page(scene: Scene, target: Target, auth_request: AuthRequest) -> None:
    """No redirect at all: the service cannot trust the redirect URI (beside the request's
    positive twin, the same request without its fault). Sampled."""
    for outcome in sampled_outcomes(scene, target, auth_request):
        assert not isinstance(outcome, RedirectResult), f"the browser was sent to {outcome.url}"
        assert isinstance(outcome, ServicePage)
        assert not outcome.consent, "the service asked for consent instead of refusing it"
    require_faultless_accepted(target, auth_request)
