"""Steps about plain HTTP (feature: transport)."""

from __future__ import annotations

import httpx
from pytest_bdd import parsers, then, when

from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile
from steps.scenario.kinds import check, premise
from steps.scenario.scene import Scene
from steps.scenario.service import Service

ENDPOINTS = {
    "authorization": ("GET", "authorize"),
    "token": ("POST", "token"),
    "revocation": ("POST", "revoke"),
    "user information": ("GET", "userinfo"),
}


def _probe(
    scene: Scene, http: HttpLayer, service: Service, base: str, endpoint: str
) -> httpx.Response:
    """A request that HTTPS processes normally, with no real secret in it: a complete
    authorization request, a refresh with a made-up token and secret, no bearer token."""
    method, name = ENDPOINTS[endpoint]
    client = scene.app()
    url = base + service.profile.endpoints[name]
    if name == "authorize":
        return http.request(
            "GET", service.authorize_url(service.authorize_params(client, "profile"), base)
        )
    if method == "GET":
        return http.request("GET", url)
    fields = {
        "grant_type": "refresh_token",
        "refresh_token": "made-up-refresh-token",
        "token": "made-up-token",
        "client_id": client.client_id,
        "client_secret": "placeholder-not-the-secret",
    }
    return http.request("POST", url, data=fields)


@when(parsers.parse("the application calls the {endpoint} endpoint over plain HTTP"))
@premise()
def call_plain_http(
    scene: Scene, http: HttpLayer, service: Service, profile: TargetProfile, endpoint: str
) -> None:
    """The same request over HTTPS (for comparison) and then over http://."""
    scene.keep(_probe(scene, http, service, profile.base_url, endpoint))
    try:
        scene.keep(_probe(scene, http, service, profile.plain_http_base, endpoint))
    except httpx.HTTPError as exc:
        scene.transport_error = exc


@then("the request is refused")
@check("TRANSPORT-HTTPS-ONLY")
def refused(scene: Scene) -> None:
    """No connection, a redirect to HTTPS, or an error of its own: never the answer the
    endpoint gives over HTTPS (that would mean it processed the request)."""
    if scene.transport_error is not None:
        return
    over_https, plain = scene.responses[-2], scene.responses[-1]
    location = plain.headers.get("location", "")
    if plain.is_redirect and location.startswith("https://"):
        return
    assert plain.status_code >= 400, f"answered {plain.status_code} over plain HTTP"
    same = (plain.status_code, plain.text) == (over_https.status_code, over_https.text)
    assert not same, f"answered over plain HTTP exactly as over HTTPS ({plain.status_code})"
