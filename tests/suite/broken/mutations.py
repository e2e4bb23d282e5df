"""The broken targets: each mutation breaks one rule of the spec (or an RFC) and nothing else.

A mutation is a proxy handler: it may change the request, answer without forwarding, or
change the answer. `breaks` names the rules the suite must then report as failing (spec) or
warning (rfc); `also` names rules run alongside that must still pass, so a mutation that
broke everything would not go unnoticed. Rule ids are those of features/rules.toml; the test
checks they exist.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
    json_response,
    redirect,
)

AUTHORIZE, TOKEN, REVOKE, USERINFO = (
    "/oauth2/authorize",
    "/oauth2/token",
    "/oauth2/revoke",
    "/oauth2/userinfo",
)
CLOCK = "/_test/clock"

Handler = Callable[[ProxyRequest, Forward, Context], Awaitable[ProxyResponse]]


@dataclass(frozen=True)
class Mutation:
    """A broken target and the verdicts it must produce."""

    name: str
    summary: str
    handler: Handler
    breaks: frozenset[str]
    also: frozenset[str] = frozenset()
    profile: dict[str, Any] = field(default_factory=dict)  # overrides for this run's profile

    @property
    def selection(self) -> frozenset[str]:
        """The rules the suite runs for this target."""
        return self.breaks | self.also


MUTATIONS: dict[str, Mutation] = {}


def mutation(
    name: str,
    summary: str,
    breaks: Iterable[str],
    also: Iterable[str] = (),
    profile: dict[str, Any] | None = None,
) -> Callable[[Handler], Handler]:
    """Register a handler as a named broken target."""

    def register(handler: Handler) -> Handler:
        MUTATIONS[name] = Mutation(
            name, summary, handler, frozenset(breaks), frozenset(also), profile or {}
        )
        return handler

    return register


# --- helpers ------------------------------------------------------------------------------


def _is_authorize(req: ProxyRequest) -> bool:
    return req.path == AUTHORIZE


def _grant(req: ProxyRequest) -> str | None:
    return req.param("grant_type") if req.is_("POST", TOKEN) else None


def _remember_tokens(ctx: Context, req: ProxyRequest, resp: ProxyResponse) -> None:
    """Note which client each issued token belongs to (for later revocation or misuse)."""
    data = resp.json() if req.is_("POST", TOKEN) and resp.status == 200 else None
    if not isinstance(data, dict):
        return
    owners = ctx.state.setdefault("owner", {})
    for key in ("access_token", "refresh_token"):
        if isinstance(data.get(key), str):
            owners[data[key]] = req.param("client_id")


def _remember_code(ctx: Context, req: ProxyRequest, resp: ProxyResponse) -> str | None:
    """The code of an authorization redirect, noted with the client it was issued to."""
    code = resp.location_params().get("code") if _is_authorize(req) else None
    if code:
        ctx.state.setdefault("code_client", {})[code] = req.query_value("client_id")
    return code


def _swap_credentials(req: ProxyRequest, ctx: Context, owner_id: str | None) -> None:
    """Present the owner's credentials instead of the ones the request carries."""
    found = ctx.client_by_id(owner_id)
    if found is None or owner_id == req.param("client_id"):
        return
    client = found[1]
    creds = {"client_id": client["client_id"], "client_secret": client["client_secret"]}
    req.set_form([(k, creds.get(k, v)) for k, v in req.form()])


def _set_form_value(req: ProxyRequest, name: str, value: str | None) -> None:
    """Replace (or with None remove) a form field."""
    pairs = [(k, v) for k, v in req.form() if k != name]
    req.set_form(pairs if value is None else [*pairs, (name, value)])


def _drop_query(req: ProxyRequest, *names: str) -> None:
    req.query = [(k, v) for k, v in req.query if k not in names]


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _userinfo_token_ways(req: ProxyRequest) -> list[str]:
    ways = []
    if req.header("authorization"):
        ways.append("header")
    if req.query_value("access_token") is not None:
        ways.append("query")
    if any(k == "access_token" for k, _ in req.form()):
        ways.append("body")
    return ways


