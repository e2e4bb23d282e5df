"""JSON answers of the hot endpoints (token, userinfo), built with their headers ready-made.

Starlette's JSONResponse makes a JSON encoder per call (json.dumps with options), then a
header list, then the security-headers middleware copies that list to extend it. Here the
encoder is made once and the header list is a constant plus Content-Length. The bytes on the
wire are the same: compact JSON, UTF-8, the same headers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from starlette.responses import Response

from ..web.security import SECURITY_HEADERS

_encode = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
).encode
_JSON_NO_STORE = [
    (b"cache-control", b"no-store"),
    (b"pragma", b"no-cache"),
    (b"content-type", b"application/json"),
    *SECURITY_HEADERS,
]


class JSONReply(Response):
    """A JSON response that carries every header it needs (no-store and the security ones)."""

    secured = True  # hotpath.py need not add the security headers

    def __init__(
        self,
        content: Mapping[str, object],
        status_code: int = 200,
        extra: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        self.status_code = status_code
        self.background = None
        self.body = _encode(content).encode("utf-8")
        self.raw_headers = [
            *(extra or ()),
            *_JSON_NO_STORE,
            (b"content-length", str(len(self.body)).encode("latin-1")),
        ]


class EmptyReply(Response):
    """200 with an empty body and no content type (RFC 7009 2.2: the revocation answer)."""

    secured = True

    def __init__(self) -> None:
        self.status_code = 200
        self.background = None
        self.body = b""
        self.raw_headers = [
            (b"cache-control", b"no-store"),
            (b"pragma", b"no-cache"),
            *SECURITY_HEADERS,
            (b"content-length", b"0"),
        ]
