"""POST /oauth2/revoke (spec 4.4, RFC 7009; VERSION-REVOCATION) with the effects of spec
section 3."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from .. import inbound
from ..grants import revocation
from . import clients
from .success_replies import EmptyReply
from .token import read_parameters, required


async def revoke(request: Request) -> Response:
    state = inbound.server(request)
    params = await read_parameters(request)
    token = required(params, "token")
    client_id, secret = clients.client_credentials(request, params)
    source = inbound.peer(request)

    def revoke_in_shared_transaction() -> None:
        """Queued for group commit: authentication and revocation run in the transaction this
        turn of the event loop shares with other requests (`Store.transaction()`, inside it,
        is the all-or-nothing block of one request's writes)."""
        app = state.guard.authenticate(source, client_id, secret)
        revocation.revoke(state.store, state.now(), app, token)

    await state.store.group_commit(revoke_in_shared_transaction)
    # REVOKE-EMPTY-200, REVOKE-INVALID-TOKEN-200: 200 and an empty body, whether or not the
    # token was valid (RFC 7009 2.2).
    return EmptyReply()
