"""Fixtures shared by every test: a real reference server over TLS on a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from reference_server.launcher import ServerProcess
from tests.support.user_agent import UserAgent
from tests.support.world import INSTALLED_REDIRECT, World, provision


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


#: Test modules that run on one pytest-xdist worker, whole: their tests share a module fixture
#: that a second worker would only repeat. (pytest-xdist's own `xdist_group` mark is not used:
#: with pytest 9 its loadgroup mode no longer renames the tests it groups, so it groups none.)
ONE_WORKER = {
    "tests/suite/test_foreign_target.py": "two suite runs against two providers",
    "tests/suite/test_foreign_provider.py": "direct probes of one foreign provider",
    "tests/suite/test_example_profiles.py": "two README-following runs against two stand-ins",
    "tests/suite/test_bundled_run.py": "a full suite run against the bundled server",
    "tests/suite/test_matrix_runs.py": "two quick suite runs, compared",
    "tests/tools/test_bench.py": "a short benchmark run",
    "tests/suite/test_proof.py": "a baseline and the sampled generated targets, one server",
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """`-n N` hands out tests one by one, but a module of ONE_WORKER as one unit; other
    distribution modes (`--dist ...`) are left as asked."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class OneByOne(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module in ONE_WORKER else nodeid

    return OneByOne(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Long tests (marked ``slow``) first: pytest-xdist hands tests out one by one in this
    order, so the longest start at once and no worker is left finishing one alone at the end.
    The sort is stable: each module's tests keep their order and stay together."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The session's server (one per pytest-xdist worker: each listens on a free port)."""
    with ServerProcess(tmp_path_factory.mktemp("server") / "data", test_clock=True) as running:
        yield running


@pytest.fixture(scope="session")
def world(server: ServerProcess) -> Iterator[World]:
    provisioned = provision(
        server,
        "alice",
        installed_redirect=INSTALLED_REDIRECT,
        website="https://alice.example",
        gender="female",
        timezone="Europe/Berlin",
    )
    yield provisioned
    provisioned.close()


@pytest.fixture
def user(world: World) -> Iterator[UserAgent]:
    agent = world.agent()
    yield agent
    agent.close()


@pytest.fixture
def http(world: World) -> Iterator[httpx.Client]:
    with world.http() as client:
        yield client
