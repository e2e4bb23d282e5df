"""Faults of the user information endpoint (spec 2.4, 3, 4.5, 5, 8; RFC 6750): which tokens it
honours, how they may travel, what the answer reveals and how refusals are worded."""

from __future__ import annotations

from typing import Any

from tests.suite.broken.exchange import ProxyRequest, ProxyResponse, json_response
from tests.suite.broken.helpers import invalid_token
from tests.suite.broken.registry import USERINFO
from tests.suite.proof.actions import cached, page, swap_bearer
from tests.suite.proof.fault import Target, fault

PROFILE_FIELDS = ("sub", "profile")


def _user_info(t: Target) -> bool:
    return t.values["delivery"] != "-"


def _valid(t: Target) -> bool:
    return _user_info(t) and t.values["invalidity"] == "-" and t.values["scheme"] == "-"


async def _token_refused(req: ProxyRequest, t: Target) -> ProxyResponse:
    """A valid token on the combination refused (swapped for one never issued)."""
    if t.hits(_valid(t)):
        swap_bearer(req)
    return await t.send(req)


@fault(
    "TOKEN-CODE-EXCHANGE",
    "the access token a code exchange issues is not accepted by the service",
)
async def exchanged_token_refused(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _token_refused(req, t)


@fault(
    "REFRESH-NEW-ACCESS-TOKEN",
    "the access token a refresh yields is not accepted by the service",
)
async def refreshed_token_refused(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _token_refused(req, t)


@fault("USERINFO-HEADER", "a token in the Authorization header is refused")
async def header_refused(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _token_refused(req, t)


@fault("USERINFO-POST-BODY", "a token in a form body is refused")
async def body_refused(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _token_refused(req, t)


@fault("USERINFO-QUERY", "a token in the query string is refused")
async def query_refused(req: ProxyRequest, t: Target) -> ProxyResponse:
    return await _token_refused(req, t)


@fault("USERINFO-ERR-NO-TOKEN", "a request without a token is answered 401 without a challenge")
async def no_challenge(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    anonymous = req.path == USERINFO and t.presented is None
    if anonymous and resp.status == 401:
        t.applied()
        resp.set_header("www-authenticate", None)
    return resp


@fault(
    "USERINFO-ERR-INVALID-TOKEN",
    'an invalid token is answered 401 with a challenge that names no error (Bearer realm="...")',
)
async def invalid_token_unnamed(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if t.hits(_user_info(t) and t.values["invalidity"] != "-" and resp.status == 401):
        resp.set_header("www-authenticate", 'Bearer realm="MusicBrainz"')
    return resp


@fault(
    "USERINFO-ERR-INSUFFICIENT-SCOPE",
    "a token without the profile scope is answered 401 invalid_token, not 403",
)
async def scope_as_invalid(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if t.hits(_valid(t) and resp.status == 403):
        return invalid_token()
    return resp


@fault(
    "USERINFO-ERR-MULTIPLE-METHODS",
    "a token sent two ways at once is taken from the first of them",
)
async def two_ways_taken(req: ProxyRequest, t: Target) -> ProxyResponse:
    ways = t.values["two_ways"]
    if t.hits(ways != "-"):
        _keep_only(req, ways.split("_")[0])
    return await t.send(req)


def _keep_only(req: ProxyRequest, way: str) -> None:
    if way != "header":
        req.set_header("authorization", None)
    if way != "query":
        req.query = [(k, v) for k, v in req.query if k != "access_token"]
    if way != "body" and req.is_form():
        req.set_form([(k, v) for k, v in req.form() if k != "access_token"])


@fault(
    "AUTH-BEARER-ONLY",
    "the token is accepted under another authorization scheme as if it were Bearer",
)
async def any_scheme(req: ProxyRequest, t: Target) -> ProxyResponse:
    if t.hits(_user_info(t) and t.values["scheme"] != "-"):
        req.set_header("authorization", f"Bearer {t.presented}")
    return await t.send(req)


def _answer_json(resp: ProxyResponse) -> dict[str, Any] | None:
    data = resp.json() if resp.status == 200 else None
    return data if isinstance(data, dict) else None


@fault(
    "SCOPE-PROFILE-GRANTS-PROFILE",
    "the user information leaves the user name out (no sub, no profile URL)",
)
async def profile_left_out(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    data = _answer_json(resp)
    if data is not None and t.hits(_valid(t)):
        resp.set_json({k: v for k, v in data.items() if k not in PROFILE_FIELDS})
    return resp


@fault(
    "SCOPE-PROFILE-WITHHELD",
    "a token without the profile scope is answered with the user's profile",
)
async def profile_revealed(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    if t.hits(_valid(t) and resp.status == 403):
        return json_response(200, _profile_only(t))
    return resp


def _profile_only(t: Target) -> dict[str, Any]:
    """The user's profile as the service shows it (from an earlier answer, or the profile's
    user name), without the email."""
    earlier = t.ledger.last_user_info
    data = _answer_json(earlier) if earlier is not None else None
    username = str((t.context.profile.get("user") or {}).get("username", ""))
    shown = {k: v for k, v in (data or {}).items() if k in PROFILE_FIELDS}
    return shown or {"sub": username}


@fault("SCOPE-EMAIL-GRANTS-EMAIL", "the user information leaves the email out")
async def email_left_out(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    data = _answer_json(resp)
    if data is not None and t.hits(_valid(t) and "email" in data):
        resp.set_json({k: v for k, v in data.items() if k != "email"})
    return resp


@fault("SCOPE-EMAIL-WITHHELD", "the user's email is shown without the email scope")
async def email_revealed(req: ProxyRequest, t: Target) -> ProxyResponse:
    resp = await t.send(req)
    data = _answer_json(resp)
    token = t.ledger.tokens.get(t.presented or "")
    without = token is not None and "email" not in token.grant.scopes
    if data is not None and t.hits(_valid(t) and without and "email" not in data):
        email = str((t.context.profile.get("user") or {}).get("email", ""))
        resp.set_json(data | {"email": email})
    return resp


@fault("LIFETIME-ACCESS-EXPIRES", "an access token never expires")
async def token_never_expires(req: ProxyRequest, t: Target) -> ProxyResponse:
    if _user_info(t) and t.values["invalidity"] == "expired" and t.matches():
        earlier = t.ledger.answers.get(t.presented or "") or t.ledger.last_user_info
        if earlier is not None:
            t.applied()
            return cached(earlier)
    return await t.send(req)


def _plain_http(profile: dict[str, Any], plain_url: str) -> dict[str, Any]:
    """The profile pointed at the proxy's plain-HTTP listener."""
    capabilities = dict(profile.get("capabilities") or {}) | {"plain_http_url": plain_url}
    return profile | {"capabilities": capabilities}


@fault(
    "BEARER-HTTP-IGNORED",
    "over plain HTTP the service refuses every request, but honours a bearer token sent to "
    "the user information endpoint",
    profile=_plain_http,
)
async def bearer_over_http(req: ProxyRequest, t: Target) -> ProxyResponse:
    if req.scheme != "http":
        return await t.send(req)
    if t.hits(_valid(t)):
        return await t.send(req)
    return page(403, "This service is only available over HTTPS.")


@fault(
    "TRANSPORT-HTTPS-ONLY",
    "every endpoint also answers over plain HTTP (bearer tokens sent in clear are ignored)",
    profile=_plain_http,
)
async def served_over_http(req: ProxyRequest, t: Target) -> ProxyResponse:
    if req.scheme == "http":
        t.applied()
        if req.path == USERINFO:
            _keep_only(req, "none")
    return await t.send(req)
