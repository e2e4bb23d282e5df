"""The estimate of prompts (steps/run/approvals.py): it walks the scenarios in run order and shares
as the run shares (grants within an epoch, a writer's takeover, twins), and counts no visit the
service refuses before any login. That it matches a real run is tests/suite/test_manual_runs.py's
business."""

from __future__ import annotations

from steps.run.approvals import estimate_prompts

GIVEN, WHEN, THEN = "given", "when", "then"
SHARED = 'the user has granted the web application offline access to "profile email"'
FRESH = 'the user has just granted the web application offline access to "profile email"'
REFRESH = "the application refreshes the access token"
CODE = "an authorization code issued to the web application"
Shape = tuple[tuple[str, ...], tuple[str, ...]]


def scenario(*steps: tuple[str, str]) -> Shape:
    return tuple(text for _, text in steps), tuple(kind for kind, _ in steps)


def reader(check: str = "the code exchange answered 200 OK") -> Shape:
    return scenario((GIVEN, SHARED), (THEN, check))


def test_readers_share_a_grant_and_the_first_writer_takes_it() -> None:
    refresher = scenario((GIVEN, FRESH), (WHEN, REFRESH), (THEN, "the refresh answered 200 OK"))
    revoker = scenario(
        (GIVEN, FRESH),
        (WHEN, "the application revokes the access token"),
        (THEN, "the revocation is answered 200 with an empty body"),
    )
    assert estimate_prompts([reader(), reader()]) == 1
    assert estimate_prompts([reader(), refresher]) == 1  # the writer's grant is the readers'
    assert estimate_prompts([reader(), refresher, revoker]) == 2
    assert estimate_prompts([reader(), refresher, reader()]) == 2  # a new epoch, a new grant


def test_twins_take_their_premise_once_while_nothing_changed_since() -> None:
    def refresh_check(check: str) -> Shape:
        return scenario((GIVEN, FRESH), (WHEN, REFRESH), (THEN, check))

    json_doc = refresh_check(
        "the refresh answered a JSON document with the access token as a string"
    )
    status = refresh_check("the refresh answered 200 OK")
    again = scenario(
        (GIVEN, FRESH),
        (WHEN, REFRESH),
        (THEN, "the application receives a new access token"),
        (
            WHEN,
            "the application refreshes the access token again with the refresh token it sent first",
        ),
        (THEN, "the application receives a new access token"),
    )
    other = scenario((GIVEN, FRESH), (WHEN, "the application revokes the access token"))
    assert estimate_prompts([json_doc, status, status]) == 1
    assert estimate_prompts([json_doc, again, status]) == 2  # the one that does more used it
    assert estimate_prompts([json_doc, other, status]) == 3  # a writer in between


def test_a_request_refused_before_any_login_asks_nobody_but_a_refusal_does() -> None:
    asks = (WHEN, 'the application asks for the "profile" scope')
    refused = scenario(
        (GIVEN, "a web application registered with the service"),
        asks,
        (WHEN, "the request carries an unknown Client ID"),
        (WHEN, "the user opens the authorization page"),
        (THEN, "the service shows an error page without sending the user back"),
    )
    denied = scenario(
        (GIVEN, "a web application registered with the service"),
        asks,
        (WHEN, "the user denies the request"),
        (THEN, 'the application receives the error "access_denied"'),
    )
    assert estimate_prompts([refused]) == 0
    assert estimate_prompts([denied]) == 1


def test_a_page_a_manual_driver_cannot_read_is_not_asked_for() -> None:
    framing = scenario(
        (GIVEN, "a web application registered with the service"),
        (WHEN, 'the application asks for the "profile" scope'),
        (WHEN, "the request asks to always show the consent page"),
        (THEN, "the page a logged-out user sees forbids framing"),
        (WHEN, "the user opens the authorization page"),
        (THEN, "the consent page forbids framing"),
    )
    assert estimate_prompts([framing], pages=False) == 0
    assert estimate_prompts([framing], pages=True) == 1


def test_codes_and_manual_revocations_are_each_a_prompt() -> None:
    exchange = scenario(
        (GIVEN, CODE),
        (WHEN, 'the application exchanges the code with the token type "mac"'),
        (THEN, "the exchange is refused"),
    )
    website = scenario(
        (GIVEN, 'the user has just granted the installed application offline access to "rating"'),
        (WHEN, "the user revokes the application's access on the website"),
        (THEN, "the refresh token no longer works"),
    )
    assert estimate_prompts([exchange, exchange]) == 1  # twins: one code, refused twice alike
    assert estimate_prompts([website]) == 2
