"""The `form` driver: plain HTTP through the login and consent forms, like a browser without
JavaScript. Every page visit goes through the suite's HTTP layer, so it shows in the evidence."""

from __future__ import annotations

from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx

from steps.consent.base import (
    ConsentDriver,
    DriverError,
    Outcome,
    RedirectResult,
    ServicePage,
    SessionEnded,
    UnrecognisedPage,
    page_headers,
    redirect_target,
)
from steps.consent.presets import Preset, app_name
from steps.consent.react_props import page_props
from steps.http.html import (
    Form,
    describe_forms,
    find_form,
    find_forms,
    login_forms,
    post_forms,
    revoke_links,
    text_of,
)
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile

MAX_HOPS = 12


class FormDriver(ConsentDriver):
    """Logs in once per run (session cookie kept) and answers consent pages by their forms."""

    name = "form"

    def __init__(self, profile: TargetProfile, http: HttpLayer, preset: Preset) -> None:
        super().__init__()
        self.profile = profile
        self.http = http
        self.preset = preset
        self.client = http.new_client(cookies=True)
        parts = urlsplit(profile.base_url)
        self._origin = (parts.scheme, parts.netloc)
        #: Whether the driver logs in with the profile's password when a page asks; a driver
        #: on a session a person handed over (steps/consent/handover.py) never does.
        self.signs_in = True
        #: Login forms submitted so far (the preflight asks whether it really logged in).
        self.logins = 0

    def open(self, authorize_url: str) -> Outcome:
        """What the logged-in user sees: a redirect, an error page or the consent page."""
        outcome = self._walk("GET", authorize_url)
        if isinstance(outcome, RedirectResult):
            return outcome.with_consent(False)
        return self._check_decidable(outcome)

    def approve(self, authorize_url: str) -> Outcome:
        """Approve on the consent page if it is shown."""
        return self._decide(authorize_url, self.preset.approve_button)

    def deny(self, authorize_url: str) -> Outcome:
        """Refuse on the consent page."""
        return self._decide(authorize_url, self.preset.deny_button)

    def revoke_manually(self, client_id: str, scope: str | None = None) -> None:
        """Revoke every matching grant on the user's page: its revoke form, or (link style)
        its revoke link and the confirmation page behind it."""
        page = self._walk("GET", self.profile.base_url + self.preset.authorized_apps_path)
        if not isinstance(page, ServicePage) or page.status != 200:
            raise DriverError(f"cannot open the authorized applications page: {page}")
        if self.preset.revoke_link:
            self._revoke_by_links(page, client_id)
            return
        candidates = find_forms(page.html, self.preset.revoke_form)
        forms = [f for f in candidates if self._grant_of(f, client_id, scope)]
        if not forms:
            raise DriverError(f"no revoke form for client {client_id} on {page.url}")
        for form in forms:
            self._submit(form, page.url, "")

    def log_in(self) -> None:
        """Log in at the preset's login page (as a person does in their own browser)."""
        self._walk("GET", self.profile.base_url + self.preset.login_path)

    def check_login(self, authorize_url: str) -> None:
        """Preflight: log in for real through the authorization page. A refused login raises
        DriverError; so does a page of the service that shows no login form to fill in (and
        is neither the consent page nor an error), for then this driver can log in nowhere."""
        before = self.logins
        outcome = self.open(authorize_url)
        if (
            isinstance(outcome, ServicePage)
            and not outcome.consent
            and (outcome.status or 0) < 400
            and self.logins == before
            and self.signs_in
        ):
            raise DriverError(self._no_login_form(outcome))

    def close(self) -> None:
        """Drop the browsing session."""
        self.client.close()

    # --- internals ------------------------------------------------------------------------

    def _revoke_by_links(self, page: ServicePage, client_id: str) -> None:
        """Rows name the application (no client id on the page): every grant of it goes."""
        name = app_name(self.profile, self.preset, client_id)
        links = revoke_links(page.html, page.url, name, self.preset.revoke_link)
        if not links:
            raise DriverError(f"no revoke link for the application {name!r} on {page.url}")
        for link in links:
            confirm = self._walk("GET", link)
            form = (
                find_form(confirm.html, self.preset.revoke_form)
                if isinstance(confirm, ServicePage)
                else None
            )
            if form is None or not isinstance(confirm, ServicePage):
                raise DriverError(f"no confirmation form ({self.preset.revoke_form}) at {link}")
            self._submit(form, confirm.url, self.preset.revoke_button)

    def _submit(self, form: Form, page_url: str, button: str) -> None:
        """Post a form with the button a selector picks (empty: its first button)."""
        data = form.submission(form.button(button))
        self._walk("POST", urljoin(page_url, form.attrs.get("action") or page_url), data)

    def _grant_of(self, form: Form, client_id: str, scope: str | None) -> bool:
        if form.field(self.preset.revoke_client_field) != client_id:
            return False
        listed = form.field(self.preset.revoke_scope_field)
        return scope is None or listed is None or set(listed.split()) == set(scope.split())

    def _decide(self, authorize_url: str, button: str) -> Outcome:
        outcome = self._walk("GET", authorize_url)
        if isinstance(outcome, RedirectResult):
            return outcome.with_consent(False)
        if not outcome.consent:
            return self._check_decidable(outcome)
        form = find_form(outcome.html, self.preset.consent_form)
        assert form is not None
        self.used_one()
        action = urljoin(outcome.url, form.attrs.get("action") or outcome.url)
        result = self._walk("POST", action, form.submission(form.button(button)))
        return result.with_consent(True) if isinstance(result, RedirectResult) else result

    def _is_service(self, url: str) -> bool:
        parts = urlsplit(url)
        return (parts.scheme, parts.netloc) == self._origin

    def _walk(self, method: str, url: str, data: list[tuple[str, str]] | None = None) -> Outcome:
        """Follow the service's pages until the browser leaves it or a page stops the walk."""
        logged_in = False
        for _ in range(MAX_HOPS):
            if not self._is_service(url):
                return RedirectResult.from_url(url)
            response = self.http.request(method, url, client=self.client, data=data)
            method, data = "GET", None
            target = redirect_target(response)
            if target is not None:
                url = target
                continue
            login = find_form(response.text, self.preset.login_form)
            if login is None:
                return self._page(response)
            if not self.signs_in:
                raise SessionEnded(f"the handed-over session no longer logs in at {url}")
            if logged_in:
                raise DriverError(f"login as {self.profile.user.username!r} was refused")
            method, url, data = "POST", self._action(login, response), self._credentials(login)
            logged_in = True
            self.logins += 1
        raise DriverError(f"more than {MAX_HOPS} hops from {url}")

    def _credentials(self, login: Form) -> list[tuple[str, str]]:
        values = {
            self.preset.username_field: self.profile.user.username,
            self.preset.password_field: self.profile.user.password,
        }
        return login.submission(login.button(), **values)

    @staticmethod
    def _action(form: Form, response: httpx.Response) -> str:
        return urljoin(str(response.url), form.attrs.get("action") or str(response.url))

    def _page(self, response: httpx.Response) -> Outcome:
        url = str(response.url)
        if urlsplit(url).path == self.preset.oob_path and response.status_code == 200:
            code = text_of(response.text, self.preset.oob_code)
            if code:
                params = dict(parse_qsl(urlsplit(url).query))
                return RedirectResult(url=url, code=code, params=params, oob=True)
        consent = find_form(response.text, self.preset.consent_form) is not None
        if login_forms(response.text):
            raise UnrecognisedPage(
                f"the {self.name} driver is stuck on a login form the preset does not recognise "
                f"(login_form = {self.preset.login_form!r}) at {url} (status "
                f"{response.status_code}); forms on the page: {describe_forms(response.text)}"
            )
        return ServicePage(
            url, response.status_code, page_headers(response), response.text, consent
        )

    def _no_login_form(self, page: ServicePage) -> str:
        """Why the driver could not log in at a page without a login form, and what to use."""
        said = (
            f"the {self.name} driver found no login form on the way from the authorization "
            f"page: it ended at {page.url} (status {page.status})"
        )
        if page_props(page.html) is not None:
            return (
                f"{said}, a React shell with no HTML form (its data is a page-react-props "
                'object), as the metabrainz.org provider\'s pages are: use driver = "metabrainz" '
                "under [consent] for them"
            )
        return (
            f"{said}, a page without the preset's login form "
            f"(login_form = {self.preset.login_form!r}; forms on the page: "
            f"{describe_forms(page.html)}): set [consent.form] for these pages, or use the "
            "browser or manual driver"
        )

    def _check_decidable(self, outcome: Outcome) -> Outcome:
        """Reached from an authorization URL, a page with a form posting back to itself that
        is not the preset's consent form is a step the preset does not describe: stop."""
        if not isinstance(outcome, ServicePage) or outcome.consent:
            return outcome
        status = outcome.status or 0
        if status < 400 and any(self._posts_back(f, outcome.url) for f in post_forms(outcome.html)):
            raise UnrecognisedPage(
                f"the {self.name} driver is stuck on a form the preset does not recognise "
                f"(consent_form = {self.preset.consent_form!r}) at {outcome.url} (status "
                f"{status}); forms on the page: {describe_forms(outcome.html)}"
            )
        return outcome

    @staticmethod
    def _posts_back(form: Form, url: str) -> bool:
        action = form.attrs.get("action", "")
        return not action or urlsplit(urljoin(url, action)).path == urlsplit(url).path
