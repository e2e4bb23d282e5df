"""Faults of the refresh (spec 3, 4.3, 8; RFC 6749 6): whether a refresh token keeps working,
for whom, and with which fields."""

from __future__ import annotations

from tests.suite.broken.exchange import ProxyRequest, ProxyResponse
from tests.suite.proof.actions import replace_param, swap
from tests.suite.proof.fault import Target, fault
from tests.suite.proof.records import ACCESS_LIFETIME


def _refresh(t: Target) -> bool:
    return t.values["endpoint"] == "refresh"


def _valid(t: Target) -> bool:
    return t.values["invalidity"] == "-" and t.values["missing"] == "-"


@fault(
    "REFRESH-TOKEN-STAYS-VALID",
    "a refresh token works once: a second refresh with it is refused",
)
async def refresh_token_single_use(req: ProxyRequest, t: Target) -> ProxyResponse:
    token = t.ledger.tokens.get(t.presented or "")
    if token is not None and t.hits(_refresh(t) and _valid(t) and token.refreshes >= 1):
        swap(req, "refresh_token")
    return await t.send(req)


@fault(
    "REFRESH-REQUIRED-PARAMS",
    "a refresh missing a field is completed with what the server can guess (the grant type, "
    "the client's newest refresh token, the token's client, its secret)",
)
async def refresh_guesses(req: ProxyRequest, t: Target) -> ProxyResponse:
    missing = t.values["missing"]
    if not (_refresh(t) and missing != "-" and t.matches()):
        return await t.send(req)
    t.applied()
    token = t.ledger.tokens.get(t.presented or "")
    client_id = req.param("client_id") or (token.grant.authorization.client_id if token else None)
    if missing == "grant_type":
        replace_param(req, "grant_type", "refresh_token")
    elif missing == "refresh_token":
        newest = t.ledger.latest_refresh_token(client_id)
        replace_param(req, "refresh_token", newest.value if newest else None)
    elif missing == "client_id":
        replace_param(req, "client_id", client_id)
    elif missing == "client_secret":
        replace_param(req, "client_secret", t.ledger.secret(client_id))
    return await t.send(req)


@fault(
    "REFRESH-CROSS-CLIENT",
    "a refresh token is honoured for any registered application, not only its own",
)
async def refresh_for_anyone(req: ProxyRequest, t: Target) -> ProxyResponse:
    t.as_owner(req, "refresh")
    return await t.send(req)


@fault(
    "LIFETIME-REFRESH-PERSISTS",
    "a refresh token expires with the first access token of its grant",
)
async def refresh_token_expires(req: ProxyRequest, t: Target) -> ProxyResponse:
    token = t.ledger.tokens.get(t.presented or "")
    old = token is not None and t.ledger.now() >= token.issued_at + ACCESS_LIFETIME
    if t.hits(_refresh(t) and _valid(t) and old):
        swap(req, "refresh_token")
    return await t.send(req)
