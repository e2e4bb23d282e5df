"""The endpoints clients call, served by Starlette: each handler makes the request into an
`oauth.ClientRequest`, awaits the framework-free endpoint of oauth/ and sends its `Answer`.
Nothing of the protocol is decided here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from . import inbound, oauth, urlencoded
from .answers import Answer
from .errors import ParameterError
from .state import ServerState

Endpoint = Callable[[ServerState, oauth.ClientRequest], Awaitable[Answer]]


def respond(answer: Answer) -> Response:
    """The Starlette response of an answer (Starlette adds its Content-Length)."""
    response = Response(answer.body, answer.status)
    response.raw_headers.extend(answer.headers)
    return response


async def client_request(request: Request) -> oauth.ClientRequest:
    """The request as plain values; the body is read only for a form POST, within its bound."""
    content_type = authorization = ""
    for name, value in request.scope["headers"]:  # the first of each, as Starlette reads them
        if name == b"content-type" and not content_type:
            content_type = value.decode("latin-1")
        elif name == b"authorization" and not authorization:
            authorization = value.decode("latin-1")
    method: str = request.scope["method"]
    body: bytes | ParameterError = b""
    if method == "POST" and urlencoded.is_form_type(content_type):
        try:
            body = await inbound.read_body(request)
        except ParameterError as refused:
            body = refused
    query: bytes = request.scope.get("query_string", b"")
    return oauth.ClientRequest(
        method, query, content_type, body, authorization, inbound.peer(request)
    )


def _served(endpoint: Endpoint) -> Callable[[Request], Awaitable[Response]]:
    async def handler(request: Request) -> Response:
        answer = await endpoint(inbound.server(request), await client_request(request))
        return respond(answer)

    handler.__name__ = handler.__qualname__ = endpoint.__name__
    return handler


token = _served(oauth.token_endpoint)
revoke = _served(oauth.revocation_endpoint)
userinfo = _served(oauth.userinfo_endpoint)
