"""Steps at the user information endpoint (features: user information, scopes, transport)."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import httpx
import pytest
from pytest_bdd import parsers, then, when

from steps.observations import Observations
from steps.probes import NEAR_MISSES, NEVER_ISSUED, near_miss
from steps.profile import Profile
from steps.scene import Scene
from steps.service import Service, json_body

WAYS = {
    "in the Authorization header": "header",
    "in a form body": "body",
    "in the query string": "query",
    "in the header and the query string": "header+query",
}


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
    response = scene.keep(service.userinfo(scene.grant().access_token, how))
    if how == "body":
        observations.describe("userinfo_post_body", response.status_code == 200)


@when(
    parsers.parse(
        'the application asks for the user\'s profile with the token under the "{scheme}" scheme'
    )
)
def ask_profile_scheme(scene: Scene, service: Service, scheme: str) -> None:
    """The token under another authorization scheme."""
    scene.keep(service.userinfo(scene.grant().access_token, f"scheme:{scheme}"))


@when("the application asks for the user's profile without a token")
def ask_profile_no_token(scene: Scene, service: Service) -> None:
    """No credentials."""
    scene.keep(service.userinfo(None))


@when(
    parsers.re(r"the application asks for the user's profile with its access token " + NEAR_MISSES)
)
def ask_profile_near_token(scene: Scene, service: Service, how: str) -> None:
    """A token that shares all but its end with the grant's access token, in the header."""
    token = near_miss(scene.grant().access_token, how)
    scene.keep(service.userinfo(token))


@when("the application asks for the user's profile with a token the service never issued")
def ask_profile_unknown(scene: Scene, service: Service) -> None:
    """A made-up token."""
    scene.keep(service.userinfo(NEVER_ISSUED))


@when(
    parsers.re(
        r"the application asks for the user's profile over plain HTTP"
        r"(?: with the token (?P<way>in .+))?"
    )
)
def ask_profile_plain_http(
    scene: Scene, service: Service, profile: Profile, way: str | None
) -> None:
    """The bearer token over http:// (then revoked over HTTPS: it crossed the wire in clear)."""
    token = scene.grant().access_token
    try:
        how = WAYS[way or "in the Authorization header"]
        scene.keep(service.userinfo(token, how, base=profile.plain_http_base))
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


def _reveals(response: httpx.Response, value: str) -> bool:
    """Whether an answer holds a value: among the strings of a JSON document, anywhere in any
    other body (the spec does not show the shape of the answer)."""
    body = json_body(response)
    return value in _values(body) if body is not None else value in response.text


@then("the service does not return the user's profile")
def no_profile(scene: Scene, profile: Profile) -> None:
    """The user's profile is not in the answer (or there was no connection at all). Spec 7.2
    does not show the answers for a missing, refused or ignored token, so the status is not
    part of the check: a 200 without the user's data passes, a 401 with it fails."""
    if scene.transport_error is not None:
        return
    response = scene.last()
    assert not _reveals(response, profile.user.username), (
        f"the user's profile was returned ({response.status_code})"
    )


@then("the user's email is not revealed")
def email_not_revealed(scene: Scene, profile: Profile) -> None:
    """Whatever the answer (success or not, JSON or not), the user's email is not in it."""
    if not profile.user.email:
        pytest.skip("the profile does not name the user's email")
    response = scene.last()
    assert profile.user.email not in response.text, (
        f"the email is shown without the email scope ({response.status_code})"
    )


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


_TOKEN68_OR_PARAM = re.compile(r"""\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=""")
_SCHEME = re.compile(r"\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s+|$)")


def _split_commas(value: str) -> list[str]:
    """Comma-separated items of a header value, commas inside quoted strings kept."""
    items, current, quoted, escaped = [], "", False, False
    for char in value:
        if escaped:
            escaped = False
        elif char == "\\" and quoted:
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            items.append(current)
            current = ""
            continue
        current += char
    return [*items, current]


def challenges(response: httpx.Response) -> list[str]:
    """Every challenge of every WWW-Authenticate header, one string each (RFC 9110 11.6.1).
    A server may send several headers (musicbrainz-server: Digest, then Bearer) or several
    challenges in one; httpx joins repeated headers with ", ", so both are split here."""
    found: list[str] = []
    for header in response.headers.get_list("www-authenticate"):
        for item in _split_commas(header):
            starts_challenge = _SCHEME.match(item) and not _TOKEN68_OR_PARAM.match(item)
            if starts_challenge or not found:
                found.append(item.strip())
            else:
                found[-1] += "," + item
    return [c for c in found if c]


def _challenge(response: httpx.Response) -> str:
    """The Bearer challenge among the answer's challenges."""
    offered = challenges(response)
    bearer = [c for c in offered if c.split(None, 1)[0].lower() == "bearer"]
    assert bearer, f"no Bearer challenge in WWW-Authenticate: {offered!r}"
    return bearer[0]


@then(parsers.parse("the service answers {status:d} with a Bearer challenge without an error code"))
def challenge_no_error(scene: Scene, status: int) -> None:
    """RFC 6750 3.1: no error attribute when no credentials were sent."""
    response = scene.last()
    assert response.status_code == status, f"status {response.status_code}"
    challenge = _challenge(response)
    assert not re.search(r"(?:^|[\s,])error\s*=", challenge, re.I), f"an error code: {challenge!r}"


@then(
    parsers.parse('the service answers {status:d} with a Bearer challenge with the error "{error}"')
)
def challenge_error(scene: Scene, status: int, error: str) -> None:
    """RFC 6750 3.1 error in the challenge."""
    response = scene.last()
    assert response.status_code == status, f"status {response.status_code}"
    found = re.search(r'(?:^|[\s,])error\s*=\s*"?([^",\s]*)', _challenge(response), re.I)
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
