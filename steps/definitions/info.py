"""Steps that record observations (info-level rules: never failures, but the facts must be
there to record)."""

from __future__ import annotations

from pytest_bdd import then

from steps.http.readers import json_body
from steps.scenario.kinds import check
from steps.scenario.observations import SPEC_TOKEN_FIELDS, Observations
from steps.scenario.scene import Scene


def _grant(scene: Scene) -> dict[str, object]:
    assert scene.tokens is not None, "no grant from an earlier step"
    return scene.tokens.response


@then("the length and alphabet of its code and tokens are recorded")
@check("INFO-TOKEN-FORMAT")
def token_formats(scene: Scene, observations: Observations) -> None:
    """Formats of the grant's code and tokens."""
    assert scene.tokens is not None
    observations.token_format("code", scene.tokens.code)
    observations.token_format("access_token", scene.tokens.access_token)
    observations.token_format("refresh_token", scene.tokens.refresh_token)
    assert "access_token_length" in observations.data


@then("the spelling of its token type is recorded")
@check("INFO-TOKEN-TYPE-CASE")
def token_type_case(scene: Scene, observations: Observations) -> None:
    """token_type exactly as sent."""
    value = _grant(scene).get("token_type")
    observations.record("token_type", value)
    assert value is not None, "the token response has no token_type"


@then("the fields of its token response beyond the spec's are recorded")
@check("INFO-TOKEN-EXTRA-FIELDS")
def extra_fields(scene: Scene, observations: Observations) -> None:
    """Fields such as scope."""
    observations.record(
        "token_response_extra_fields", sorted(set(_grant(scene)) - set(SPEC_TOKEN_FIELDS))
    )


@then("the fields of the user information are recorded")
@check("INFO-USERINFO-FIELDS")
def userinfo_fields(scene: Scene, observations: Observations) -> None:
    """Names (not values: they are the user's data) of the user information fields."""
    body = json_body(scene.last())
    assert body is not None, "the user information is not a JSON object"
    observations.record("userinfo_fields", sorted(body))


@then("the headers of the revocation response are recorded")
@check("INFO-REVOKE-HEADERS")
def revoke_headers(scene: Scene, observations: Observations) -> None:
    """Content-Type and Content-Length of the empty revocation response."""
    headers = scene.last().headers
    observations.record(
        "revoke_response_headers",
        {k: headers.get(k) for k in ("content-type", "content-length", "cache-control")},
    )
    observations.record("revoke_status", scene.last().status_code)
