"""A scripted user of the reference server's pages: logs in and answers the consent page.

The server's tests need more than "log in and approve", which is all the product's `form`
consent driver does: a session kept across steps, logging in on its own, the raw responses,
a consent page answered later, twice or from another session, a CSRF token to tamper with.
Its pages are read with the suite's one parser (`steps.http.html`).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx

from steps.http import html


@dataclass
class Form:
    action: str
    csrf_token: str


def find_form(page: str, form_id: str) -> Form:
    """The action and CSRF token of the form with this id."""
    form = html.find_form(page, f"form#{form_id}")
    assert form is not None, f"no form {form_id!r} on the page:\n{page[:2000]}"
    csrf = form.field("csrf_token")
    assert csrf is not None, f"form {form_id} has no csrf_token"
    return Form(form.attrs.get("action", ""), csrf)


def query_of(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


class UserAgent:
    """One browser profile: its own cookies, never following redirects on its own."""

    def __init__(self, base_url: str, verify, username: str, password: str) -> None:
        self.http = httpx.Client(base_url=base_url, verify=verify, follow_redirects=False)
        self.username, self.password = username, password

    def close(self) -> None:
        self.http.close()

    def log_in(self) -> None:
        answer = self.submit_login(self.http.get("/login").text)
        assert answer.status_code == 303, answer.text

    def submit_login(self, login_page: str) -> httpx.Response:
        """Fill in and send the login form of this page with the agent's own credentials."""
        form = find_form(login_page, "login-form")
        return self.http.post(
            form.action,
            data={
                "username": self.username,
                "password": self.password,
                "csrf_token": form.csrf_token,
            },
        )

    def open_authorize(self, params: dict[str, str]) -> httpx.Response:
        """GET the authorization URL, logging in on the way if the server asks."""
        answer = self.http.get("/oauth2/authorize", params=params)
        if answer.status_code == 302 and answer.headers["location"].startswith("/login"):
            self.log_in()
            answer = self.http.get("/oauth2/authorize", params=params)
        return answer

    def decide(self, consent_page: httpx.Response, decision: str) -> httpx.Response:
        form = find_form(consent_page.text, "consent-form")
        return self.http.post(
            form.action, data={"csrf_token": form.csrf_token, "decision": decision}
        )

    def authorize(self, params: dict[str, str], decision: str = "approve") -> str:
        """The Location the server finally redirects to (consent answered when shown)."""
        answer = self.open_authorize(params)
        if answer.status_code == 200 and html.find_form(answer.text, "form#consent-form"):
            answer = self.decide(answer, decision)
        assert answer.status_code == 302, f"{answer.status_code}: {answer.text[:500]}"
        return answer.headers["location"]
