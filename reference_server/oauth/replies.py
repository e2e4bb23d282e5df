"""Answers of the hot endpoints (token, revoke, userinfo), built with their headers ready-made.

Starlette's JSONResponse makes a JSON encoder per call (json.dumps with options), then a
header list, then the security-headers middleware copies that list to extend it. Here the
encoder is made once and the header list is a constant plus Content-Length; hotpath.py appends
the security headers without looking for them first (`bare`). The bytes on the wire are the
same: compact JSON, UTF-8, the same headers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from starlette.responses import Response

_encode = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
).encode


def encode_json(content: Mapping[str, object]) -> bytes:
    """Compact UTF-8 JSON, as the replies send it."""
    return _encode(content).encode("utf-8")


_JSON_NO_STORE = [
    (b"cache-control", b"no-store"),
    (b"pragma", b"no-cache"),
    (b"content-type", b"application/json"),
]


class JSONReply(Response):
    """A JSON response with no-store; hotpath.py (or the middleware) adds the security headers."""

    bare = True  # no security headers yet, nor any other header they would duplicate

    def __init__(self, content: Mapping[str, object], status_code: int = 200) -> None:
        self._set(encode_json(content), status_code)

    @classmethod
    def encoded(cls, body: bytes, status_code: int = 200) -> JSONReply:
        """The reply for a body already encoded (compact, UTF-8): one that was kept."""
        reply = cls.__new__(cls)
        reply._set(body, status_code)
        return reply

    def _set(self, body: bytes, status_code: int) -> None:
        self.status_code = status_code
        self.background = None
        self.body = body
        self.raw_headers = [*_JSON_NO_STORE, (b"content-length", str(len(body)).encode("latin-1"))]


class EmptyReply(Response):
    """200 with an empty body and no content type (RFC 7009 2.2: the revocation answer)."""

    bare = True

    def __init__(self) -> None:
        self.status_code = 200
        self.background = None
        self.body = b""
        self.raw_headers = [
            (b"cache-control", b"no-store"),
            (b"pragma", b"no-cache"),
            (b"content-length", b"0"),
        ]
