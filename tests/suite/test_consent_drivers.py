"""Consent drivers: page reading, presets, the manual dialogue, and the form and browser
drivers against a real bundled server."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from steps.consent import ConsentDriver, RedirectResult, ServicePage, make_driver
from steps.consent.html import find_form, parse_forms
from steps.consent.manual import Console, ManualDriver
from steps.consent.presets import PRESETS, resolve_preset
from steps.http import HttpLayer
from steps.plugin import estimate_approvals
from steps.profile import ConsentSettings, Profile, load_profile
from steps.service import Service, json_body
from tests.suite.target import Target, bundled_target
from tests.support.browser import required_chromium

PAGE = """
<form id="login-form" method="post" action="/login?returnto=/x">
  <input type="hidden" name="csrf_token" value="c1"><input name="username">
  <input type="password" name="password">
  <input type="checkbox" name="remember" value="1"><button type="submit">Log in</button>
</form>
<form name="confirm" class="a revoke-form" method="post">
  <input type="hidden" name="client_id" value="app">
  <button name="confirm.submit" value="1">Allow</button>
</form>"""


# --- pages and presets -------------------------------------------------------------------


def test_forms_are_read_with_fields_and_buttons() -> None:
    login, confirm = parse_forms(PAGE)
    assert login.fields == [("csrf_token", "c1"), ("username", ""), ("password", "")]
    assert login.buttons == []  # an unnamed submit button sends nothing
    assert confirm.buttons == [("confirm.submit", "1")]


@pytest.mark.parametrize("selector", ["#login-form", "action:/login"])
def test_login_form_selectors(selector: str) -> None:
    form = find_form(PAGE, selector)
    assert form is not None and form.attrs["id"] == "login-form"


@pytest.mark.parametrize("selector", ["name:confirm", ".revoke-form"])
def test_consent_form_selectors(selector: str) -> None:
    form = find_form(PAGE, selector)
    assert form is not None and form.field("client_id") == "app"


def test_a_submission_fills_fields_and_names_the_button() -> None:
    form = find_form(PAGE, "name:confirm")
    assert form is not None
    assert form.submission("confirm.submit=1", extra="x") == [
        ("client_id", "app"),
        ("extra", "x"),
        ("confirm.submit", "1"),
    ]
    with pytest.raises(LookupError):
        form.submission("confirm.cancel=1")


def test_presets_take_overrides_and_refuse_unknown_keys() -> None:
    assert resolve_preset("bundled", {"login_path": "/signin"}).login_path == "/signin"
    with pytest.raises(ValueError, match="unknown consent preset keys"):
        resolve_preset("bundled", {"login_pth": "/x"})
    with pytest.raises(ValueError, match="unknown consent preset"):
        resolve_preset("keycloak")
    assert PRESETS["musicbrainz"].verified is False


# --- the manual driver -------------------------------------------------------------------


class ScriptedConsole(Console):
    """An operator who answers from a script."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__()
        self.answers = answers
        self.prompts: list[str] = []

    def ask(self, text: str) -> str:
        self.prompts.append(text)
        return self.answers.pop(0)


def _manual(answers: list[str], profile: Profile) -> tuple[ManualDriver, ScriptedConsole]:
    console = ScriptedConsole(answers)
    return ManualDriver(profile, console), console


def test_the_manual_driver_reads_a_pasted_redirect_and_counts_down(
    minimal_profile: Profile,
) -> None:
    driver, console = _manual(
        ["https://client.example/callback?code=abc&state=s1"], minimal_profile
    )
    driver.remaining = 3
    outcome = driver.approve("https://mb.example/oauth2/authorize?x=1")
    assert isinstance(outcome, RedirectResult) and (outcome.code, outcome.state) == ("abc", "s1")
    assert "about 3 approval(s) left" in console.prompts[0]
    assert "https://mb.example/oauth2/authorize?x=1" in console.prompts[0]
    assert driver.remaining == 2


def test_the_manual_driver_takes_a_copied_code_or_an_error_page(minimal_profile: Profile) -> None:
    driver, _ = _manual(["CoPiEdCoDe", "error", "consent"], minimal_profile)
    code = driver.approve("https://mb.example/a")
    assert isinstance(code, RedirectResult) and code.oob and code.code == "CoPiEdCoDe"
    page = driver.deny("https://mb.example/a")
    assert isinstance(page, ServicePage) and not page.consent
    consent = driver.open("https://mb.example/a")
    assert isinstance(consent, ServicePage) and consent.consent
    assert driver.observes_pages is False


def fake_driver(profile: Profile, http: HttpLayer) -> ConsentDriver:
    """A profile's own driver, named as module:callable."""
    driver = ConsentDriver()
    driver.name = f"fake for {profile.name}"
    return driver


