"""/oauth2/userinfo (spec 4.5) with the bearer-token errors of RFC 6750 3."""

from __future__ import annotations

from ..answers import Answer
from ..errors import BearerError, ParameterError
from ..grants.bearer import access_grant_and_user
from ..state import ServerState
from ..urlencoded import form_parameters, is_form_type, query_parameters
from . import replies
from .request import ClientRequest


async def userinfo_endpoint(state: ServerState, request: ClientRequest) -> Answer:
    try:
        token = _presented_token(request)
        found = access_grant_and_user(state.store, state.now(), token)
        if found is None:  # USERINFO-ERR-INVALID-TOKEN: unknown, revoked or expired
            raise BearerError(
                401, "invalid_token", "the access token is unknown, revoked or expired"
            )
        grant, user = found
        # SCOPE-PROFILE-WITHHELD, USERINFO-ERR-INSUFFICIENT-SCOPE
        if "profile" not in grant.scope:
            raise BearerError(403, "insufficient_scope", "this needs the profile scope", "profile")
        if user is None:  # USERINFO-ERR-INVALID-TOKEN: its user is gone
            raise BearerError(401, "invalid_token", "the token's user no longer exists")
    except BearerError as error:
        return replies.challenge_answer(error)
    with_email = "email" in grant.scope  # SCOPE-EMAIL-WITHHELD: not without the email scope
    return replies.profile_answer(user, state.public_url, with_email)


def _presented_token(request: ClientRequest) -> str:
    """The one token the request carries, in one of the three ways of spec 4.5."""
    found = _presented_tokens(request)
    if len(found) > 1:  # USERINFO-ERR-MULTIPLE-METHODS
        raise BearerError(400, "invalid_request", "send the access token one way only")
    if not found:  # USERINFO-ERR-NO-TOKEN: 401 with a challenge and no error code
        raise BearerError(401)
    return found[0]


def _presented_tokens(request: ClientRequest) -> list[str]:
    found: list[str] = []
    scheme, value = request.authorization_scheme()
    # USERINFO-HEADER; AUTH-BEARER-ONLY: a token under another scheme is no token
    if scheme == "bearer":
        found.append(value.strip())
    try:
        query = query_parameters(request.query)
        if "access_token" in query:  # USERINFO-QUERY
            found.append(query["access_token"])
        # USERINFO-POST-BODY, VERSION-USERINFO-POST: as the fuller description has it
        if request.method == "POST" and is_form_type(request.content_type):
            body = form_parameters(request.content_type, request.body)
            if "access_token" in body:
                found.append(body["access_token"])
    except ParameterError as error:
        raise BearerError(400, "invalid_request", str(error)) from None
    return found
