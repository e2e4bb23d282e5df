"""Headers every response carries: no framing, no referrer, no caching (pure ASGI, cheap)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..answers import CACHE_CONTROL_NO_STORE

SECURITY_HEADERS = [
    (b"x-frame-options", b"DENY"),  # AUTHZ-FRAMING, with frame-ancestors below
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; "
        b"base-uri 'none'",
    ),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"strict-transport-security", b"max-age=31536000"),
]
_OURS = frozenset(name for name, _ in SECURITY_HEADERS) | {CACHE_CONTROL_NO_STORE[0]}


def with_security_headers(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The headers of an answer and those of ours it lacks (no-store unless it says how it may
    be cached). ASGI gives header names in lower case (Starlette's responses lower them)."""
    present = _OURS.intersection([name for name, _ in headers])
    if not present:  # the usual case: the answer set none of them
        return [*headers, *SECURITY_HEADERS, CACHE_CONTROL_NO_STORE]
    added = [h for h in SECURITY_HEADERS if h[0] not in present]
    if CACHE_CONTROL_NO_STORE[0] not in present:
        added.append(CACHE_CONTROL_NO_STORE)
    return [*headers, *added]


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = with_security_headers(list(message.get("headers", ())))
            await send(message)

        await self.app(scope, receive, send_with_headers)
