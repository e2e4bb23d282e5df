"""/oauth2/userinfo (spec 4.5) with the bearer-token errors of RFC 6750 3."""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .. import grants
from ..accounts import User
from ..state import server
from .errors import NO_STORE, REALM
from .params import ParameterError, form_params, is_form, query_params
from .replies import JSONReply


def _header_safe(text: str) -> str:
    """Only the characters RFC 6750 3 allows in a quoted error_description."""
    return "".join(c for c in text if 0x20 <= ord(c) <= 0x7E and c not in '"\\')


def _challenge(
    status: int, error: str | None = None, description: str = "", scope: str | None = None
) -> Response:
    parts = [f'realm="{REALM}"']
    if error:
        parts.append(f'error="{error}"')
        parts.append(f'error_description="{_header_safe(description)}"')
    if scope:
        parts.append(f'scope="{scope}"')
    headers = {"WWW-Authenticate": "Bearer " + ", ".join(parts), **NO_STORE}
    body = {"error": error, "error_description": description} if error else {}
    return JSONResponse(body, status_code=status, headers=headers)


async def _presented_tokens(request: Request) -> list[str]:
    """Every token the request carries, in any of the three ways of spec 4.5."""
    found: list[str] = []
    header = request.headers.get("authorization")
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() == "bearer":
            found.append(value.strip())
    query = query_params(request)
    if "access_token" in query:
        found.append(query["access_token"])
    if request.method == "POST" and is_form(request):
        body = await form_params(request)
        if "access_token" in body:
            found.append(body["access_token"])
    return found


def profile(user: User, base_url: str, scope: frozenset[str]) -> dict[str, object]:
    """The fields of the real service: email ones only under the email scope."""
    info: dict[str, object] = {
        "sub": user.name,
        "profile": f"{base_url}/user/{quote(user.name, safe='')}",
        "metabrainz_user_id": user.id,
    }
    if user.website:
        info["website"] = user.website
    if user.gender:
        info["gender"] = user.gender
    info["zoneinfo"] = user.timezone
    if "email" in scope and user.email:
        info["email"] = user.email
        info["email_verified"] = user.email_verified
    return info


async def userinfo(request: Request) -> Response:
    state = server(request)
    try:
        tokens = await _presented_tokens(request)
    except ParameterError as error:
        return _challenge(400, "invalid_request", str(error))
    if len(tokens) > 1:
        return _challenge(400, "invalid_request", "send the access token one way only")
    if not tokens:
        return _challenge(401)
    found = grants.access_grant_and_user(state.store, state.now(), tokens[0])
    if found is None:
        return _challenge(401, "invalid_token", "the access token is unknown, revoked or expired")
    grant, user = found
    if "profile" not in grant.scope:
        return _challenge(403, "insufficient_scope", "this needs the profile scope", "profile")
    if user is None:
        return _challenge(401, "invalid_token", "the token's user no longer exists")
    return JSONReply(profile(user, state.public_url, grant.scope))
