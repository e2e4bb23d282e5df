"""The endpoints clients call most, served straight from uvicorn, past Starlette's router.

Every request to the token, revoke and userinfo endpoints went through Starlette's error
middleware, our security-headers middleware (a closure and a header copy per response), the
exception middleware, the router (a regular expression per route until one matches) and the
request/response wrapper. For these three paths a dict lookup finds the handler; the handler
is the same function the router would call, with the same Request. What the middlewares did
is done here: the security headers are added (replies.py builds them in), an exception is
rendered by the handler the app registered for its class (app.ERROR_HANDLERS, the one
place errors are rendered), and any other exception goes up to uvicorn, which answers 500
and logs it as Starlette's error middleware would. Other paths and methods (HEAD,
a wrong method, a trailing slash) go to the Starlette app unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from starlette.applications import Starlette
from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from .inbound import SERVER_STATE
from .web.security import SECURITY_HEADERS

Handler = Callable[[Request], Awaitable[Response]]
Renderer = Callable[[Request, Exception], Awaitable[Response]]


def secured(response: Response) -> Response:
    """The security headers of web/security.py, unless the response has them already."""
    if getattr(response, "bare", False):  # oauth/replies.py: none of them yet
        response.raw_headers.extend(SECURITY_HEADERS)
    else:
        present = {name for name, _ in response.raw_headers}
        response.raw_headers.extend(h for h in SECURITY_HEADERS if h[0] not in present)
        if b"cache-control" not in present:
            response.raw_headers.append((b"cache-control", b"no-store"))
    return response


class HotPaths:
    """ASGI app: (path, method) in `table` to its handler, anything else to `app`."""

    def __init__(
        self,
        app: Starlette,
        table: Mapping[tuple[str, str], Handler],
        renderers: Mapping[type[Exception], Renderer],
    ) -> None:
        self.app = app
        self.table = table
        self.renderers = renderers
        self.server = app.state.server

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[SERVER_STATE] = self.server  # every request's: inbound.server reads it there
        if scope["type"] == "http" and not scope.get("root_path"):
            handler = self.table.get((scope["path"], scope["method"]))
            if handler is not None:
                scope["app"] = self.app
                request = Request(scope, receive, send)
                try:
                    response = await handler(request)
                except Exception as error:
                    response = await self._render(request, error)
                await secured(response)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _render(self, request: Request, error: Exception) -> Response:
        for kind in type(error).__mro__:
            render = self.renderers.get(kind)
            if render is not None:
                return await render(request, error)
        raise error

    @property
    def state(self) -> State:
        """The Starlette app's state (the server's store and clock)."""
        return self.app.state
