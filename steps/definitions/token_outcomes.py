"""What the token endpoint answered (features: code exchange, PKCE, refresh, desktop,
lifetime). Every step here is a check; a premise it needs first (a granted answer to read a
field of, a refusal whose error to read) is read leniently and names the rule behind it."""

from __future__ import annotations

import httpx
from pytest_bdd import parsers, then

from steps.http.readers import (
    TokenAnswer,
    directives,
    granted,
    issued_tokens,
    strict_json,
    strict_token_fields,
)
from steps.outcomes import PremiseFailed, require
from steps.rules.ids import RULE
from steps.scenario.controls import blame, exchange_owner
from steps.scenario.grants import GrantCache
from steps.scenario.kinds import check
from steps.scenario.negatives import require_twin
from steps.scenario.probes import delivery
from steps.scenario.scene import Scene
from steps.scenario.service import Service
from steps.scenario.target import Target
from steps.scenario.token import refresh_rule

#: The rule whose check says that each kind of token request is granted.
GRANTED_BY = {"code exchange": RULE.TOKEN_CODE_EXCHANGE, "refresh": RULE.REFRESH_NEW_ACCESS_TOKEN}


def _granted(response: httpx.Response) -> TokenAnswer:
    answer = granted(response)
    assert answer is not None, f"answered {response.status_code}: {response.text[:300]}"
    return answer


@then("the application receives an access token")
@check(
    "APP-TYPES",
    "DESKTOP-OOB",
    "PKCE-DEFAULT-PLAIN",
    "PKCE-OPTIONAL",
    "PKCE-PLAIN",
    "PKCE-S256",
    "TOKEN-CODE-EXCHANGE",
)
def receives_access_token(scene: Scene, target: Target, scenario_rules: tuple[str, ...]) -> None:
    """The exchange was granted (the answer's format is RULE.TOKEN_RESPONSE_ACCESS_TOKEN's). When it
    was not, control flows decide whose failure that is (steps/scenario/controls.py)."""
    response = scene.last()
    if granted(response) is None:
        failure = f"answered {response.status_code}: {response.text[:300]}"
        client = scene.request.client if scene.request is not None else scene.app()
        blame(exchange_owner(target, client), scenario_rules, failure)


@then("the application receives a new access token")
@check("REFRESH-NEW-ACCESS-TOKEN", "REFRESH-TOKEN-STAYS-VALID")
def receives_new_access_token(scene: Scene) -> None:
    """A granted refresh with an access token other than the previous ones."""
    answer = _granted(scene.last())
    assert answer.access_token not in scene.grant().history, "the same access token came back"


@then(parsers.re(r"the (?:new )?access token is accepted by the service"))
@check(touches=("token",))
def token_accepted(scene: Scene, service: Service) -> None:
    """The user information endpoint accepts the token in the Authorization header (whatever
    the shape of its answer: what it returns is the USERINFO-* rules' business): the end of the
    checks of `receives_access_token` and `receives_new_access_token`. A token refused there
    but accepted another way is alive: the header's refusal is RULE.USERINFO_HEADER's."""
    token = scene.grant().access_token
    response = service.userinfo(token)
    if not response.is_success:
        if any(service.token_accepted(token, how) for how in ("body", "query")):
            raise PremiseFailed(
                f"the token is refused in the Authorization header ({response.status_code}) "
                "but accepted another way",
                see=RULE.USERINFO_HEADER,
            )
        raise AssertionError(f"the user information endpoint answered {response.status_code}")


@then(parsers.re(r"the response carries (?:a|(?P<no>no)) refresh token"))
@check(
    "TOKEN-NO-REFRESH-ONLINE",
    "TOKEN-REFRESH-INSTALLED",
    "TOKEN-REFRESH-OFFLINE",
    touches=("token_answer",),
)
def has_refresh_token(scene: Scene, no: str | None) -> None:
    """refresh_token present (or absent) in a granted answer (its one strict reading)."""
    fields = strict_token_fields(scene.last(), "the code exchange", see=RULE.TOKEN_CODE_EXCHANGE)
    value = fields.get("refresh_token")
    if no:
        assert not value, "a refresh token was issued"
    else:
        assert isinstance(value, str) and value, f"no refresh_token string in {sorted(fields)}"


@then("the response carries the same refresh token")
@check("REFRESH-SAME-TOKEN", touches=("token_answer",))
def same_refresh_token(scene: Scene) -> None:
    """The refresh response returns the refresh token that was sent (its one strict reading)."""
    fields = strict_token_fields(scene.last(), "the refresh", see=GRANTED_BY["refresh"])
    sent = scene.history.sent_refresh_token
    assert sent is not None
    carried = fields.get("refresh_token")
    assert carried == sent, (
        "the refresh response carried no refresh token"
        if not carried
        else "the refresh response carried another refresh token"
    )


