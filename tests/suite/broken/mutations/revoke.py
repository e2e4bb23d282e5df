"""Broken revocation endpoints."""

from __future__ import annotations

import secrets

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
    json_response,
)
from tests.suite.broken.helpers import (
    remember_tokens,
    set_form_value,
    swap_credentials,
)
from tests.suite.broken.registry import REVOKE, mutation


@mutation(
    "revoke-invalid-token-400",
    "revoking an unknown token is answered 400",
    breaks={"REVOKE-INVALID-TOKEN-200"},
    also={"REVOKE-EMPTY-200"},
)
async def revoke_invalid_400(req: ProxyRequest, forward: Forward, ctx: Context):
    return await _unknown_token_refused(
        req, forward, ctx, json_response(400, {"error": "invalid_request"})
    )


async def _unknown_token_refused(
    req: ProxyRequest, forward: Forward, ctx: Context, refusal: ProxyResponse
) -> ProxyResponse:
    """The revocation of a token the proxy did not see issued gets `refusal`."""
    if req.is_("POST", REVOKE) and req.param("token") not in ctx.state.get("owner", {}):
        return refusal
    resp = await forward(req)
    remember_tokens(ctx, req, resp)
    return resp


#: Words a hostile deployment puts in an answer: clear the screen, retitle the window, print a
#: green verdict, reverse the text that follows, an 8-bit CSI (tests/suite/test_hostile_words.py).
HOSTILE_WORDS = (
    "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b[1;32mALL RULES PASS - CONFORMS\x1b[0m "
    "\u202egnp.exe\u202c \x9b2J\r\nRules: 99 pass."
)


@mutation(
    "revoke-hostile-words",
    "revoking an unknown token is answered 400, its error_description full of escapes",
    breaks={"REVOKE-INVALID-TOKEN-200"},
    also={"REVOKE-EMPTY-200"},
)
async def revoke_hostile_words(req: ProxyRequest, forward: Forward, ctx: Context):
    # raw, as a hostile deployment sends it (json.dumps would escape the controls)
    body = f'{{"error": "invalid_request", "error_description": "{HOSTILE_WORDS}"}}'
    refusal = ProxyResponse(400, [("content-type", "application/json")], body.encode())
    return await _unknown_token_refused(req, forward, ctx, refusal)


@mutation(
    "revoke-does-nothing",
    "revocation answers 200 but revokes nothing",
    breaks={
        "REVOKE-ACCESS-KEEPS-REFRESH",
        "REVOKE-REFRESH-WHOLE-GRANT",
        "REVOKE-ONLINE-WHOLE-GRANT",
    },
    also={"REVOKE-EMPTY-200", "REVOKE-INVALID-TOKEN-200"},
)
async def revoke_does_nothing(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("POST", REVOKE) and req.param("token") and req.is_form():
        set_form_value(req, "token", "not-a-token-" + secrets.token_urlsafe(8))
    return await forward(req)


@mutation(
    "revoke-answers-body",
    "revocation answers 200 with a body",
    breaks={"REVOKE-EMPTY-200", "REVOKE-INVALID-TOKEN-200"},
    also={"REVOKE-REFRESH-WHOLE-GRANT"},
)
async def revoke_answers_body(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    if req.is_("POST", REVOKE) and resp.status == 200:
        resp.set_json({"revoked": True})
    return resp


@mutation(
    "revoke-secret-not-checked",
    "the revocation endpoint accepts any client_secret",
    breaks={"AUTH-REVOKE-CLIENT-SECRET"},
    also={"REVOKE-EMPTY-200", "REVOKE-ERR-INVALID-CLIENT"},  # the latter: could not be checked
)
async def revoke_secret_not_checked(req: ProxyRequest, forward: Forward, ctx: Context):
    found = ctx.client_by_id(req.param("client_id"))
    if req.is_("POST", REVOKE) and found and req.param("client_secret") is not None:
        set_form_value(req, "client_secret", found[1]["client_secret"])
    return await forward(req)


@mutation(
    "revoke-query-params-accepted",
    "revocation parameters in the URL query string are accepted",
    breaks={"REVOKE-NO-QUERY-PARAMS"},
    also={"REVOKE-EMPTY-200"},
)
async def revoke_query_accepted(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("POST", REVOKE) and req.query:
        req.set_form([*req.form(), *req.query])
        req.query = []
    return await forward(req)


@mutation(
    "revoke-other-client",
    "an application can revoke another application's token",
    breaks={"REVOKE-OTHER-CLIENT"},
    also={"REVOKE-REFRESH-WHOLE-GRANT"},
)
async def revoke_other_client(req: ProxyRequest, forward: Forward, ctx: Context):
    owners = ctx.state.setdefault("owner", {})
    if req.is_("POST", REVOKE) and req.param("token") in owners:
        swap_credentials(req, ctx, owners[req.param("token")])
    resp = await forward(req)
    remember_tokens(ctx, req, resp)
    return resp


async def _revoked_nothing() -> ProxyResponse:
    return ProxyResponse(200, [], b"")


@mutation(
    "revoke-get-accepted",
    "a GET to the revocation endpoint is answered 200",
    breaks={"REVOKE-POST-ONLY"},
    also={"REVOKE-EMPTY-200"},
)
async def revoke_get_accepted(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("GET", REVOKE):
        return await _revoked_nothing()
    return await forward(req)


@mutation(
    "revoke-missing-params-accepted",
    "a revocation missing a parameter is answered 200",
    breaks={"REVOKE-REQUIRED-PARAMS"},
    also={"REVOKE-EMPTY-200", "AUTH-REVOKE-CLIENT-SECRET"},
)
async def revoke_missing_params(req: ProxyRequest, forward: Forward, ctx: Context):
    fields = ("token", "client_id", "client_secret")
    if req.is_("POST", REVOKE) and any(req.param(f) is None for f in fields):
        return await _revoked_nothing()
    return await forward(req)


@mutation(
    "manual-revocation-ignored",
    "revoking an application on the website leaves its refresh token valid",
    breaks={"REVOKE-MANUAL"},
    also={"REVOKE-REFRESH-WHOLE-GRANT"},
)
async def manual_revocation_ignored(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.method == "POST" and req.path.startswith("/account/authorized/revoke"):
        return ProxyResponse(303, [("location", "/account/authorized")])
    return await forward(req)