def _invalid_token() -> ProxyResponse:
    return json_response(
        401,
        {"error": "invalid_token"},
        [("www-authenticate", 'Bearer realm="proxy", error="invalid_token"')],
    )


# --- the transparent target ---------------------------------------------------------------


@mutation("none", "no mutation: the proxy is transparent", breaks=())
async def passthrough(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    return await forward(req)


# --- authorization endpoint ---------------------------------------------------------------


@mutation(
    "drop-state",
    "the success redirect leaves out state",
    breaks={"AUTHZ-STATE-ECHO"},
    also={"AUTHZ-STATE-ON-ERROR", "AUTHZ-RESPONSE-TYPE-CODE"},
)
async def drop_state(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    resp = await forward(req)
    params = resp.location_params()
    if _is_authorize(req) and "code" in params:
        resp.set_location_params([(k, v) for k, v in params.items() if k != "state"])
    return resp


@mutation(
    "drop-state-on-error",
    "error redirects leave out state",
    breaks={"AUTHZ-STATE-ON-ERROR", "AUTHZ-ERR-UNSUPPORTED-RESPONSE-TYPE"},
    also={"AUTHZ-STATE-ECHO", "AUTHZ-ERR-ACCESS-DENIED"},
)
async def drop_state_on_error(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    params = resp.location_params()
    if _is_authorize(req) and "error" in params:
        resp.set_location_params([(k, v) for k, v in params.items() if k != "state"])
    return resp


def _error_redirect(req: ProxyRequest, error: str) -> ProxyResponse:
    target = req.query_value("redirect_uri") or ""
    params = [("error", error)]
    if (state := req.query_value("state")) is not None:
        params.append(("state", state))
    from urllib.parse import urlencode

    return redirect(f"{target}{'&' if '?' in target else '?'}{urlencode(params)}")


@mutation(
    "redirect-bad-redirect-uri",
    "a redirect URI that is not the registered one gets a redirect, not an error page",
    breaks={"AUTHZ-ERR-BAD-REDIRECT", "AUTHZ-REDIRECT-URI-BYPASS"},
    also={"AUTHZ-ERR-BAD-CLIENT"},
)
async def redirect_bad_redirect_uri(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    known = ctx.client_by_id(req.query_value("client_id")) is not None
    if _is_authorize(req) and resp.status >= 400 and known and req.query_value("redirect_uri"):
        return _error_redirect(req, "invalid_request")
    return resp


@mutation(
    "redirect-bad-client",
    "an unknown Client ID gets a redirect, not an error page",
    breaks={"AUTHZ-ERR-BAD-CLIENT"},
    also={"AUTHZ-ERR-BAD-REDIRECT"},
)
async def redirect_bad_client(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    known = ctx.client_by_id(req.query_value("client_id")) is not None
    if _is_authorize(req) and resp.status >= 400 and not known and req.query_value("redirect_uri"):
        return _error_redirect(req, "unauthorized_client")
    return resp


@mutation(
    "invalid-scope-as-server-error",
    "an invalid scope is answered error=server_error",
    breaks={"AUTHZ-ERR-INVALID-SCOPE"},
    also={"AUTHZ-ERR-UNSUPPORTED-RESPONSE-TYPE"},
)
async def invalid_scope_as_server_error(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    params = resp.location_params()
    if _is_authorize(req) and params.get("error") == "invalid_scope":
        params["error"] = "server_error"
        resp.set_location_params(list(params.items()))
    return resp


@mutation(
    "scope-case-folded",
    "scope identifiers are compared case-insensitively",
    breaks={"SCOPE-CASE-SENSITIVE"},
    also={"SCOPE-IDENTIFIERS"},
)
async def scope_case_folded(req: ProxyRequest, forward: Forward, ctx: Context):
    if _is_authorize(req):
        req.query = [(k, v.lower() if k == "scope" else v) for k, v in req.query]
    return await forward(req)


@mutation(
    "framing-allowed",
    "pages carry no anti-framing headers",
    breaks={"AUTHZ-FRAMING"},
    also={"AUTHZ-APPROVAL-FORCE"},
)
async def framing_allowed(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    resp = await forward(req)
    resp.set_header("x-frame-options", None)
    resp.set_header("content-security-policy", None)
    return resp


# --- PKCE ---------------------------------------------------------------------------------


@mutation(
    "pkce-verifier-not-checked",
    "any code_verifier is accepted for a code issued with a challenge",
    breaks={"PKCE-VERIFIER-MISMATCH"},
    also={"PKCE-S256", "PKCE-PLAIN", "PKCE-VERIFIER-MISSING", "PKCE-DOWNGRADE"},
)
async def pkce_verifier_not_checked(req: ProxyRequest, forward: Forward, ctx: Context):
    """The proxy swaps the challenge for its own, then the verifier for the matching one."""
    verifiers = ctx.state.setdefault("verifier", {})
    own = None
    challenge, method = req.query_value("code_challenge"), req.query_value("code_challenge_method")
    if _is_authorize(req) and challenge and _well_formed(challenge, method):
        own = _proxy_verifier(challenge)
        _drop_query(req, "code_challenge", "code_challenge_method")
        req.query += [("code_challenge", _s256(own)), ("code_challenge_method", "S256")]
    if _grant(req) == "authorization_code" and req.param("code_verifier") is not None:
        code = req.param("code")
        if code in verifiers:
            _set_form_value(req, "code_verifier", verifiers[code])
    resp = await forward(req)
    code = resp.location_params().get("code") if _is_authorize(req) else None
    if own and code:
        verifiers[code] = own
    return resp


def _well_formed(challenge: str, method: str | None) -> bool:
    import re

    if method not in (None, "S256", "plain"):
        return False
    if method == "S256":
        return re.fullmatch(r"[A-Za-z0-9_-]{43}", challenge) is not None
    return re.fullmatch(r"[A-Za-z0-9._~-]{43,128}", challenge) is not None


def _proxy_verifier(challenge: str) -> str:
    """A verifier the proxy derives from the client's challenge (stable across the consent)."""
    return _s256("proxy-verifier:" + challenge) + "xyz"


@mutation(
    "pkce-ignored",
    "the PKCE parameters are ignored (the earlier description)",
    breaks={
        "PKCE-VERIFIER-MISMATCH",
        "PKCE-VERIFIER-MISSING",
        "PKCE-DOWNGRADE",
        "PKCE-BAD-METHOD",
        "PKCE-CHALLENGE-FORMAT",
    },
    also={"PKCE-S256", "PKCE-PLAIN", "PKCE-OPTIONAL"},
)
async def pkce_ignored(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    if _is_authorize(req):
        _drop_query(req, "code_challenge", "code_challenge_method")
    if _grant(req):
        _set_form_value(req, "code_verifier", None)
    return await forward(req)


# --- token endpoint -----------------------------------------------------------------------


@mutation(
    "code-replay",
    "a used code is exchanged again (the first answer is replayed)",
    breaks={"TOKEN-CODE-SINGLE-USE", "TOKEN-CODE-REPLAY-REVOKES"},
    also={"TOKEN-CODE-EXCHANGE", "TOKEN-NO-STORE"},
)
async def code_replay(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    answers = ctx.state.setdefault("answers", {})
    code = req.param("code") if _grant(req) == "authorization_code" else None
    if code in answers:
        status, headers, body = answers[code]
        return ProxyResponse(status, list(headers), body)
    resp = await forward(req)
    if code and resp.status == 200:
        answers[code] = (resp.status, list(resp.headers), resp.body)
    return resp


@mutation(
    "expires-in-7200",
    "token responses say expires_in 7200",
    breaks={"TOKEN-EXPIRES-IN-3600"},
    also={"TOKEN-TYPE-BEARER", "TOKEN-RESPONSE-ACCESS-TOKEN"},
)
async def expires_in_7200(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    resp = await forward(req)
    data = resp.json() if req.is_("POST", TOKEN) else None
    if isinstance(data, dict) and "expires_in" in data:
        data["expires_in"] = 7200
        resp.set_json(data)
    return resp


@mutation(
    "token-type-mac-accepted",
    "token_type=mac is accepted (the earlier description)",
    breaks={"TOKEN-TYPE-PARAM", "VERSION-TOKEN-TYPE-BEARER-ONLY"},
    also={"TOKEN-CODE-EXCHANGE"},
)
async def mac_accepted(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    if _grant(req) and (req.param("token_type") or "").lower() == "mac":
        _set_form_value(req, "token_type", None)
    return await forward(req)


@mutation(
    "token-cacheable",
    "token responses carry no Cache-Control / Pragma",
    breaks={"TOKEN-NO-STORE"},
    also={"TOKEN-CODE-EXCHANGE"},
)
async def token_cacheable(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    resp = await forward(req)
    if req.path == TOKEN:
        resp.set_header("cache-control", None)
        resp.set_header("pragma", None)
    return resp


@mutation(
    "refresh-rotates",
    "refresh answers a new refresh token (which the proxy still honours)",
    breaks={"REFRESH-SAME-TOKEN"},
    also={"REFRESH-NEW-ACCESS-TOKEN", "REFRESH-TOKEN-STAYS-VALID"},
)
async def refresh_rotates(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    aliases = ctx.state.setdefault("alias", {})
    for name in ("refresh_token", "token"):
        value = req.param(name)
        if value in aliases and req.is_form():
            _set_form_value(req, name, aliases[value])
    resp = await forward(req)
    data = resp.json() if _grant(req) == "refresh_token" and resp.status == 200 else None
    if isinstance(data, dict) and isinstance(data.get("refresh_token"), str):
        fresh = secrets.token_urlsafe(24)
        aliases[fresh] = data["refresh_token"]
        data["refresh_token"] = fresh
        resp.set_json(data)
    return resp


def _strip_refresh(resp: ProxyResponse) -> None:
    data = resp.json()
    if isinstance(data, dict) and data.pop("refresh_token", None) is not None:
        resp.set_json(data)


@mutation(
    "no-refresh-installed",
    "installed applications get no refresh token",
    breaks={"TOKEN-REFRESH-INSTALLED"},
    also={"TOKEN-REFRESH-OFFLINE", "TOKEN-NO-REFRESH-ONLINE"},
)
async def no_refresh_installed(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    role = ctx.client_by_id(req.param("client_id"))
    if _grant(req) == "authorization_code" and role and role[0] == "installed":
        _strip_refresh(resp)
    return resp


@mutation(
    "no-refresh-offline",
    "web applications asking for offline access get no refresh token",
    breaks={"TOKEN-REFRESH-OFFLINE"},
    also={"TOKEN-REFRESH-INSTALLED", "TOKEN-NO-REFRESH-ONLINE"},
)
async def no_refresh_offline(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    role = ctx.client_by_id(req.param("client_id"))
    if _grant(req) == "authorization_code" and role and role[0] != "installed":
        _strip_refresh(resp)
    return resp


@mutation(
    "refresh-for-online",
    "online web applications get a refresh token too",
    breaks={"TOKEN-NO-REFRESH-ONLINE"},
    also={"TOKEN-REFRESH-OFFLINE", "TOKEN-REFRESH-INSTALLED"},
)
async def refresh_for_online(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if _grant(req) == "authorization_code" and resp.status == 200 else None
    if isinstance(data, dict) and "refresh_token" not in data:
        data["refresh_token"] = secrets.token_urlsafe(24)
        resp.set_json(data)
    return resp


@mutation(
    "token-query-params-accepted",
    "token parameters in the URL query string are accepted",
    breaks={"TOKEN-NO-QUERY-PARAMS"},
    also={"TOKEN-CODE-EXCHANGE"},
)
async def token_query_accepted(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("POST", TOKEN) and req.query:
        req.set_form([*req.form(), *req.query])
        req.query = []
    return await forward(req)


@mutation(
    "token-redirect-uri-ignored",
    "the code exchange does not check redirect_uri",
    breaks={"TOKEN-REDIRECT-URI-REGISTERED"},
    also={"TOKEN-CODE-EXCHANGE", "TOKEN-REDIRECT-URI-SAME"},
)
async def token_redirect_uri_ignored(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id"))
    if _grant(req) == "authorization_code" and found and found[0] != "installed":
        _set_form_value(req, "redirect_uri", found[1]["redirect_uri"])
    return await forward(req)


@mutation(
    "token-cross-client-code",
    "a code issued to one application is exchanged by another",
    breaks={"TOKEN-CROSS-CLIENT-CODE"},
    also={"TOKEN-CODE-EXCHANGE"},
)
async def cross_client_code(req: ProxyRequest, forward: Forward, ctx: Context):
    owners = ctx.state.setdefault("code_client", {})
    if _grant(req) == "authorization_code" and req.param("code") in owners:
        _swap_credentials(req, ctx, owners[req.param("code")])
    resp = await forward(req)
    _remember_code(ctx, req, resp)
    return resp


@mutation(
    "refresh-cross-client",
    "a refresh token issued to one application is used by another",
    breaks={"REFRESH-CROSS-CLIENT"},
    also={"REFRESH-NEW-ACCESS-TOKEN"},
)
async def cross_client_refresh(req: ProxyRequest, forward: Forward, ctx: Context):
    owners = ctx.state.setdefault("owner", {})
    if _grant(req) == "refresh_token" and req.param("refresh_token") in owners:
        _swap_credentials(req, ctx, owners[req.param("refresh_token")])
    resp = await forward(req)
    _remember_tokens(ctx, req, resp)
    return resp


@mutation(
    "client-secret-not-checked",
    "the token endpoint accepts any client_secret",
    breaks={"AUTH-TOKEN-CLIENT-SECRET", "TOKEN-ERR-INVALID-CLIENT"},
    also={"TOKEN-CODE-EXCHANGE"},
)
async def client_secret_not_checked(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id"))
    if req.is_("POST", TOKEN) and found and req.param("client_secret") is not None:
        _set_form_value(req, "client_secret", found[1]["client_secret"])
    return await forward(req)


@mutation(
    "invalid-client-without-challenge",
    "invalid_client is answered 401 without WWW-Authenticate",
    breaks={"TOKEN-ERR-INVALID-CLIENT"},
    also={"AUTH-TOKEN-CLIENT-SECRET"},
)
async def invalid_client_no_challenge(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.path == TOKEN and resp.status == 401:
        resp.set_header("www-authenticate", None)
    return resp


@mutation(
    "unsupported-grant-as-invalid-request",
    "an unknown grant_type is answered invalid_request",
    breaks={"TOKEN-ERR-UNSUPPORTED-GRANT"},
    also={"TOKEN-ERR-INVALID-REQUEST"},
)
async def unsupported_grant(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if req.path == TOKEN else None
    if isinstance(data, dict) and data.get("error") == "unsupported_grant_type":
        data["error"] = "invalid_request"
        resp.set_json(data)
    return resp


# --- revocation endpoint ------------------------------------------------------------------


@mutation(
    "revoke-invalid-token-400",
    "revoking an unknown token is answered 400",
    breaks={"REVOKE-INVALID-TOKEN-200"},
    also={"REVOKE-EMPTY-200"},
)
async def revoke_invalid_400(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("POST", REVOKE) and req.param("token") not in ctx.state.get("owner", {}):
        return json_response(400, {"error": "invalid_request"})
    resp = await forward(req)
    _remember_tokens(ctx, req, resp)
    return resp


@mutation(
    "revoke-does-nothing",
    "revocation answers 200 but revokes nothing",
    breaks={"REVOKE-ACCESS-KEEPS-REFRESH", "REVOKE-REFRESH-WHOLE-GRANT", "REVOKE-ONLINE-WHOLE-GRANT"},
    also={"REVOKE-EMPTY-200", "REVOKE-INVALID-TOKEN-200"},
)
async def revoke_does_nothing(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("POST", REVOKE) and req.param("token") and req.is_form():
        _set_form_value(req, "token", "not-a-token-" + secrets.token_urlsafe(8))
    return await forward(req)


@mutation(
    "revoke-answers-body",
    "revocation answers 200 with a body",
    breaks={"REVOKE-EMPTY-200", "REVOKE-INVALID-TOKEN-200"},
    also={"REVOKE-REFRESH-WHOLE-GRANT"},
)
async def revoke_answers_body(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.is_("POST", REVOKE) and resp.status == 200:
        resp.set_json({"revoked": True})
    return resp


@mutation(
    "revoke-secret-not-checked",
    "the revocation endpoint accepts any client_secret",
    breaks={"AUTH-REVOKE-CLIENT-SECRET", "REVOKE-ERR-INVALID-CLIENT"},
    also={"REVOKE-EMPTY-200"},
)
async def revoke_secret_not_checked(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id"))
    if req.is_("POST", REVOKE) and found and req.param("client_secret") is not None:
        _set_form_value(req, "client_secret", found[1]["client_secret"])
    return await forward(req)


@mutation(
    "revoke-query-params-accepted",
    "revocation parameters in the URL query string are accepted",
    breaks={"REVOKE-NO-QUERY-PARAMS"},
    also={"REVOKE-EMPTY-200"},
)
async def revoke_query_accepted(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("POST", REVOKE) and req.query:
        req.set_form([*req.form(), *req.query])
        req.query = []
    return await forward(req)


@mutation(
    "revoke-other-client",
    "an application can revoke another application's token",
    breaks={"REVOKE-OTHER-CLIENT"},
    also={"REVOKE-REFRESH-WHOLE-GRANT"},
)
async def revoke_other_client(req: ProxyRequest, forward: Forward, ctx: Context):
    owners = ctx.state.setdefault("owner", {})
    if req.is_("POST", REVOKE) and req.param("token") in owners:
        _swap_credentials(req, ctx, owners[req.param("token")])
    resp = await forward(req)
    _remember_tokens(ctx, req, resp)
    return resp


# --- user information ---------------------------------------------------------------------


@mutation(
    "userinfo-without-token-200",
    "user information is answered without a token",
    breaks={"USERINFO-ERR-NO-TOKEN"},
    also={"USERINFO-HEADER"},
)
async def userinfo_without_token(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == USERINFO and not _userinfo_token_ways(req):
        return json_response(200, {"sub": ctx.profile["user"]["username"]})
    return await forward(req)


@mutation(
    "userinfo-post-body-refused",
    "the token in the POST body is not accepted (the earlier description)",
    breaks={"USERINFO-POST-BODY", "VERSION-USERINFO-POST"},
    also={"USERINFO-HEADER", "USERINFO-QUERY", "USERINFO-ERR-MULTIPLE-METHODS"},
)
async def userinfo_post_refused(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("POST", USERINFO) and _userinfo_token_ways(req) == ["body"]:
        return _invalid_token()
    return await forward(req)


@mutation(
    "userinfo-query-refused",
    "the token in the query string is not accepted",
    breaks={"USERINFO-QUERY"},
    also={"USERINFO-HEADER", "USERINFO-POST-BODY"},
)
async def userinfo_query_refused(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == USERINFO and _userinfo_token_ways(req) == ["query"]:
        return _invalid_token()
    return await forward(req)


@mutation(
    "userinfo-several-ways-accepted",
    "a token sent two ways at once is accepted",
    breaks={"USERINFO-ERR-MULTIPLE-METHODS"},
    also={"USERINFO-QUERY", "USERINFO-POST-BODY"},
)
async def userinfo_several_ways(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == USERINFO and len(_userinfo_token_ways(req)) > 1:
        _drop_query(req, "access_token")
        if req.is_form():
            _set_form_value(req, "access_token", None)
    return await forward(req)


@mutation(
    "userinfo-any-scheme",
    "the token is accepted under another authorization scheme",
    breaks={"AUTH-BEARER-ONLY"},
    also={"USERINFO-HEADER"},
)
async def userinfo_any_scheme(req: ProxyRequest, forward: Forward, ctx: Context):
    auth = req.header("authorization") or ""
    if req.path == USERINFO and " " in auth and not auth.lower().startswith("bearer "):
        req.set_header("authorization", "Bearer " + auth.split(" ", 1)[1].strip())
    return await forward(req)


@mutation(
    "invalid-token-without-error",
    "a bad token is answered 401 without error=\"invalid_token\"",
    breaks={"USERINFO-ERR-INVALID-TOKEN"},
    also={"USERINFO-ERR-NO-TOKEN"},
)
async def invalid_token_without_error(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.path == USERINFO and resp.status == 401:
        resp.set_header("www-authenticate", 'Bearer realm="proxy"')
    return resp


@mutation(
    "insufficient-scope-as-400",
    "a token without the profile scope is answered 400 invalid_token",
    breaks={"USERINFO-ERR-INSUFFICIENT-SCOPE"},
    also={"SCOPE-PROFILE-WITHHELD"},
)
async def insufficient_scope_400(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.path == USERINFO and resp.status == 403:
        return json_response(400, {"error": "invalid_token"})
    return resp


@mutation(
    "email-without-scope",
    "the email is shown without the email scope",
    breaks={"SCOPE-EMAIL-WITHHELD"},
    also={"SCOPE-EMAIL-GRANTS-EMAIL", "SCOPE-PROFILE-GRANTS-PROFILE"},
)
async def email_without_scope(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if req.path == USERINFO and resp.status == 200 else None
    if isinstance(data, dict) and "email" not in data:
        data |= {"email": ctx.profile["user"].get("email"), "email_verified": True}
        resp.set_json(data)
    return resp


# --- time and transport -------------------------------------------------------------------


@mutation(
    "tokens-never-expire",
    "access tokens (and codes) never expire: the clock the suite moves does not matter",
    breaks={"LIFETIME-ACCESS-EXPIRES", "TOKEN-CODE-LIFETIME"},
    also={"LIFETIME-REFRESH-PERSISTS"},
)
async def tokens_never_expire(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == CLOCK and req.method == "POST":
        # Answer as the clock would, without moving it: to the suite time passes, to the
        # target it does not.
        offset = ctx.state.get("offset", 0) + int(req.param("advance") or 0)
        ctx.state["offset"] = offset
        current = await forward(ProxyRequest("GET", CLOCK, [], req.headers))
        data = current.json() or {}
        return json_response(200, {"offset": offset, "now": data.get("now", 0) + offset})
    return await forward(req)


@mutation(
    "plain-http-served",
    "the endpoints also answer over plain HTTP",
    breaks={"TRANSPORT-HTTPS-ONLY", "BEARER-HTTP-IGNORED"},
    also={"USERINFO-HEADER"},
    profile={"capabilities": {"plain_http_url": "{plain_url}"}},
)
async def plain_http_served(req: ProxyRequest, forward: Forward, ctx: Context):
    return await forward(req)


# --- the earlier description as a whole ---------------------------------------------------


@mutation(
    "earlier-description",
    "follows the earlier description: no PKCE, mac accepted, no revocation, no POST body",
    breaks={
        "VERSION-TOKEN-TYPE-BEARER-ONLY",
        "VERSION-REVOCATION",
        "VERSION-USERINFO-POST",
        "PKCE-VERIFIER-MISMATCH",
        "TOKEN-TYPE-PARAM",
        "USERINFO-POST-BODY",
    },
    also={"VERSION-PKCE", "USERINFO-HEADER"},
)
async def earlier_description(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == REVOKE:
        return ProxyResponse(404, [("content-type", "text/plain")], b"Not Found")
    if req.is_("POST", USERINFO) and _userinfo_token_ways(req) == ["body"]:
        return _invalid_token()
    if _grant(req) and (req.param("token_type") or "").lower() == "mac":
        _set_form_value(req, "token_type", None)
    return await pkce_ignored(req, forward, ctx)
