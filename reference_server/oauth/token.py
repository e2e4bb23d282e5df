"""POST /oauth2/token: code exchange (spec 4.2) and refresh (spec 4.3).

Parameters come from the form body only: a query string is refused, so no client secret or
code ever travels in a URL (RFC 6749 3.2, RFC 9700 4.3). Errors are raised as `OAuthError`s
and rendered by `error_replies.render_oauth_error`.
"""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import Response

from .. import guard, inbound
from ..accounts import Application
from ..errors import OAuthError, ParameterError, invalid_request
from ..grants import IssuedTokens, authorization_code, refresh_token
from ..state import ServerState
from . import clients
from .success_replies import JSONReply, encode_json

#: Whether a string needs no JSON escaping: base64url, what every token here is made of.
_plain = re.compile(r"[A-Za-z0-9_-]*").fullmatch


def required(params: dict[str, str], name: str) -> str:
    """TOKEN-REQUIRED-PARAMS, REFRESH-REQUIRED-PARAMS, REVOKE-REQUIRED-PARAMS (client_id and
    client_secret: `clients.client_credentials`), refused as TOKEN-ERR-INVALID-REQUEST."""
    value = params.get(name)
    if not value:
        raise invalid_request(f"{name} is required")
    return value


def check_token_type(params: dict[str, str]) -> None:
    """TOKEN-TYPE-PARAM, VERSION-TOKEN-TYPE-BEARER-ONLY (spec 4.2/4.3 and 9): only bearer
    tokens (the earlier description also had mac)."""
    token_type = params.get("token_type")
    if token_type is not None and token_type.lower() != "bearer":
        raise invalid_request("token_type must be bearer")


async def read_parameters(request: Request) -> dict[str, str]:
    if inbound.has_query(request):  # TOKEN-NO-QUERY-PARAMS, REVOKE-NO-QUERY-PARAMS
        raise invalid_request("parameters must be sent in the request body, not in the URL")
    try:
        return await inbound.form_params(request)
    except ParameterError as error:
        raise OAuthError("invalid_request", str(error), status=error.status) from None


async def token(request: Request) -> Response:
    state = inbound.server(request)
    params = await read_parameters(request)
    client = clients.client_credentials(request, params)
    grant_type = required(params, "grant_type")
    source = inbound.peer(request)
    tokens = await state.store.group_commit(
        lambda: _grant_in_shared_transaction(state, source, client, grant_type, params)
    )
    return JSONReply(token_body(tokens))  # TOKEN-RESPONSE-STATUS-200


def _grant_in_shared_transaction(
    state: ServerState,
    source: str,
    client: tuple[str, str],
    grant_type: str,
    params: dict[str, str],
) -> IssuedTokens:
    """The request's work on the database, queued for group commit: the client's
    authentication and its throttle counts, then the grant, read and written in the
    transaction this turn of the event loop shares with other requests."""
    client_id, secret = client
    app, guessed_before = state.guard.authenticate_for(source, client_id, secret)
    check_token_type(params)
    try:
        tokens = _grant(state, app, grant_type, params)
    except OAuthError as error:
        if error.error == "invalid_grant":
            # guessing codes or refresh tokens: counted apart from bad secrets
            state.guard.record_failure(guard.grant_key_of(source, client_id))
        raise
    if guessed_before:
        state.guard.release(guard.grant_key_of(source, client_id))
    return tokens


def token_body(tokens: IssuedTokens) -> bytes:
    """`tokens.as_json()` encoded as `encode_json` would, byte for byte, without the encoder: the
    tokens are base64url (nothing to escape; checked) and the lifetime an integer."""
    if not _plain(tokens.access_token) or not _plain(tokens.refresh_token or ""):
        return encode_json(tokens.as_json())
    refresh = f',"refresh_token":"{tokens.refresh_token}"' if tokens.refresh_token else ""
    return (
        f'{{"access_token":"{tokens.access_token}","token_type":"Bearer",'
        f'"expires_in":{int(tokens.expires_in)}{refresh}}}'
    ).encode("ascii")


def _grant(
    state: ServerState, app: Application, grant_type: str, params: dict[str, str]
) -> IssuedTokens:
    now = state.now()
    if grant_type == "authorization_code":
        return authorization_code.exchange_code(
            state.store,
            now,
            app,
            required(params, "code"),
            required(params, "redirect_uri"),
            params.get("code_verifier"),
        )
    if grant_type == "refresh_token":
        presented = required(params, "refresh_token")
        return refresh_token.refresh(state.store, now, app, presented, params.get("scope"))
    # TOKEN-ERR-UNSUPPORTED-GRANT
    raise OAuthError("unsupported_grant_type", f"grant_type {grant_type!r} is not supported")
