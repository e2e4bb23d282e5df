"""What the consent-driver tests share: a scripted operator for the manual driver, and the
visits every automatic driver must get through on the bundled server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from steps.consent import ConsentDriver, RedirectResult, ServicePage, make_driver
from steps.consent.manual import OperatorConsole
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile, load_profile
from steps.scenario.service import Service
from tests.suite.target import Target


class ScriptedConsole(OperatorConsole):
    """An operator who answers from a script."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__()
        self.answers = answers
        self.prompts: list[str] = []
        self.told: list[str] = []

    def check(self) -> None:
        """A script needs no terminal."""

    def tell(self, text: str) -> None:
        self.told.append(text)

    def ask(self, text: str) -> str:
        self.prompts.append(text)
        return self.answers.pop(0)


def minimal_profile_at(tmp_path: Path) -> TargetProfile:
    """A profile with nothing but a name, a base URL and a user."""
    path = tmp_path / "p.toml"
    path.write_text(
        'name = "minimal"\nbase_url = "https://mb.example"\n[user]\nusername = "alice"\n'
    )
    return load_profile(path)


def driver_profile(target: Target, driver: str) -> TargetProfile:
    profile = load_profile(target.profile_path)
    return replace(profile, consent=replace(profile.consent, driver=driver))


@contextmanager
def driving(profile: TargetProfile) -> Iterator[tuple[Service, ConsentDriver]]:
    """The service and the profile's consent driver, one HTTP layer for both; closed after."""
    http = HttpLayer(profile.ca_file)
    driver = make_driver(profile, http)
    try:
        yield Service(profile, http), driver
    finally:
        driver.close()


def authorize_url(service: Service, profile: TargetProfile, role: str, **extra: str) -> str:
    params: dict[str, Any] = service.authorize_params(
        profile.client(role), extra.pop("scope", "profile")
    )
    return service.authorize_url(params | extra)


def exercise(driver: ConsentDriver, service: Service, profile: TargetProfile) -> None:
    """What every automatic driver must do: approve, deny, show consent, out-of-band."""
    approved = driver.approve(
        authorize_url(service, profile, "web", state="s-1", approval_prompt="force")
    )
    assert isinstance(approved, RedirectResult) and approved.code and approved.state == "s-1"
    assert approved.consent_shown is True
    assert approved.url and approved.url.startswith("https://client.example/callback?")

    denied = driver.deny(authorize_url(service, profile, "web", approval_prompt="force"))
    assert isinstance(denied, RedirectResult) and denied.error == "access_denied"

    shown = driver.open(authorize_url(service, profile, "web", approval_prompt="force"))
    assert isinstance(shown, ServicePage) and shown.consent

    refused = driver.open(
        authorize_url(service, profile, "web", redirect_uri="https://attacker.example/cb")
    )
    assert isinstance(refused, ServicePage) and not refused.consent

    oob = driver.approve(
        authorize_url(service, profile, "installed", redirect_uri="urn:ietf:wg:oauth:2.0:oob")
    )
    assert isinstance(oob, RedirectResult) and oob.oob and oob.code
    client = profile.client("installed")
    exchanged = service.exchange(client, oob.code, "urn:ietf:wg:oauth:2.0:oob")
    assert exchanged.status_code == 200, exchanged.text
