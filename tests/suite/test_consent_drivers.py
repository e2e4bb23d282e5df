"""Consent drivers: page reading, presets, the manual dialogue, and the form and browser
drivers against a real bundled server."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from steps.consent import ConsentDriver, RedirectResult, ServicePage, make_driver
from steps.consent.anonymous import AnonymousLook
from steps.consent.base import RUN_PROMPTS, UnrecognisedPage
from steps.consent.manual import Console, ManualDriver, NoTerminal
from steps.consent.presets import PRESETS, resolve_preset
from steps.html import find_form, parse_forms
from steps.http import HttpLayer
from steps.outcomes import NotChecked
from steps.plugin import estimate_approvals
from steps.profile import ConsentSettings, Profile, load_profile
from steps.service import Service, json_body
from tests.suite.mb_pages import OOB, App, Site, serving
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


# --- the manual driver -------------------------------------------------------------------


class ScriptedConsole(Console):
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


def _manual(answers: list[str], profile: Profile) -> tuple[ManualDriver, ScriptedConsole]:
    console = ScriptedConsole(answers)
    return ManualDriver(profile, console), console


def test_the_manual_driver_reads_a_pasted_redirect_and_numbers_its_prompts(
    minimal_profile: Profile,
) -> None:
    driver, console = _manual(
        ["https://client.example/callback?code=abc&state=s1", "error"], minimal_profile
    )
    outcome = driver.approve("https://mb.example/oauth2/authorize?x=1")
    assert isinstance(outcome, RedirectResult) and (outcome.code, outcome.state) == ("abc", "s1")
    assert "[prompt 1: approve]" in console.prompts[0]
    assert "https://mb.example/oauth2/authorize?x=1" in console.prompts[0]
    driver.deny("https://mb.example/oauth2/authorize?x=2")
    assert "[prompt 2: deny]" in console.prompts[1]
    assert "left" not in " ".join(console.prompts)  # no estimate that can be wrong
    assert driver.stats == {"approve": 1, "deny": 1, "open": 0, "revoke": 0}


def test_the_manual_driver_takes_a_copied_code_or_an_error_page(minimal_profile: Profile) -> None:
    driver, console = _manual(["CoPiEdCoDe", "error", "consent", ""], minimal_profile)
    code = driver.approve("https://mb.example/a")
    assert isinstance(code, RedirectResult) and code.oob and code.code == "CoPiEdCoDe"
    page = driver.deny("https://mb.example/a")
    assert isinstance(page, ServicePage) and not page.consent
    consent = driver.open("https://mb.example/a")
    assert isinstance(consent, ServicePage) and consent.consent
    driver.revoke_manually("client-1", "profile")
    assert driver.observes_pages is False
    assert driver.stats == {"approve": 1, "deny": 1, "open": 1, "revoke": 1}
    assert driver.prompts == 4
    assert "4 prompt(s)" in driver.summary()
    before = dict(RUN_PROMPTS)
    driver.close()
    assert {k: RUN_PROMPTS[k] - before[k] for k in before} == driver.stats
    assert console.told == [f"\n{driver.summary()}\n"]


def test_the_manual_driver_takes_the_pasted_address_of_the_out_of_band_page(
    minimal_profile: Profile,
) -> None:
    driver, _ = _manual(["https://mb.example/oauth2/oob?code=Xy%2B1&state=s"], minimal_profile)
    outcome = driver.approve("https://mb.example/oauth2/authorize?redirect_uri=urn")
    assert isinstance(outcome, RedirectResult) and outcome.oob
    assert (outcome.code, outcome.state) == ("Xy+1", "s")


def test_the_console_talks_on_a_real_terminal(tmp_path: Path) -> None:
    """A pty stands for the person's terminal: one "r+" handle cannot be opened on it."""
    main, secondary = pty.openpty()
    try:
        os.write(main, b"my answer\n")
        answer = Console(tty=os.ttyname(secondary)).ask("Question?\n> ")
        shown = _read_until(main, "Question?")
    finally:
        os.close(main)
        os.close(secondary)
    assert answer == "my answer"
    assert "Question?" in shown


