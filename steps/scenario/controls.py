"""Control requests: whose failure it is when a check finds no code, or no tokens for one.

A check that finds nothing to judge must not fail for another rule's defect. Before it fails,
it asks the same application again, the way a real client asks (an S256 challenge and a state:
`client_request`), and, when that fails too, without PKCE (`bare_request`). What the controls
get decides who owns the failure:

| the check's request | the real client's | without PKCE | owner |
|---|---|---|---|
| varies from the real client's | gets one | - | the check's own rule |
| any | gets none | gets one | RULE.PKCE_S256 (its challenge is what breaks) |
| any | gets none | gets none | the plain flow's rule (see below) |

The plain flow's rule: RULE.AUTHZ_RESPONSE_TYPE_CODE (web) or RULE.APP_TYPES (installed) for a code,
RULE.TOKEN_CODE_EXCHANGE or RULE.APP_TYPES for tokens.

The controls cost visits only when a check is about to fail.
"""

from __future__ import annotations

from steps.http.readers import granted
from steps.outcomes import PremiseFailed
from steps.profiles.profile import RegisteredApp
from steps.rules.ids import RULE
from steps.scenario.authorization import (
    bare_request,
    client_request,
    code_rule,
    exchange_rule,
    redirect_code,
)
from steps.scenario.scene import AuthRequest
from steps.scenario.target import Target

CONTROL_SCOPE = "profile"


def _comparable(request: AuthRequest) -> dict[str, str | None]:
    """A request's parameters without the values every request draws anew."""
    drawn = ("state", "code_challenge")
    return {k: v for k, v in request.params.items() if k not in drawn}


def _code(target: Target, request: AuthRequest) -> str | None:
    """The code a control request gets when the user approves it."""
    outcome = target.driver.approve(target.service.authorize_url(request.params))
    return redirect_code(outcome, target.http)


def _tokens(target: Target, request: AuthRequest) -> bool:
    """Whether the flow of this request, exchanged plainly, gives tokens."""
    code = _code(target, request)
    if code is None or request.redirect_uri is None:
        return False
    fields = {"code_verifier": request.verifier} if request.verifier else {}
    response = target.service.exchange(request.client, code, request.redirect_uri, fields)
    return granted(response) is not None


def code_owner(target: Target, request: AuthRequest) -> str:
    """The rule a missing code belongs to ("" when the request's own variation is to blame)."""
    client = request.client
    usual = client_request(target.service, client, CONTROL_SCOPE)
    if _comparable(request) != _comparable(usual) and _code(target, usual):
        return ""
    if _code(target, bare_request(target.service, client, CONTROL_SCOPE)):
        return RULE.PKCE_S256
    return code_rule(None, client)


def exchange_owner(target: Target, client: RegisteredApp) -> str:
    """The rule a refused exchange of `client`'s code belongs to ("" when the scenario's own
    request or exchange is to blame: the real client's flow, exchanged plainly, gives tokens)."""
    if _tokens(target, client_request(target.service, client, CONTROL_SCOPE)):
        return ""
    if _tokens(target, bare_request(target.service, client, CONTROL_SCOPE)):
        return RULE.PKCE_S256
    return exchange_rule(None, client)


def blame(owner: str, own_rules: tuple[str, ...], failure: str) -> None:
    """Fail with `failure` when the owner is the scenario's own rule (or the variation);
    otherwise the scenario could not be checked, naming the owner."""
    if not owner or owner in own_rules:
        raise AssertionError(failure)
    raise PremiseFailed(f"{failure}; the controls put it on {owner}", see=owner)
