"""What a request brings, read strictly, for the OAuth endpoints and the pages alike.

Duplicates, bad encodings and huge bodies are refused: RFC 6749 3.1 and 3.2 forbid repeating
a parameter, and we refuse the request rather than pick one. Also here: the server's state
kept on the application, the peer address the guard counts by, the Authorization header.
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from starlette.requests import ClientDisconnect, Request

from . import guard
from .errors import ParameterError
from .state import ServerState

MAX_BODY = 16 * 1024
MAX_QUERY = 8 * 1024
FORM_TYPE = "application/x-www-form-urlencoded"


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


def authorization(request: Request) -> tuple[str, str] | None:
    """The Authorization header as (scheme in lower case, the rest); None without one."""
    found = header(request, b"authorization")
    if not found:
        return None
    scheme, _, value = found.partition(" ")
    return scheme.lower(), value


def parse_pairs(raw: bytes, limit: int) -> list[tuple[str, str]]:
    if len(raw) > limit:
        raise ParameterError("the request's parameters are too large", status=413)
    try:
        return _split(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise ParameterError("parameters must be URL-encoded UTF-8") from None


def _split(text: str) -> list[tuple[str, str]]:
    """`parse_qsl(text, keep_blank_values=True, errors="strict")`, pair for pair, at a third
    of its cost: a name or value with neither '%' nor '+' is taken as it is (unquote would
    return it unchanged), and that is most of them (tokens and secrets are base64url)."""
    pairs: list[tuple[str, str]] = []
    for piece in text.split("&"):
        if not piece:
            continue
        name, _, value = piece.partition("=")
        if "%" in name or "+" in name:
            name = _unquote(name)
        if "%" in value or "+" in value:
            value = _unquote(value)
        pairs.append((name, value))
    return pairs


def _unquote(text: str) -> str:
    """`unquote(text.replace("+", " "), "utf-8", "strict")` for ASCII text (what `_split` is
    given): one run of bytes, decoded once, without unquote's regular-expression split."""
    return unquote_to_bytes(text.replace("+", " ")).decode("utf-8", "strict")


def single_valued(pairs: list[tuple[str, str]]) -> dict[str, str]:
    params: dict[str, str] = {}
    for name, value in pairs:
        if name in params:
            raise ParameterError(f"the parameter {name!r} is repeated")
        if "\x00" in value:
            raise ParameterError(f"the parameter {name!r} contains a NUL character")
        params[name] = value
    return params


def query_pairs(request: Request) -> list[tuple[str, str]]:
    """Every pair of the query string, repeated names included (the caller decides)."""
    raw: bytes = request.scope.get("query_string", b"")
    return parse_pairs(raw, MAX_QUERY) if raw else []


def query_params(request: Request) -> dict[str, str]:
    raw: bytes = request.scope.get("query_string", b"")
    if not raw:  # the usual case: no query string, nothing to parse
        return {}
    return single_valued(parse_pairs(raw, MAX_QUERY))


def has_query(request: Request) -> bool:
    return bool(request.scope.get("query_string"))


def is_form(request: Request) -> bool:
    content_type = header(request, b"content-type") or ""
    return content_type.split(";", 1)[0].strip().lower() == FORM_TYPE


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
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
    """The parameters of an application/x-www-form-urlencoded body."""
    if not is_form(request):
        raise ParameterError(f"the request body must be {FORM_TYPE}")
    return single_valued(parse_pairs(await read_body(request), MAX_BODY))
