"""The format of a token answer (spec 2.3, RFC 6749 5.1): strict, each check reading the
answer's one strict reading (steps/http/readers.py, `strict_token_fields`) and judging one
field of it, of the code exchange that issued the grant or of the scenario's last refresh."""

from __future__ import annotations

import httpx
from pytest_bdd import parsers, then

from steps.definitions.token_outcomes import GRANTED_BY
from steps.http.readers import require_granted, strict_json, strict_token_fields
from steps.outcomes import require
from steps.scenario.kinds import check
from steps.scenario.scene import Scene

#: Seconds by which a correct expires_in may fall short of 3600 (see `lasts_3600`).
EXPIRES_IN_SLACK = 2


def _answer(scene: Scene, which: str) -> httpx.Response:
    """The answer a check reads: the grant's code exchange, or the scenario's last refresh."""
    if which == "code exchange":
        tokens = scene.grant()
        require(tokens.answer is not None, "no code exchange answer kept", see=GRANTED_BY[which])
        assert tokens.answer is not None
        return tokens.answer
    return scene.last()


@then(
    parsers.re(
        r"the (?P<which>code exchange|refresh) answered a JSON document"
        r" with the access token as a string"
    )
)
@check("TOKEN-RESPONSE-ACCESS-TOKEN", touches=("token_answer",))
def answered_json(scene: Scene, which: str) -> None:
    """Section 2.3: a JSON document (application/json, UTF-8, no member twice) carrying the
    access token as a string (premise: the request was granted at all)."""
    response = _answer(scene, which)
    require_granted(response, f"the {which}", see=GRANTED_BY[which])
    read = strict_json(response)
    assert read.body is not None, f"the {which} answered {read.problem}"
    token = read.body.get("access_token")
    assert isinstance(token, str) and token, f"access_token is {token!r}"


@then(parsers.re(r"the (?P<which>code exchange|refresh) said the access token lasts 3600 seconds"))
@check("TOKEN-EXPIRES-IN-3600", touches=("token_answer",))
def lasts_3600(scene: Scene, which: str) -> None:
    """expires_in is a JSON integer (2.3 gives its type) and the lifetime 3600 s (2.3, 8).

    Spec 2.3 defines `expires_in` as the access token's lifetime in seconds and gives 3600 as
    the value. A server that computes it from the stored expiry time, as the real
    musicbrainz-server does, reports the lifetime left when it writes the answer: 3599 when a
    second ticks over between storing and answering. That is still a token issued for 3600
    seconds, so a value a second or two short passes; anything longer than 3600, clearly
    shorter (7200, 1800), or not a JSON integer ("3600", 3600.0, true) fails. An answer that is
    not a JSON document has no JSON integer to judge: that is RULE.TOKEN_RESPONSE_ACCESS_TOKEN's."""
    fields = strict_token_fields(_answer(scene, which), f"the {which}", see=GRANTED_BY[which])
    value = fields.get("expires_in")
    assert type(value) is int, f"expires_in is {value!r}, not an integer"
    assert 3600 - EXPIRES_IN_SLACK <= value <= 3600, f"expires_in is {value}, not 3600"


@then(parsers.re(r"the (?P<which>code exchange|refresh) answered 200 OK"))
@check("TOKEN-RESPONSE-STATUS-200", touches=("token_answer",))
def answered_200(scene: Scene, which: str) -> None:
    """RFC 6749 5.1: a successful token response has the status 200 (premise: the request
    was granted; a premise reads any 2xx as a client library does)."""
    response = _answer(scene, which)
    require_granted(response, f"the {which}", see=GRANTED_BY[which])
    assert response.status_code == 200, f"the {which} answered {response.status_code}"


@then(parsers.re(r"the (?P<which>code exchange|refresh) said the token type is Bearer"))
@check("TOKEN-TYPE-BEARER", touches=("token_answer",))
def bearer(scene: Scene, which: str) -> None:
    """token_type Bearer (case-insensitive per RFC 6749 5.1), in the answer's one strict
    reading (a token_type named twice is no answer to read it from)."""
    fields = strict_token_fields(_answer(scene, which), f"the {which}", see=GRANTED_BY[which])
    value = fields.get("token_type")
    assert isinstance(value, str) and value.lower() == "bearer", f"token_type is {value!r}"
