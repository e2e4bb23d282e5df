"""Error answers of the OAuth endpoints: JSON (RFC 6749 5.2) and Bearer challenges (RFC 6750 3).
(Their success answers: success_replies.py.)

The renderers of `errors.OAuthError` and `errors.BearerError`, registered once on the
application by `app.create_app`: a handler raises, it never builds an error response itself.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..errors import BearerError, OAuthError

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
REALM = "MusicBrainz OAuth reference server"


def oauth_error_response(error: OAuthError) -> JSONResponse:
    headers = {**NO_STORE, **error.headers}
    if error.error == "invalid_client":
        headers["WWW-Authenticate"] = f'Basic realm="{REALM}"'
    body = {"error": error.error, "error_description": error.description}
    return JSONResponse(body, status_code=error.status, headers=headers)


def _header_safe(text: str) -> str:
    """Only the characters RFC 6750 3 allows in a quoted error_description."""
    return "".join(c for c in text if 0x20 <= ord(c) <= 0x7E and c not in '"\\')


def challenge_response(error: BearerError) -> JSONResponse:
    parts = [f'realm="{REALM}"']
    if error.error:
        parts.append(f'error="{error.error}"')
        parts.append(f'error_description="{_header_safe(error.description)}"')
    if error.scope:
        parts.append(f'scope="{error.scope}"')
    headers = {"WWW-Authenticate": "Bearer " + ", ".join(parts), **NO_STORE}
    body = {"error": error.error, "error_description": error.description} if error.error else {}
    return JSONResponse(body, status_code=error.status, headers=headers)


async def render_oauth_error(_request: Request, error: Exception) -> Response:
    assert isinstance(error, OAuthError)  # registered for OAuthError (and Throttled) only
    return oauth_error_response(error)


async def render_challenge(_request: Request, error: Exception) -> Response:
    assert isinstance(error, BearerError)  # registered for BearerError only
    return challenge_response(error)
