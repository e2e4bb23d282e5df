"""Success answers of the token, revoke and userinfo endpoints: JSON with no-store, or empty.
A handler returns one; its failures are raised and rendered by error_replies.py.

The JSON is encoded by the endpoint (an encoder made once, or bytes kept from before: a
profile, a token answer written out); the security headers are added by the middleware of
web/security.py, as to every answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from starlette.responses import Response

_encode = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
).encode

# TOKEN-NO-STORE (the error answers carry it too: error_replies.NO_STORE)
_NO_STORE = ((b"cache-control", b"no-store"), (b"pragma", b"no-cache"))


def encode_json(content: Mapping[str, object]) -> bytes:
    """Compact UTF-8 JSON, as JSONResponse would send it."""
    return _encode(content).encode("utf-8")


class JSONReply(Response):
    """A JSON answer, its body encoded already, that no cache keeps (RFC 6749 5.1)."""

    media_type = "application/json"

    def __init__(self, body: bytes, status_code: int = 200) -> None:
        super().__init__(body, status_code)
        self.raw_headers.extend(_NO_STORE)


class EmptyReply(Response):
    """200 with an empty body and no content type (RFC 7009 2.2: the revocation answer; its
    headers are what INFO-REVOKE-HEADERS records)."""

    def __init__(self) -> None:
        super().__init__()
        self.raw_headers.extend(_NO_STORE)
