"""The preflight stops a run only on unambiguous evidence (targets answer differently)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from steps.profiles.profile import RegisteredApp, parse_profile
from steps.run.preflight import PreflightError, check_ca_file, check_client, credentials_verdict


def answer(status: int, body: str = "") -> httpx.Response:
    return httpx.Response(status, text=body, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize(
    ("response", "accepted"),
    [
        (answer(200), True),  # RFC 7009: an unknown token is answered 200
        (answer(400, '{"error": "invalid_grant"}'), True),  # authenticated, token unknown
        (answer(200, '{"error": "invalid_grant"}'), True),  # spec 7.2 leaves the status open
        (answer(401, '{"error": "invalid_token"}'), True),
        (answer(401, '{"error": "invalid_client"}'), False),
        (answer(400, '{"error": "invalid_client"}'), False),
        (answer(200, '{"error": "invalid_client"}'), False),
        (answer(401), False),
        (answer(400, '{"error": "invalid_request"}'), None),  # cannot tell
        (answer(404, "Not Found"), None),  # no revocation endpoint (earlier description)
        (answer(500, "oops"), None),
        (answer(429, '{"error": "invalid_client"}'), None),  # a guard's answer, not a verdict
    ],
)
def test_what_an_answer_says_about_the_credentials(
    response: httpx.Response, accepted: bool | None
) -> None:
    assert credentials_verdict(response) is accepted


class FakeHttp:
    """The HTTP layer's request, answering the HTTP Basic refresh."""

    def __init__(self, service: FakeService) -> None:
        self.service = service

    def request(self, method: str, url: str, **kwargs: object) -> httpx.Response:
        self.service.asked.append("basic")
        return self.service.answers["basic"]


class FakeService:
    """Answers revocation and refresh as a target would; counts the requests."""

    def __init__(
        self, revoke: httpx.Response, refresh: httpx.Response, basic: httpx.Response | None = None
    ) -> None:
        self.answers = {"revoke": revoke, "refresh": refresh, "basic": basic or refresh}
        self.asked: list[str] = []
        self.http = FakeHttp(self)
        self.profile = parse_profile({"base_url": "https://t", "user": {"username": "alice"}})

    def revoke(self, client: RegisteredApp, token: str) -> httpx.Response:
        self.asked.append("revoke")
        return self.answers["revoke"]

    def refresh(self, client: RegisteredApp, token: str) -> httpx.Response:
        self.asked.append("refresh")
        return self.answers["refresh"]


CLIENT = RegisteredApp("web", "id", "secret", "https://client.example/cb")


def test_a_revocation_that_tells_is_enough() -> None:
    service = FakeService(answer(200), answer(400, '{"error": "invalid_grant"}'))
    assert check_client("web", CLIENT, service) is True  # type: ignore[arg-type]
    assert service.asked == ["revoke"]


def test_without_a_revocation_endpoint_the_token_endpoint_tells() -> None:
    service = FakeService(answer(404), answer(401, '{"error": "invalid_client"}'))
    with pytest.raises(PreflightError, match=r"refused the credentials of \[clients.web\]"):
        check_client("web", CLIENT, service)  # type: ignore[arg-type]
    assert service.asked == ["revoke", "refresh", "basic"]


def test_a_target_that_only_takes_http_basic_is_not_a_setup_error() -> None:
    refused = answer(401, '{"error": "invalid_client"}')
    service = FakeService(refused, refused, answer(400, '{"error": "invalid_grant"}'))
    assert check_client("web", CLIENT, service) is True  # type: ignore[arg-type]
    assert service.asked == ["revoke", "refresh", "basic"]


def test_answers_that_cannot_tell_do_not_stop_the_run() -> None:
    service = FakeService(answer(404), answer(400, '{"error": "invalid_request"}'))
    assert check_client("web", CLIENT, service) is None  # type: ignore[arg-type]


def test_a_ca_file_that_is_not_a_certificate(tmp_path: Path) -> None:
    bogus = tmp_path / "ca.pem"
    bogus.write_text("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
    profile = parse_profile(
        {"base_url": "https://t", "ca_file": str(bogus), "user": {"username": "alice"}}
    )
    with pytest.raises(PreflightError, match="is not a PEM CA certificate"):
        check_ca_file(profile)
