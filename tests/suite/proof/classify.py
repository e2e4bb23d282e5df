"""Over 300 lines: one small classifier per dimension beside the tables that name them
(CLASSIFIERS, TELLS); apart, a dimension's classifier and its entries would drift.

The classifier of the traffic: for each request the proxy sees, the value of every
dimension of features/dimensions.toml that the request tells, from the request itself and the
ledger of what came before (the client and authorization a code or token was issued to, where
a token came from, whether it is used, revoked or expired).

A dimension the request does not concern is NOT_APPLICABLE ("-"), as in a combination whose
values free it. A request may tell a dimension only up to a choice: a token sent two ways at
once, an unknown code presented by a web application (online or offline?); its value then
lists the choices, joined by `EITHER`, and matches a combination holding any of them. The
dimensions' classifiers are `CLASSIFIERS`, one per dimension (a test holds that every
dimension a rule uses has one)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from steps.rules.dimensions import NOT_APPLICABLE
from tests.suite.broken.exchange import ProxyRequest, ProxyResponse
from tests.suite.broken.helpers import userinfo_token_ways
from tests.suite.broken.registry import TOKEN
from tests.suite.proof.presented import Request
from tests.suite.proof.records import Code, Token, client_type, pkce_kind
from tests.suite.proof.resemblance import allowed_redirect, near_miss, redirect_change, state_kinds

#: Joins the values a request may have when it tells a dimension only up to a choice.
EITHER = "|"
#: The value of a dimension whose object the request leaves out (a revocation without a token
#: names no kind of token): it matches any combination, as no server could tell either.
ANY = "*"
SPEC_SCOPES = ("profile", "email", "tag", "rating", "collection", "submit_isrc", "submit_barcode")
SCHEMES = ("OAuth", "Token", "MAC", "Digest", "Basic")
_CHALLENGE = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
_FIELDS = {
    "exchange": ("grant_type", "code", "client_id", "client_secret", "redirect_uri"),
    "refresh": ("grant_type", "refresh_token", "client_id", "client_secret"),
    "revoke": ("token", "client_id", "client_secret"),
    "authorize": ("client_id", "redirect_uri", "response_type", "scope"),
}


# --- one classifier per dimension ---------------------------------------------------------


def client(r: Request) -> str:
    issued = r.issued
    if isinstance(issued, Code):
        return issued.authorization.client
    if isinstance(issued, Token):
        return issued.grant.client
    if r.kind == "authorize":
        role = r.role
        return client_type(role, r.params.get("access_type")) if role else NOT_APPLICABLE
    if r.kind in ("userinfo", "oob"):
        return NOT_APPLICABLE  # a token never issued belongs to no application
    return _client_by_role(r)


def _client_by_role(r: Request) -> str:
    """The kind of the requesting application when what it presents tells nothing."""
    role = r.role
    if role is None:
        return NOT_APPLICABLE
    if role == "installed":
        return "installed"
    return "offline" if r.kind == "refresh" else EITHER.join(("online", "offline"))


def origin(r: Request) -> str:
    """Where the access token presented (or revoked) came from; a refresh token revoked
    stands beside access tokens of either origin."""
    issued = r.issued
    if r.kind == "revoke" and r.presented is None:
        return ANY  # a revocation that leaves the token out names a token of either origin
    if r.kind == "revoke" and isinstance(issued, Token) and issued.kind == "refresh":
        return ANY
    if r.kind in ("userinfo", "revoke") and isinstance(issued, Token):
        return issued.origin
    return NOT_APPLICABLE


def grant(r: Request) -> str:
    """The kind of token request: the code exchange or the refresh (an authorization request
    and the code it leads to are bound for a code exchange)."""
    grants = {"exchange": "code", "refresh": "refresh", "authorize": "code", "oob": "code"}
    return grants.get(r.kind, NOT_APPLICABLE)


def delivery(r: Request) -> str:
    if r.kind != "userinfo":
        return NOT_APPLICABLE
    return EITHER.join(userinfo_token_ways(r.req)) or NOT_APPLICABLE


def two_ways(r: Request) -> str:
    """The two ways a token sent twice travels (header_query, header_body, body_query)."""
    ways = userinfo_token_ways(r.req) if r.kind == "userinfo" else []
    if len(ways) != 2:
        return NOT_APPLICABLE
    order = ("header", "body", "query")
    return "_".join(sorted(ways, key=order.index))


def endpoint(r: Request) -> str:
    return r.kind if r.kind in ("exchange", "refresh", "revoke") else NOT_APPLICABLE


def near_miss_of(r: Request) -> str:
    if r.kind not in ("exchange", "refresh", "revoke", "token"):
        return NOT_APPLICABLE
    right = r.ledger.secret(r.client_id)
    kinds = near_miss(r.req.param("client_secret"), right) if right else []
    return EITHER.join(kinds) or NOT_APPLICABLE


def error(r: Request) -> str:
    """The error an authorization request must be answered with (spec 7.1, RFC 6749
    4.1.2.1), or the user's refusal on the consent form; "-" where none is due or where the
    error is shown on the service's own page (no client, or no redirect URI to trust)."""
    if r.kind != "authorize":
        return NOT_APPLICABLE
    registered = r.ledger.registered_uri(r.client_id)
    uri = r.params.get("redirect_uri")
    if registered is None or uri is None or not allowed_redirect(uri, registered, _installed(r)):
        return NOT_APPLICABLE
    if r.req.method == "POST" and dict(r.req.form()).get("decision") == "deny":
        return "access_denied"
    response_type = r.params.get("response_type")
    if response_type is None:
        return "invalid_request"
    if response_type != "code":
        return "unsupported_response_type"
    scope = r.params.get("scope")
    if not scope or any(name not in SPEC_SCOPES for name in scope.split(" ")):
        return "invalid_scope"
    return "invalid_request" if _malformed_pkce(r.params) else NOT_APPLICABLE


