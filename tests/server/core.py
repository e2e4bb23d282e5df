"""The protocol core (reference_server/oauth/) driven without HTTP: requests as plain values,
answers read as status, headers and JSON. One database is provisioned per worker and copied
for each test, so every test starts from the same rows and its own throttle counts."""

from __future__ import annotations

import asyncio
import base64
import json
import shutil
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from reference_server import accounts, grants, oauth
from reference_server.answers import Answer
from reference_server.oauth import ClientRequest
from reference_server.state import ServerState
from reference_server.urlencoded import FORM_TYPE

from .flows import pkce_pair

__all__ = ["Core", "basic", "error_of", "form", "json_of", "no_store", "pkce_pair"]

Endpoint = Callable[[ServerState, ClientRequest], Awaitable[Answer]]
PEER = "192.0.2.10"
WEB_REDIRECT = "https://client.example/cb"
INSTALLED_REDIRECT = "http://localhost/callback"


@dataclass(frozen=True)
class Client:
    application: accounts.Application
    secret: str

    @property
    def client_id(self) -> str:
        return self.application.client_id

    @property
    def redirect_uri(self) -> str:
        return self.application.redirect_uri


def form(
    pairs: list[tuple[str, str]] | dict[str, str],
    *,
    query: str = "",
    authorization: str = "",
    content_type: str = FORM_TYPE,
    method: str = "POST",
    peer: str = PEER,
) -> ClientRequest:
    """A request with these parameters in a form body (as a list: repeats stay)."""
    body = urlencode(list(pairs.items()) if isinstance(pairs, dict) else pairs).encode()
    return ClientRequest(method, query.encode(), content_type, body, authorization, peer)


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


def json_of(answer: Answer) -> Any:
    return json.loads(answer.body)


def error_of(answer: Answer) -> tuple[int, str]:
    return answer.status, json_of(answer)["error"]


def no_store(answer: Answer) -> bool:
    """Neither header of RFC 6749 5.1 missing."""
    return answer.header("cache-control") == "no-store" and answer.header("pragma") == "no-cache"


@dataclass
class Core:
    state: ServerState
    user: accounts.Account
    web: Client  # confidential: online unless the code says offline
    installed: Client  # public: always a refresh token

    def call(self, endpoint: Endpoint, request: ClientRequest) -> Answer:
        return asyncio.run(endpoint(self.state, request))

    def token(self, request: ClientRequest) -> Answer:
        return self.call(oauth.token_endpoint, request)

    def revoke(self, request: ClientRequest) -> Answer:
        return self.call(oauth.revocation_endpoint, request)

    def userinfo(self, request: ClientRequest) -> Answer:
        return self.call(oauth.userinfo_endpoint, request)

    def code(
        self,
        client: Client,
        scope: str = "profile",
        *,
        challenge: str | None = None,
        method: str | None = None,
        offline: bool | None = None,
    ) -> str:
        """A code as the authorization endpoint issues it on approval."""
        offline = client.application.is_public if offline is None else offline
        request = grants.CodeRequest(
            client.application, self.user, scope, client.redirect_uri, challenge, method, offline
        )
        return grants.issue_code(self.state.store, self.state.now(), request)

    def exchange_form(self, client: Client, code: str, **extra: str) -> dict[str, str]:
        return {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": client.redirect_uri,
            "client_id": client.client_id,
            "client_secret": client.secret,
            **extra,
        }

    def refresh_form(self, client: Client, refresh_token: str, **extra: str) -> dict[str, str]:
        return {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": client.client_id,
            "client_secret": client.secret,
            **extra,
        }

    def revoke_form(self, client: Client, token: str) -> dict[str, str]:
        return {"token": token, "client_id": client.client_id, "client_secret": client.secret}

    def tokens(self, client: Client, scope: str = "profile", **code: Any) -> dict[str, Any]:
        """A fresh token answer's JSON, of a new code."""
        answer = self.token(form(self.exchange_form(client, self.code(client, scope, **code))))
        assert answer.status == 200, answer.body
        tokens: dict[str, Any] = json_of(answer)
        return tokens

    def works(self, access_token: str) -> bool:
        answer = self.userinfo(ClientRequest("GET", authorization=f"Bearer {access_token}"))
        return answer.status == 200

    def advance(self, seconds: int) -> None:
        assert self.state.test_clock is not None
        self.state.test_clock.advance(seconds)


@pytest.fixture(scope="session")
def core_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A database with one user and two applications, and the applications' secrets."""
    path = tmp_path_factory.mktemp("core") / "server.sqlite3"
    state = ServerState.open(path, test_clock=True)
    now = state.now()
    user = accounts.add_user(
        state.store, "carol", "a long enough password", now, email="carol@example.org"
    )
    made = {
        kind: accounts.add_application(state.store, user, kind, kind, uri, now)
        for kind, uri in (("confidential", WEB_REDIRECT), ("public", INSTALLED_REDIRECT))
    }
    state.store.close()
    return path, {kind: m.client_secret for kind, m in made.items()}


@pytest.fixture
def core(core_template: tuple[Path, dict[str, str]], tmp_path: Path) -> Iterator[Core]:
    template, client_secrets = core_template
    path = tmp_path / template.name
    shutil.copyfile(template, path)
    state = ServerState.open(path, test_clock=True)
    store = state.store
    user = accounts.user_by_name(store, "carol")
    assert user is not None
    apps = {app.type: app for app in accounts.applications_of(store, user)}
    try:
        yield Core(
            state,
            user,
            Client(apps["confidential"], client_secrets["confidential"]),
            Client(apps["public"], client_secrets["public"]),
        )
    finally:
        store.close()
