"""Broken authorization endpoints."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
    redirect,
)
from tests.suite.broken.helpers import (
    is_authorize,
)
from tests.suite.broken.registry import mutation


@mutation(
    "drop-state",
    "the success redirect leaves out state",
    breaks={"AUTHZ-STATE-ECHO"},
    also={"AUTHZ-STATE-ON-ERROR", "AUTHZ-RESPONSE-TYPE-CODE"},
)
async def drop_state(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    resp = await forward(req)
    params = resp.location_params()
    if is_authorize(req) and "code" in params:
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
    if is_authorize(req) and "error" in params:
        resp.set_location_params([(k, v) for k, v in params.items() if k != "state"])
    return resp


def _error_redirect(req: ProxyRequest, error: str) -> ProxyResponse:
    target = req.query_value("redirect_uri") or ""
    params = [("error", error)]
    if (state := req.query_value("state")) is not None:
        params.append(("state", state))
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
    if is_authorize(req) and resp.status >= 400 and known and req.query_value("redirect_uri"):
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
    if is_authorize(req) and resp.status >= 400 and not known and req.query_value("redirect_uri"):
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
    if is_authorize(req) and params.get("error") == "invalid_scope":
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
    if is_authorize(req):
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


@mutation(
    "authorize-scope-optional",
    "a request without scope still yields a code",
    breaks={"AUTHZ-REQUIRED-PARAMS"},
    also={"AUTHZ-RESPONSE-TYPE-CODE"},
)
async def authorize_scope_optional(req: ProxyRequest, forward: Forward, ctx: Context):
    if is_authorize(req) and req.query_value("scope") is None and req.query_value("client_id"):
        req.query = [*req.query, ("scope", "profile")]
    return await forward(req)


@mutation(
    "approval-force-ignored",
    "approval_prompt=force does not show the consent page again",
    breaks={"AUTHZ-APPROVAL-FORCE"},
    also={"AUTHZ-APPROVAL-AUTO", "AUTHZ-APPROVAL-AUTO-NEW-SCOPES"},
)
async def approval_force_ignored(req: ProxyRequest, forward: Forward, ctx: Context):
    if is_authorize(req) and req.method == "GET":
        req.query = [(k, v) for k, v in req.query if k != "approval_prompt"]
    return await forward(req)


@mutation(
    "oob-code-hidden",
    "the out-of-band page does not show the code",
    breaks={"CODE-OOB-SHOWN", "DESKTOP-OOB"},
    also={"DESKTOP-LOCALHOST-ANY-PORT"},
)
async def oob_code_hidden(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.path == "/oauth2/oob" and resp.status == 200:
        resp.body = re.sub(rb"<code[^>]*>[^<]*</code>", b"<p>Approved.</p>", resp.body)
    return resp
