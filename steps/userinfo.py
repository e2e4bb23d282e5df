"""Steps at the user information endpoint (features: user information, scopes, transport)."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import httpx
import pytest
from pytest_bdd import parsers, then, when

from steps.observations import Observations
from steps.profile import Profile
from steps.scene import Scene
from steps.service import Service, json_body
from steps.token import NEVER_ISSUED

WAYS = {
    "in the Authorization header": "header",
    "in a form body": "body",
    "in the query string": "query",
    "in the header and the query string": "header+query",
}


def _access_token(scene: Scene) -> str:
    assert scene.tokens is not None, "no grant from an earlier step"
    return scene.tokens.access_token


def _values(body: Any) -> list[str]:
    """Every string value of a JSON document (the response's shape is not in the spec)."""
    if isinstance(body, dict):
        return [v for item in body.values() for v in _values(item)]
    if isinstance(body, list):
        return [v for item in body for v in _values(item)]
    return [body] if isinstance(body, str) else []


@when(parsers.re(r"the application asks for the user's profile with the token (?P<way>in .+)"))
def ask_profile(scene: Scene, service: Service, observations: Observations, way: str) -> None:
    """User information with the token passed one way (or two)."""
    how = WAYS[way]
    response = scene.keep(service.userinfo(_access_token(scene), how))
    if how == "body":
        observations.describe("userinfo_post_body", response.status_code == 200)


@when(
    parsers.parse(
        'the application asks for the user\'s profile with the token under the "{scheme}" scheme'
    )
)
def ask_profile_scheme(scene: Scene, service: Service, scheme: str) -> None:
    """The token under another authorization scheme."""
    scene.keep(service.userinfo(_access_token(scene), f"scheme:{scheme}"))


@when("the application asks for the user's profile without a token")
def ask_profile_no_token(scene: Scene, service: Service) -> None:
    """No credentials."""
    scene.keep(service.userinfo(None))


@when("the application asks for the user's profile with a token the service never issued")
def ask_profile_unknown(scene: Scene, service: Service) -> None:
    """A made-up token."""
    scene.keep(service.userinfo(NEVER_ISSUED))


@when("the application asks for the user's profile over plain HTTP")
def ask_profile_plain_http(scene: Scene, service: Service, profile: Profile) -> None:
    """The bearer token over http:// (then revoked over HTTPS: it crossed the wire in clear)."""
    token = _access_token(scene)
    try:
        scene.keep(service.userinfo(token, "header", base=profile.plain_http_base))
    except httpx.HTTPError as exc:
        scene.transport_error = exc
    finally:
        with contextlib.suppress(httpx.HTTPError):
            service.revoke(scene.app(), token)


@then("the service returns the user's profile")
def returns_profile(scene: Scene, profile: Profile) -> None:
    """200 with the user's name among the values."""
    response = scene.last()
    assert response.status_code == 200, f"status {response.status_code}: {response.text[:200]}"
    body = json_body(response)
    assert body is not None, f"not a JSON object: {response.text[:200]}"
    assert profile.user.username in _values(body), "the user's name is not in the answer"


@then("the service does not return the user's profile")
def no_profile(scene: Scene, profile: Profile) -> None:
    """A refusal (or no connection at all)."""
    if scene.transport_error is not None:
        return
    response = scene.last()
    body = json_body(response) or {}
    assert not (response.status_code == 200 and profile.user.username in _values(body)), (
        "the user's profile was returned"
    )
    assert response.status_code != 200, f"answered 200: {response.text[:200]}"


@then(parsers.re(r"the user's email is (?P<negated>not )?included"))
def email_included(scene: Scene, profile: Profile, negated: str | None) -> None:
    """Whether the user's email address is among the values."""
    if not profile.user.email:
        pytest.skip("the profile does not name the user's email")
    values = _values(json_body(scene.last()) or {})
    if negated:
        assert profile.user.email not in values, "the email is shown without the email scope"
    else:
        assert profile.user.email in values, "the email is not shown"


def _challenge(response: httpx.Response) -> str:
    challenge = response.headers.get("www-authenticate", "")
    assert challenge.lower().startswith("bearer"), f"WWW-Authenticate is {challenge!r}"
    return challenge


@then(parsers.parse("the service answers {status:d} with a Bearer challenge without an error code"))
def challenge_no_error(scene: Scene, status: int) -> None:
    """RFC 6750 3.1: no error attribute when no credentials were sent."""
    response = scene.last()
    assert response.status_code == status, f"status {response.status_code}"
    assert "error=" not in _challenge(response), "an error code was given"


@then(
    parsers.parse('the service answers {status:d} with a Bearer challenge with the error "{error}"')
)
def challenge_error(scene: Scene, status: int, error: str) -> None:
    """RFC 6750 3.1 error in the challenge."""
    response = scene.last()
    assert response.status_code == status, f"status {response.status_code}"
    found = re.search(r'error="([^"]*)"', _challenge(response))
    assert found and found.group(1) == error, f"challenge {_challenge(response)!r}"


@then(parsers.parse('the service answers {status:d} with the error "{error}"'))
def plain_error(scene: Scene, status: int, error: str) -> None:
    """An error named in the JSON body or the challenge."""
    response = scene.last()
    assert response.status_code == status, f"status {response.status_code}"
    body = json_body(response) or {}
    challenge = response.headers.get("www-authenticate", "")
    assert body.get("error") == error or f'error="{error}"' in challenge, (
        f"no error {error!r}: {response.text[:200]} {challenge!r}"
    )
