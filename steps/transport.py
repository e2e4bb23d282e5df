"""Steps about plain HTTP (feature: transport)."""

from __future__ import annotations

import httpx
from pytest_bdd import parsers, then, when

from steps.http import HttpLayer
from steps.profile import Profile
from steps.scene import Scene

ENDPOINTS = {
    "authorization": ("GET", "authorize"),
    "token": ("POST", "token"),
    "revocation": ("POST", "revoke"),
    "user information": ("GET", "userinfo"),
}


@when(parsers.parse("the application calls the {endpoint} endpoint over plain HTTP"))
def call_plain_http(scene: Scene, http: HttpLayer, profile: Profile, endpoint: str) -> None:
    """A request to the http:// twin of an endpoint; no real secret goes out in clear."""
    method, name = ENDPOINTS[endpoint]
    url = profile.plain_http_base + profile.endpoints[name]
    client = scene.app()
    fields = {"client_id": client.client_id, "client_secret": "placeholder-not-the-secret"}
    try:
        if method == "GET":
            scene.keep(http.request("GET", url, params={"client_id": client.client_id}))
        else:
            scene.keep(http.request("POST", url, data=fields | {"grant_type": "refresh_token"}))
    except httpx.HTTPError as exc:
        scene.transport_error = exc


@then("the request is refused")
def refused(scene: Scene) -> None:
    """No connection, an error status, or a redirect to HTTPS: never processed over HTTP."""
    if scene.transport_error is not None:
        return
    response = scene.last()
    location = response.headers.get("location", "")
    if response.is_redirect and location.startswith("https://"):
        return
    assert response.status_code >= 400, f"answered {response.status_code} over plain HTTP"
