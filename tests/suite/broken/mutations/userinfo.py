"""Broken user information endpoints."""

from __future__ import annotations

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    json_response,
)
from tests.suite.broken.helpers import (
    drop_query,
    invalid_token,
    set_form_value,
    userinfo_token_ways,
)
from tests.suite.broken.registry import USERINFO, mutation


@mutation(
    "userinfo-without-token-200",
    "user information is answered without a token",
    breaks={"USERINFO-ERR-NO-TOKEN"},
    also={"USERINFO-HEADER"},
)
async def userinfo_without_token(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == USERINFO and not userinfo_token_ways(req):
        return json_response(200, {"sub": ctx.profile["user"]["username"]})
    return await forward(req)


@mutation(
    "userinfo-post-body-refused",
    "the token in the POST body is not accepted (the earlier description)",
    breaks={"USERINFO-POST-BODY", "VERSION-USERINFO-POST"},
    also={"USERINFO-HEADER", "USERINFO-QUERY", "USERINFO-ERR-MULTIPLE-METHODS"},
)
async def userinfo_post_refused(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("POST", USERINFO) and userinfo_token_ways(req) == ["body"]:
        return invalid_token()
    return await forward(req)


@mutation(
    "userinfo-query-refused",
    "the token in the query string is not accepted",
    breaks={"USERINFO-QUERY"},
    also={"USERINFO-HEADER", "USERINFO-POST-BODY"},
)
async def userinfo_query_refused(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == USERINFO and userinfo_token_ways(req) == ["query"]:
        return invalid_token()
    return await forward(req)


@mutation(
    "userinfo-several-ways-accepted",
    "a token sent two ways at once is accepted",
    breaks={"USERINFO-ERR-MULTIPLE-METHODS"},
    also={"USERINFO-QUERY", "USERINFO-POST-BODY"},
)
async def userinfo_several_ways(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == USERINFO and len(userinfo_token_ways(req)) > 1:
        drop_query(req, "access_token")
        if req.is_form():
            set_form_value(req, "access_token", None)
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
    'a bad token is answered 401 without error="invalid_token"',
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


@mutation(
    "profile-without-scope",
    "a token without the profile scope reads the profile",
    breaks={"SCOPE-PROFILE-WITHHELD"},
    also={"SCOPE-PROFILE-GRANTS-PROFILE", "USERINFO-ERR-INSUFFICIENT-SCOPE"},
)
async def profile_without_scope(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.path == USERINFO and resp.status == 403:
        return json_response(200, {"sub": ctx.profile["user"]["username"]})
    return resp


@mutation(
    "userinfo-header-refused",
    "the token in the Authorization header is not accepted",
    # SCOPE-PROFILE-GRANTS-PROFILE, read through the header: could not be checked, see the
    # header's rule. So too the rules whose checks present a token in the header that must
    # "still work" or "no longer work": none may be judged through a way not read at all.
    breaks={"USERINFO-HEADER"},
    also={
        "USERINFO-POST-BODY",
        "USERINFO-QUERY",
        "SCOPE-PROFILE-GRANTS-PROFILE",
        "LIFETIME-ACCESS-EXPIRES",
        "AUTH-REVOKE-CLIENT-SECRET",
        "REVOKE-ACCESS-KEEPS-REFRESH",
        "TOKEN-CODE-REPLAY-REVOKES",
    },
)
async def userinfo_header_refused(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == USERINFO and userinfo_token_ways(req) == ["header"]:
        return invalid_token()
    return await forward(req)


@mutation(
    "email-never-shown",
    "the email is withheld even with the email scope",
    breaks={"SCOPE-EMAIL-GRANTS-EMAIL"},
    also={"SCOPE-EMAIL-WITHHELD"},
)
async def email_never_shown(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if req.path == USERINFO and resp.status == 200 else None
    if isinstance(data, dict) and ("email" in data or "email_verified" in data):
        data.pop("email", None)
        data.pop("email_verified", None)
        resp.set_json(data)
    return resp
