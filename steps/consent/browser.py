"""The `browser` driver: the system Chromium through Playwright (never a downloaded browser).

Playwright is imported only when this driver is chosen, so the suite runs without it."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from steps.consent.base import (
    ConsentDriver,
    DriverError,
    Outcome,
    RedirectResult,
    ServicePage,
    UnrecognisedPage,
)
from steps.consent.presets import Preset, app_name
from steps.http.evidence import Exchange
from steps.http.html import describe_forms, revoke_links, text_of
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MAX_STEPS = 6


def chromium_path(settings: dict[str, Any] | None = None) -> str:
    """The system Chromium: profile setting, then MB_OAUTH_CHROMIUM, then /usr/bin/chromium."""
    configured = (settings or {}).get("executable_path")
    return str(configured or os.environ.get("MB_OAUTH_CHROMIUM") or "/usr/bin/chromium")


class BrowserDriver(ConsentDriver):
    """Drives real pages; the redirect back to the application is caught as the browser tries
    to follow it (nothing needs to listen there)."""

    name = "browser"

    def __init__(
        self, profile: TargetProfile, http: HttpLayer, preset: Preset, settings: dict[str, Any]
    ) -> None:
        super().__init__()
        from playwright.sync_api import sync_playwright  # lazy: optional dependency

        self.profile, self.preset = profile, preset
        self._http = http
        origin = urlsplit(profile.base_url)
        self._origin = (origin.scheme, origin.netloc)
        self._pw = sync_playwright().start()
        self._browser = self._pw.chromium.launch(
            executable_path=chromium_path(settings),
            args=CHROMIUM_ARGS,
            headless=bool(settings.get("headless", True)),
        )
        self._context = self._browser.new_context(ignore_https_errors=True)
        self._page = self._fresh_page()
        self._captured: str | None = None
        self._last: tuple[int, dict[str, str]] = (0, {})

    def open(self, authorize_url: str) -> Outcome:
        """What the logged-in user sees (in a fresh tab: a failed redirect leaves the old one
        navigating to an error page)."""
        self._page.close()
        self._page = self._fresh_page()
        outcome = self._walk(lambda: self._page.goto(authorize_url))
        return outcome.with_consent(False) if isinstance(outcome, RedirectResult) else outcome

    def approve(self, authorize_url: str) -> Outcome:
        """Click approve on the consent page when it is shown."""
        return self._decide(authorize_url, self.preset.approve_button)

    def deny(self, authorize_url: str) -> Outcome:
        """Click deny on the consent page."""
        return self._decide(authorize_url, self.preset.deny_button)

    def revoke_manually(self, client_id: str, scope: str | None = None) -> None:
        """Click the revoke button of every matching grant on the user's page."""
        url = self.profile.base_url + self.preset.authorized_apps_path
        self.open(url)
        if self.preset.revoke_link:
            self._revoke_by_links(client_id)
            return
        revoked = 0
        while (form := self._revoke_form(client_id, scope)) is not None:
            self._disclose(form)
            self._act(form.locator('[type="submit"], button').first.click)
            self._walk(lambda: self._page.goto(url))
            revoked += 1
        if not revoked:
            raise DriverError(f"no revoke form for client {client_id} on {url}")

    def _revoke_by_links(self, client_id: str) -> None:
        """Rows name the application: follow each of its revoke links and confirm."""
        name = app_name(self.profile, self.preset, client_id)
        page_url = self._page.url
        links = revoke_links(self._page.content(), page_url, name, self.preset.revoke_link)
        if not links:
            raise DriverError(f"no revoke link for the application {name!r} on {page_url}")
        for link in links:
            self._walk(lambda link=link: self._page.goto(link))
            form = self._page.locator(self.preset.revoke_form).first
            clickable = self.preset.revoke_button or '[type="submit"], button'
            self._act(form.locator(clickable).first.click)

    def _revoke_form(self, client_id: str, scope: str | None) -> Any:
        forms = self._page.locator(self.preset.revoke_form)
        for index in range(forms.count()):
            form = forms.nth(index)
            if self._field(form, self.preset.revoke_client_field) != client_id:
                continue
            listed = self._field(form, self.preset.revoke_scope_field)
            if scope is None or listed is None or set(listed.split()) == set(scope.split()):
                return form
        return None

    @staticmethod
    def _disclose(form: Any) -> None:
        """A form behind a confirmation disclosure (<details>): open it as a person would."""
        summary = form.locator("xpath=ancestor::details[not(@open)][1]/summary")
        if summary.count():
            summary.first.click()

    @staticmethod
    def _field(form: Any, name: str) -> str | None:
        field = form.locator(f'[name="{name}"]')
        return field.first.get_attribute("value") if field.count() else None

    def close(self) -> None:
        """Shut the browser down."""
        self._context.close()
        self._browser.close()
        self._pw.stop()

    def _decide(self, authorize_url: str, button: str) -> Outcome:
        outcome = self.open(authorize_url)
        if not isinstance(outcome, ServicePage) or not outcome.consent:
            return outcome
        self.used_one()
        form = self._page.locator(self.preset.consent_form).first
        result = self._walk(lambda: form.locator(button).first.click())
        return result.with_consent(True) if isinstance(result, RedirectResult) else result

    def _fresh_page(self) -> Any:
        page = self._context.new_page()
        page.on("request", self._on_request)
        page.on("response", self._on_response)
        return page

    def _is_service(self, url: str) -> bool:
        parts = urlsplit(url)
        return (parts.scheme, parts.netloc) == self._origin

    def _on_request(self, request: Any) -> None:
        if request.is_navigation_request() and not self._is_service(request.url):
            self._captured = request.url
            self._record(request, None)

    def _on_response(self, response: Any) -> None:
        if response.request.is_navigation_request() and self._is_service(response.url):
            self._last = (response.status, dict(response.headers))
            self._record(response.request, response)

    def _record(self, request: Any, response: Any) -> None:
        """Navigations go into the scenario's evidence like the form driver's requests
        (headers and status; page bodies stay in the browser)."""
        exchange = Exchange(
            method=request.method,
            url=request.url,
            request_headers=list(request.headers.items()),
            request_body=request.post_data or "",
        )
        if response is None:
            exchange.error = "the browser left the service (redirect to the application)"
        else:
            exchange.status = response.status
            exchange.response_headers = list(response.headers.items())
        self._http.record(exchange)

    def _act(self, action: Any) -> None:
        from playwright.sync_api import Error as PlaywrightError

        try:
            action()
            self._page.wait_for_load_state()
        except PlaywrightError:
            if self._captured is None:
                raise

    def _walk(self, action: Any) -> Outcome:
        self._captured = None
        self._act(action)
        for _ in range(MAX_STEPS):
            if captured := self._redirect_caught():
                return RedirectResult.from_url(captured)
            login = self._page.locator(self.preset.login_form)
            if not login.count():
                self._known_login()
                return self._page_outcome()
            login.locator(f'[name="{self.preset.username_field}"]').fill(self.profile.user.username)
            login.locator(f'[name="{self.preset.password_field}"]').fill(self.profile.user.password)
            submit = login.locator('[type="submit"], button').first
            self._act(submit.click)
        raise DriverError("the login form keeps coming back: login refused?")

    def _redirect_caught(self) -> str | None:
        """The application's address the browser tried to leave for (set by the request
        handler while an action runs)."""
        return self._captured

    def _known_login(self) -> None:
        """A password field outside the preset's login form: stuck, say what is there."""
        if self._page.locator('form input[type="password"]').count():
            raise UnrecognisedPage(
                f"the browser driver is stuck on a login form the preset does not recognise "
                f"(login_form = {self.preset.login_form!r}) at {self._page.url}; forms on the "
                f"page: {describe_forms(self._page.content())}"
            )

    def _page_outcome(self) -> Outcome:
        url, html = self._page.url, self._page.content()
        if urlsplit(url).path == self.preset.oob_path:
            code = text_of(html, self.preset.oob_code)
            if code:
                params = dict(parse_qsl(urlsplit(url).query))
                return RedirectResult(url=url, code=code, params=params, oob=True)
        consent = self._page.locator(self.preset.consent_form).count() > 0
        status, headers = self._last
        return ServicePage(url, status, headers, html, consent)
