"""Targets that answer where the spec leaves the answer open. They break
rfc-level rules only: a spec-level verdict that fails them reads more into the spec than it
says (7.2: token-endpoint error statuses and bodies are "not shown"; nor are the user
information answers for a missing or refused token)."""

from __future__ import annotations

from tests.suite.broken.exchange import Context, Forward, ProxyRequest, ProxyResponse
from tests.suite.broken.registry import TOKEN, USERINFO, mutation


@mutation(
    "token-errors-200",
    "every token-endpoint error is answered 200 with its JSON error body",
    breaks={
        "TOKEN-ERR-INVALID-REQUEST",
        "TOKEN-ERR-INVALID-CLIENT",
        "TOKEN-ERR-INVALID-GRANT",
        "TOKEN-ERR-UNSUPPORTED-GRANT",
    },
    also={
        "TOKEN-CODE-SINGLE-USE",
        "TOKEN-REQUIRED-PARAMS",
        "AUTH-TOKEN-CLIENT-SECRET",
        "TOKEN-REDIRECT-URI-REGISTERED",
        "TOKEN-TYPE-PARAM",
        "VERSION-TOKEN-TYPE-BEARER-ONLY",
        "PKCE-VERIFIER-MISMATCH",
        "VERSION-PKCE",
        "REFRESH-REQUIRED-PARAMS",
        "TOKEN-CROSS-CLIENT-CODE",
        "PKCE-VERIFIER-MISSING",
        "REVOKE-REFRESH-WHOLE-GRANT",
    },
)
async def token_errors_200(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    resp = await forward(req)
    data = resp.json()
    if req.is_("POST", TOKEN) and resp.status >= 400 and isinstance(data, dict):
        resp.status = 200
        resp.set_header("www-authenticate", None)
    return resp


@mutation(
    "userinfo-refusals-200",
    "the user information endpoint answers a refused token 200 with a JSON error, no data",
    breaks={
        "USERINFO-ERR-NO-TOKEN",
        "USERINFO-ERR-INVALID-TOKEN",
        "USERINFO-ERR-INSUFFICIENT-SCOPE",
    },
    also={
        "AUTH-BEARER-ONLY",
        "SCOPE-PROFILE-WITHHELD",
        "USERINFO-HEADER",
        "REVOKE-ONLINE-WHOLE-GRANT",
        "REVOKE-ACCESS-KEEPS-REFRESH",
    },
)
async def userinfo_refusals_200(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.path == USERINFO and resp.status in (401, 403):
        resp.status = 200
        resp.set_json({"error": "invalid_token"})
        resp.set_header("www-authenticate", None)
    return resp