def _read_until(fd: int, text: str, timeout: float = 5.0) -> str:
    """What the terminal shows, read until `text` appears (echo and output come in pieces)."""
    shown = ""
    while text not in shown and select.select([fd], [], [], timeout)[0]:
        shown += os.read(fd, 1000).decode(errors="replace")
    return shown


def test_without_a_terminal_the_manual_driver_is_a_setup_error(minimal_profile: Profile) -> None:
    console = Console(tty=str(Path("/nonexistent/tty")))
    with pytest.raises(NoTerminal, match="needs a terminal") as failure:
        ManualDriver(minimal_profile, console)
    assert isinstance(failure.value, NotChecked)


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
    assert estimate_approvals(meta["steps"] for meta in metas) == 3


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


def test_the_manual_driver_asks_only_when_the_service_wants_its_user(target: Target) -> None:
    """Refusals before any login are read anonymously; a login page goes to the person."""
    profile = _profile(target, "manual")
    http = HttpLayer(profile.ca_file)
    service = Service(profile, http)
    answer = "https://client.example/callback?code=from-the-person"
    console = ScriptedConsole([answer])
    driver = make_driver(profile, http, console)

    page = driver.open(
        _authorize(service, profile, "web", redirect_uri="https://attacker.example/")
    )
    assert isinstance(page, ServicePage) and not page.consent and page.status == 400
    refused = driver.approve(_authorize(service, profile, "web", scope="profile nonsense"))
    assert isinstance(refused, RedirectResult) and refused.error == "invalid_scope"
    assert console.prompts == []

    approved = driver.approve(_authorize(service, profile, "web"))
    assert isinstance(approved, RedirectResult) and approved.code == "from-the-person"
    assert driver.stats == {"approve": 1, "deny": 0, "open": 0, "revoke": 0}


def test_a_login_form_the_preset_does_not_know_is_a_setup_error(target: Target) -> None:
    """Never the login page returned as "a service page" for error-page checks to accept."""
    profile = _profile(target, "form")
    form = {"login_form": "#sign-in"}
    profile = replace(profile, consent=replace(profile.consent, form=form))
    http = HttpLayer(profile.ca_file)
    driver = make_driver(profile, http)
    try:
        for visit in (driver.open, driver.approve, driver.deny):
            with pytest.raises(UnrecognisedPage, match="login form the preset does not recognise"):
                visit(_authorize(Service(profile, http), profile, "web"))
    finally:
        driver.close()
    assert issubclass(UnrecognisedPage, NotChecked)


# --- the musicbrainz preset against pages shaped like musicbrainz-server's -------------------


MB_APPS = [
    App(11, "mb-web-client", "Suite web app", "https://client.example/callback"),
    App(12, "mb-desktop-client", "Suite desktop app", "http://localhost/callback"),
]


