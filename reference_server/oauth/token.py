"""POST /oauth2/token: code exchange (spec 4.2) and refresh (spec 4.3), by grant type."""

from __future__ import annotations

from collections.abc import Callable

from ..accounts import Application
from ..answers import Answer
from ..errors import OAuthError
from ..grants import IssuedTokens, authorization_code, refresh_token
from ..state import ServerState
from ..storage import Store
from . import replies
from .client_auth import PresentedCredentials, client_credentials
from .parameters import body_parameters, check_token_type, required
from .request import ClientRequest

Grant = Callable[[Store, int, Application, dict[str, str]], IssuedTokens]


def _exchange_code(
    store: Store, now: int, app: Application, params: dict[str, str]
) -> IssuedTokens:
    code, redirect_uri = required(params, "code"), required(params, "redirect_uri")
    verifier = params.get("code_verifier")
    return authorization_code.exchange_code(store, now, app, code, redirect_uri, verifier)


def _refresh(store: Store, now: int, app: Application, params: dict[str, str]) -> IssuedTokens:
    presented = required(params, "refresh_token")
    return refresh_token.refresh(store, now, app, presented, params.get("scope"))


#: What each grant type does; any other is unsupported_grant_type.
GRANT_TYPES: dict[str, Grant] = {
    "authorization_code": _exchange_code,
    "refresh_token": _refresh,
}


async def token_endpoint(state: ServerState, request: ClientRequest) -> Answer:
    try:
        params = body_parameters(request)
        client = client_credentials(request, params)
        grant_type = required(params, "grant_type")
        tokens = await state.store.group_commit(
            lambda: _grant(state, request.peer, client, grant_type, params)
        )
    except OAuthError as error:
        return replies.error_answer(error)
    return replies.token_answer(tokens)


def _grant(
    state: ServerState,
    source: str,
    client: PresentedCredentials,
    grant_type: str,
    params: dict[str, str],
) -> IssuedTokens:
    """The request's work on the database, queued for group commit: the client's
    authentication and its throttle counts, then the grant, read and written in the
    transaction this turn of the event loop shares with other requests."""
    authenticated = state.guard.authenticate(source, client.client_id, client.secret)
    check_token_type(params)
    grant = GRANT_TYPES.get(grant_type)
    if grant is None:  # TOKEN-ERR-UNSUPPORTED-GRANT
        raise OAuthError("unsupported_grant_type", f"grant_type {grant_type!r} is not supported")
    return state.guard.redeem(
        authenticated, lambda app: grant(state.store, state.now(), app, params)
    )
