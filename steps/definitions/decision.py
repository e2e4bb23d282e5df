"""Steps of the user at the authorization page and where the browser ended (features:
authorization, consent, PKCE, desktop, scopes). A visit hands the code it brought to the
steps after it as the fixture `code` (None when it brought none).

The checks read the redirect strictly where their rule speaks of it (the `code` query
parameter, `state` and `error` each once, the request's redirect URI). A check that finds no
answer of its rule's kind (no code, no error redirect) asks whether the request's variation
is to blame: when a control request without it (the application's plain request) leads to a
code the failure is this rule's; else the scenario could not be checked, naming the rule of
the plain request.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytest_bdd import parsers, step, then

from steps.consent import ServicePage
from steps.consent.base import Outcome, RedirectResult
from steps.http.readers import LENIENCIES, lenient_note
from steps.outcomes import NotChecked, PremiseFailed
from steps.rules.ids import RULE
from steps.scenario.authorization import code_rule, require_faultless_accepted, visit
from steps.scenario.controls import blame, code_owner
from steps.scenario.fresh_scopes import every_to_approve
from steps.scenario.kinds import check, premise
from steps.scenario.scene import AuthRequest, IssuedCode, Scene
from steps.scenario.target import Target
from steps.scenario.visits import Visits, act_visit, needs_pages, visits_consent
from steps.scheduling.sampling import sample_count, samples, sampling_note


@visits_consent(act_visit)
@step(
    parsers.re(
        r"the user (?P<act>approves the request|denies the request|opens the authorization page)"
    ),
    target_fixture="code",
)
@premise()
def user_acts(
    scene: Scene,
    target: Target,
    auth_request: AuthRequest,
    act: str,
    scenario_steps: tuple[str, ...],
) -> IssuedCode | None:
    """Approve (when the consent page asks), refuse on the consent page, or open the page and
    decide nothing. A visit for a check the driver cannot make (it reads no pages) is not made:
    the scenario is skipped before anyone is asked."""
    driver = target.driver
    if not driver.observes_pages and needs_pages(scenario_steps):
        pytest.skip(f"the {driver.name} driver cannot read page headers")
    acts = {"approves": driver.approve, "denies": driver.deny, "opens": driver.open}
    scene.act = act.split()[0]
    code = visit(scene, target, auth_request, acts[scene.act])
    if scene.act == "denies" and not auth_request.fault:
        _require_a_page_to_deny(scene.outcome, auth_request)
    return code


def _require_a_page_to_deny(outcome: Outcome | None, request: AuthRequest) -> None:
    """A code issued with no consent page shown left the user nothing to deny: that is the
    consent rule's defect (or the forced prompt's), not the denial's. A driver that cannot
    tell whether the page was shown (consent_shown None: a person's paste) is taken at its word."""
    if isinstance(outcome, RedirectResult) and outcome.consent_shown is False and outcome.code:
        forced = request.params.get("approval_prompt") == "force"
        see = RULE.AUTHZ_APPROVAL_FORCE if forced else RULE.AUTH_USER_CONSENT
        raise PremiseFailed("a code was issued without the consent page to deny", see=see)


@visits_consent(Visits.EACH)
@step("the user approves the request on the consent page", target_fixture="code")
@premise(see=RULE.TOKEN_REFRESH_OFFLINE)
def user_approves_on_consent_page(
    scene: Scene, target: Target, auth_request: AuthRequest
) -> IssuedCode | None:
    """Approve a scope set the user sees for the first time (spec 4.1: offline access is about
    the first code exchange for a user). A set approved before (on a long-lived deployment)
    is given up for the next of the pool, each tried once; the code issued without the page is
    left unused."""
    scene.act = "approves"
    tried = auth_request.params["scope"]
    others = (s for s in map(target.profile.scope, every_to_approve()) if s != tried)
    while True:
        code = visit(scene, target, auth_request, target.driver.approve)
        outcome = scene.outcome
        if not (isinstance(outcome, RedirectResult) and outcome.consent_shown is False):
            return code
        following = next(others, None)
        if following is None:
            raise NotChecked(
                "every scope set of the pool had been approved before: no first approval"
            )
        auth_request.params["scope"] = following


# --- where the browser ended -----------------------------------------------------------


def _target_of(url: str) -> str:
    return url.split("#", 1)[0].split("?", 1)[0]


def sent_to_request(redirect: RedirectResult, request: AuthRequest, what: str) -> None:
    """The redirect went to the request's redirect URI (query and fragment aside)."""
    expected = request.redirect_uri
    if redirect.url and expected and not redirect.oob:
        assert _target_of(redirect.url) == _target_of(expected), (
            f"the {what} went to {_target_of(redirect.url)}, not to {expected}"
        )


def _has_code(outcome: Outcome | None) -> bool:
    return isinstance(outcome, RedirectResult) and bool(outcome.code or outcome.fragment_code)


def _blame(target: Target, request: AuthRequest, failure: str, rules: tuple[str, ...]) -> None:
    """Fail, or could not be checked when control requests blame another rule (controls.py)."""
    blame(code_owner(target, request), rules, failure)


@then("the application receives an authorization code")
@check(
    "AUTHZ-RESPONSE-TYPE-CODE",
    "DESKTOP-LOCALHOST-ANY-PORT",
    "SCOPE-IDENTIFIERS",
    touches=("authorization",),
)
def receives_code(
    scene: Scene, target: Target, auth_request: AuthRequest, scenario_rules: tuple[str, ...]
) -> None:
    """The flow leads to a code, sent back to the request's redirect URI (where in the redirect
    it rides is RULE.CODE_IN_REDIRECT's check), sampled."""
    for outcome in sampled_outcomes(scene, target, auth_request):
        if not _has_code(outcome):
            scene.outcome = outcome
            failure = f"no code: the browser ended on {outcome}"
            _blame(target, auth_request, failure, scenario_rules)
        assert isinstance(outcome, RedirectResult)
        sent_to_request(outcome, auth_request, "code")


@then("the code comes in the query of the redirect to the redirect URI")
@check("CODE-IN-REDIRECT", touches=("authorization",))
def code_in_query(scene: Scene, target: Target, auth_request: AuthRequest) -> None:
    """Spec 2.2: the code is delivered in the `code` query parameter (once) of the redirect
    to redirect_uri; a code in the fragment never reaches the application's server (sampled)."""
    for outcome in sampled_outcomes(scene, target, auth_request):
        if not _has_code(outcome):
            see = code_rule(auth_request, auth_request.client)
            raise PremiseFailed(f"no code came back: the browser ended on {outcome}", see=see)
        assert isinstance(outcome, RedirectResult)
        assert outcome.code, "the code came in the fragment, which the application never sees"
        assert "code" not in outcome.repeated, "the query gives `code` more than once"
        sent_to_request(outcome, auth_request, "code")


@then("the user is shown an authorization code to copy")
@check("CODE-OOB-SHOWN")
def shown_code(scene: Scene) -> None:
    """Out of band: the service shows the code instead of redirecting."""
    redirect = scene.redirect()
    assert redirect.oob, (
        f"the browser was redirected to {redirect.url} instead of being shown a code"
    )
    assert redirect.code, "the out-of-band page shows no code"


def state_of(redirect: RedirectResult, target: Target) -> str | None:
    """The state as the application reads it: once, in the query; from the fragment only
    where the code came there too (noted: RULE.CODE_IN_REDIRECT fails on that delivery)."""
    assert "state" not in redirect.repeated, "the query gives `state` more than once"
    if redirect.fragment_code:
        what = "a code only in the redirect's fragment"
        target.http.note(lenient_note(what, LENIENCIES[what]))
        return redirect.fragment.get("state")
    return redirect.state


@then(parsers.re(r'the redirect carries (?:the state "(?P<state>[^"]*)"|the same state)'))
@check("AUTHZ-STATE-ECHO", touches=("state",))
def carries_state(
    scene: Scene,
    target: Target,
    auth_request: AuthRequest,
    scenario_rules: tuple[str, ...],
    state: str | None,
) -> None:
    """state round-trips unchanged, sampled (steps/scheduling/sampling.py). Premise: the visit
    ends on a success redirect; when it does not, a control without the state decides whether
    the state is to blame."""
    state = state if state is not None else str(auth_request.params.get("state"))
    for outcome in sampled_outcomes(scene, target, auth_request):
        if not _has_code(outcome):
            scene.outcome = outcome
            failure = f"no success redirect: the browser ended on {outcome}"
            _blame(target, auth_request, failure, scenario_rules)
        assert isinstance(outcome, RedirectResult)
        found = state_of(outcome, target)
        assert found == state, f"state came back as {found!r}, sent {state!r}"


def sampled_outcomes(scene: Scene, target: Target, request: AuthRequest) -> Iterator[Outcome]:
    """The visit's outcome and further samples (noted), lazily: a failing sample ends the check."""
    count = sample_count(target.driver.visits_are_cheap)
    target.http.note(sampling_note(count))
    assert scene.outcome is not None and scene.revisit is not None, "no visit to sample"
    revisit = scene.revisit
    return samples(scene.outcome, lambda: revisit(request), count)


@then("no authorization code is issued")
@check("AUTHZ-REQUIRED-PARAMS", "AUTH-USER-CONSENT")
def no_code(scene: Scene, target: Target, auth_request: AuthRequest) -> None:
    """Whatever happened, no code came out (in the query or the fragment); where the request
    had a fault, beside its positive twin. Sampled."""
    for outcome in sampled_outcomes(scene, target, auth_request):
        assert not _has_code(outcome), "a code was issued"
    require_faultless_accepted(target, auth_request)


@then("the consent page is shown")
@check("AUTHZ-APPROVAL-AUTO-NEW-SCOPES", "AUTHZ-APPROVAL-FORCE", touches=("authorization",))
def consent_shown(scene: Scene, target: Target, auth_request: AuthRequest) -> None:
    """The user is asked (sampled)."""
    for outcome in sampled_outcomes(scene, target, auth_request):
        assert isinstance(outcome, ServicePage) and outcome.consent, (
            f"no consent page; the browser ended on {outcome}"
        )


@then("the consent page is not shown")
@check("AUTHZ-APPROVAL-AUTO", touches=("authorization",))
def consent_not_shown(scene: Scene, target: Target, auth_request: AuthRequest) -> None:
    """The user is not asked again (sampled)."""
    for outcome in sampled_outcomes(scene, target, auth_request):
        assert isinstance(outcome, RedirectResult), f"the browser stayed on the service: {outcome}"
        assert outcome.consent_shown is not True
