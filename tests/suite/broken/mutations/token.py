"""Broken token endpoints: the code exchange and the token response. Refresh: refresh.py."""

from __future__ import annotations

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
)
from tests.suite.broken.helpers import (
    grant,
    remember_code,
    set_form_value,
    swap_credentials,
)
from tests.suite.broken.registry import TOKEN, mutation


@mutation(
    "code-replay",
    "a used code is exchanged again (the first answer is replayed)",
    breaks={"TOKEN-CODE-SINGLE-USE"},
    also={"TOKEN-CODE-EXCHANGE", "TOKEN-NO-STORE", "TOKEN-CODE-REPLAY-REVOKES"},
)
async def code_replay(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    answers = ctx.state.setdefault("answers", {})
    code = req.param("code") if grant(req) == "authorization_code" else None
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
    if grant(req) and (req.param("token_type") or "").lower() == "mac":
        set_form_value(req, "token_type", None)
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
    if grant(req) == "authorization_code" and found and found[0] != "installed":
        set_form_value(req, "redirect_uri", found[1]["redirect_uri"])
    return await forward(req)


@mutation(
    "token-cross-client-code",
    "a code issued to one application is exchanged by another",
    breaks={"TOKEN-CROSS-CLIENT-CODE"},
    also={"TOKEN-CODE-EXCHANGE"},
)
async def cross_client_code(req: ProxyRequest, forward: Forward, ctx: Context):
    owners = ctx.state.setdefault("code_client", {})
    if grant(req) == "authorization_code" and req.param("code") in owners:
        swap_credentials(req, ctx, owners[req.param("code")])
    resp = await forward(req)
    remember_code(ctx, req, resp)
    return resp


@mutation(
    "client-secret-not-checked",
    "the token endpoint accepts any client_secret",
    breaks={"AUTH-TOKEN-CLIENT-SECRET"},
    also={"TOKEN-CODE-EXCHANGE", "TOKEN-ERR-INVALID-CLIENT"},  # the latter: could not be checked
)
async def client_secret_not_checked(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id"))
    if req.is_("POST", TOKEN) and found and req.param("client_secret") is not None:
        set_form_value(req, "client_secret", found[1]["client_secret"])
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


@mutation(
    "token-type-not-bearer",
    "token responses say token_type mac",
    breaks={"TOKEN-TYPE-BEARER"},
    also={"TOKEN-EXPIRES-IN-3600", "TOKEN-RESPONSE-ACCESS-TOKEN"},
)
async def token_type_not_bearer(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if req.is_("POST", TOKEN) else None
    if isinstance(data, dict) and "token_type" in data:
        data["token_type"] = "mac"
        resp.set_json(data)
    return resp


@mutation(
    "token-redirect-uri-optional",
    "a code exchange without redirect_uri is accepted",
    breaks={"TOKEN-REQUIRED-PARAMS"},
    also={"TOKEN-CODE-EXCHANGE", "TOKEN-REDIRECT-URI-REGISTERED"},
)
async def token_redirect_uri_optional(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id"))
    if grant(req) == "authorization_code" and found and req.param("redirect_uri") is None:
        set_form_value(req, "redirect_uri", found[1]["redirect_uri"])
    return await forward(req)


@mutation(
    "invalid-grant-as-invalid-request",
    "an unknown code or refresh token is answered invalid_request",
    breaks={"TOKEN-ERR-INVALID-GRANT"},
    also={"TOKEN-CODE-SINGLE-USE", "TOKEN-ERR-INVALID-REQUEST"},
)
async def invalid_grant_as_invalid_request(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if req.path == TOKEN else None
    if isinstance(data, dict) and data.get("error") == "invalid_grant":
        data["error"] = "invalid_request"
        resp.set_json(data)
    return resp


@mutation(
    "token-response-not-json",
    "token responses are labelled text/plain",
    breaks={"TOKEN-RESPONSE-ACCESS-TOKEN"},
    also={"TOKEN-EXPIRES-IN-3600"},
)
async def token_response_not_json(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.is_("POST", TOKEN) and resp.status == 200:
        resp.set_header("content-type", "text/plain; charset=utf-8")
    return resp


@mutation(
    "token-redirect-uri-not-bound",
    "a code is exchanged with another loopback redirect URI than it was issued for",
    breaks={"TOKEN-REDIRECT-URI-SAME"},
    also={"DESKTOP-LOCALHOST-ANY-PORT"},
)
async def token_redirect_uri_not_bound(req: ProxyRequest, forward: Forward, ctx: Context):
    issued_for = ctx.state.setdefault("issued_for", {})
    code = req.param("code") if grant(req) == "authorization_code" else None
    if code in issued_for:
        set_form_value(req, "redirect_uri", issued_for[code])
    resp = await forward(req)
    if (new_code := remember_code(ctx, req, resp)) and req.query_value("redirect_uri"):
        issued_for[new_code] = req.query_value("redirect_uri")
    return resp


@mutation(
    "invalid-request-as-invalid-grant",
    "a token request missing a parameter is answered invalid_grant",
    breaks={"TOKEN-ERR-INVALID-REQUEST"},
    also={"TOKEN-ERR-INVALID-GRANT"},
)
async def invalid_request_as_invalid_grant(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if req.path == TOKEN else None
    if isinstance(data, dict) and data.get("error") == "invalid_request":
        data["error"] = "invalid_grant"
        resp.set_json(data)
    return resp
