"""Client credentials at the token and revoke endpoints (spec 5.1, RFC 6749 2.3.1).

The spec puts client_id and client_secret in the body; HTTP Basic is accepted as well, but not
both at once (RFC 6749 2.3: one method per request). Any other Authorization scheme is not a
client authentication method and is ignored, as musicbrainz.org does: MusicBrainz Picard sends
its `Bearer` access token along with body credentials when it revokes (logs out). Checking
the secret is the guard's (`guard.Guard.authenticate`): throttled, in constant time.
"""

from __future__ import annotations

import base64
import binascii
from urllib.parse import unquote_plus

from starlette.requests import Request

from .. import inbound
from ..errors import invalid_client, invalid_request


def _basic_header(request: Request) -> str | None:
    """The credentials part of an `Authorization: Basic` header; None for any other header."""
    found = inbound.authorization(request)
    return found[1] if found is not None and found[0] == "basic" else None


def _basic_credentials(encoded: str) -> tuple[str, str]:
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise invalid_client("the Basic credentials are not valid base64 UTF-8") from None
    client_id, colon, secret = decoded.partition(":")
    if not colon:
        raise invalid_client("the Basic credentials lack the ':' separator")
    return unquote_plus(client_id), unquote_plus(secret)


def client_credentials(request: Request, params: dict[str, str]) -> tuple[str, str]:
    encoded = _basic_header(request)
    if encoded is not None:
        client_id, secret = _basic_credentials(encoded)
        if "client_secret" in params:
            raise invalid_request("send the client secret either in the body or with Basic")
        if params.get("client_id", client_id) != client_id:
            raise invalid_request("client_id in the body differs from the Basic credentials")
        return client_id, secret
    body_id, body_secret = params.get("client_id"), params.get("client_secret")
    if not body_id:
        raise invalid_request("client_id is required")
    if body_secret is None:
        raise invalid_request("client_secret is required")
    return body_id, body_secret
