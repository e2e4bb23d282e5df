"""POST /oauth2/revoke (spec 4.4, RFC 7009), with the effects of spec section 3 (grants/)."""

from __future__ import annotations

from ..answers import Answer
from ..errors import OAuthError
from ..grants import revocation
from ..state import ServerState
from . import replies
from .client_auth import PresentedCredentials, client_credentials
from .parameters import body_parameters, required
from .request import ClientRequest


async def revocation_endpoint(state: ServerState, request: ClientRequest) -> Answer:
    try:
        params = body_parameters(request)
        token = required(params, "token")
        client = client_credentials(request, params)
        await state.store.group_commit(lambda: _revoke(state, request.peer, client, token))
    except OAuthError as error:
        return replies.error_answer(error)
    return replies.revoked_answer()


def _revoke(state: ServerState, source: str, client: PresentedCredentials, token: str) -> None:
    """Queued for group commit: authentication and revocation run in the transaction this
    turn of the event loop shares with other requests (`Store.transaction()`, inside it, is
    the all-or-nothing block of one request's writes)."""
    authenticated = state.guard.authenticate(source, client.client_id, client.secret)
    revocation.revoke(state.store, state.now(), authenticated.application, token)
