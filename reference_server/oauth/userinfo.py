"""/oauth2/userinfo (spec 4.5) with the bearer-token errors of RFC 6750 3."""

from __future__ import annotations

import functools
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from .. import inbound
from ..accounts import User
from ..errors import BearerError, ParameterError
from ..grants.bearer import access_grant_and_user
from .success_replies import JSONReply, encode_json


async def _presented_tokens(request: Request) -> list[str]:
    """Every token the request carries, in any of the three ways of spec 4.5."""
    found: list[str] = []
    header = inbound.authorization(request)
    # USERINFO-HEADER; AUTH-BEARER-ONLY: a token under another scheme is no token
    if header is not None and header[0] == "bearer":
        found.append(header[1].strip())
    try:
        query = inbound.query_params(request)
        if "access_token" in query:  # USERINFO-QUERY
            found.append(query["access_token"])
        # USERINFO-POST-BODY, as the fuller description has it (VERSION-USERINFO-POST)
        if request.method == "POST" and inbound.is_form(request):
            body = await inbound.form_params(request)
            if "access_token" in body:
                found.append(body["access_token"])
    except ParameterError as error:
        raise BearerError(400, "invalid_request", str(error)) from None
    return found


def profile(user: User, base_url: str, scope: frozenset[str]) -> dict[str, object]:
    """The fields of the real service (INFO-USERINFO-FIELDS records a deployment's): the
    user's name (SCOPE-PROFILE-GRANTS-PROFILE); email ones only under the email scope."""
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
    if "email" in scope and user.email:  # SCOPE-EMAIL-GRANTS-EMAIL, SCOPE-EMAIL-WITHHELD
        info["email"] = user.email
        info["email_verified"] = user.email_verified
    return info


async def userinfo(request: Request) -> Response:
    state = inbound.server(request)
    tokens = await _presented_tokens(request)
    if len(tokens) > 1:  # USERINFO-ERR-MULTIPLE-METHODS
        raise BearerError(400, "invalid_request", "send the access token one way only")
    if not tokens:
        raise BearerError(401)  # USERINFO-ERR-NO-TOKEN
    found = access_grant_and_user(state.store, state.now(), tokens[0])
    if found is None:
        raise BearerError(401, "invalid_token", "the access token is unknown, revoked or expired")
    grant, user = found
    if "profile" not in grant.scope:  # SCOPE-PROFILE-WITHHELD, USERINFO-ERR-INSUFFICIENT-SCOPE
        raise BearerError(403, "insufficient_scope", "this needs the profile scope", "profile")
    if user is None:
        raise BearerError(401, "invalid_token", "the token's user no longer exists")
    return JSONReply(_profile_body(user, state.public_url, "email" in grant.scope))


@functools.lru_cache(maxsize=1024)
def _profile_body(user: User, base_url: str, with_email: bool) -> bytes:
    """The encoded profile, kept: the same user seen through the same scope reads the same
    bytes (the key is every field of the row just read, so a changed user is a new key)."""
    scope = frozenset(("email",)) if with_email else frozenset()
    return encode_json(profile(user, base_url, scope))
