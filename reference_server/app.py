"""The Starlette application: routes of the spec's endpoints and of the service's pages.

Also the one place where the pages' errors meet the framework: the renderers of the
framework-free errors of `errors.py` are registered here, once, for every route. (The
endpoints clients call answer their own errors: oauth/.)
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import Scope

from .endpoints import revoke, token, userinfo
from .errors import PageError, RedirectError, SignInRequired
from .guard import GuardPolicy
from .state import DEFAULT_PUBLIC_URL, ServerState
from .testclock import clock
from .web import account, applications, pages
from .web.authorize import authorize, out_of_band
from .web.errorpages import render_page_error, render_redirect_error, render_sign_in_required
from .web.html import favicon, stylesheet
from .web.security import SecurityHeaders

DATABASE_NAME = "server.sqlite3"


class FixedRoute(Route):
    """A route whose path has no parameters, matched as Starlette's Route matches it, by
    comparing the path as a string rather than with the route's regular expression (the
    router tries every route in turn, on every request)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if self.param_convertors or scope["type"] != "http" or scope.get("root_path"):
            return super().matches(scope)
        if scope["path"] != self.path:
            return Match.NONE, {}
        child = {"endpoint": self.endpoint, "path_params": dict(scope.get("path_params", {}))}
        if self.methods and scope["method"] not in self.methods:
            return Match.PARTIAL, child
        return Match.FULL, child


def routes(test_clock: bool) -> list[Route]:
    # The router tries the routes in turn: the endpoints clients call most come first.
    table: list[Route] = [
        FixedRoute("/oauth2/token", token, methods=["POST"]),
        FixedRoute("/oauth2/userinfo", userinfo, methods=["GET", "POST"]),
        # VERSION-REVOCATION: the endpoint is there; REVOKE-POST-ONLY
        FixedRoute("/oauth2/revoke", revoke, methods=["POST"]),
        FixedRoute("/oauth2/authorize", authorize, methods=["GET", "POST"]),
        FixedRoute("/oauth2/oob", out_of_band, methods=["GET"]),
        FixedRoute("/", pages.home, methods=["GET"]),
        FixedRoute("/login", pages.login_page, methods=["GET"]),
        FixedRoute("/login", pages.login, methods=["POST"]),
        FixedRoute("/logout", pages.logout, methods=["POST"]),
        Route("/user/{name}", pages.user_profile, methods=["GET"]),
        FixedRoute("/account/authorized", account.authorized, methods=["GET"]),
        FixedRoute("/account/authorized/revoke", account.revoke_authorization, methods=["POST"]),
        FixedRoute("/account/applications", applications.registered, methods=["GET"]),
        FixedRoute("/account/applications", applications.register, methods=["POST"]),
        FixedRoute(
            "/account/applications/reset-secret",
            applications.reset_application_secret,
            methods=["POST"],
        ),
        FixedRoute("/account/applications/delete", applications.delete, methods=["POST"]),
        Route("/account/applications/{client_id}/edit", applications.edit_page, methods=["GET"]),
        Route("/account/applications/{client_id}/edit", applications.edit, methods=["POST"]),
        FixedRoute("/static/site.css", stylesheet, methods=["GET"]),
        FixedRoute("/favicon.ico", favicon, methods=["GET"]),
    ]
    if test_clock:
        table.append(FixedRoute("/_test/clock", clock, methods=["GET", "POST"]))
    return table


_log = logging.getLogger("uvicorn.error")


async def _client_gone(request: Request, _: Exception) -> Response:
    """A client that closes before its body is complete: a normal event, one log line."""
    _log.warning(
        "client left before its request was complete: %s %s", request.method, request.url.path
    )
    return Response(status_code=400)  # nobody reads it: the connection is gone


Renderer = Callable[[Request, Exception], Awaitable[Response]]

EXCEPTION_HANDLERS: dict[type[Exception] | int, Renderer] = {
    ClientDisconnect: _client_gone,
    PageError: render_page_error,
    RedirectError: render_redirect_error,
    SignInRequired: render_sign_in_required,
    404: pages.not_found,  # a page of the site, not a bare "Not Found"
}


def create_app(
    data_dir: Path,
    test_clock: bool = False,
    public_url: str = DEFAULT_PUBLIC_URL,
    purge_interval: float | None = None,
    durability: str = "normal",
    guard_free: int = GuardPolicy.free,
) -> Starlette:
    state = ServerState.open(
        data_dir / DATABASE_NAME,
        test_clock=test_clock,
        serving=True,
        public_url=public_url,
        purge_interval=purge_interval,
        durability=durability,
        guard_free=guard_free,
    )
    app = Starlette(
        routes=routes(test_clock),
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers=EXCEPTION_HANDLERS,
    )
    app.state.server = state
    # What start-up made (modules, routes, compiled queries) lives as long as the process:
    # out of the collector's sight, so that its full collections, pauses that grow with the
    # heap, only walk what requests leave behind.
    gc.freeze()
    return app


def app_from_environment() -> Starlette:
    """Factory for uvicorn's worker processes, which get their settings from the environment."""
    return create_app(
        Path(os.environ["MB_OAUTH_SERVER_DATA_DIR"]),
        test_clock=os.environ.get("MB_OAUTH_SERVER_TEST_CLOCK") == "1",
        public_url=os.environ.get("MB_OAUTH_SERVER_PUBLIC_URL", DEFAULT_PUBLIC_URL),
        purge_interval=float(os.environ.get("MB_OAUTH_SERVER_PURGE_INTERVAL", "60")),
        durability=os.environ.get("MB_OAUTH_SERVER_DURABILITY", "normal"),
        guard_free=int(os.environ.get("MB_OAUTH_SERVER_GUARD_FREE", GuardPolicy.free)),
    )
