"""Consent pages as the drivers read them: forms, presets as CSS, the anonymous look at
refusals before any login, choosing a driver, and the approvals estimate."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from steps.consent import ConsentDriver, RedirectResult, ServicePage, make_driver
from steps.consent.anonymous import AnonymousLook
from steps.consent.presets import PRESETS, resolve_preset
from steps.http.html import find_form, parse_forms
from steps.http.layer import HttpLayer
from steps.profiles.profile import ConsentSettings, TargetProfile
from tests.suite.consent_support import (
    minimal_profile_at,
)


@pytest.fixture
def minimal_profile(tmp_path: Path) -> TargetProfile:
    return minimal_profile_at(tmp_path)


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


@pytest.mark.parametrize(
    "selector", ["#login-form", 'form[action^="/login"]', 'form:has([name="password"])']
)
def test_login_form_selectors(selector: str) -> None:
    form = find_form(PAGE, selector)
    assert form is not None and form.attrs["id"] == "login-form"


@pytest.mark.parametrize("selector", ['form[name="confirm"]', ".revoke-form", "[value=app]"])
def test_consent_form_selectors(selector: str) -> None:
    form = find_form(PAGE, selector)
    assert form is not None and form.field("client_id") == "app"


def test_a_submission_fills_fields_and_names_the_button() -> None:
    form = find_form(PAGE, 'form[name="confirm"]')
    assert form is not None
    assert form.submission(form.button('[name="confirm.submit"][value="1"]'), extra="x") == [
        ("client_id", "app"),
        ("extra", "x"),
        ("confirm.submit", "1"),
    ]
    with pytest.raises(LookupError):
        form.button('[name="confirm.cancel"]')


def test_presets_take_overrides_and_refuse_unknown_keys() -> None:
    assert resolve_preset("bundled", {"login_path": "/signin"}).login_path == "/signin"
    with pytest.raises(ValueError, match="unknown consent preset keys"):
        resolve_preset("bundled", {"login_pth": "/x"})
    with pytest.raises(ValueError, match="unknown consent preset"):
        resolve_preset("keycloak")
    assert PRESETS["musicbrainz"].verified is False


@pytest.mark.parametrize(
    ("key", "old", "css"),
    [
        ("login_form", "field:password", 'form:has([name="password"])'),
        ("consent_form", "name:confirm", 'form[name="confirm"]'),
        ("revoke_form", "method:post", 'form[method="post" i]'),
        ("approve_button", "decision=approve", '[name="decision"][value="approve"]'),
        ("revoke_link", "/revoke-access/", 'a[href*="/revoke-access/"]'),
        ("oob_code", r"<code>([^<]+)</code>", "a CSS selector"),
    ],
)
def test_presets_in_the_former_syntax_are_refused_with_their_css(
    key: str, old: str, css: str
) -> None:
    with pytest.raises(ValueError, match="former selector syntax") as refused:
        resolve_preset("bundled", {key: old})
    assert css in str(refused.value)
    resolve_preset("bundled", {key: css} if key != "oob_code" else {key: "code"})


def test_a_preset_selector_that_is_not_css_is_named() -> None:
    with pytest.raises(ValueError, match="consent_form = 'form\\[' is not a CSS selector"):
        resolve_preset("bundled", {"consent_form": "form["})


@pytest.mark.parametrize(
    ("location", "decided"),
    [
        ("https://app.example/cb?error=invalid_scope&state=s", True),
        ("https://app.example/cb?error=login_required", False),
        ("https://app.example/cb?error=access_denied", False),
        ("https://app.example/cb?code=anonymous", False),
        ("https://app.example/cb", False),
    ],
)
def test_an_anonymous_redirect_decides_only_a_refusal_of_the_request(
    location: str, decided: bool
) -> None:
    outcome = AnonymousLook._redirect(location)
    assert (outcome is not None) == decided
    if outcome is not None:
        assert isinstance(outcome, RedirectResult) and outcome.consent_shown is False


@pytest.mark.parametrize(
    ("status", "body", "decided"),
    [
        (400, "<p>Unknown client</p>", True),
        (500, "<p>Oops</p>", True),
        (200, "<p>Hello</p>", False),
        (401, "<p>Log in first</p>", False),
        (429, "<p>Slow down</p>", False),
        (400, '<form method="post"><input type="password" name="p"></form>', False),
    ],
)
def test_an_anonymous_page_decides_only_an_error_page_without_login(
    status: int, body: str, decided: bool
) -> None:
    request = httpx.Request("GET", "https://mb.example/oauth2/authorize")
    outcome = AnonymousLook._page(httpx.Response(status, text=body, request=request))
    assert (outcome is not None) == decided
    if outcome is not None:
        assert isinstance(outcome, ServicePage) and outcome.status == status
        assert not outcome.consent


def fake_driver(profile: TargetProfile, http: HttpLayer) -> ConsentDriver:
    """A profile's own driver, named as module:callable."""
    driver = ConsentDriver()
    driver.name = f"fake for {profile.name}"
    return driver


def test_a_profile_can_name_its_own_driver(minimal_profile: TargetProfile) -> None:
    profile = replace(
        minimal_profile,
        consent=ConsentSettings(driver="tests.suite.test_consent_presets:fake_driver"),
    )
    driver = make_driver(profile, HttpLayer(None))
    assert driver.name == "fake for minimal"
