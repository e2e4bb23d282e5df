"""What a Starlette request brings, for the endpoints clients call and the pages alike: the
server's state kept on the application, the peer address the guard counts by, header values,
the body read within its bound, and its parameters read strictly (urlencoded.py).
"""

from __future__ import annotations

from starlette.requests import ClientDisconnect, Request

from . import guard, urlencoded
from .errors import ParameterError
from .state import ServerState


def server(request: Request) -> ServerState:
    """The state `app.create_app` keeps on the application."""
    state: ServerState = request.app.state.server
    return state


def header(request: Request, name: bytes) -> str | None:
    """The first value of a header, `name` in lower case (as ASGI gives every name): what
    `request.headers.get` gives, read from the scope."""
    for key, value in request.scope["headers"]:
        if key == name:
            decoded: str = value.decode("latin-1")
            return decoded
    return None


def peer(request: Request) -> str:
    """Who is guessing, as the guard counts it (the server has no proxy)."""
    client = request.scope.get("client")  # (host, port), as `request.client` reads it
    return guard.source(client[0] if client else "unknown")


def query_pairs(request: Request) -> list[tuple[str, str]]:
    """Every pair of the query string, repeated names included (the caller decides)."""
    raw: bytes = request.scope.get("query_string", b"")
    return urlencoded.parse_pairs(raw, urlencoded.MAX_QUERY) if raw else []


def is_form(request: Request) -> bool:
    return urlencoded.is_form_type(header(request, b"content-type") or "")


async def read_body(request: Request, limit: int = urlencoded.MAX_BODY) -> bytes:
    """The request body, refused once it passes `limit` bytes (without reading the rest).

    Read once, from the request's ASGI messages: every body this server reads goes through
    here, once per request (no `Request.stream()`, an async generator per request).
    """
    declared = header(request, b"content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ParameterError("the Content-Length header is not a number")
        if int(declared) > limit:
            raise ParameterError("the request body is too large", status=413)
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        if message["type"] != "http.request":
            continue
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise ParameterError("the request body is too large", status=413)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def form_params(request: Request) -> dict[str, str]:
    """The parameters of an application/x-www-form-urlencoded body (a page's form)."""
    content_type = header(request, b"content-type") or ""
    body = await read_body(request) if urlencoded.is_form_type(content_type) else b""
    return urlencoded.form_parameters(content_type, body)
