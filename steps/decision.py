"""Steps of the user at the authorization page and where the browser ended (features:
authorization, consent, PKCE, desktop, scopes). A visit hands the code it brought to the
steps after it as the fixture `code` (None when it brought none)."""

from __future__ import annotations

from pytest_bdd import parsers, step, then

from steps.application import Application
from steps.approvals import Visits, visits_consent
from steps.consent import ServicePage
from steps.consent.base import RedirectResult
from steps.outcomes import NotChecked
from steps.probes import new_scope_set
from steps.scene import AuthRequest, IssuedCode, Scene

FIRST_APPROVAL_TRIES = 5


@visits_consent(Visits.EACH)
@step(
    parsers.re(
        r"the user (?P<act>approves the request|denies the request|opens the authorization page)"
    ),
    target_fixture="code",
)
def user_acts(application: Application, auth_request: AuthRequest, act: str) -> IssuedCode | None:
    """Approve (when the consent page asks), refuse on the consent page, or open the page and
    decide nothing."""
    driver = application.driver
    acts = {"approves": driver.approve, "denies": driver.deny, "opens": driver.open}
    return application.visit(auth_request, acts[act.split()[0]])


@visits_consent(Visits.EACH)
@step("the user approves the request on the consent page", target_fixture="code")
def user_approves_on_consent_page(
    application: Application, auth_request: AuthRequest
) -> IssuedCode | None:
    """Approve a scope set the user sees for the first time (spec 4.1: offline access is about
    the first code exchange for a user). A set approved before (on a long-lived deployment)
    is given up for another random one; the code issued without the page is left unused."""
    for _ in range(FIRST_APPROVAL_TRIES):
        code = application.visit(auth_request, application.driver.approve)
        outcome = application.scene.outcome
        if not (isinstance(outcome, RedirectResult) and outcome.consent_shown is False):
            return code
        auth_request.params["scope"] = application.profile.scope(new_scope_set())
    raise NotChecked("every scope set tried had been approved before: no first approval")


# --- where the browser ended -----------------------------------------------------------


def _target_of(url: str) -> str:
    return url.split("#", 1)[0].split("?", 1)[0]


def _sent_to_request(redirect: RedirectResult, request: AuthRequest, what: str) -> None:
    """The redirect went to the request's redirect URI (query and fragment aside)."""
    expected = request.redirect_uri
    if redirect.url and expected:
        assert _target_of(redirect.url) == _target_of(expected), (
            f"the {what} went to {_target_of(redirect.url)}, not to {expected}"
        )


@then("the application receives an authorization code")
def receives_code(scene: Scene, auth_request: AuthRequest) -> None:
    """Sent back to the request's redirect URI with a code."""
    redirect = scene.redirect()
    assert redirect.code, f"no code in the redirect: error={redirect.error!r}"
    if not redirect.oob:
        _sent_to_request(redirect, auth_request, "code")


@then("the user is shown an authorization code to copy")
def shown_code(scene: Scene) -> None:
    """Out of band: the service shows the code instead of redirecting."""
    redirect = scene.redirect()
    assert redirect.oob, (
        f"the browser was redirected to {redirect.url} instead of being shown a code"
    )
    assert redirect.code, "the out-of-band page shows no code"


@then(parsers.parse('the redirect carries the state "{state}"'))
def carries_state(scene: Scene, state: str) -> None:
    """state round-trips unchanged."""
    redirect = scene.redirect()
    assert redirect.state == state, f"state came back as {redirect.state!r}, sent {state!r}"


@then(parsers.parse('the application receives the error "{error}"'))
def receives_error(scene: Scene, auth_request: AuthRequest, error: str) -> None:
    """An error redirect to the application."""
    redirect = scene.redirect()
    assert not redirect.code, "a code was issued"
    assert redirect.error == error, f"error={redirect.error!r}, expected {error!r}"
    _sent_to_request(redirect, auth_request, "error")


@then(parsers.parse('the request is refused as "{error}"'))
def refused_as(scene: Scene, error: str) -> None:
    """Refused with that error, by an error redirect or on the service's own page: how the
    error reaches the user is the business of the rules about error delivery (7.1), not of
    the rule that uses this step."""
    outcome = scene.outcome
    if isinstance(outcome, RedirectResult):
        assert not outcome.code, "a code was issued"
        assert outcome.error == error, f"error={outcome.error!r}, expected {error!r}"
        return
    assert isinstance(outcome, ServicePage), f"no answer to check: {outcome}"
    assert not outcome.consent, "the service asked for consent: it accepted the request"
    if outcome.html:  # a driver that cannot read pages (manual) shows no text
        assert error in outcome.html, f"the service's page does not name {error!r}"


@then(parsers.parse('the error redirect carries the state "{state}"'))
def error_carries_state(scene: Scene, state: str) -> None:
    """Spec 4.1: a failure redirect carries `error` and the `state` that was sent. Which error
    the service names is another rule's business; without an error redirect at all there is
    no state to check (the rule about that kind of error says so)."""
    outcome = scene.outcome
    if not (isinstance(outcome, RedirectResult) and outcome.error):
        raise NotChecked(f"the service sent no error redirect to check the state of: {outcome}")
    assert outcome.state == state, (
        f"state came back as {outcome.state!r} with error={outcome.error!r}, sent {state!r}"
    )


@then("the service shows an error page without sending the user back")
def error_page(scene: Scene) -> None:
    """No redirect at all: the service cannot trust the redirect URI."""
    outcome = scene.outcome
    assert not isinstance(outcome, RedirectResult), f"the browser was sent to {outcome.url}"
    assert isinstance(outcome, ServicePage)
    assert not outcome.consent, "the service asked for consent instead of refusing the request"


@then("no authorization code is issued")
def no_code(scene: Scene) -> None:
    """Whatever happened, no code came out."""
    outcome = scene.outcome
    assert not (isinstance(outcome, RedirectResult) and outcome.code), "a code was issued"


@then("the consent page is shown")
def consent_shown(scene: Scene) -> None:
    """The user is asked."""
    outcome = scene.outcome
    assert isinstance(outcome, ServicePage) and outcome.consent, (
        f"no consent page; the browser ended on {outcome}"
    )


@then("the consent page is not shown")
def consent_not_shown(scene: Scene) -> None:
    """The user is not asked again."""
    outcome = scene.outcome
    assert isinstance(outcome, RedirectResult), f"the browser stayed on the service: {outcome}"
    assert outcome.consent_shown is not True
