"""Broker mode. The desktop side has no secret; the reference broker
(a Starlette app over TLS) holds it and forwards to the bundled server, end to end."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from client_kit import Session, errors
from client_kit.broker import create_app
from client_kit.storage import FileStore
from tests.kit.helpers import FakeUI
from tests.kit.test_integration import loopback_browser

BROKER_START_TIMEOUT = 20


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def broker(ref_server) -> Iterator[str]:
    """The reference broker on https://127.0.0.1:PORT, with the server's own certificate."""
    import uvicorn

    app = ref_server.process.add_app("alice", "Kit broker", "public", "http://localhost/callback")
    broker_app = create_app(ref_server.profile(), app["client_id"], app["client_secret"])
    data = Path(ref_server.process.data_dir)
    port = _free_port()
    config = uvicorn.Config(
        broker_app,
        host="127.0.0.1",
        port=port,
        ssl_certfile=str(data / "server.pem"),
        ssl_keyfile=str(data / "server-key.pem"),
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + BROKER_START_TIMEOUT
    while not server.started:
        assert time.monotonic() < deadline, "the broker did not start"
        time.sleep(0.05)
    broker.client_id = app["client_id"]  # type: ignore[attr-defined]
    yield f"https://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


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
        with pytest.raises(errors.RefreshTokenRejected):
            again.refresh()


def test_without_the_broker_the_secretless_app_is_refused(ref_server, broker, tmp_path) -> None:
    with (
        session_for(ref_server, tmp_path, None) as session,
        pytest.raises(errors.KitError, match="client_secret is required"),
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
    with pytest.raises(errors.ConfigurationError, match="not both"):
        Session(ref_server.profile(), "id", "secret", broker_url="https://broker.example")
