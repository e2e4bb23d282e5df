"""Faults of the description a deployment follows (spec 9), and of the applications' identity
(spec 2.1). A VERSION- rule names a capability that other rules check in detail, so its fault
breaks those as well (`implies`): a deployment of the earlier description fails them."""

from __future__ import annotations

from typing import Any

from tests.suite.broken.exchange import ProxyRequest, ProxyResponse
from tests.suite.broken.registry import AUTHORIZE, REVOKE, TOKEN, USERINFO
from tests.suite.proof.actions import page, replace_param
from tests.suite.proof.fault import Target, fault

PKCE_RULES = (
    "PKCE-VERIFIER-MISMATCH",
    "PKCE-VERIFIER-MISSING",
    "PKCE-DOWNGRADE",
    "PKCE-BAD-METHOD",
    "PKCE-CHALLENGE-FORMAT",
)
REVOCATION_RULES = (
    "REVOKE-EMPTY-200",
    "REVOKE-INVALID-TOKEN-200",
    "REVOKE-ACCESS-KEEPS-REFRESH",
    "REVOKE-REFRESH-WHOLE-GRANT",
    "REVOKE-ONLINE-WHOLE-GRANT",
)


@fault(
    "VERSION-PKCE",
    "the PKCE parameters are ignored (the earlier description has none)",
    implies=PKCE_RULES,
)
async def pkce_ignored(req: ProxyRequest, t: Target) -> ProxyResponse:
    if req.path == AUTHORIZE and any(k.startswith("code_challenge") for k, _ in req.query):
        t.applied()
        req.query = [(k, v) for k, v in req.query if not k.startswith("code_challenge")]
    if req.path == TOKEN and req.param("code_verifier") is not None:
        replace_param(req, "code_verifier", None)
    return await t.send(req)


@fault(
    "VERSION-TOKEN-TYPE-BEARER-ONLY",
    "token_type=mac is ignored and a bearer token issued (the earlier description)",
    implies=("TOKEN-TYPE-PARAM",),
)
async def mac_ignored(req: ProxyRequest, t: Target) -> ProxyResponse:
    if req.path == TOKEN and (req.param("token_type") or "").lower() == "mac":
        t.applied()
        replace_param(req, "token_type", None)
    return await t.send(req)


@fault(
    "VERSION-REVOCATION",
    "there is no revocation endpoint (the earlier description)",
    implies=REVOCATION_RULES,
)
async def no_revocation(req: ProxyRequest, t: Target) -> ProxyResponse:
    if req.path == REVOKE:
        t.applied()
        return page(404, "Not Found")
    return await t.send(req)


@fault(
    "VERSION-USERINFO-POST",
    "the user information endpoint takes GET only (the earlier description)",
    implies=("USERINFO-POST-BODY",),
)
async def userinfo_get_only(req: ProxyRequest, t: Target) -> ProxyResponse:
    if req.is_("POST", USERINFO):
        t.applied()
        return page(405, "Method Not Allowed")
    return await t.send(req)


def _shared_client_id(profile: dict[str, Any], plain_url: str) -> dict[str, Any]:
    """The profile as the deployment registered it: the second web application under the
    first one's Client ID."""
    clients = {role: dict(table) for role, table in (profile.get("clients") or {}).items()}
    clients["other_web"]["client_id"] = clients["web"]["client_id"]
    return profile | {"clients": clients}


@fault(
    "APP-CLIENT-ID-UNIQUE",
    "the service gives a user's two web applications one Client ID and tells them apart by "
    "their secrets and redirect URIs",
    profile=_shared_client_id,
)
async def shared_client_id(req: ProxyRequest, t: Target) -> ProxyResponse:
    """Requests of the second application (its secret, or its redirect URI) reach the server
    under its real Client ID."""
    web = t.ledger.client_id_of("web")
    other = t.ledger.client_id_of("other_web")
    if web and other and _second_application(req, t, other):
        t.applied()
        req.query = [(k, other if (k, v) == ("client_id", web) else v) for k, v in req.query]
        if req.param("client_id") == web and any(k == "client_id" for k, _ in req.form()):
            replace_param(req, "client_id", other)
    return await t.send(req)


def _second_application(req: ProxyRequest, t: Target, other: str) -> bool:
    secret = t.ledger.secret(other)
    uri = t.ledger.registered_uri(other) or ""
    sent_uri = req.param("redirect_uri") or dict(req.query).get("redirect_uri") or ""
    return req.param("client_secret") == secret or (bool(uri) and sent_uri.startswith(uri))
