"""Broken targets a suite misses when it checks a rule on one example where the spec states it
for all: one kind of error, easy values only, one client type, one way of
passing the token, one combination of parameters."""

from __future__ import annotations

from urllib.parse import unquote_plus, urlsplit

from tests.suite.broken.exchange import Context, Forward, ProxyRequest, json_response
from tests.suite.broken.helpers import (
    grant,
    is_authorize,
    remember_code,
    remember_tokens,
    set_form_value,
    token_answer,
    userinfo_token_ways,
)
from tests.suite.broken.registry import USERINFO, mutation

LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def near_miss(given: str, right: str) -> bool:
    """A comparison that stops early: a prefix, an addition, or all but the last character."""
    if not given or given == right:
        return False
    return right.startswith(given) or given.startswith(right) or given[:-1] == right[:-1]


@mutation(
    "state-dropped-on-invalid-scope",
    "the invalid_scope error redirect leaves out state (other errors keep it)",
    breaks={"AUTHZ-STATE-ON-ERROR"},
    also={"AUTHZ-ERR-INVALID-SCOPE", "AUTHZ-ERR-UNSUPPORTED-RESPONSE-TYPE", "AUTHZ-STATE-ECHO"},
)
async def state_dropped_on_invalid_scope(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    params = resp.location_params()
    if is_authorize(req) and params.get("error") == "invalid_scope":
        resp.set_location_params([(k, v) for k, v in params.items() if k != "state"])
    return resp


@mutation(
    "state-decoded-twice",
    "a success redirect decodes state once more: '+' and '%XX' in it come back changed",
    breaks={"AUTHZ-STATE-ECHO"},
    also={"AUTHZ-STATE-ON-ERROR", "AUTHZ-RESPONSE-TYPE-CODE"},
)
async def state_decoded_twice(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    params = resp.location_params()
    if is_authorize(req) and "code" in params and "state" in params:
        params["state"] = unquote_plus(params["state"])
        resp.set_location_params(list(params.items()))
    return resp


@mutation(
    "secret-prefix-accepted",
    "a client secret that differs from the right one only at its end is accepted",
    breaks={"AUTH-TOKEN-CLIENT-SECRET"},
    also={"TOKEN-ERR-INVALID-CLIENT", "TOKEN-CODE-EXCHANGE"},
)
async def secret_prefix_accepted(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id")) if grant(req) else None
    given = req.param("client_secret")
    if found and given is not None and near_miss(given, found[1]["client_secret"]):
        set_form_value(req, "client_secret", found[1]["client_secret"])
    return await forward(req)


@mutation(
    "installed-secret-not-checked",
    "the installed application's client secret is not checked (the web application's is)",
    breaks={"AUTH-TOKEN-CLIENT-SECRET"},
    also={"TOKEN-ERR-INVALID-CLIENT", "TOKEN-REFRESH-INSTALLED"},
)
async def installed_secret_not_checked(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id")) if grant(req) else None
    if found and found[0] == "installed":
        set_form_value(req, "client_secret", found[1]["client_secret"])
    return await forward(req)


@mutation(
    "installed-redirect-unchecked",
    "the installed application's redirect URI may name any host (the web application's may not)",
    # a localhost URI turned into another host's (a user name before it) is the loopback rule's
    breaks={"AUTHZ-ERR-BAD-REDIRECT", "DESKTOP-LOOPBACK-PATH"},
    also={"AUTHZ-ERR-BAD-CLIENT", "DESKTOP-LOCALHOST-ANY-PORT"},
)
async def installed_redirect_unchecked(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.query_value("client_id")) if is_authorize(req) else None
    asked = req.query_value("redirect_uri") or ""
    host = urlsplit(asked).hostname if asked.startswith("http") else None
    if not (found and found[0] == "installed" and host and host not in LOOPBACK):
        return await forward(req)
    registered = found[1]["redirect_uri"]
    req.query = [(k, registered if k == "redirect_uri" else v) for k, v in req.query]
    resp = await forward(req)
    location = resp.header("location")
    if location and location.startswith(registered):
        resp.set_header("location", asked + location[len(registered) :])
    return resp


@mutation(
    "email-leaked-off-header",
    "the email is shown without the email scope when the token comes in a form body or query",
    breaks={"SCOPE-EMAIL-WITHHELD"},
    also={"SCOPE-EMAIL-GRANTS-EMAIL", "USERINFO-POST-BODY", "USERINFO-QUERY"},
)
async def email_leaked_off_header(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if req.path == USERINFO and resp.status == 200 else None
    if isinstance(data, dict) and userinfo_token_ways(req) in (["body"], ["query"]):
        data.setdefault("email", ctx.profile["user"]["email"])
        resp.set_json(data)
    return resp


@mutation(
    "profile-leaked-in-query",
    "a token without the profile scope gets the profile when it comes in the query string",
    breaks={"SCOPE-PROFILE-WITHHELD"},
    also={"USERINFO-QUERY", "USERINFO-ERR-INSUFFICIENT-SCOPE", "SCOPE-PROFILE-GRANTS-PROFILE"},
)
async def profile_leaked_in_query(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.path == USERINFO and resp.status == 403 and userinfo_token_ways(req) == ["query"]:
        return json_response(200, {"sub": ctx.profile["user"]["username"]})
    return resp


@mutation(
    "offline-needs-force",
    "access_type=offline gives a refresh token only together with approval_prompt=force",
    breaks={"TOKEN-REFRESH-OFFLINE"},
    also={"TOKEN-NO-REFRESH-ONLINE", "TOKEN-REFRESH-INSTALLED"},
)
async def offline_needs_force(req: ProxyRequest, forward: Forward, ctx: Context):
    if is_authorize(req) and req.query_value("approval_prompt") != "force":
        req.query = [(k, v) for k, v in req.query if k != "access_type"]
    return await forward(req)


@mutation(
    "code-prefix-accepted",
    "a code that differs from an issued one only at its end is taken for that code",
    breaks={"TOKEN-ERR-INVALID-GRANT"},
    also={"TOKEN-CODE-EXCHANGE", "TOKEN-CODE-SINGLE-USE"},
)
async def code_prefix_accepted(req: ProxyRequest, forward: Forward, ctx: Context):
    issued = ctx.state.setdefault("code_client", {})
    given = req.param("code") if grant(req) == "authorization_code" else None
    if given is not None and given not in issued:
        match = next((code for code in issued if near_miss(given, code)), None)
        if match:
            set_form_value(req, "code", match)
    resp = await forward(req)
    remember_code(ctx, req, resp)
    return resp


def _role(ctx: Context, client_id: str | None) -> str | None:
    found = ctx.client_by_id(client_id)
    return found[0] if found else None


@mutation(
    "expires-in-wrong-online",
    "an online web application's tokens are said to last 7200 seconds (offline ones 3600)",
    breaks={"TOKEN-EXPIRES-IN-3600"},
    also={"TOKEN-RESPONSE-ACCESS-TOKEN", "TOKEN-TYPE-BEARER"},
)
async def expires_in_wrong_online(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = token_answer(req, resp, "authorization_code")
    if isinstance(data, dict) and "refresh_token" not in data:
        data["expires_in"] = 7200
        resp.set_json(data)
    return resp


@mutation(
    "pkce-ignored-installed",
    "PKCE is not applied to the installed application (it is to the web application)",
    # and a code of the installed application is exchanged without its verifier (an rfc warning)
    breaks={"PKCE-VERIFIER-MISMATCH", "PKCE-VERIFIER-MISSING"},
    also={"PKCE-S256", "PKCE-PLAIN"},
)
async def pkce_ignored_installed(req: ProxyRequest, forward: Forward, ctx: Context):
    if is_authorize(req) and _role(ctx, req.query_value("client_id")) == "installed":
        pkce = ("code_challenge", "code_challenge_method")
        req.query = [(k, v) for k, v in req.query if k not in pkce]
    elif grant(req) and _role(ctx, req.param("client_id")) == "installed":
        set_form_value(req, "code_verifier", None)
    return await forward(req)


@mutation(
    "installed-secret-optional",
    "the installed application may leave out its client secret",
    breaks={"TOKEN-REQUIRED-PARAMS"},
    also={"TOKEN-REFRESH-INSTALLED", "AUTH-TOKEN-CLIENT-SECRET"},
)
async def installed_secret_optional(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id")) if grant(req) else None
    if found and found[0] == "installed" and req.param("client_secret") is None:
        set_form_value(req, "client_secret", found[1]["client_secret"])
    return await forward(req)


@mutation(
    "code-reusable-installed",
    "the installed application may exchange a code again (and gets the same tokens)",
    breaks={"TOKEN-CODE-SINGLE-USE"},
    also={"TOKEN-CODE-EXCHANGE", "TOKEN-REFRESH-INSTALLED"},
)
async def code_reusable_installed(req: ProxyRequest, forward: Forward, ctx: Context):
    answered = ctx.state.setdefault("answered", {})
    code = req.param("code") if grant(req) == "authorization_code" else None
    installed = _role(ctx, req.param("client_id")) == "installed"
    if code and installed and code in answered:
        return json_response(200, answered[code])
    resp = await forward(req)
    if code and installed and resp.status == 200:
        answered[code] = resp.json()
    return resp


@mutation(
    "state-dropped-on-loopback",
    "a success redirect to a localhost URI leaves out state (one to the web application keeps it)",
    breaks={"AUTHZ-STATE-ECHO"},
    also={"AUTHZ-STATE-ON-ERROR", "DESKTOP-LOCALHOST-ANY-PORT"},
)
async def state_dropped_on_loopback(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    params = resp.location_params()
    location = resp.header("location") or ""
    if is_authorize(req) and "code" in params and urlsplit(location).hostname in LOOPBACK:
        resp.set_location_params([(k, v) for k, v in params.items() if k != "state"])
    return resp


@mutation(
    "access-token-prefix-accepted",
    "the user information endpoint takes a token that differs from an issued one at its end",
    breaks={"USERINFO-ERR-INVALID-TOKEN"},
    also={"USERINFO-HEADER", "USERINFO-ERR-NO-TOKEN"},
)
async def access_token_prefix_accepted(req: ProxyRequest, forward: Forward, ctx: Context):
    header = req.header("authorization") or ""
    issued = ctx.state.setdefault("owner", {})
    if req.path == USERINFO and header.startswith("Bearer "):
        given = header[len("Bearer ") :]
        match = next((t for t in issued if near_miss(given, t)), None)
        if given not in issued and match:
            req.set_header("authorization", f"Bearer {match}")
    resp = await forward(req)
    remember_tokens(ctx, req, resp)
    return resp
