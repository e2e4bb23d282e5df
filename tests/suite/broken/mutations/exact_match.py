"""Targets that compare redirect URIs loosely. Spec 4.1 and 2.1: the
redirect_uri "must match the registered URL exactly", so the registered URL plus a suffix is
a spec violation, at the authorization endpoint and at the token endpoint alike."""

from __future__ import annotations

from urllib.parse import urlsplit

from tests.suite.broken.exchange import Context, Forward, ProxyRequest
from tests.suite.broken.helpers import grant, is_authorize, set_form_value
from tests.suite.broken.registry import mutation


def _with_params(uri: str, location: str) -> str:
    """The requested URI with the query of the server's redirect added."""
    query = urlsplit(location).query
    base = uri.split("#", 1)[0]
    return f"{base}{'&' if '?' in base else '?'}{query}" if query else base


@mutation(
    "redirect-uri-prefix-match",
    "a web application's redirect URI is accepted when it starts with the registered one",
    breaks={"AUTHZ-ERR-BAD-REDIRECT"},
    also={"AUTHZ-ERR-BAD-CLIENT", "AUTHZ-REDIRECT-URI-BYPASS", "AUTHZ-RESPONSE-TYPE-CODE"},
)
async def redirect_uri_prefix_match(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.query_value("client_id")) if is_authorize(req) else None
    asked = req.query_value("redirect_uri") or ""
    registered = found[1]["redirect_uri"] if found and found[0] != "installed" else None
    if not (registered and asked != registered and asked.startswith(registered)):
        return await forward(req)
    req.query = [(k, registered if k == "redirect_uri" else v) for k, v in req.query]
    resp = await forward(req)
    location = resp.header("location")
    if location and location.startswith(registered):
        resp.set_header("location", _with_params(asked, location))
    return resp


@mutation(
    "token-redirect-uri-prefix-match",
    "the token endpoint accepts a redirect URI that starts with the registered one",
    breaks={"TOKEN-REDIRECT-URI-REGISTERED"},
    also={"TOKEN-CODE-EXCHANGE", "TOKEN-REQUIRED-PARAMS"},
)
async def token_redirect_uri_prefix_match(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id")) if grant(req) else None
    asked = req.param("redirect_uri") or ""
    registered = found[1]["redirect_uri"] if found else ""
    if registered and asked != registered and asked.startswith(registered):
        set_form_value(req, "redirect_uri", registered)
    return await forward(req)


@mutation(
    "loopback-query-ignored",
    "an installed application's localhost redirect URI may carry any query or fragment",
    breaks={"DESKTOP-LOOPBACK-PATH"},
    also={"DESKTOP-LOCALHOST-ANY-PORT", "AUTHZ-ERR-BAD-REDIRECT"},
)
async def loopback_query_ignored(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.query_value("client_id")) if is_authorize(req) else None
    asked = req.query_value("redirect_uri") or ""
    parts = urlsplit(asked)
    if not (found and found[0] == "installed" and parts.hostname == "localhost"):
        return await forward(req)
    if not (parts.query or parts.fragment):
        return await forward(req)
    bare = parts._replace(query="", fragment="").geturl()
    req.query = [(k, bare if k == "redirect_uri" else v) for k, v in req.query]
    resp = await forward(req)
    location = resp.header("location")
    if location and location.startswith(bare):
        query = urlsplit(location).query
        resp.set_header("location", f"{bare}?{parts.query}&{query}" if parts.query else location)
    return resp
