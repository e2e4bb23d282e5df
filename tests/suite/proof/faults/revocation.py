"""Faults of revocation (spec 3, 4.4, 5; RFC 7009): what a revocation ends, who may revoke,
and how the endpoint answers."""

from __future__ import annotations

from tests.suite.broken.exchange import ProxyRequest, ProxyResponse, json_response
from tests.suite.proof.actions import params_to_body, replace_param, swap, swap_bearer
from tests.suite.proof.fault import Target, fault
from tests.suite.proof.ledger import MANUAL_REVOKE
from tests.suite.proof.records import Token


def _revoke(t: Target) -> bool:
    return t.values["endpoint"] == "revoke"


def _own_revocation(t: Target) -> Token | None:
    """The token of a well-formed revocation by its own application, else None."""
    token = t.ledger.tokens.get(t.presented or "")
    valid = t.values["invalidity"] == "-" and t.values["missing"] == "-"
    if not (_revoke(t) and valid and t.values["near_miss"] == "-") or token is None:
        return None
    return token


@fault("REVOKE-EMPTY-200", "a revocation is answered 200 with a JSON body")
async def revocation_with_body(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if t.hits(_own_revocation(t) is not None and resp.status == 200):
        return json_response(200, {"revoked": True}, [("cache-control", "no-store")])
    return resp


@fault(
    "REVOKE-INVALID-TOKEN-200",
    "the revocation of an invalid token is answered 400 invalid_token",
)
async def invalid_token_refused(req: ProxyRequest, t: Target) -> ProxyResponse:
    well_formed = t.values["near_miss"] == "-" and t.values["missing"] == "-"
    if t.hits(_revoke(t) and t.values["invalidity"] != "-" and well_formed):
        return json_response(400, {"error": "invalid_token"})
    return await t.send(req)


@fault(
    "REVOKE-POST-ONLY",
    "the revocation endpoint takes a GET with its parameters in the URL as well",
)
async def revoke_by_get(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(_revoke(t) and req.method == "GET"):
        params_to_body(req)
    return await t.send(req)


@fault(
    "REVOKE-REQUIRED-PARAMS",
    "a revocation missing a field is answered 200 (and revokes nothing)",
)
async def revoke_incomplete_ok(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(_revoke(t) and t.values["missing"] != "-"):
        return ProxyResponse(200, [("cache-control", "no-store"), ("pragma", "no-cache")])
    return await t.send(req)


@fault(
    "REVOKE-OTHER-CLIENT",
    "any registered application can revoke a token, not only the one it was issued to",
)
async def revoke_for_anyone(req: ProxyRequest, t: Target) -> ProxyResponse:
    t.as_owner(req, "revoke")
    return await t.send(req)


@fault(
    "REVOKE-NO-QUERY-PARAMS",
    "the revocation endpoint takes its parameters (the client secret too) from the URL query",
)
async def revoke_query_taken(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(_revoke(t) and bool(req.query)):
        params_to_body(req)
    return await t.send(req)


@fault(
    "REVOKE-ERR-INVALID-CLIENT",
    "wrong client credentials at the revocation endpoint are answered 400 unauthorized_client",
)
async def revoke_credentials_misnamed(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if t.hits(_revoke(t) and t.values["near_miss"] != "-" and resp.status in (400, 401)):
        return json_response(400, {"error": "unauthorized_client"})
    return resp


@fault(
    "AUTH-REVOKE-CLIENT-SECRET",
    "the revocation endpoint accepts a client secret that only resembles the right one",
)
async def revoke_secret_lax(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(_revoke(t) and t.values["near_miss"] != "-"):
        replace_param(req, "client_secret", t.ledger.secret(req.param("client_id")))
    return await t.send(req)


async def _spare(req: ProxyRequest, t: Target, kind: str, whole_grant: bool) -> bool:
    """A matching revocation of a `kind` token is not forwarded (swapped for a token never
    issued, so the server answers as it would): the token, or its whole grant, noted as
    spared. Whether it was."""
    token = _own_revocation(t)
    told = ("client", "token_kind", "origin") if kind == "access" else ("client", "token_kind")
    if token is None or token.kind != kind or not t.matches(only=told):
        return False
    spared: set[str] = t.notes.setdefault("spared", set())
    kept = t.ledger.grant_tokens(token.grant) if whole_grant else [token]
    spared.update(kept_token.value for kept_token in kept)
    swap(req, "token")
    return True


def _spared_use(req: ProxyRequest, t: Target) -> None:
    """A spared token: an access token works where the combination holds and is refused
    elsewhere, as the revocation would have it; a refresh token is refused."""
    token = t.ledger.tokens.get(t.presented or "")
    if token is None or token.value not in t.notes.get("spared", set()):
        return
    if t.values["delivery"] != "-":
        if not t.hits(only=[name for name in t.combination if name != "token_kind"]):
            swap_bearer(req)
    elif t.values["endpoint"] == "refresh":
        swap(req, "refresh_token")


async def _revocation_partial(
    req: ProxyRequest, t: Target, kind: str, whole_grant: bool
) -> ProxyResponse:
    if not await _spare(req, t, kind, whole_grant):
        _spared_use(req, t)
    return await t.send(req)


@fault(
    "REVOKE-ACCESS-KEEPS-REFRESH",
    "a revoked access token of an offline or installed application keeps working",
)
async def access_revocation_ignored(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _revocation_partial(req, t, "access", whole_grant=False)


@fault(
    "REVOKE-REFRESH-WHOLE-GRANT",
    "revoking a refresh token ends it, but an access token of its grant keeps working",
)
async def refresh_revocation_partial(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _revocation_partial(req, t, "refresh", whole_grant=True)


@fault(
    "REVOKE-ONLINE-WHOLE-GRANT",
    "revoking an online web application's access token leaves the token working",
)
async def online_revocation_ignored(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _revocation_partial(req, t, "access", whole_grant=False)


@fault(
    "REVOKE-MANUAL",
    "the user's revocation on the website leaves the application's refresh tokens working",
)
async def manual_revocation_partial(req: ProxyRequest, t: Target) -> ProxyResponse:
    kept: set[int] = t.notes.setdefault("kept", set())  # grants the revocation should have ended
    if t.hits(req.is_("POST", MANUAL_REVOKE)):
        client_id = req.param("client_id")
        kept.update(g.id for g in t.ledger.grants if g.authorization.client_id == client_id)
        return ProxyResponse(303, [("location", "/account/authorized?revoked=1")])
    token = t.ledger.tokens.get(t.presented or "")
    if token is not None and token.grant.id in kept and t.values["delivery"] != "-":
        swap_bearer(req)  # the access tokens did end
    return await t.send(req)
