"""The built-in `metabrainz` consent driver against the foreign-style provider, whose pages have
the shapes observed on metabrainz.org (reference/metabrainz-behaviour.md, "The pages a person
... goes through"): log in, approve, deny, the error page, a refused login, manual revocation
through the route that works; and a page of any other shape is never read as an answer: the
scenario could not be checked, or the run stops at the preflight."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from steps.consent import RedirectResult, ServicePage, make_driver
from steps.consent.base import DriverError, UnrecognisedPage
from steps.consent.metabrainz import MetaBrainzDriver
from steps.consent.react_props import page_props
from steps.http.layer import HttpLayer
from steps.http.readers import json_body
from steps.outcomes import NotChecked
from steps.profiles.profile import TargetProfile, User, load_profile
from steps.run.preflight import PreflightError, run_preflight
from steps.scenario.service import Service
from tests.suite.foreign.target import ROOT, ForeignTarget, foreign_target

pytestmark = pytest.mark.slow


class Visit:
    """A fresh browsing session at the provider through the built-in driver."""

    def __init__(self, profile: TargetProfile) -> None:
        self.profile = profile
        self.http = HttpLayer(profile.ca_file)
        self.driver = make_driver(profile, self.http)
        self.service = Service(profile, self.http)

    def url(self, role: str = "web", scope: str = "profile", **params: str) -> str:
        query = self.service.authorize_params(self.profile.client(role), scope) | params
        return self.service.authorize_url(query)

    def paths(self) -> list[tuple[str, str]]:
        """The requests made so far: method and path with query."""
        return [(e.method, _path(e.url)) for e in self.http.exchanges]

    def close(self) -> None:
        self.driver.close()
        self.http.close()


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + ("?" + parts.query if parts.query else "")


@pytest.fixture(scope="module")
def provider(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForeignTarget]:
    with foreign_target(tmp_path_factory.mktemp("mb-driver")) as target:
        yield target


@pytest.fixture
def visit(provider: ForeignTarget) -> Iterator[Visit]:
    opened = Visit(load_profile(provider.profile_path))
    yield opened
    opened.close()


def test_the_profile_alone_selects_the_driver(visit: Visit) -> None:
    assert visit.profile.consent.driver == "metabrainz"
    assert isinstance(visit.driver, MetaBrainzDriver)


def test_it_logs_in_at_the_login_page_and_approves_with_the_pages_token(visit: Visit) -> None:
    approved = visit.driver.approve(visit.url(state="s 1", approval_prompt="force"))
    assert isinstance(approved, RedirectResult) and approved.code and approved.consent_shown
    assert approved.state == "s 1" and approved.url and approved.url.endswith("#_")
    assert dict(approved.fragment) == {"_": ""} and approved.fragment_code is None
    methods_paths = visit.paths()
    assert methods_paths[0][0] == "GET" and methods_paths[0][1].startswith("/oauth2/authorize?")
    assert methods_paths[1][1].startswith("/login?next=%2Foauth2%2Fauthorize%3F")
    assert methods_paths[2] == ("POST", methods_paths[1][1])  # the login form posts back to it
    login = visit.http.exchanges[2].request_body
    assert "remember_me=y" in login and "csrf_token=" in login and "username=alice" in login
    allow = visit.http.exchanges[-1]
    assert allow.method == "POST" and "confirm=yes" in allow.request_body
    assert _path(allow.url).startswith("/oauth2/authorize?")  # the page's submission_url


def test_it_denies_through_the_cancel_link_without_a_request(visit: Visit) -> None:
    denied = visit.driver.deny(visit.url(state="s2", approval_prompt="force"))
    assert isinstance(denied, RedirectResult) and denied.consent_shown
    assert dict(denied.params) == {"error": "access_denied"}  # the provider drops state
    posts = [path for method, path in visit.paths() if method == "POST"]
    assert len(posts) == 1 and posts[0].startswith("/login?")  # the login; no consent form


def test_it_tells_the_consent_page_from_the_error_page(visit: Visit) -> None:
    consent = visit.driver.open(visit.url(approval_prompt="force"))
    assert isinstance(consent, ServicePage) and consent.consent
    assert consent.headers["x-frame-options"] == "DENY"
    unknown = visit.url(client_id="no-such-client")
    error = visit.driver.open(unknown)
    assert isinstance(error, ServicePage) and not error.consent and error.status == 200
    assert (page_props(error.html) or {})["error"]["name"] == "invalid_client"
    refused = visit.driver.approve(visit.url(scope="profile", redirect_uri="https://evil.example/"))
    assert isinstance(refused, ServicePage) and not refused.consent


def test_a_refused_login_says_why_and_is_a_premise_not_a_verdict(provider: ForeignTarget) -> None:
    profile = load_profile(provider.profile_path)
    wrong = Visit(replace(profile, user=User("alice", "not-the-password")))
    try:
        with pytest.raises(DriverError, match="was refused: password: Invalid username") as error:
            wrong.driver.check_login(wrong.url())
        assert isinstance(error.value, NotChecked)
        posts = [path for method, path in wrong.paths() if method == "POST"]
        assert len(posts) == 1  # tried once, never again in the same walk
        with pytest.raises(PreflightError, match="cannot log in through the metabrainz driver"):
            run_preflight(wrong.profile)
    finally:
        wrong.close()


def _grant(visit: Visit, role: str) -> dict[str, str]:
    approved = visit.driver.approve(visit.url(role, "profile", approval_prompt="force"))
    assert isinstance(approved, RedirectResult) and approved.code, approved
    client = visit.profile.client(role)
    body = json_body(visit.service.exchange(client, approved.code, client.redirect_uri))
    assert body and body.get("refresh_token"), body
    return body


def test_it_revokes_through_the_route_that_works(visit: Visit) -> None:
    installed, web = visit.profile.client("installed"), visit.profile.client("web")
    tokens, others = _grant(visit, "installed"), _grant(visit, "web")
    broken = visit.profile.base_url + f"/profile/application/revoke/{installed.client_id}/user"
    assert visit.http.request("POST", broken, client=visit.driver.client).status_code == 404
    visit.driver.revoke_manually(installed.client_id)
    revoke = visit.http.exchanges[-1]
    assert (revoke.method, _path(revoke.url)) == (
        "POST",
        f"/profile/applications/revoke/{installed.client_id}/user",
    )
    assert visit.service.refresh(installed, tokens["refresh_token"]).status_code == 400
    assert visit.service.token_refused(tokens["access_token"])
    assert visit.service.refresh(web, others["refresh_token"]).status_code == 200  # untouched


def test_an_application_whose_access_token_was_revoked_is_not_listed(visit: Visit) -> None:
    installed = visit.profile.client("installed")
    tokens = _grant(visit, "installed")
    assert visit.service.revoke(installed, tokens["access_token"]).status_code == 200
    with pytest.raises(DriverError, match=r"is not listed on .*/profile/applications"):
        visit.driver.revoke_manually(installed.client_id)
    assert visit.service.refresh(installed, tokens["refresh_token"]).status_code == 200


def test_a_form_preset_for_metabrainz_points_to_the_driver(visit: Visit) -> None:
    consent = replace(visit.profile.consent, driver="form", preset="metabrainz")
    with pytest.raises(ValueError, match=r'consent\.driver = "metabrainz"'):
        make_driver(replace(visit.profile, consent=consent), visit.http)


# --- pages of another shape: never a verdict ------------------------------------------------


@pytest.mark.parametrize(
    ("redesigned", "action"),
    [
        ("login", "check_login"),
        ("consent", "approve"),
        ("error", "open_unknown_client"),
        ("applications", "revoke"),
    ],
)
def test_a_page_of_another_shape_stops_the_driver(
    tmp_path: Path, redesigned: str, action: str
) -> None:
    with foreign_target(tmp_path, (redesigned,)) as target:
        visit = Visit(load_profile(target.profile_path))
        try:
            with pytest.raises(UnrecognisedPage, match="does not recognise the page at"):
                if action == "check_login":
                    visit.driver.check_login(visit.url())
                elif action == "approve":
                    visit.driver.approve(visit.url(approval_prompt="force"))
                elif action == "open_unknown_client":
                    visit.driver.open(visit.url(client_id="no-such-client"))
                else:
                    visit.driver.revoke_manually(visit.profile.client("web").client_id)
        finally:
            visit.close()


def _run(profile: Path, report_dir: Path, *options: str) -> tuple[int, str, dict[str, str]]:
    command = [sys.executable, "-c", "from steps.runner import main; main()"]
    command += ["--profile", str(profile), "--report-dir", str(report_dir), *options]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    verdicts_file = report_dir / "verdicts.json"
    rules = json.loads(verdicts_file.read_text())["rules"] if verdicts_file.exists() else []
    return done.returncode, done.stdout + done.stderr, {r["id"]: r["verdict"] for r in rules}


@pytest.mark.parametrize("redesigned", ["login", "consent"])
def test_a_login_or_consent_page_of_another_shape_stops_the_run_at_the_preflight(
    tmp_path: Path, redesigned: str
) -> None:
    with foreign_target(tmp_path, (redesigned,)) as target:
        code, output, verdicts = _run(target.profile_path, tmp_path / "report")
    assert code == 2, output[-2000:]
    assert "cannot log in through the metabrainz driver" in output
    assert "does not recognise the page" in output
    assert not {rule for rule, verdict in verdicts.items() if verdict in ("pass", "fail")}


def test_an_error_or_applications_page_of_another_shape_is_could_not_be_checked(
    tmp_path: Path,
) -> None:
    with foreign_target(tmp_path, ("error", "applications")) as target:
        rules = ("AUTHZ-ERR-BAD-CLIENT", "REVOKE-MANUAL")
        options = [f"--rule={rule}" for rule in rules] + ["--run-lasting"]
        code, output, verdicts = _run(target.profile_path, tmp_path / "report", *options)
    assert code == 3, output[-2000:]
    assert {rule: verdicts[rule] for rule in rules} == dict.fromkeys(rules, "could not be checked")
    assert "does not recognise the page" in output


@pytest.mark.parametrize("preset", ["bundled", "musicbrainz"])
def test_the_form_driver_on_these_pages_stops_the_preflight_saying_they_have_no_form(
    provider: ForeignTarget, preset: str
) -> None:
    """The form driver meets React shells: no login form to fill in. The preflight must really
    log in, so it stops the run (exit 2 before any scenario) instead of letting every scenario
    end "could not be checked", and names the driver that reads these pages."""
    profile = load_profile(provider.profile_path)
    form = replace(profile, consent=replace(profile.consent, driver="form", preset=preset))
    with pytest.raises(PreflightError) as stopped:
        run_preflight(form)
    said = str(stopped.value)
    assert "found no login form on the way from the authorization page" in said
    assert "/login?next=" in said and "React shell with no HTML form" in said
    assert 'use driver = "metabrainz"' in said
