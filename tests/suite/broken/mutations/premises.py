"""Missed defects, class 1: a format defect in one response other scenarios use as a premise.

The code exchange gives every scenario its grant, the refresh gives the revocation and lifetime
scenarios their "the refresh token still yields new access tokens", the revocation answer is
on the way of every scenario that revokes. Each target below spoils one of these answers in
one way the spec (or the RFC it cites) forbids. Only the rule about that answer may fail:
a scenario that merely needs the answer reads it as a client library would (a byte order mark
skipped, a missing refresh_token kept from before, a body nobody reads ignored), or else could
not be checked."""

from __future__ import annotations

from urllib.parse import urlencode

from tests.suite.broken.exchange import Context, Forward, ProxyRequest, ProxyResponse
from tests.suite.broken.helpers import grant, remember_tokens, token_answer
from tests.suite.broken.registry import REVOKE, one_rule

BOM = b"\xef\xbb\xbf"


@one_rule(
    "code-exchange-bom",
    "code-exchange answers start with a UTF-8 byte order mark (RFC 8259 8.1: a JSON text sent "
    "over a network MUST NOT carry one; JSON readers of client libraries skip it)",
    breaks="TOKEN-RESPONSE-ACCESS-TOKEN",
    kind="premise",
)
async def code_exchange_bom(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    resp = await forward(req)
    if grant(req) == "authorization_code" and resp.status == 200:
        resp.body = BOM + resp.body
    return resp


@one_rule(
    "refresh-omits-refresh-token",
    "refresh answers leave out refresh_token (spec 2.3: the refresh response carries the "
    "refresh token that was sent in); the token itself stays valid",
    breaks="REFRESH-SAME-TOKEN",
    kind="premise",
)
async def refresh_omits_refresh_token(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = token_answer(req, resp, "refresh_token")
    if isinstance(data, dict) and data.pop("refresh_token", None) is not None:
        resp.set_json(data)
    return resp


@one_rule(
    "revocation-answers-json",
    "revoking a live token of the application answers 200 with the JSON document {} (spec 4.4: "
    "an empty body); the token is revoked all the same, and any other still gets an empty 200",
    breaks="REVOKE-EMPTY-200",
    kind="premise",
)
async def revocation_answers_json(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    remember_tokens(ctx, req, resp)
    token = req.body_param("token") if req.is_("POST", REVOKE) else None
    owner = ctx.state.get("owner", {}).get(token)
    revoked: set[str] = ctx.state.setdefault("revoked", set())
    live = owner is not None and owner == req.body_param("client_id") and token not in revoked
    if resp.status == 200 and live:
        assert token is not None
        revoked.add(token)
        resp.set_json({})
    return resp


@one_rule(
    "refresh-form-encoded",
    "refresh answers are application/x-www-form-urlencoded, as some old providers sent them "
    "(spec 4.3: the JSON document of 2.3); the tokens in them are right (the first example)",
    breaks="TOKEN-RESPONSE-ACCESS-TOKEN",
    kind="premise",
)
async def refresh_form_encoded(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = token_answer(req, resp, "refresh_token")
    if isinstance(data, dict):
        resp.body = urlencode({k: str(v) for k, v in data.items()}).encode()
        resp.set_header("content-type", "application/x-www-form-urlencoded")
    return resp
