"""Fixtures of the client kit's tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import respx

from client_kit import profiles
from client_kit._loopback import LoopbackListener
from client_kit._preflight import PROBE_TOKEN
from client_kit._session import Session
from client_kit._storage import FileStore, MemoryStore
from client_kit.profiles import Profile
from tests.kit.helpers import BASE, CLIENT_ID, CLIENT_SECRET, FakeUI


@pytest.fixture
def mb_profile() -> Profile:
    return profiles.custom(BASE)


@pytest.fixture
def meta_profile() -> Profile:
    return profiles.custom(BASE, like="metabrainz")


@pytest.fixture
def memory_store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def file_store(tmp_path) -> FileStore:
    return FileStore(tmp_path / "tokens")


@pytest.fixture
def ui() -> FakeUI:
    return FakeUI()


@pytest.fixture
def session(mb_profile, memory_store, ui) -> Iterator[Session]:
    with Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=ui) as s:
        yield s


@pytest.fixture
def mock() -> Iterator[respx.MockRouter]:
    with respx.mock(base_url=BASE, assert_all_called=False) as router:
        # what `mb-oauth login` asks before the browser: a known client, a right secret
        router.post(
            "/oauth2/revoke", data__contains={"token": PROBE_TOKEN}, name="preflight-secret"
        ).respond(200)
        router.get("/oauth2/authorize", name="preflight-authorize").respond(200, html="<p>Log in")
        yield router


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def all_logs() -> Iterator[_Capture]:
    """Every log record of every logger, at DEBUG, formatted."""
    handler = _Capture()
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old)


# -- the bundled reference server (integration tests) --------------------------------------

PASSWORD = "correct horse battery staple"


class RefServer:
    """The running server and what the kit's tests provisioned in it."""

    def __init__(self, process) -> None:
        self.process = process
        self.base_url: str = process.base_url
        self.ca_file: str = process.ca_file
        process.add_user(
            "alice", PASSWORD, email="alice@example.org", website="https://alice.example.org"
        )
        process.add_user("bob", PASSWORD)
        self.loopback_app = process.add_app(
            "alice", "Kit loopback", "public", "http://localhost/callback"
        )
        self.oob_app = process.add_app("alice", "Kit oob", "public", "urn:ietf:wg:oauth:2.0:oob")

    def profile(self):
        return profiles.custom(self.base_url, ca_bundle=self.ca_file)


@pytest.fixture(scope="session")
def ref_server(tmp_path_factory):
    try:
        from reference_server.launcher import ServerProcess
    except ImportError as exc:  # pragma: no cover - the server is part of this repository
        pytest.fail(f"the reference server cannot be imported: {exc}")
    process = ServerProcess(tmp_path_factory.mktemp("kit-server") / "data")
    with process:
        yield RefServer(process)


@pytest.fixture
def listener():
    with LoopbackListener("/callback", app_name="Test App") as lst:
        lst.expected_state = "good-state"
        yield lst
