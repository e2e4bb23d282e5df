"""The user's visit to the authorization page, and what the application keeps of it: the
code a redirect brought, with the PKCE pair of the request it answers, and the rule that says
such a request leads to a code (named when a premise finds none). (The steps that build the
request are in steps/definitions/auth_request.py; those of the user's decision and where the browser
ended, in steps/definitions/decision.py.)"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from urllib.parse import urlsplit

from steps.consent.base import Outcome, RedirectResult
from steps.http.layer import HttpLayer
from steps.http.readers import LENIENCIES, lenient_note
from steps.outcomes import require
from steps.profiles.profile import RegisteredApp
from steps.rules.ids import RULE
from steps.scenario.observations import Observations
from steps.scenario.pkce import challenge_for, url_safe_verifier
from steps.scenario.probes import ALL_SCOPES, OOB_URI
from steps.scenario.scene import AuthRequest, IssuedCode, Scene
from steps.scenario.service import Service
from steps.scenario.target import Target

PKCE_RULES = {"plain": RULE.PKCE_PLAIN, "default": RULE.PKCE_DEFAULT_PLAIN, "": RULE.PKCE_OPTIONAL}


def visit(
    scene: Scene, target: Target, request: AuthRequest, act: Callable[[str], Outcome]
) -> IssuedCode | None:
    """Send the user to the request's URL; `act` is what the driver does there (kept, so a
    check can send the user again: further samples, or a control request)."""
    service = target.service
    scene.request = request
    scene.revisit = lambda again: act(service.authorize_url(again.params))
    outcome = act(service.authorize_url(request.params))
    scene.outcome = outcome
    return code_of(request, outcome, target.observations, target.http)


def code_of(
    request: AuthRequest, outcome: Outcome, observations: Observations, http: HttpLayer
) -> IssuedCode | None:
    """The code the visit ended with (its format observed), or None. Read as the application
    would: from the query; a code only in the fragment is taken too, leniently, with a note
    (RULE.CODE_IN_REDIRECT fails on it)."""
    code = redirect_code(outcome, http)
    if not code:
        return None
    observations.token_format("code", code)
    redirect_uri = request.redirect_uri
    if not redirect_uri:  # a request without a redirect URI: nothing to exchange the code for
        return None
    access_type = request.params.get("access_type") or ""
    return IssuedCode(
        request.client, code, redirect_uri, request.verifier, request.challenge, access_type
    )


def redirect_code(outcome: Outcome, http: HttpLayer) -> str | None:
    """The code of a redirect as a premise reads it: the query's, else (noted) the fragment's."""
    if not isinstance(outcome, RedirectResult):
        return None
    if outcome.fragment_code:
        what = "a code only in the redirect's fragment"
        http.note(lenient_note(what, LENIENCIES[what]))
    return outcome.code or outcome.fragment_code


def code_rule(request: AuthRequest | None, client: RegisteredApp) -> str:
    """The rule that says a request of this shape leads to a code."""
    return _rule_for(request, client, web=RULE.AUTHZ_RESPONSE_TYPE_CODE)


def exchange_rule(request: AuthRequest | None, client: RegisteredApp) -> str:
    """The rule that says the code of such a request is exchanged for tokens."""
    return _rule_for(request, client, web=RULE.TOKEN_CODE_EXCHANGE)


def _rule_for(request: AuthRequest | None, client: RegisteredApp, *, web: str) -> str:
    params = request.params if request is not None else {}
    redirect_uri = params.get("redirect_uri") or client.redirect_uri
    if redirect_uri == OOB_URI:
        return RULE.DESKTOP_OOB
    if request is not None and pkce_shape(request) in PKCE_RULES:
        return PKCE_RULES[pkce_shape(request)]
    if params.get("access_type") == "offline":
        return RULE.TOKEN_REFRESH_OFFLINE
    if redirect_uri != client.redirect_uri and _is_loopback(redirect_uri):
        return RULE.DESKTOP_LOCALHOST_ANY_PORT
    if len((params.get("scope") or "").split()) == len(ALL_SCOPES):
        return RULE.SCOPE_IDENTIFIERS
    return RULE.APP_TYPES if client.role == "installed" else web


def _is_loopback(uri: str) -> bool:
    return (urlsplit(uri).hostname or "") in ("localhost", "127.0.0.1", "::1")


def client_request(service: Service, client: RegisteredApp, scope: str) -> AuthRequest:
    """The authorization request a real client sends: an S256 challenge and a state (spec 4.1
    recommends both), so premises hold on a deployment that demands PKCE; RULE.PKCE_OPTIONAL's
    scenarios leave the challenge out on purpose."""
    request = AuthRequest(client, service.authorize_params(client, scope))
    request.verifier = url_safe_verifier()
    request.challenge = challenge_for(request.verifier, "S256")
    request.params |= {
        "code_challenge": request.challenge,
        "code_challenge_method": "S256",
        "state": "st-" + secrets.token_hex(6),
    }
    return request


def pkce_request(service: Service, client: RegisteredApp, scope: str, pkce: str) -> AuthRequest:
    """The real client's request with the PKCE challenge of a dimension value: "S256" (as it
    sends it), "plain" (the verifier itself, method plain), "none" (no challenge; the state
    stays, so the request differs from the real client's in its challenge alone)."""
    request = client_request(service, client, scope)
    if pkce == "plain":
        request.challenge = challenge_for(request.verifier or url_safe_verifier(), "plain")
        request.params |= {"code_challenge": request.challenge, "code_challenge_method": "plain"}
    elif pkce == "none":
        request.verifier = request.challenge = None
        request.params |= {"code_challenge": None, "code_challenge_method": None}
    return request


def require_faultless_accepted(target: Target, request: AuthRequest) -> None:
    """The positive twin of a request with one fault (steps/scenario/negatives.py): the same
    request without it leads to the consent page or a code. Asked once per run for each shape
    of request (a visit may ask a person), so a refusal of the fault proves something."""
    if not request.fault or request.faultless is None:
        return
    params = request.faultless
    drawn = ("state", "code_challenge")
    shape = tuple(sorted((k, v) for k, v in params.items() if k not in drawn and v is not None))
    if shape not in target.accepted_requests:
        outcome = target.driver.open(target.service.authorize_url(params))
        target.accepted_requests[shape] = _leads_on(outcome)
    else:
        target.http.note(
            f"the same request without {request.fault} was accepted earlier in the run"
        )
    faultless = AuthRequest(request.client, params, request.verifier, request.challenge)
    require(
        target.accepted_requests[shape],
        f"the same request without {request.fault} was refused too, so its refusal proves nothing",
        see=code_rule(faultless, request.client),
    )


def _leads_on(outcome: Outcome) -> bool:
    """Whether a visit was accepted: the consent page, or a redirect with a code."""
    if isinstance(outcome, RedirectResult):
        return not outcome.error and bool(outcome.code or outcome.fragment_code)
    return bool(getattr(outcome, "consent", False))


def bare_request(service: Service, client: RegisteredApp, scope: str) -> AuthRequest:
    """The request with the required parameters only (no PKCE, no state)."""
    return AuthRequest(client, service.authorize_params(client, scope))


def pkce_shape(request: AuthRequest) -> str:
    """ "S256", "plain", "default" (a challenge without a method), another method, or ""."""
    params = request.params
    if not params.get("code_challenge") and not params.get("code_challenge_method"):
        return ""
    return params.get("code_challenge_method") or "default"
