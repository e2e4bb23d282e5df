"""The form consent driver against the bundled server: login, consent, out-of-band, revoking
on the user's page (also through the browser driver), and a login form it does not know."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from steps.consent import RedirectResult
from steps.consent.base import UnrecognisedPage
from steps.http.readers import json_body
from steps.outcomes import NotChecked
from tests.suite.consent_support import (
    authorize_url,
    driver_profile,
    driving,
    exercise,
)
from tests.suite.target import Target
from tests.support.browser import required_chromium


def test_the_form_driver_gets_through_login_and_consent(target: Target) -> None:
    profile = driver_profile(target, "form")
    with driving(profile) as (service, driver):
        exercise(driver, service, profile)


@pytest.mark.parametrize("kind", ["form", pytest.param("browser", marks=pytest.mark.browser)])
def test_a_driver_revokes_on_the_users_page(
    target: Target, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if kind == "browser":
        monkeypatch.setenv("MB_OAUTH_CHROMIUM", required_chromium())
    profile = driver_profile(target, kind)
    client = profile.client("installed")
    with driving(profile) as (service, driver):
        outcome = driver.approve(
            authorize_url(service, profile, "installed", scope="profile submit_isrc")
        )
        assert isinstance(outcome, RedirectResult) and outcome.code
        tokens = json_body(service.exchange(client, outcome.code, client.redirect_uri)) or {}
        assert service.refresh(client, tokens["refresh_token"]).status_code == 200
        driver.revoke_manually(client.client_id, "profile submit_isrc")
        assert service.refresh(client, tokens["refresh_token"]).status_code != 200


def test_a_login_form_the_preset_does_not_know_is_a_setup_error(target: Target) -> None:
    """Never the login page returned as "a service page" for error-page checks to accept."""
    profile = driver_profile(target, "form")
    form = {"login_form": "#sign-in"}
    profile = replace(profile, consent=replace(profile.consent, form=form))
    with driving(profile) as (service, driver):
        for visit in (driver.open, driver.approve, driver.deny):
            with pytest.raises(UnrecognisedPage, match="login form the preset does not recognise"):
                visit(authorize_url(service, profile, "web"))
    assert issubclass(UnrecognisedPage, NotChecked)


def test_a_preset_that_misses_the_login_form_gives_could_not_be_checked(
    target: Target, tmp_path: Path
) -> None:
    """A whole run: never pass or fail. The preflight stops it (exit 2) where it runs; a
    scenario whose driver meets the form is "could not be checked" (exit 3)."""
    text = target.profile_path.read_text(encoding="utf-8")
    profile = tmp_path / "profile.toml"
    profile.write_text(text + '[consent.form]\nlogin_form = "#sign-in"\n', encoding="utf-8")
    rules = ("AUTHZ-ERR-ACCESS-DENIED", "AUTHZ-APPROVAL-AUTO")
    command = [str(Path(sys.executable).parent / "mb-oauth-conformance"), "--profile", str(profile)]
    command += ["--report-dir", str(tmp_path / "report")]
    command += [arg for rule in rules for arg in ("--rule", rule)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    said = done.stdout + done.stderr
    assert done.returncode in (2, 3), said[-3000:]
    if done.returncode == 2:  # stopped before any scenario: no verdict at all
        assert "login form the preset does not recognise" in said
        assert not (tmp_path / "report" / "verdicts.json").exists()
        return
    verdicts = json.loads((tmp_path / "report" / "verdicts.json").read_text(encoding="utf-8"))
    by_rule = {rule["id"]: rule for rule in verdicts["rules"]}
    assert {rule: by_rule[rule]["verdict"] for rule in rules} == dict.fromkeys(
        rules, "could not be checked"
    )
    messages = [s.get("message", "") for r in rules for s in by_rule[r]["scenarios"]]
    assert all("login form the preset does not recognise" in m for m in messages), messages
