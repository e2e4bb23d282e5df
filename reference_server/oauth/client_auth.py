"""Client credentials at the token and revocation endpoints (spec 5.1, RFC 6749 2.3.1).

The spec puts client_id and client_secret in the body; HTTP Basic is accepted as well, but not
both at once (RFC 6749 2.3: one method per request). Any other Authorization scheme is not a
client authentication method and is ignored, as musicbrainz.org does: MusicBrainz Picard sends
its `Bearer` access token along with body credentials when it revokes (logs out). Checking
the secret is the guard's (`guard.Guard.authenticate`): throttled, in constant time.
"""

from __future__ import annotations

import base64
import binascii
from typing import NamedTuple
from urllib.parse import unquote_plus

from ..errors import invalid_client, invalid_request
from .request import ClientRequest


class PresentedCredentials(NamedTuple):
    """What the client presented, not yet checked."""

    client_id: str
    secret: str


def client_credentials(request: ClientRequest, params: dict[str, str]) -> PresentedCredentials:
    scheme, encoded = request.authorization_scheme()
    if scheme == "basic":
        presented = _basic_credentials(encoded)
        if "client_secret" in params:
            raise invalid_request("send the client secret either in the body or with Basic")
        if params.get("client_id", presented.client_id) != presented.client_id:
            raise invalid_request("client_id in the body differs from the Basic credentials")
        return presented
    client_id, secret = params.get("client_id"), params.get("client_secret")
    # TOKEN-REQUIRED-PARAMS, REFRESH-REQUIRED-PARAMS, REVOKE-REQUIRED-PARAMS: the credentials
    if not client_id:
        raise invalid_request("client_id is required")
    if secret is None:
        raise invalid_request("client_secret is required")
    return PresentedCredentials(client_id, secret)


def _basic_credentials(encoded: str) -> PresentedCredentials:
    """RFC 6749 2.3.1: base64 of the form-encoded client_id, a colon and the secret."""
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise invalid_client("the Basic credentials are not valid base64 UTF-8") from None
    client_id, colon, secret = decoded.partition(":")
    if not colon:
        raise invalid_client("the Basic credentials lack the ':' separator")
    return PresentedCredentials(unquote_plus(client_id), unquote_plus(secret))
