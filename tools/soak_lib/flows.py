"""OAuth flows against the reference server, async, as a browser and an application do them."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx

from steps.http.html import find_form

LOG_PROBLEMS = re.compile(
    r"Traceback|Exception in ASGI|database is locked|Internal Server Error|\bERROR\b"
)


class FlowError(Exception):
    """The server answered something a correct server would not have."""


@dataclass(frozen=True)
class App:
    client_id: str
    client_secret: str
    redirect_uri: str
    type: str


@dataclass
class Setup:
    username: str
    password: str
    apps: dict[str, App]


def provision(server) -> Setup:
    """One user and two applications (a confidential web app, a public desktop app)."""
    password = secrets.token_urlsafe(12)
    server.add_user("soak", password)
    web = server.add_app("soak", "Soak web", "confidential", "https://client.example/callback")
    desktop = server.add_app("soak", "Soak desktop", "public", "http://localhost/callback")
    return Setup(
        "soak",
        password,
        {
            "web": App(web["client_id"], web["client_secret"], web["redirect_uri"], "web"),
            "installed": App(
                desktop["client_id"],
                desktop["client_secret"],
                "http://localhost:4242/callback",
                "installed",
            ),
        },
    )


def _form(page: str, form_id: str) -> tuple[str, str]:
    """The action and CSRF token of the page's form with this id."""
    form = find_form(page, f"form#{form_id}")
    csrf = form.field("csrf_token") if form is not None else None
    if form is None or csrf is None:
        raise FlowError(f"no {form_id} on the page")
    return form.attrs.get("action", ""), csrf


def _query(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def expect(answer: httpx.Response, *statuses: int) -> httpx.Response:
    if answer.status_code not in statuses:
        raise FlowError(
            f"{answer.request.method} {answer.request.url.path}: "
            f"{answer.status_code} {answer.text[:200]}"
        )
    return answer


class Browser:
    """One user's browser: cookies of its own, logs in, approves consent pages."""

    def __init__(self, client: httpx.AsyncClient, username: str, password: str) -> None:
        self.client, self.username, self.password = client, username, password

    async def log_in(self) -> None:
        action, csrf = _form(expect(await self.client.get("/login"), 200).text, "login-form")
        data = {"username": self.username, "password": self.password, "csrf_token": csrf}
        expect(await self.client.post(action, data=data), 303)

    async def code(self, app: App, scope: str = "profile", offline: bool = True) -> str:
        params = {
            "response_type": "code",
            "client_id": app.client_id,
            "redirect_uri": app.redirect_uri,
            "scope": scope,
            "state": "soak",
        }
        if app.type == "web":
            params |= {
                "access_type": "offline" if offline else "online",
                "approval_prompt": "force",
            }
        answer = await self.client.get("/oauth2/authorize", params=params)
        if answer.status_code == 302 and answer.headers["location"].startswith("/login"):
            await self.log_in()
            answer = await self.client.get("/oauth2/authorize", params=params)
        if answer.status_code == 200:
            action, csrf = _form(answer.text, "consent-form")
            answer = await self.client.post(
                action, data={"csrf_token": csrf, "decision": "approve"}
            )
        location = expect(answer, 302).headers["location"]
        code = _query(location).get("code")
        if not code:
            raise FlowError(f"no code in the redirect {location[:100]}")
        return code


async def exchange(client: httpx.AsyncClient, app: App, code: str) -> httpx.Response:
    return await client.post(
        "/oauth2/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "client_id": app.client_id,
            "client_secret": app.client_secret,
            "redirect_uri": app.redirect_uri,
        },
    )


async def refresh(client: httpx.AsyncClient, app: App, refresh_token: str) -> httpx.Response:
    return await client.post(
        "/oauth2/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": app.client_id,
            "client_secret": app.client_secret,
        },
    )


async def revoke(client: httpx.AsyncClient, app: App, token: str) -> httpx.Response:
    return await client.post(
        "/oauth2/revoke",
        data={"token": token, "client_id": app.client_id, "client_secret": app.client_secret},
    )


async def userinfo(client: httpx.AsyncClient, access_token: str) -> httpx.Response:
    return await client.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {access_token}"})
