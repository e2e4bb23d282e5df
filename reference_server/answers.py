"""An answer as bytes, free of any web framework, and what every answer writes the same way:
JSON in one encoding, and "no cache keeps this" in one pair of headers.

The endpoints clients call (oauth/) return an `Answer`; `endpoints.respond` hands it to
Starlette. The pages' security middleware (web/security.py) adds `CACHE_CONTROL_NO_STORE` to
any answer that says nothing of caching, so the same header is written the same way on every
answer of the server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import NamedTuple

Header = tuple[bytes, bytes]  # (name in lower case, value), as ASGI carries headers

CACHE_CONTROL_NO_STORE: Header = (b"cache-control", b"no-store")
# RFC 6749 5.1: a token answer, and any other that holds a credential, forbids caching with
# both headers (Pragma for HTTP/1.0 caches).
NO_STORE: tuple[Header, ...] = (CACHE_CONTROL_NO_STORE, (b"pragma", b"no-cache"))
JSON_TYPE: Header = (b"content-type", b"application/json")
_JSON_HEADERS = (JSON_TYPE, *NO_STORE)  # TOKEN-NO-STORE: on every JSON answer

_encode = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
).encode


def encode_json(content: Mapping[str, object]) -> bytes:
    """Compact UTF-8 JSON: the server's one way of writing it."""
    return _encode(content).encode("utf-8")


class Answer(NamedTuple):
    """Status, headers and body of an answer (oauthlib's endpoints return the same three)."""

    status: int
    headers: tuple[Header, ...]
    body: bytes = b""

    @classmethod
    def json(
        cls, content: Mapping[str, object], status: int = 200, headers: Sequence[Header] = ()
    ) -> Answer:
        """A JSON answer that no cache keeps."""
        return cls.encoded_json(encode_json(content), status, headers)

    @classmethod
    def encoded_json(cls, body: bytes, status: int = 200, headers: Sequence[Header] = ()) -> Answer:
        """`json` of content encoded already (kept bytes, or the token answer's fast path)."""
        return cls(status, (*_JSON_HEADERS, *headers) if headers else _JSON_HEADERS, body)

    @classmethod
    def empty(cls) -> Answer:
        """200 with an empty body and no content type, that no cache keeps."""
        return cls(200, NO_STORE)

    def header(self, name: str) -> str | None:
        """The value of a header (`name` in any case), None without one."""
        wanted = name.lower().encode("latin-1")
        return next((v.decode("latin-1") for k, v in self.headers if k == wanted), None)