def test_a_profile_can_name_its_own_driver(minimal_profile: Profile) -> None:
    profile = replace(
        minimal_profile,
        consent=ConsentSettings(driver="tests.suite.test_consent_drivers:fake_driver"),
    )
    driver = make_driver(profile, HttpLayer(None))
    assert driver.name == "fake for minimal"


def test_the_approval_estimate_counts_visits_and_distinct_shared_grants() -> None:
    metas = [
        {"steps": ['the user has granted the web application offline access to "profile email"']},
        {"steps": ['the user has granted the web application offline access to "profile email"']},
        {
            "steps": [
                "a web application registered with the service",
                "the user approves the request",
            ]
        },
        {
            "steps": [
                'the user has just granted the installed application offline access to "profile"'
            ]
        },
    ]
    assert estimate_approvals(metas) == 3


@pytest.fixture
def minimal_profile(tmp_path: Path) -> Profile:
    path = tmp_path / "p.toml"
    path.write_text(
        'name = "minimal"\nbase_url = "https://mb.example"\n[user]\nusername = "alice"\n'
    )
    return load_profile(path)


# --- drivers against the bundled server ---------------------------------------------------


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with bundled_target(tmp_path_factory.mktemp("drivers")) as running:
        yield running


def _profile(target: Target, driver: str) -> Profile:
    profile = load_profile(target.profile_path)
    return replace(profile, consent=replace(profile.consent, driver=driver))


def _authorize(service: Service, profile: Profile, role: str, **extra: str) -> str:
    params: dict[str, Any] = service.authorize_params(
        profile.client(role), extra.pop("scope", "profile")
    )
    return service.authorize_url(params | extra)


def _exercise(driver: ConsentDriver, service: Service, profile: Profile) -> None:
    """What every automatic driver must do: approve, deny, show consent, out-of-band."""
    approved = driver.approve(
        _authorize(service, profile, "web", state="s-1", approval_prompt="force")
    )
    assert isinstance(approved, RedirectResult) and approved.code and approved.state == "s-1"
    assert approved.consent_shown is True
    assert approved.url and approved.url.startswith("https://client.example/callback?")

    denied = driver.deny(_authorize(service, profile, "web", approval_prompt="force"))
    assert isinstance(denied, RedirectResult) and denied.error == "access_denied"

    shown = driver.open(_authorize(service, profile, "web", approval_prompt="force"))
    assert isinstance(shown, ServicePage) and shown.consent

    refused = driver.open(
        _authorize(service, profile, "web", redirect_uri="https://attacker.example/cb")
    )
    assert isinstance(refused, ServicePage) and not refused.consent

    oob = driver.approve(
        _authorize(service, profile, "installed", redirect_uri="urn:ietf:wg:oauth:2.0:oob")
    )
    assert isinstance(oob, RedirectResult) and oob.oob and oob.code
    client = profile.client("installed")
    exchanged = service.exchange(client, oob.code, "urn:ietf:wg:oauth:2.0:oob")
    assert exchanged.status_code == 200, exchanged.text


def test_the_form_driver_gets_through_login_and_consent(target: Target) -> None:
    profile = _profile(target, "form")
    http = HttpLayer(profile.ca_file)
    driver = make_driver(profile, http)
    try:
        _exercise(driver, Service(profile, http), profile)
    finally:
        driver.close()


@pytest.mark.parametrize("kind", ["form", pytest.param("browser", marks=pytest.mark.browser)])
def test_a_driver_revokes_on_the_users_page(
    target: Target, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if kind == "browser":
        monkeypatch.setenv("MB_OAUTH_CHROMIUM", required_chromium())
    profile = _profile(target, kind)
    http = HttpLayer(profile.ca_file)
    service = Service(profile, http)
    driver = make_driver(profile, http)
    client = profile.client("installed")
    outcome = driver.approve(_authorize(service, profile, "installed", scope="profile submit_isrc"))
    assert isinstance(outcome, RedirectResult) and outcome.code
    tokens = json_body(service.exchange(client, outcome.code, client.redirect_uri)) or {}
    assert service.refresh(client, tokens["refresh_token"]).status_code == 200
    driver.revoke_manually(client.client_id, "profile submit_isrc")
    assert service.refresh(client, tokens["refresh_token"]).status_code != 200
    driver.close()


@pytest.mark.browser
def test_the_browser_driver_gets_through_login_and_consent(
    target: Target, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MB_OAUTH_CHROMIUM", required_chromium())
    profile = _profile(target, "browser")
    http = HttpLayer(profile.ca_file)
    driver = make_driver(profile, http)
    try:
        _exercise(driver, Service(profile, http), profile)
    finally:
        driver.close()
