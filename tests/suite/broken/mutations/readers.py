"""Missed defects, class 2: a leniency of the suite's readers that a deployment exploits.

Each target answers in a way a reader of the suite accepts (a redirect parameter read from a
dict, a content type searched for "json", a header only looked up by name, an error body read
as JSON whatever its label) where the RFC the spec cites does not; the rule whose words that
breaks must fail, and only it."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote_plus, urlsplit

from tests.suite.broken.exchange import Context, Forward, ProxyRequest
from tests.suite.broken.helpers import grant, is_authorize
from tests.suite.broken.registry import TOKEN, one_rule


@one_rule(
    "state-repeated-in-redirect",
    "the success redirect carries state twice: first decoded once more, then as sent "
    "(RFC 6749 3.1: a parameter MUST NOT appear twice; a reader taking the first gets "
    "another state)",
    breaks="AUTHZ-STATE-ECHO",
    kind="reader",
)
async def state_repeated_in_redirect(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    query = urlsplit(resp.header("location") or "").query
    pairs = parse_qsl(query, keep_blank_values=True)
    state = dict(pairs).get("state")
    if is_authorize(req) and "code" in dict(pairs) and state is not None:
        resp.set_location_params([("state", unquote_plus(state)), *pairs])
    return resp


@one_rule(
    "token-response-two-content-types",
    "code-exchange answers carry two Content-Type headers, a framework's text/html first, "
    "then application/json (RFC 9110 5.3: a singleton field; readers see text/html or both)",
    breaks="TOKEN-RESPONSE-ACCESS-TOKEN",
    kind="reader",
)
async def token_response_two_content_types(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if grant(req) == "authorization_code" and resp.status == 200:
        resp.headers = [("content-type", "text/html; charset=utf-8"), *resp.headers]
    return resp


@one_rule(
    "invalid-request-labelled-html",
    "invalid_request errors of the token endpoint keep their JSON text but are labelled "
    "text/html (RFC 6749 5.2: the error is an application/json document)",
    breaks="TOKEN-ERR-INVALID-REQUEST",
    kind="reader",
)
async def invalid_request_labelled_html(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = resp.json() if req.path == TOKEN and resp.status == 400 else None
    if isinstance(data, dict) and data.get("error") == "invalid_request":
        resp.set_header("content-type", "text/html; charset=utf-8")
    return resp


@one_rule(
    "invalid-client-empty-challenge",
    "invalid_client is answered 401 with an empty WWW-Authenticate header (RFC 9110 11.6.1: "
    "a 401 carries at least one challenge)",
    breaks="TOKEN-ERR-INVALID-CLIENT",
    kind="reader",
)
async def invalid_client_empty_challenge(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.path == TOKEN and resp.status == 401:
        resp.set_header("www-authenticate", "")
    return resp