def _malformed_pkce(params: Mapping[str, str]) -> bool:
    challenge, method = params.get("code_challenge"), params.get("code_challenge_method")
    if challenge is None:
        return method is not None
    if method not in (None, "plain", "S256"):
        return True
    if method == "S256":
        return not re.fullmatch(r"[A-Za-z0-9\-_]{43}", challenge)
    return not _CHALLENGE.fullmatch(challenge)


def _installed(r: Request) -> bool:
    return r.role == "installed"


def state(r: Request) -> str:
    if r.kind != "authorize":
        return NOT_APPLICABLE
    return EITHER.join(state_kinds(r.params.get("state"))) or NOT_APPLICABLE


def pkce(r: Request) -> str:
    if r.kind == "authorize":
        return pkce_kind(r.params.get("code_challenge"), r.params.get("code_challenge_method"))
    issued = r.issued
    if isinstance(issued, Code):
        return issued.authorization.pkce
    if isinstance(issued, Token):
        return issued.grant.authorization.pkce
    if r.kind == "exchange" and r.presented is None:
        return ANY  # an exchange that leaves the code out names a code of any kind
    return NOT_APPLICABLE


def method(r: Request) -> str:
    return r.req.method if r.kind != "other" else NOT_APPLICABLE


def missing(r: Request) -> str:
    fields = _FIELDS.get(r.kind)
    if fields is None:
        return NOT_APPLICABLE
    present = r.params if r.kind == "authorize" else {k for k, _ in [*r.req.form(), *r.req.query]}
    absent = [name for name in fields if name not in present]
    return absent[0] if absent else NOT_APPLICABLE


def scheme(r: Request) -> str:
    header = r.req.header("authorization")
    if r.kind != "userinfo" or header is None:
        return NOT_APPLICABLE
    word, _, value = header.partition(" ")
    if not value.strip():
        return "none"
    if word.lower() == "bearer":
        return NOT_APPLICABLE
    return next((name for name in SCHEMES if name.lower() == word.lower()), word)


def invalidity(r: Request) -> str:
    form, issued = r.near
    if form != "":
        return form if r.kind in ("exchange", "refresh", "revoke", "userinfo") else NOT_APPLICABLE
    if isinstance(issued, Code):
        return _code_invalidity(r, issued)
    if isinstance(issued, Token):
        return _token_invalidity(r, issued)
    return NOT_APPLICABLE


def _code_invalidity(r: Request, code: Code) -> str:
    if r.kind != "exchange":
        return NOT_APPLICABLE
    if code.used:
        return "used"
    if r.ledger.code_expired(code):
        return "expired"
    return "foreign" if code.authorization.client_id != r.client_id else NOT_APPLICABLE


