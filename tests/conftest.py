"""Fixtures shared by every test: a real reference server over TLS on a real SQLite file."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from reference_server.launcher import ServerProcess
from tests.support.user_agent import UserAgent


def pytest_runtest_setup(item: pytest.Item) -> None:
    """The one skip/require switch for optional parts, applied before any fixture starts:
    a ``browser`` test needs the system Chromium, a ``keyring`` test a Secret Service. Each
    skips where its part is absent, and fails instead where CI requires it."""
    if item.get_closest_marker("browser") is not None:
        from tests.support.browser import required_chromium

        required_chromium()
    if item.get_closest_marker("keyring") is not None:
        from tests.support.keyring import required_secret_service

        required_secret_service()


@dataclass(frozen=True)
class Client:
    client_id: str
    client_secret: str
    redirect_uri: str
    type: str


@dataclass
class World:
    """The provisioned server: one user, and the applications tests act as."""

    server: ServerProcess
    username: str
    password: str
    email: str
    web: Client  # confidential web application
    installed: Client  # public desktop application, loopback redirect registered
    other: Client  # a second confidential application, for cross-client checks

    def user_agent(self) -> UserAgent:
        return UserAgent(
            self.server.base_url, self.server.ssl_context(), self.username, self.password
        )

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.server.base_url, verify=self.server.ssl_context())


def _client(server: ServerProcess, name: str, app_type: str, redirect_uri: str) -> Client:
    made = server.add_app("alice", name, app_type, redirect_uri)
    return Client(made["client_id"], made["client_secret"], redirect_uri, app_type)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("server") / "data", test_clock=True) as running:
        yield running


@pytest.fixture(scope="session")
def world(server: ServerProcess) -> World:
    password = secrets.token_urlsafe(12)
    server.add_user(
        "alice",
        password,
        email="alice@example.org",
        website="https://alice.example",
        gender="female",
        timezone="Europe/Berlin",
    )
    return World(
        server=server,
        username="alice",
        password=password,
        email="alice@example.org",
        web=_client(server, "Web app", "confidential", "https://client.example/callback"),
        installed=_client(server, "Desktop app", "public", "http://localhost/callback"),
        other=_client(server, "Other web app", "confidential", "https://other.example/cb"),
    )


@pytest.fixture
def user(world: World) -> Iterator[UserAgent]:
    agent = world.user_agent()
    yield agent
    agent.close()


@pytest.fixture
def http(world: World) -> Iterator[httpx.Client]:
    with world.http() as client:
        yield client
