"""A consent driver for the foreign-style provider, written from the README as an operator
would: `consent.driver = "tests.suite.foreign.driver:ReactPropsDriver"`.

Its pages are React shells: the data a person would act on (CSRF token, where to submit, the
scopes, the applications) sits in `<script id="page-react-props" type="application/json">`.
The driver logs in at /login, approves or refuses by posting `confirm=yes|no` to the consent
page's `submission_url`, and revokes on /account/applications."""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from steps.consent.base import (
    ConsentDriver,
    DriverError,
    Outcome,
    RedirectResult,
    ServicePage,
    page_headers,
)
from steps.http import HttpLayer
from steps.profile import Profile

PROPS = re.compile(r'<script id="page-react-props" type="application/json">(.*?)</script>', re.S)
MAX_HOPS = 8


def page_props(text: str) -> dict[str, Any]:
    """The page's React props, or {} when the page has none."""
    match = PROPS.search(text)
    if not match:
        return {}
    try:
        props = json.loads(html.unescape(match.group(1)))
    except ValueError:
        return {}
    return props if isinstance(props, dict) else {}


class ReactPropsDriver(ConsentDriver):
    """Plain HTTP through the provider's login, consent and applications pages."""

    name = "react-props"

    def __init__(self, profile: Profile, http: HttpLayer) -> None:
        super().__init__()
        self.profile, self.http = profile, http
        self.client = http.new_client(cookies=True)
        self._origin = urlsplit(profile.base_url)[:2]

    def open(self, authorize_url: str) -> Outcome:
        outcome = self._walk("GET", authorize_url)
        return outcome.with_consent(False) if isinstance(outcome, RedirectResult) else outcome

    def approve(self, authorize_url: str) -> Outcome:
        return self._decide(authorize_url, "yes")

    def deny(self, authorize_url: str) -> Outcome:
        return self._decide(authorize_url, "no")

    def revoke_manually(self, client_id: str, scope: str | None = None) -> None:
        """Revoke the application on the user's applications page (every scope set of it)."""
        page = self._walk("GET", self.profile.base_url + "/account/applications")
        props = page_props(page.html) if isinstance(page, ServicePage) else {}
        apps = [a for a in props.get("applications", []) if a.get("client_id") == client_id]
        if not apps:
            raise DriverError(f"application {client_id} is not listed on the applications page")
        data = [("client_id", client_id), ("csrf_token", props["csrf_token"])]
        self._walk("POST", urljoin(page.url, apps[0]["revoke_url"]), data)

    def close(self) -> None:
        self.client.close()

    def _decide(self, authorize_url: str, confirm: str) -> Outcome:
        outcome = self._walk("GET", authorize_url)
        if isinstance(outcome, RedirectResult):
            return outcome.with_consent(False)
        if not outcome.consent:
            return outcome
        props = page_props(outcome.html)
        self.used_one()
        data = [("confirm", confirm), ("csrf_token", props["csrf_token"])]
        result = self._walk("POST", urljoin(outcome.url, props["submission_url"]), data)
        return result.with_consent(True) if isinstance(result, RedirectResult) else result

    def _walk(self, method: str, url: str, data: list[tuple[str, str]] | None = None) -> Outcome:
        """Follow the provider's pages until the browser leaves it or a page stops the walk."""
        logged_in = False
        for _ in range(MAX_HOPS):
            if urlsplit(url)[:2] != self._origin:
                return RedirectResult.from_url(url)
            response = self.http.request(method, url, client=self.client, data=data)
            method, data = "GET", None
            if response.is_redirect:
                url = urljoin(str(response.url), response.headers["location"])
                continue
            props = page_props(response.text)
            if props.get("component") != "login":
                return self._page(response, props)
            if logged_in:
                raise DriverError(f"login as {self.profile.user.username!r} was refused")
            method, url = "POST", urljoin(str(response.url), props["submission_url"])
            data = [
                ("username", self.profile.user.username),
                ("password", self.profile.user.password),
                ("csrf_token", props["csrf_token"]),
            ]
            logged_in = True
        raise DriverError(f"more than {MAX_HOPS} hops from {url}")

    @staticmethod
    def _page(response: httpx.Response, props: dict[str, Any]) -> ServicePage:
        headers = page_headers(response)
        consent = props.get("component") == "consent"
        return ServicePage(str(response.url), response.status_code, headers, response.text, consent)
