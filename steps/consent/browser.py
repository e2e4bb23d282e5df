"""The `browser` driver: the system Chromium through Playwright (never a downloaded browser).

The deployment's pages run in Chromium, JavaScript included; what the browser may fetch is
decided by steps/consent/browser_gate.py (the service's origin only, through the suite's own
HTTP layer and its trust in the profile's CA). Chromium is started unable to resolve any host
(`ISOLATION_ARGS`) and, where the platform allows it, in its sandbox: as root Chromium refuses
to start sandboxed, so there it runs without, and the run's summary says so.

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
from steps.consent.browser_gate import Gate, origin_of
from steps.consent.presets import Preset, app_name
from steps.http.html import describe_forms, revoke_links, text_of
from steps.http.layer import HttpLayer
from steps.outcomes import NotChecked
from steps.profiles.profile import TargetProfile

#: Flags for any Chromium of the project (the server's page tests start one too).
CHROMIUM_ARGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Flags of the driver's Chromium: it resolves no host name (every request it may make is
#: handed to it by the gate) and sends no UDP of its own (WebRTC).
ISOLATION_ARGS = [
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--dns-prefetch-disable",
]
MAX_STEPS = 6
#: Redirects of the service one action may follow.
MAX_HOPS = 12
#: The run's summary line when Chromium runs without its sandbox.
NO_SANDBOX = (
    "Chromium ran without its sandbox: the suite runs as root, and Chromium refuses its sandbox "
    "to root (run the suite as another user to keep it)"
)


def chromium_path(settings: dict[str, Any] | None = None) -> str:
    """The system Chromium: profile setting, then MB_OAUTH_CHROMIUM, then /usr/bin/chromium."""
    configured = (settings or {}).get("executable_path")
    return str(configured or os.environ.get("MB_OAUTH_CHROMIUM") or "/usr/bin/chromium")


def sandbox_allowed(euid: int | None = None) -> bool:
    """Whether Chromium may keep its sandbox: everywhere but as root (where it refuses to
    start with it)."""
    return (os.geteuid() if euid is None else euid) != 0


def expected_origins(profile: TargetProfile) -> set[str]:
    """Where a navigation may rightly leave the service for: the applications' redirect URIs."""
    uris = [u for c in profile.clients.values() for u in (c.redirect_uri, *c.more_redirect_uris)]
    return {origin_of(uri) for uri in uris if uri.startswith(("http://", "https://"))}


class BrowserDriver(ConsentDriver):
    """Drives real pages; the redirect back to the application is caught as the browser tries
    to follow it (nothing needs to listen there)."""

    name = "browser"

    def __init__(
        self, profile: TargetProfile, http: HttpLayer, preset: Preset, settings: dict[str, Any]
    ) -> None:
        super().__init__()
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright  # lazy: optional dependency

        self.profile, self.preset = profile, preset
        self._http = http
        self._gate = Gate(http, profile.base_url, expected_origins(profile), profile.user.password)
        sandbox = sandbox_allowed()
        if not sandbox:
            http.report_safety(NO_SANDBOX)
        self._pw = sync_playwright().start()
        try:
            self._browser = self._pw.chromium.launch(
                executable_path=chromium_path(settings),
                args=CHROMIUM_ARGS + ISOLATION_ARGS,
                chromium_sandbox=sandbox,
                headless=bool(settings.get("headless", True)),
            )
        except PlaywrightError as error:
            self._pw.stop()
            self._gate.close()
            hint = " (Chromium's sandbox needs user namespaces)" if sandbox else ""
            raise DriverError(f"Chromium did not start{hint}: {_first_line(error)}") from None
        self._context = self._browser.new_context(service_workers="block", accept_downloads=False)
        self._context.route("**/*", self._gate.route)
        self._context.route_web_socket("**/*", self._gate.websocket)
        self._page = self._context.new_page()

    def open(self, authorize_url: str) -> Outcome:
        """What the logged-in user sees (in a fresh tab: a failed redirect leaves the old one
        navigating to an error page)."""
        self._page.close()
        self._page = self._context.new_page()
        self._gate.expect_redirect_to(
            dict(parse_qsl(urlsplit(authorize_url).query)).get("redirect_uri", "")
        )
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
            self._on_service(self._walk(lambda: self._page.goto(url)), url)
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
            self._on_service(self._walk(lambda link=link: self._page.goto(link)), link)
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
        self._gate.close()

    @staticmethod
    def _on_service(outcome: Outcome, where: str) -> None:
        """A revocation step that left the service went nowhere: stop."""
        if isinstance(outcome, RedirectResult):
            raise DriverError(f"revoking at {where} led off the service, to {outcome.url}")

    def _decide(self, authorize_url: str, button: str) -> Outcome:
        outcome = self.open(authorize_url)
        if not isinstance(outcome, ServicePage) or not outcome.consent:
            return outcome
        self.used_one()
        form = self._page.locator(self.preset.consent_form).first
        result = self._walk(lambda: form.locator(button).first.click())
        return result.with_consent(True) if isinstance(result, RedirectResult) else result

    def _act(self, action: Any) -> None:
        """Do something on the page, then follow the service's redirects until the browser
        rests on a page or leaves the service (the gate decides every request)."""
        gate = self._gate
        self._run(action)
        for _ in range(MAX_HOPS):
            if gate.failure is not None:
                failure = gate.failure
                raise failure if isinstance(failure, DriverError) else _unchecked(failure)
            if gate.stopped is not None:
                raise DriverError(gate.stopped)
            hop, gate.pending = gate.pending, None
            if hop is None or gate.captured is not None:
                return
            if not gate.is_service(hop.url):
                gate.capture(hop.url, self._page.url)
                return
            gate.expect(hop)
            self._run(lambda hop=hop: self._page.goto(hop.url))
        raise DriverError(f"more than {MAX_HOPS} redirects from {self._page.url}")

    def _run(self, action: Any) -> None:
        """One Playwright action; an error is expected when the gate cut it short."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            action()
            self._page.wait_for_load_state()
        except PlaywrightError as error:
            if not self._gate.interrupted:
                raise DriverError(f"the browser could not go on: {_first_line(error)}") from None

    def _walk(self, action: Any) -> Outcome:
        self._gate.reset()
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
        """The application's address the browser tried to leave for (set by the gate while
        an action runs)."""
        return self._gate.captured

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
        status, headers = self._gate.last
        return ServicePage(url, status, headers, html, consent)


def _first_line(error: Exception) -> str:
    text = getattr(error, "message", None) or str(error)
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


def _unchecked(error: Exception) -> Exception:
    """A request of the browser the layer could not make: NotChecked as it is, a transport
    error as a DriverError (the page was not reached)."""
    if isinstance(error, NotChecked):
        return error
    return DriverError(f"the browser's request failed: {type(error).__name__}: {error}")
