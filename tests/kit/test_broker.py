"""Broker mode. The desktop side has no secret; the reference broker
(a Starlette app over TLS) holds it and forwards to the bundled server, end to end."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from client_kit import Session, _errors
from client_kit._storage import FileStore
from client_kit.broker import create_app
from tests.kit.helpers import FakeUI
from tests.kit.test_integration import loopback_browser

BROKER_START_TIMEOUT = 20


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def running_broker(ref_server, app: dict, cert: Path, key: Path) -> Iterator[str]:
    """The reference broker on https://127.0.0.1:PORT/oauth (its default prefix)."""
    import uvicorn

    broker_app = create_app(ref_server.profile(), app["client_id"], app["client_secret"])
    port = _free_port()
    config = uvicorn.Config(
        broker_app,
        host="127.0.0.1",
        port=port,
        ssl_certfile=str(cert),
        ssl_keyfile=str(key),
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + BROKER_START_TIMEOUT
    while not server.started:
        assert time.monotonic() < deadline, "the broker did not start"
        time.sleep(0.05)
    try:
        yield f"https://127.0.0.1:{port}/oauth"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def broker(ref_server) -> Iterator[str]:
    """The broker with the server's own certificate (one CA bundle covers both)."""
    app = ref_server.process.add_app("alice", "Kit broker", "public", "http://localhost/callback")
    data = Path(ref_server.process.data_dir)
    broker.client_id = app["client_id"]  # type: ignore[attr-defined]
    with running_broker(ref_server, app, data / "server.pem", data / "server-key.pem") as url:
        yield url


def session_for(ref_server, tmp_path, broker_url: str | None, ui=None) -> Session:
    return Session(
        ref_server.profile(),
        broker.client_id,  # type: ignore[attr-defined]
        None,  # the desktop application holds no secret
        store=FileStore(tmp_path / "tokens"),
        ui=ui or FakeUI(browser=loopback_browser(ref_server)),
        broker_url=broker_url,
    )


def test_login_refresh_and_revoke_through_the_broker(ref_server, broker, tmp_path) -> None:
    with session_for(ref_server, tmp_path, broker) as session:
        tokens = session.login(["profile"])
        assert tokens.username == "alice" and tokens.refresh_token
        refreshed = session.refresh()
        assert refreshed.access_token != tokens.access_token
        assert session.userinfo()["sub"] == "alice"
        session.revoke("all")
        assert session.tokens() is None
    # the grant is gone at the service: the old refresh token no longer works
    with session_for(ref_server, tmp_path, broker) as again:
        again.engine.remember(refreshed)
        with pytest.raises(_errors.RefreshTokenRejected):
            again.refresh()


def test_without_the_broker_the_secretless_app_is_refused(ref_server, broker, tmp_path) -> None:
    with (
        session_for(ref_server, tmp_path, None) as session,
        pytest.raises(_errors.KitError, match="client_secret is required"),
    ):
        session.login(["profile"])
    assert FileStore(tmp_path / "tokens").load(session.key) is None


def test_the_broker_forwards_only_what_the_grants_need(ref_server, broker) -> None:
    with httpx.Client(verify=ref_server.profile().ssl_context()) as http:
        other = http.post(f"{broker}/token", data={"grant_type": "client_credentials"})
        assert other.status_code == 400 and other.json()["error"] == "unsupported_grant_type"
        wrong = http.post(
            f"{broker}/token",
            data={"grant_type": "refresh_token", "refresh_token": "x", "client_id": "other"},
        )
        assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
        # the service's own answer comes back unchanged: an unknown refresh token
        bad = http.post(
            f"{broker}/token", data={"grant_type": "refresh_token", "refresh_token": "x"}
        )
        assert bad.status_code == 400 and bad.json()["error"] == "invalid_grant"
        assert bad.headers["cache-control"] == "no-store"


def test_a_secret_and_a_broker_together_are_refused(ref_server) -> None:
    with pytest.raises(_errors.ConfigurationError, match="not both"):
        Session(ref_server.profile(), "id", "secret", broker_url="https://broker.example")


def test_a_wrong_broker_url_is_found_before_the_browser(ref_server, broker, tmp_path) -> None:
    root = broker.removesuffix("/oauth")  # the broker's host, not where it serves
    ui = FakeUI(browser=loopback_browser(ref_server))
    session = session_for(ref_server, tmp_path, root, ui=ui)
    with session, pytest.raises(_errors.ConfigurationError, match="not lead to a broker") as info:
        session.login(["profile"])
    assert info.value.setting == "broker_url" and ui.opened == []
    assert f"{root}/revoke answered HTTP 404" in str(info.value)


@pytest.fixture(scope="module")
def broker_with_its_own_ca(ref_server, tmp_path_factory) -> Iterator[tuple[str, str]]:
    """A broker whose certificate another CA signed than the service's."""
    from reference_server.tls import ensure_certificates

    folder = tmp_path_factory.mktemp("broker-tls")
    files = ensure_certificates(folder, "127.0.0.1")
    app = ref_server.process.add_app(
        "alice", "Own CA broker", "public", "http://localhost/callback"
    )
    broker_with_its_own_ca.client_id = app["client_id"]  # type: ignore[attr-defined]
    with running_broker(ref_server, app, files.cert, files.key) as url:
        yield url, str(files.ca)


def own_ca_session(ref_server, tmp_path, url: str, ca: str | None, ui) -> Session:
    return Session(
        ref_server.profile(),
        broker_with_its_own_ca.client_id,  # type: ignore[attr-defined]
        None,
        store=FileStore(tmp_path / "tokens"),
        ui=ui,
        broker_url=url,
        broker_ca_bundle=ca,
    )


def test_a_broker_certificate_problem_is_the_brokers(
    ref_server, broker_with_its_own_ca, tmp_path
) -> None:
    url, _ = broker_with_its_own_ca
    ui = FakeUI(browser=loopback_browser(ref_server))
    session = own_ca_session(ref_server, tmp_path, url, None, ui)
    with session, pytest.raises(_errors.CertificateRejected) as info:
        session.login(["profile"])
    message = str(info.value)
    assert message.startswith("the broker's TLS certificate failed verification")
    assert f"{url}/revoke" in message and "service" not in message
    assert info.value.setting == "broker_ca_bundle" and ui.opened == []


def test_the_service_and_the_broker_each_have_their_ca_bundle(
    ref_server, broker_with_its_own_ca, tmp_path
) -> None:
    url, ca = broker_with_its_own_ca
    ui = FakeUI(browser=loopback_browser(ref_server))
    with own_ca_session(ref_server, tmp_path, url, ca, ui) as session:
        tokens = session.login(["profile"])
        assert session.refresh().access_token != tokens.access_token
        assert session.userinfo()["sub"] == "alice"  # the service, with its own CA
