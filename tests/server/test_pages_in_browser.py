"""Every page a person meets on the bundled server, looked at in the system Chromium: a
screenshot at a desktop and a phone width (kept in reports/pages/) and axe-core's check, with
no serious or critical finding allowed.

One browser and the session's one server; the tour walks the pages in the order a person
meets them, so one login serves every page behind it.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode

import pytest

from tests.support import axe
from tests.support.page_check import PageCheck, artefacts_dir
from tests.support.world import App, World

from .browsing import browser, log_in, page
from .flows import authorize_params, exchange

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

__all__ = ["browser", "page"]  # fixtures, used by name

pytestmark = pytest.mark.browser

OOB = "urn:ietf:wg:oauth:2.0:oob"


def _logged_out_pages(page: Page, world: World, check: PageCheck) -> None:
    base = world.server.base_url
    page.goto(base + "/")
    check.look(page, "Home, logged out")
    page.goto(base + "/login")
    check.look(page, "Log in")
    log_in(page, world.username, "not the password")
    page.wait_for_selector("#error-message")
    check.look(page, "Log in, failed")


def _authorization_pages(page: Page, world: World, app: App, check: PageCheck) -> None:
    base = world.server.base_url
    params = authorize_params(app, scope="profile tag", redirect_uri=OOB)
    page.goto(base + "/oauth2/authorize?" + urlencode(params))
    assert "/login" in page.url
    check.look(page, "Log in from an authorization link")
    log_in(page, world.username, world.password)
    page.wait_for_selector("#consent-form")
    check.look(page, "Consent")
    page.click("#consent-form button[value=approve]")
    page.wait_for_selector("#oob-code")
    check.look(page, "Out-of-band code")
    code = page.inner_text("#oob-code").strip()
    # Until the application uses the code, it is not listed: the page says why.
    page.goto(base + "/account/authorized")
    check.look(page, "Authorized applications, code not used yet")
    assert "pasted the code" in page.inner_text("#when-listed")
    # The application takes the code: from now on the user has authorized it.
    with world.http() as http:
        answer = exchange(http, app, code, redirect_uri=OOB)
    assert answer.status_code == 200, answer.text
    page.goto(base + "/oauth2/authorize?" + urlencode({**params, "client_id": "no-such-app"}))
    check.look(page, "Authorization error")
    _assert_next_step(page, "tell its developer")
    page.goto(base + "/oauth2/authorize?" + urlencode({**params, "scope": "no-such-scope"}))
    check.look(page, "Authorization failed, out of band")
    _assert_next_step(page, "Go back to the application")
    page.goto(base + "/oauth2/oob?code=used-or-unknown")
    check.look(page, "Out-of-band page without a code")
    _assert_next_step(page, "Go back to the application")


def _assert_next_step(page: Page, words: str) -> None:
    """An error page tells the person what to do next, and links home."""
    step = page.locator("#next-step")
    assert words in step.inner_text(), step.inner_text()
    assert step.locator('a[href="/"]').count() == 1


def _account_pages(page: Page, world: World, app_name: str, check: PageCheck) -> None:
    base = world.server.base_url
    page.goto(base + "/")
    check.look(page, "Home, logged in")
    page.goto(base + f"/user/{world.username}")
    check.look(page, "User profile")
    page.goto(base + "/account/authorized")
    check.look(page, "Authorized applications")
    row = f'tr.authorization:has(td > bdi:text-is("{app_name}"))'
    page.click(f"{row} details.confirm summary")
    check.look(page, "Revoke access, asking to confirm")
    page.click(f"{row} details[open] button[type=submit]")
    page.wait_for_selector("#notice")
    check.look(page, "Access revoked")
    page.goto(base + "/no/such/page")
    check.look(page, "Not found, logged in")
    page.goto(base + "/user/no-such-user")
    check.look(page, "No such user")


def _register(page: Page, name: str, redirect_uri: str) -> None:
    page.fill("#name", name)
    page.fill("#redirect_uri", redirect_uri)
    page.click("#register-form button[type=submit]")


def _assert_beside(page: Page, field: str) -> None:
    """A refusal's reason sits right above its field, which names it (aria-describedby), is
    marked invalid and has the focus: the person starts typing where the problem is."""
    assert page.get_attribute(field, "aria-describedby") == "error-message"
    assert page.get_attribute(field, "aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == field.lstrip("#")
    error = page.locator("#error-message").bounding_box()
    box = page.locator(field).bounding_box()
    assert error is not None and box is not None
    assert 0 <= box["y"] - (error["y"] + error["height"]) < 16, (error, box)


def _registration_pages(page: Page, world: World, check: PageCheck) -> str:
    """Register an application (refused, then accepted); its name, for the next pages."""
    page.goto(world.server.base_url + "/account/applications")
    check.look(page, "Registered applications")
    _register(page, "Broken", "ftp://tagger.example/callback")
    page.wait_for_selector("#error-message")
    check.look(page, "Application refused")
    _assert_beside(page, "#redirect_uri")
    _register(page, "Tagger\u202e", "https://tagger.example/callback")
    page.wait_for_selector("#error-message")
    check.look(page, "Application refused, its name")
    _assert_beside(page, "#name")
    assert "U+202E" in page.inner_text("#error-message")
    name = f"Tagger {secrets.token_hex(3)}"
    _register(page, name, "https://tagger.example/callback")
    page.wait_for_selector("#new-credentials")
    check.look(page, "Application registered, secret shown")
    return name


def _application_pages(page: Page, name: str, check: PageCheck) -> None:
    row = f'tr.application:has(td > bdi:text-is("{name}"))'
    page.click(f"{row} details.confirm:has-text('Reset secret') summary")
    check.look(page, "Reset secret, asking to confirm")
    page.click(f"{row} details[open] button[type=submit]")
    page.wait_for_selector("#new-credentials")
    check.look(page, "Secret reset, new secret shown")
    page.click(f"{row} a[href$='/edit']")
    page.wait_for_selector("#edit-form")
    check.look(page, "Edit application")
    page.fill("#redirect_uri", "ftp://tagger.example/callback")
    page.click("#edit-form button[type=submit]")
    page.wait_for_selector("#error-message")
    check.look(page, "Edit application, refused")
    _assert_beside(page, "#redirect_uri")
    page.fill("#redirect_uri", "https://tagger.example/done")
    page.click("#edit-form button[type=submit]")
    page.wait_for_selector("#notice")
    check.look(page, "Application saved")
    page.click(f"{row} details.confirm:has-text('Delete') summary")
    check.look(page, "Delete application, asking to confirm")
    page.click(f"{row} details[open] button[type=submit]")
    page.wait_for_selector("#notice")
    check.look(page, "Application deleted")


def _logging_out(page: Page, world: World, check: PageCheck) -> None:
    page.click("header form[action='/logout'] button")
    page.wait_for_selector("header a[href^='/login']")
    check.look(page, "Logged out")
    page.goto(world.server.base_url + "/no/such/page")
    check.look(page, "Not found, logged out")


def test_every_page_a_person_meets_is_accessible(world: World, page: Page) -> None:
    # An application of its own: the tour revokes its access without touching other tests'.
    app_name = f"Page tour {secrets.token_hex(3)}"
    made = world.server.add_app(world.username, app_name, "public", "http://localhost/callback")
    app = App(made["client_id"], made["client_secret"], "http://localhost/callback", "public")
    check = PageCheck(artefacts_dir())
    _logged_out_pages(page, world, check)
    _authorization_pages(page, world, app, check)
    _account_pages(page, world, app_name, check)
    name = _registration_pages(page, world, check)
    _application_pages(page, name, check)
    _logging_out(page, world, check)
    blocking = check.blocking()
    assert not blocking, f"{len(blocking)} serious or critical findings:\n" + "\n".join(blocking)


# A page that breaks what axe must catch: no language, no title, an image without a text
# alternative, an unlabelled field, grey on grey, a line that makes a phone scroll sideways;
# and the same page made right.
INACCESSIBLE = """<!DOCTYPE html><html><head></head><body>
<img src="/logo.png"><form><input type="text" name="q"></form>
<p style="color:#bbb;background:#ccc">Faint text</p>
<pre>https://pages.test/a/line/that/never/wraps/and/is/far/too/long/for/a/phone</pre>
</body></html>"""
ACCESSIBLE = """<!DOCTYPE html><html lang="en"><head><title>Fine</title></head><body>
<main><h1>Fine</h1><img src="/logo.png" alt="Logo"><form><label for="q">Search</label>
<input type="text" id="q" name="q"></form><p>Plain text</p></main></body></html>"""


def _serve(route: Route) -> None:
    bad = route.request.url.endswith("/inaccessible")
    route.fulfill(content_type="text/html", body=INACCESSIBLE if bad else ACCESSIBLE)


def test_the_check_catches_an_inaccessible_page(page: Page, tmp_path: Path) -> None:
    page.route("https://pages.test/**", _serve)
    check = PageCheck(tmp_path)
    page.goto("https://pages.test/inaccessible")
    bad = check.look(page, "Inaccessible")
    page.goto("https://pages.test/accessible")
    good = check.look(page, "Accessible")
    caught = {finding.rule for finding in axe.blocking(bad.findings)}
    expected = {"html-has-lang", "document-title", "image-alt", "label", "color-contrast"}
    assert {*expected, "reflow"} <= caught
    assert axe.blocking(good.findings) == []
    assert len(check.blocking()) == len(axe.blocking(bad.findings))
    shots = sorted(tmp_path.glob("*.png"))
    assert [shot.name for shot in shots] == sorted(bad.screenshots + good.screenshots)
    assert all(shot.read_bytes().startswith(b"\x89PNG") for shot in shots)
