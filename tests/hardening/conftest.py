"""Fixtures of the hardening tests: one isolated server for the package (see helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from reference_server.launcher import ServerProcess
from tests.support.user_agent import UserAgent

from .helpers import World, logged_in, provision


@pytest.fixture(scope="package")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    data_dir = tmp_path_factory.mktemp("hardening") / "data"
    with ServerProcess(data_dir, test_clock=True) as running:
        provisioned = provision(running)
        yield provisioned
        provisioned.close()


@pytest.fixture
def client(site: World) -> Iterator[httpx.Client]:
    with site.http() as http:
        yield http


@pytest.fixture
def agent(site: World) -> Iterator[UserAgent]:
    browser = site.agent()
    yield browser
    browser.close()


@pytest.fixture
def victim(site: World) -> Iterator[UserAgent]:
    """A user logged in on the service: the target of cross-site attacks."""
    yield from logged_in(site)


@pytest.fixture
def attacker_session(site: World) -> Iterator[UserAgent]:
    """Another browser of the same user: its CSRF tokens are real, but not the victim's."""
    yield from logged_in(site)
