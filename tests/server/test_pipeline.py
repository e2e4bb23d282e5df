"""Every request, the token, revoke and userinfo endpoints' too, takes Starlette's one
pipeline: its router, the security-headers middleware, the error handlers of app.py.

Their answers carry the security headers and no-store, once each; a wrong method gets the
router's 405, HEAD the GET route's answer.
"""

from __future__ import annotations

from pathlib import Path

import httpx
from starlette.applications import Starlette
from starlette.routing import Route

from reference_server.app import create_app, routes

from .flows import exchange, obtain_code, revoke

SECURITY = ("x-frame-options", "content-security-policy", "referrer-policy")


def _once_each(response: httpx.Response) -> None:
    for name in (*SECURITY, "x-content-type-options", "strict-transport-security"):
        assert len(response.headers.get_list(name)) == 1, name
    assert response.headers.get_list("cache-control") == ["no-store"]


def test_answers_carry_the_security_headers_once(world, user, http) -> None:
    tokens = exchange(http, world.installed, obtain_code(user, world.installed))
    assert tokens.status_code == 200
    _once_each(tokens)
    bearer = {"Authorization": f"Bearer {tokens.json()['access_token']}"}
    info = http.get("/oauth2/userinfo", headers=bearer)
    assert info.status_code == 200 and info.json()["sub"]
    _once_each(info)
    refused = http.get("/oauth2/userinfo", headers={"Authorization": "Bearer nope"})
    assert refused.status_code == 401 and "invalid_token" in refused.headers["www-authenticate"]
    _once_each(refused)
    revoked = revoke(http, world.installed, tokens.json()["refresh_token"])
    assert revoked.status_code == 200 and revoked.content == b""
    _once_each(revoked)


def test_the_router_answers_other_methods(world, user, http) -> None:
    assert http.get("/oauth2/token").status_code == 405
    tokens = exchange(http, world.installed, obtain_code(user, world.installed)).json()
    head = http.head(
        "/oauth2/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}
    )
    assert head.status_code == 200
    _once_each(head)


def test_the_application_is_starlettes(tmp_path: Path) -> None:
    """What uvicorn serves is the Starlette application itself: no router in front of it."""
    app = create_app(tmp_path)
    try:
        assert type(app) is Starlette
    finally:
        app.state.server.store.close()


def test_fixed_routes_match_as_starlettes_routes_do() -> None:
    """FixedRoute compares the path as a string: the same answer as the route's pattern, for
    every route of the table, every method, and paths beside each one."""
    for route in routes(test_clock=True):
        for path in (route.path, route.path + "/", route.path + "x", "/nowhere", "/oauth2/"):
            for method in ("GET", "POST", "HEAD", "DELETE"):
                for root_path in ("", "/mounted"):
                    scope = {"type": "http", "path": root_path + path, "method": method}
                    scope["root_path"] = root_path
                    assert route.matches(dict(scope)) == Route.matches(route, dict(scope)), scope
