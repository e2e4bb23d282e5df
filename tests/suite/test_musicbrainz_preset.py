"""The musicbrainz preset against pages shaped like musicbrainz-server's, through the form
and browser drivers."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlencode

import pytest

from steps.consent import ConsentDriver, RedirectResult, ServicePage, make_driver
from steps.consent.base import UnrecognisedPage
from steps.http.layer import HttpLayer
from steps.outcomes import NotChecked
from steps.profiles.profile import TargetProfile, load_profile
from tests.suite.mb_pages import OOB, App, Site, serving
from tests.support.browser import required_chromium

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
) -> tuple[ConsentDriver, TargetProfile]:
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
