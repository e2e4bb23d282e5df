"""Broken authorization endpoints."""

from __future__ import annotations

import re
from urllib.parse import SplitResult, urlsplit, urlunsplit

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
)
from tests.suite.broken.helpers import (
    error_redirect,
    is_authorize,
)
from tests.suite.broken.registry import mutation

LOOPBACK = {"localhost", "127.0.0.1", "::1"}


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
        return error_redirect(req, "invalid_request")
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
        return error_redirect(req, "unauthorized_client")
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


def _loopback(req: ProxyRequest) -> SplitResult | None:
    """The loopback redirect URI of an authorization request, if it has one."""
    parts = urlsplit(req.query_value("redirect_uri") or "")
    return parts if parts.scheme == "http" and parts.hostname in LOOPBACK else None


@mutation(
    "loopback-any-path",
    "a loopback redirect URI with another path is accepted",
    breaks={"DESKTOP-LOOPBACK-PATH"},
    also={"DESKTOP-LOCALHOST-ANY-PORT"},
)
async def loopback_any_path(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.query_value("client_id"))
    parts = _loopback(req) if is_authorize(req) else None
    if parts and found:
        registered = urlsplit(found[1]["redirect_uri"]).path
        fixed = urlunsplit(parts._replace(path=registered))
        req.query = [(k, fixed if k == "redirect_uri" else v) for k, v in req.query]
        resp = await forward(req)
        location = resp.header("location")
        if location and location.startswith(fixed):
            resp.set_header("location", urlunsplit(parts) + location[len(fixed) :])
        return resp
    return await forward(req)


@mutation(
    "loopback-port-refused",
    "a loopback redirect URI with a port of the application's choosing is refused",
    breaks={"DESKTOP-LOCALHOST-ANY-PORT"},
    also={"DESKTOP-OOB"},
)
async def loopback_port_refused(req: ProxyRequest, forward: Forward, ctx: Context):
    parts = _loopback(req) if is_authorize(req) else None
    if parts and parts.port is not None:
        return ProxyResponse(400, [("content-type", "text/html")], b"<p>Bad redirect URI</p>")
    return await forward(req)


@mutation(
    "approval-always-forced",
    "the consent page is shown even when the user already approved the same scopes",
    breaks={"AUTHZ-APPROVAL-AUTO"},
    also={"AUTHZ-APPROVAL-FORCE"},
)
async def approval_always_forced(req: ProxyRequest, forward: Forward, ctx: Context):
    if is_authorize(req) and req.method == "GET":
        req.query = [(k, v) for k, v in req.query if k != "approval_prompt"]
        req.query.append(("approval_prompt", "force"))
    return await forward(req)


@mutation(
    "access-denied-as-server-error",
    "a refused consent is answered error=server_error",
    breaks={"AUTHZ-ERR-ACCESS-DENIED"},
    also={"AUTHZ-ERR-INVALID-SCOPE"},
)
async def access_denied_as_server_error(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    params = resp.location_params()
    if is_authorize(req) and params.get("error") == "access_denied":
        params["error"] = "server_error"
        resp.set_location_params(list(params.items()))
    return resp


@mutation(
    "scope-submit-barcode-refused",
    "the submit_barcode scope is refused as invalid",
    breaks={"SCOPE-IDENTIFIERS"},
    also={"AUTHZ-RESPONSE-TYPE-CODE"},
)
async def scope_submit_barcode_refused(req: ProxyRequest, forward: Forward, ctx: Context):
    scope = req.query_value("scope") or ""
    if is_authorize(req) and "submit_barcode" in scope.split():
        return error_redirect(req, "invalid_scope")
    return await forward(req)