@then(parsers.re(r"the (?:code )?(?:exchange|refresh) is refused"))
@check(
    "AUTH-TOKEN-CLIENT-SECRET",
    "PKCE-DOWNGRADE",
    "PKCE-VERIFIER-MISMATCH",
    "PKCE-VERIFIER-MISSING",
    "REFRESH-CROSS-CLIENT",
    "REFRESH-REQUIRED-PARAMS",
    "TOKEN-CODE-LIFETIME",
    "TOKEN-CODE-SINGLE-USE",
    "TOKEN-CROSS-CLIENT-CODE",
    "TOKEN-NO-QUERY-PARAMS",
    "TOKEN-REDIRECT-URI-REGISTERED",
    "TOKEN-REDIRECT-URI-SAME",
    "TOKEN-REQUIRED-PARAMS",
    "TOKEN-TYPE-PARAM",
    "VERSION-PKCE",
    "VERSION-TOKEN-TYPE-BEARER-ONLY",
    touches=("token_answer",),
)
def refused(scene: Scene) -> None:
    """No token is issued. Spec 7.2 leaves the status and body of token-endpoint errors open
    ("not shown"), so a rule that says a request is refused or rejected is met by any answer
    without tokens, a 200 carrying {"error": ...} included; but a token in any answer, JSON or
    form-encoded, whatever its status, was issued. The status and the error name are checked
    by the rfc-level TOKEN-ERR-* rules. A refusal proves something only beside its positive
    twin: the same request without its fault is accepted (steps/scenario/negatives.py)."""
    response = scene.last()
    issued = issued_tokens(response)
    assert not issued, f"answered {response.status_code} with {' and '.join(issued)}"
    require_twin(scene.negative)


@then(
    parsers.re(
        r'the token endpoint answers (?P<status>\d+) with the error "(?P<error>[a-z_]+)"'
        r'(?: or "(?P<other>[a-z_]+)")?'
    )
)
@check(
    "TOKEN-ERR-INVALID-GRANT",
    "TOKEN-ERR-INVALID-REQUEST",
    "TOKEN-ERR-UNSUPPORTED-GRANT",
    touches=("token_answer",),
)
def token_error(scene: Scene, status: str, error: str, other: str | None) -> None:
    """RFC 6749 5.2: the status, and a JSON document (application/json) naming the error."""
    response = scene.last()
    scene.require_refusal(not issued_tokens(response), f"answered {response.status_code}")
    require_twin(scene.negative)
    read = strict_json(response)
    assert read.body is not None, f"answered {response.status_code} with {read.problem}"
    expected = {error} | ({other} if other else set())
    found = read.body.get("error")
    assert (response.status_code, found in expected) == (int(status), True), (
        f"answered {response.status_code} error={found!r}; expected {status} "
        + " or ".join(repr(e) for e in sorted(expected))
    )


@then(
    parsers.re(
        r"the (?P<endpoint>token|revocation) endpoint answers with the error "
        r'"invalid_client" as RFC \d+ describes'
    )
)
@check(
    "REVOKE-ERR-INVALID-CLIENT",
    "TOKEN-ERR-INVALID-CLIENT",
    touches=lambda endpoint: ("token_answer",) if endpoint == "token" else (),
)
def invalid_client(scene: Scene, endpoint: str) -> None:
    """400 or 401 with a JSON invalid_client; a 401 carries WWW-Authenticate (RFC 6749 5.2).
    Premise: the request was refused as the spec rule requires (no token issued at the token
    endpoint; no success answered at the revocation endpoint)."""
    response = scene.last()
    refused = not issued_tokens(response) if endpoint == "token" else not response.is_success
    scene.require_refusal(refused, f"answered {response.status_code}")
    require_twin(scene.negative)
    assert response.status_code in (400, 401), f"status {response.status_code}"
    read = strict_json(response)
    assert read.body is not None, f"the error is {read.problem}"
    assert read.body.get("error") == "invalid_client", f"error={read.body.get('error')!r}"
    if response.status_code == 401:
        offered = [v for v in response.headers.get_list("www-authenticate") if v.strip()]
        assert offered, "401 without a WWW-Authenticate challenge"


@then("the token response forbids caching")
@check("TOKEN-NO-STORE", touches=("token_answer",))
def no_store(scene: Scene) -> None:
    """Cache-Control: no-store and Pragma: no-cache (directives, over repeated fields)."""
    response = scene.last()
    assert "no-store" in directives(response, "cache-control"), (
        f"Cache-Control is {response.headers.get_list('cache-control')!r}"
    )
    assert "no-cache" in directives(response, "pragma"), (
        f"Pragma is {response.headers.get_list('pragma')!r}"
    )


def _first_token(which: str) -> tuple[str, ...]:
    return ("token",) if which == "access" else ("refresh_token",)


@then(
    parsers.re(
        r"the (?P<which>access|refresh) token from the first exchange no longer works"
        r"(?: when passed (?P<way>in .+))?"
    )
)
@check("TOKEN-CODE-REPLAY-REVOKES", touches=_first_token)
def first_tokens_dead(
    scene: Scene, service: Service, grants: GrantCache, which: str, way: str | None
) -> None:
    """Replay revoked the tokens issued from the code (premises: the first exchange gave
    tokens, and the replay was refused). An online web application's grant has no refresh
    token: nothing of it to check."""
    first = scene.history.first_tokens
    require(first, "the first exchange gave no tokens", see=RULE.TOKEN_CODE_EXCHANGE)
    assert first is not None
    scene.require_refusal(not issued_tokens(scene.last()), "the replayed code gave tokens")
    if which == "access":
        assert service.token_refused(first.access_token, delivery(way)), "it still works"
        grants.require_read(first, delivery(way))  # a way read at all: the refusal's twin
        return
    if first.refresh_token is None and not first.offline:
        return
    see = refresh_rule(first.client.role)
    require(first.refresh_token, "the first exchange gave no refresh token", see=see)
    assert first.refresh_token is not None
    response = service.refresh(scene.app(), first.refresh_token)
    assert not issued_tokens(response), "it still yields access tokens"


# --- the format of a token answer (2.3): strict -------------------------------------------
