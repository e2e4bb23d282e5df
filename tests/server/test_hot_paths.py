"""The token, revoke and userinfo endpoints served past Starlette's router (hotpath.py).

Their answers must carry what the middlewares would have added, once: the security headers,
no-store; and what they do not serve (HEAD, a wrong method) still reaches the router.
"""

from __future__ import annotations

import httpx

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


def test_other_methods_still_reach_the_router(world, user, http) -> None:
    assert http.get("/oauth2/token").status_code == 405
    tokens = exchange(http, world.installed, obtain_code(user, world.installed)).json()
    head = http.head(
        "/oauth2/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"}
    )
    assert head.status_code == 200
    _once_each(head)