def _token_invalidity(r: Request, token: Token) -> str:
    if r.kind not in ("refresh", "revoke", "userinfo"):
        return NOT_APPLICABLE
    wanted = "access" if r.kind == "userinfo" else ("refresh" if r.kind == "refresh" else None)
    if wanted and token.kind != wanted:
        return "unknown"  # a token of the other kind is no token of this kind
    if token.dead:
        return "revoked"
    if r.ledger.expired(token):
        return "expired"
    owner = token.grant.authorization.client_id
    if r.kind != "userinfo" and owner != r.client_id:
        return "foreign"
    return NOT_APPLICABLE


def redirect_change_of(r: Request) -> str:
    if r.kind == "authorize":
        uri = r.params.get("redirect_uri")
    elif r.kind == "exchange":
        uri = r.req.param("redirect_uri")
    else:
        return NOT_APPLICABLE
    registered = r.ledger.registered_uri(r.client_id)
    if registered is None:
        return NOT_APPLICABLE
    return "absent" if uri is None else redirect_change(uri, registered, _installed(r))


def token_kind(r: Request) -> str:
    if r.kind != "revoke":
        return NOT_APPLICABLE
    if r.presented is None:
        return ANY  # a revocation that leaves the token out names any kind
    issued = r.issued
    return issued.kind if isinstance(issued, Token) else NOT_APPLICABLE


def token_type(r: Request) -> str:
    if r.kind not in ("exchange", "refresh"):
        return NOT_APPLICABLE
    value = r.req.param("token_type")
    return value.lower() if value is not None else NOT_APPLICABLE


#: The classifier of each dimension ("answer" is read from the answer: `answer_of`).
CLASSIFIERS: dict[str, Callable[[Request], str]] = {
    "client": client,
    "origin": origin,
    "grant": grant,
    "delivery": delivery,
    "two_ways": two_ways,
    "endpoint": endpoint,
    "near_miss": near_miss_of,
    "error": error,
    "state": state,
    "pkce": pkce,
    "method": method,
    "missing": missing,
    "scheme": scheme,
    "invalidity": invalidity,
    "redirect_change": redirect_change_of,
    "token_kind": token_kind,
    "token_type": token_type,
}
#: Dimensions read from the answer rather than the request.
ANSWER_DIMENSIONS = ("answer",)
_SECRET = ("endpoint", "method", "near_miss", "missing", "invalidity")
#: The dimensions each kind of request can tell. A combination's value of another dimension
#: (the way a token will travel, for a revocation) is none of its business: no server could
#: answer it otherwise, so a fault matches such a request on what it tells.
TELLS: dict[str, frozenset[str]] = {
    "authorize": frozenset(
        ("client", "pkce", "state", "error", "redirect_change", "missing", "method", "grant")
    ),
    "exchange": frozenset(
        ("client", "pkce", "grant", "redirect_change", "token_type", "answer", *_SECRET)
    ),
    "refresh": frozenset(("client", "grant", "token_type", "answer", *_SECRET)),
    "token": frozenset(("client", "grant", "answer", *_SECRET)),
    "revoke": frozenset(("client", "pkce", "origin", "token_kind", *_SECRET)),
    "userinfo": frozenset(
        ("client", "pkce", "origin", "delivery", "two_ways", "scheme", "invalidity", "method")
    ),
    "oob": frozenset(("client", "pkce", "grant")),
    "manual": frozenset(("client", "method")),
}


def classify(request: Request) -> dict[str, str]:
    """Every dimension's value for one request, before it is answered."""
    values = {name: classifier(request) for name, classifier in CLASSIFIERS.items()}
    return values | {"answer": NOT_APPLICABLE}


def answer_of(req: ProxyRequest, resp: ProxyResponse) -> str:
    """granted or refused: a token endpoint's answer (the answer dimension)."""
    if req.path != TOKEN:
        return NOT_APPLICABLE
    data = resp.json() if resp.status == 200 else None
    granted = isinstance(data, dict) and isinstance(data.get("access_token"), str)
    return "granted" if granted else "refused"


def agrees(value: str, wanted: str) -> bool:
    """Whether a classified value matches a combination's value."""
    if value == ANY:
        return True
    return wanted in value.split(EITHER) if wanted != NOT_APPLICABLE else value == wanted
