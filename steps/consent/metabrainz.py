"""The `metabrainz` driver: plain HTTP through the metabrainz.org provider's pages.

Its pages are React shells with no HTML form, so neither the `form` driver's selectors nor a
browser without the site's scripts can act on them; the React code posts plain forms built
from the page's props, and so does this driver (steps/consent/react_props.py reads them):

- login, `GET /login?next=<authorization URL>`: POST `csrf_token`, `username`, `password`,
  `remember_me=y` to the same URL; a 302 to `next` is success, the login page again with
  `initial_errors` a refusal;
- consent, on the authorization URL itself: allow posts `confirm=yes` and `csrf_token` to
  `submission_url`; deny follows `cancel_url` (a link, already the application's address);
- the error page, HTTP 200 with props `{"error": {"name", "description"}}`: the service's own
  page, where the browser stays;
- manual revocation: `/profile/applications` lists the applications with a live token, and
  `POST /profile/applications/revoke/<client_id>/user` revokes one (the page's own button
  posts to a singular path that answers 404).

Any other page is `UnrecognisedPage`: the scenario could not be checked (at the preflight the
run stops), it is never read as an answer of the service."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import httpx

from steps.consent.base import (
    ConsentDriver,
    DriverError,
    Outcome,
    RedirectResult,
    ServicePage,
    UnrecognisedPage,
    page_headers,
    redirect_target,
)
from steps.consent.react_props import (
    APPLICATIONS,
    CONSENT,
    LOGIN,
    PropsPage,
    describe,
    login_errors,
    recognise,
)
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile

MAX_HOPS = 12
LOGIN_PATH = "/login"
APPLICATIONS_PATH = "/profile/applications"
#: The revocation route that works (the page's button posts to `/profile/application/...`).
REVOKE_PATH = "/profile/applications/revoke/{client_id}/user"


class MetaBrainzDriver(ConsentDriver):
    """Logs in once per run (session cookie kept) and acts on pages by their props."""

    name = "metabrainz"

    def __init__(self, profile: TargetProfile, http: HttpLayer) -> None:
        super().__init__()
        self.profile, self.http = profile, http
        self.client = http.new_client(cookies=True)
        self._origin = urlsplit(profile.base_url)[:2]

    def open(self, authorize_url: str) -> Outcome:
        """What the logged-in user sees: a redirect, the error page or the consent page."""
        outcome = self._walk("GET", authorize_url)
        return outcome.with_consent(False) if isinstance(outcome, RedirectResult) else outcome

    def approve(self, authorize_url: str) -> Outcome:
        """Allow on the consent page, if it is shown."""
        return self._decide(authorize_url, allow=True)

    def deny(self, authorize_url: str) -> Outcome:
        """Cancel on the consent page: follow its `cancel_url`."""
        return self._decide(authorize_url, allow=False)

    def revoke_manually(self, client_id: str, scope: str | None = None) -> None:
        """Revoke the application on the user's applications page (every scope of it)."""
        url = self.profile.base_url + APPLICATIONS_PATH
        page = self._walk("GET", url)
        props = self._props_of(page, APPLICATIONS)
        listed = [t for t in props.get("tokens", ()) if t.get("client_id") == client_id]
        if not listed:
            raise DriverError(
                f"the application {client_id} is not listed on {url} (it lists the "
                "applications that hold a live access token of the user)"
            )
        path = REVOKE_PATH.format(client_id=quote(client_id, safe=""))
        answer = self.http.request("POST", self.profile.base_url + path, client=self.client)
        if answer.status_code >= 400:
            raise DriverError(f"revoking at {path} answered {answer.status_code}")

    def check_login(self, authorize_url: str) -> None:
        """Preflight: open the authorization page once (a refused login or a page of an
        unknown shape raises DriverError)."""
        self.open(authorize_url)

    def close(self) -> None:
        """Drop the browsing session."""
        self.client.close()

    # --- internals ------------------------------------------------------------------------

    def _decide(self, authorize_url: str, allow: bool) -> Outcome:
        outcome = self._walk("GET", authorize_url)
        if isinstance(outcome, RedirectResult):
            return outcome.with_consent(False)
        if not outcome.consent:
            return outcome
        props = self._props_of(outcome, CONSENT)
        self.used_one()
        if allow:
            data = [("confirm", "yes"), ("csrf_token", props["csrf_token"])]
            result = self._walk("POST", urljoin(outcome.url, props["submission_url"]), data)
        else:
            result = self._walk("GET", urljoin(outcome.url, props["cancel_url"]))
        return result.with_consent(True) if isinstance(result, RedirectResult) else result

    def _walk(self, method: str, url: str, data: list[tuple[str, str]] | None = None) -> Outcome:
        """Follow the provider's pages until the browser leaves it or a page stops the walk;
        the login page is answered once."""
        logged_in = False
        for _ in range(MAX_HOPS):
            if urlsplit(url)[:2] != self._origin:
                return RedirectResult.from_url(url)
            response = self.http.request(method, url, client=self.client, data=data)
            method, data = "GET", None
            target = redirect_target(response)
            if target is not None:
                url = target
                continue
            if response.is_redirect:  # it names several places: a browser goes nowhere
                return self._outcome(response, consent=False)
            page = self._page(response)
            if page.kind != LOGIN:
                return self._outcome(response, consent=page.kind == CONSENT)
            if logged_in:
                reason = login_errors(page.props) or "the login page came back"
                raise DriverError(f"login as {self.profile.user.username!r} was refused: {reason}")
            method, url, data = "POST", str(response.url), self._credentials(page)
            logged_in = True
        raise DriverError(f"more than {MAX_HOPS} hops from {url}")

    def _credentials(self, page: PropsPage) -> list[tuple[str, str]]:
        return [
            ("csrf_token", page.text("csrf_token")),
            ("username", self.profile.user.username),
            ("password", self.profile.user.password),
            ("remember_me", "y"),
        ]

    @staticmethod
    def _page(response: httpx.Response) -> PropsPage:
        """The recognised page, or UnrecognisedPage naming what was there instead."""
        url = str(response.url)
        page = recognise(url, response.text, LOGIN_PATH)
        if page is None:
            raise UnrecognisedPage(
                f"the metabrainz driver does not recognise the page at {url} (status "
                f"{response.status_code}, {describe(response.text)}): it knows the login, "
                "consent, error and applications pages of metabrainz.org"
            )
        return page

    @staticmethod
    def _outcome(response: httpx.Response, *, consent: bool) -> ServicePage:
        headers = page_headers(response)
        return ServicePage(str(response.url), response.status_code, headers, response.text, consent)

    @staticmethod
    def _props_of(outcome: Outcome, kind: str) -> dict[str, Any]:
        """The props of the page the walk ended on, which must be of `kind`."""
        if isinstance(outcome, RedirectResult):
            raise DriverError(f"expected the {kind} page, was sent to {outcome.url}")
        page = recognise(outcome.url, outcome.html, LOGIN_PATH)
        if page is None or page.kind != kind:
            seen = page.kind if page else "a page of another shape"
            raise DriverError(f"expected the {kind} page at {outcome.url}, found {seen}")
        return dict(page.props)