@pytest.fixture(scope="module")
def mb_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Site, Path]]:
    work = tmp_path_factory.mktemp("mb-pages")
    site = Site("alice", "s3cret-pw", list(MB_APPS))
    with serving(site, work) as (base_url, ca_file):
        lines = [
            'name = "musicbrainz-server pages"',
            f'base_url = "{base_url}"',
            f'ca_file = "{ca_file}"',
            '[user]\nusername = "alice"\npassword = "s3cret-pw"',
            '[clients.web]\nclient_id = "mb-web-client"\nclient_secret = "x"',
            'redirect_uri = "https://client.example/callback"',
            '[clients.installed]\nclient_id = "mb-desktop-client"\nclient_secret = "x"',
            'redirect_uri = "http://localhost/callback"',
            '[consent]\ndriver = "form"\npreset = "musicbrainz"',
            '[consent.form.app_names]\nweb = "Suite web app"\ninstalled = "Suite desktop app"',
        ]
        (work / "profile.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        yield site, work / "profile.toml"


def _mb_driver(
    path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[ConsentDriver, Profile]:
    if kind == "browser":
        monkeypatch.setenv("MB_OAUTH_CHROMIUM", required_chromium())
    profile = load_profile(path)
    profile = replace(profile, consent=replace(profile.consent, driver=kind))
    return make_driver(profile, HttpLayer(profile.ca_file)), profile


def _mb_url(base: str, client_id: str, redirect_uri: str, **extra: str) -> str:
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri}
    return f"{base}/oauth2/authorize?" + urlencode(query | {"scope": "profile"} | extra)


@pytest.mark.parametrize("kind", ["form", pytest.param("browser", marks=pytest.mark.browser)])
def test_the_musicbrainz_preset_logs_in_on_the_authorize_page_and_decides(
    mb_site: tuple[Site, Path], kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, path = mb_site
    driver, profile = _mb_driver(path, kind, monkeypatch)
    web = ("mb-web-client", "https://client.example/callback")
    try:
        approved = driver.approve(_mb_url(profile.base_url, *web, state="s 1"))
        assert isinstance(approved, RedirectResult) and approved.code in site.codes
        assert approved.state == "s 1" and approved.consent_shown is True
        denied = driver.deny(_mb_url(profile.base_url, *web))
        assert isinstance(denied, RedirectResult) and denied.error == "access_denied"
        shown = driver.open(_mb_url(profile.base_url, *web))
        assert isinstance(shown, ServicePage) and shown.consent
        refused = driver.open(_mb_url(profile.base_url, "mb-web-client", "https://evil.example/"))
        assert isinstance(refused, ServicePage) and not refused.consent
        oob = driver.approve(_mb_url(profile.base_url, "mb-desktop-client", OOB))
        assert isinstance(oob, RedirectResult) and oob.oob and oob.code in site.codes
    finally:
        driver.close()


@pytest.mark.parametrize("kind", ["form", pytest.param("browser", marks=pytest.mark.browser)])
def test_the_musicbrainz_preset_revokes_through_the_link_and_its_confirmation(
    mb_site: tuple[Site, Path], kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    site, path = mb_site
    driver, profile = _mb_driver(path, kind, monkeypatch)
    try:
        for client_id, uri in (("mb-web-client", "https://client.example/callback"),) * 2:
            driver.approve(_mb_url(profile.base_url, client_id, uri, scope="profile tag"))
        driver.approve(_mb_url(profile.base_url, "mb-desktop-client", "http://localhost/callback"))
        assert (11, 5) in site.grants and (12, 1) in site.grants
        driver.revoke_manually("mb-web-client", "profile tag")
        assert 11 not in {row for row, _ in site.grants}
        assert (12, 1) in site.grants  # the other application keeps its access
    finally:
        driver.close()


def test_the_musicbrainz_preset_needs_the_display_names_to_revoke(
    mb_site: tuple[Site, Path],
) -> None:
    _, path = mb_site
    profile = load_profile(path)
    profile = replace(profile, consent=replace(profile.consent, form={}))
    driver = make_driver(profile, HttpLayer(profile.ca_file))
    try:
        driver.approve(
            _mb_url(profile.base_url, "mb-web-client", "https://client.example/callback")
        )
        with pytest.raises(NotChecked, match=r"app_names\] web"):
            driver.revoke_manually("mb-web-client")
    finally:
        driver.close()


def test_the_old_musicbrainz_login_selector_is_stuck_and_says_so(
    mb_site: tuple[Site, Path],
) -> None:
    _, path = mb_site
    profile = load_profile(path)
    stale = dict(profile.consent.form) | {"login_form": 'form[action^="/login"]'}
    profile = replace(profile, consent=replace(profile.consent, form=stale))
    driver = make_driver(profile, HttpLayer(profile.ca_file))
    url = _mb_url(profile.base_url, "mb-web-client", "https://client.example/callback")
    try:
        with pytest.raises(
            UnrecognisedPage, match=r"login form .* at https://\S+/oauth2/authorize"
        ):
            driver.open(url)
    finally:
        driver.close()


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
