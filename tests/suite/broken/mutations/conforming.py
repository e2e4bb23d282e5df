"""Conforming variants: targets that differ from the bundled server only where the spec (and
the RFCs) allow it, as real deployments do. The suite must pass every selected rule on them;
a fail or a warning is a verdict stricter than the rule it names."""

from __future__ import annotations

from tests.suite.broken.exchange import Context, Forward, ProxyRequest, ProxyResponse
from tests.suite.broken.registry import TOKEN, USERINFO, variant


@variant(
    "expires-in-counted-down",
    "expires_in is the lifetime left when the answer is written: 3599 (musicbrainz-server)",
    rules={"TOKEN-EXPIRES-IN-3600", "TOKEN-RESPONSE-ACCESS-TOKEN", "REFRESH-NEW-ACCESS-TOKEN"},
)
async def expires_in_counted_down(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if req.is_("POST", TOKEN) and resp.status == 200 else None
    if isinstance(data, dict) and data.get("expires_in") == 3600:
        data["expires_in"] = 3599
        resp.set_json(data)
    return resp


@variant(
    "digest-challenge-first",
    "a refused user information request carries two WWW-Authenticate headers, Digest first",
    rules={"USERINFO-ERR-NO-TOKEN", "USERINFO-ERR-INVALID-TOKEN", "USERINFO-HEADER"},
)
async def digest_challenge_first(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.path == USERINFO and resp.status == 401:
        digest = 'Digest realm="musicbrainz.org", nonce="a1b2, c3", qop="auth", algorithm=MD5'
        resp.headers = [("www-authenticate", digest), *resp.headers]
    return resp


@variant(
    "token-errors-other-status",
    "token-endpoint refusals answered 403 with a plain-text body (spec 7.2: not shown)",
    rules={
        "TOKEN-CODE-SINGLE-USE",
        "AUTH-TOKEN-CLIENT-SECRET",
        "TOKEN-REDIRECT-URI-REGISTERED",
        "PKCE-VERIFIER-MISMATCH",
    },
)
async def token_errors_other_status(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.is_("POST", TOKEN) and resp.status >= 400:
        return ProxyResponse(403, [("content-type", "text/plain")], b"refused\n")
    return resp
