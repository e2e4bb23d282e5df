"""POST /oauth2/token: code exchange (spec 4.2) and refresh (spec 4.3).

Parameters come from the form body only: a query string is refused, so no client secret or
code ever travels in a URL (RFC 6749 3.2, RFC 9700 4.3).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from .. import grants, guard
from ..accounts import Application
from ..state import ServerState, server
from . import clients
from .errors import OAuthError, invalid_request
from .params import ParameterError, form_params, has_query
from .replies import JSONReply


def required(params: dict[str, str], name: str) -> str:
    value = params.get(name)
    if not value:
        raise invalid_request(f"{name} is required")
    return value


def check_token_type(params: dict[str, str]) -> None:
    """Spec 4.2/4.3 and 9: only bearer tokens (the earlier description also had mac)."""
    token_type = params.get("token_type")
    if token_type is not None and token_type.lower() != "bearer":
        raise invalid_request("token_type must be bearer")


async def read_parameters(request: Request) -> dict[str, str]:
    if has_query(request):
        raise invalid_request("parameters must be sent in the request body, not in the URL")
    try:
        return await form_params(request)
    except ParameterError as error:
        raise OAuthError("invalid_request", str(error), status=error.status) from None


async def token(request: Request) -> Response:
    state = server(request)
    client_id = None
    try:
        params = await read_parameters(request)
        client_id, secret = clients.client_credentials(request, params)
        grant_type = required(params, "grant_type")
        app, guessed_before = state.guard.authenticate_for(state, request, client_id, secret)
        check_token_type(params)
        tokens = _grant(state, app, grant_type, params)
    except OAuthError as error:
        if error.error == "invalid_grant" and client_id is not None:
            # guessing codes or refresh tokens: counted apart from bad secrets
            state.guard.record_failure(state, guard.grant_key_of(request, client_id))
        return error.response()
    if guessed_before:
        state.guard.release(state, guard.grant_key_of(request, client_id))
    return JSONReply(tokens.as_json())


def _grant(
    state: ServerState, app: Application, grant_type: str, params: dict[str, str]
) -> grants.TokenSet:
    now = state.now()
    if grant_type == "authorization_code":
        return grants.exchange_code(
            state.store,
            now,
            app,
            required(params, "code"),
            required(params, "redirect_uri"),
            params.get("code_verifier"),
        )
    if grant_type == "refresh_token":
        refresh_token = required(params, "refresh_token")
        return grants.refresh(state.store, now, app, refresh_token, params.get("scope"))
    raise OAuthError("unsupported_grant_type", f"grant_type {grant_type!r} is not supported")
