"""A look at an authorization URL without any session, so that a person is asked only when the
service really wants its user.

A service that refuses a request before anyone logs in (unknown client, bad redirect URI: an
error page; bad response_type, scope or challenge: an error redirect) refuses it the same way
for a logged-in user, so that outcome stands for the user's. Anything that may depend on the
user is left to the person: a login form, a page that is not an error, a redirect that carries
a code or says a login is needed."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import httpx

from steps.consent.base import Outcome, RedirectResult, ServicePage, page_headers
from steps.http.html import login_forms
from steps.http.layer import HttpLayer

MAX_HOPS = 6
#: Error redirects that may mean "a user is needed", not "the request is wrong" (OpenID
#: Connect's, and access_denied: nobody is there to grant anything).
NEEDS_USER = frozenset(
    {
        "access_denied",
        "login_required",
        "interaction_required",
        "consent_required",
        "account_selection_required",
    }
)
#: Statuses that may mean "log in first" or "come back later", not "this request is wrong".
NOT_A_REFUSAL = frozenset({401, 403, 407, 429})


class AnonymousLook:
    """Follows an authorization URL as a visitor without cookies; every request is evidence."""

    def __init__(self, http: HttpLayer, base_url: str) -> None:
        self.http = http
        parts = urlsplit(base_url)
        self._origin = (parts.scheme, parts.netloc)

    def outcome(self, url: str) -> Outcome | None:
        """The outcome when the service decides before any login, else None (ask the user)."""
        client = self.http.new_client()
        try:
            for _ in range(MAX_HOPS):
                if (urlsplit(url).scheme, urlsplit(url).netloc) != self._origin:
                    return self._redirect(url)  # never followed: another origin (or http://)
                response = self.http.request("GET", url, client=client)
                location = response.headers.get("location")
                if not (response.is_redirect and location):
                    return self._page(response)
                url = urljoin(str(response.url), location)
        finally:
            client.close()
        return None

    @staticmethod
    def _redirect(url: str) -> Outcome | None:
        result = RedirectResult.from_url(url)
        if result.code or not result.error or result.error in NEEDS_USER:
            return None
        return result.with_consent(False)

    @staticmethod
    def _page(response: httpx.Response) -> Outcome | None:
        """An error page (a 4xx refusal or a 500) without a login form is the outcome."""
        status, html = response.status_code, response.text
        refused = 400 <= status < 500 and status not in NOT_A_REFUSAL
        if not (refused or status == 500) or login_forms(html):
            return None
        return ServicePage(str(response.url), status, page_headers(response), html, consent=False)
