"""KeyringStore against a real Secret Service: a private D-Bus and gnome-keyring-daemon."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from client_kit import _errors
from client_kit._cli_hints import explain
from client_kit._keyring_store import KeyringStore
from client_kit._session import Session
from client_kit._storage import StoreKey
from tests.kit.helpers import CLIENT_ID, CLIENT_SECRET, make_tokens
from tests.support.keyring import required_secret_service, unavailable

pytestmark = pytest.mark.keyring

KEY = StoreKey("https://mb.test", CLIENT_ID, "keyring-test")


@pytest.fixture(scope="module")
def secret_service(tmp_path_factory):
    """Yields a SecretService keyring backend on a private bus; tears everything down."""
    bus_binary, daemon_binary = required_secret_service()
    from keyring.backends import SecretService

    root = tmp_path_factory.mktemp("secret-service")
    (root / "home").mkdir()
    runtime = root / "run"
    runtime.mkdir(mode=0o700)
    bus = subprocess.run(
        [bus_binary, "--session", "--fork", "--print-address=1", "--print-pid=1"],
        capture_output=True,
        text=True,
        check=True,
    )
    address, bus_pid = bus.stdout.split()[:2]
    saved = {k: os.environ.get(k) for k in ("DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")}
    env = dict(
        os.environ,
        HOME=str(root / "home"),
        XDG_RUNTIME_DIR=str(runtime),
        DBUS_SESSION_BUS_ADDRESS=address,
    )
    daemon = subprocess.Popen(
        [daemon_binary, "--foreground", "--unlock", "--components=secrets"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    daemon.stdin.write(b"test-keyring-password")
    daemon.stdin.close()
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = address
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    try:
        backend = SecretService.Keyring()
        # the "login" collection that --unlock creates; never the default alias, whose
        # absence (early on) would make secretstorage try to create one behind a prompt
        backend.preferred_collection = "/org/freedesktop/secrets/collection/login"
        login_keyring = root / "home" / ".local" / "share" / "keyrings" / "login.keyring"
        deadline = time.monotonic() + 20
        while True:  # wait until the daemon made the login keyring and owns its bus name
            try:
                if not login_keyring.exists():
                    raise FileNotFoundError(login_keyring)
                backend.get_password("mb-oauth probe", "probe")
                break
            except Exception as exc:
                if daemon.poll() is not None or time.monotonic() > deadline:
                    unavailable(
                        f"gnome-keyring-daemon did not come up (exit status "
                        f"{daemon.poll()}, last error {exc!r})"
                    )
                time.sleep(0.1)
        yield backend
    finally:
        daemon.terminate()
        try:
            daemon.wait(10)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        subprocess.run(["kill", bus_pid], check=False)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def test_round_trip_in_secret_service(secret_service) -> None:
    store = KeyringStore(secret_service)
    tokens = make_tokens("access-in-keyring", "refresh-in-keyring", username="alice")
    store.save(KEY, tokens)
    assert secret_service.get_password(f"mb-oauth {KEY.service}", f"{CLIENT_ID}/keyring-test")
    loaded = KeyringStore(secret_service).load(KEY)
    assert loaded.access_token == "access-in-keyring" and loaded.username == "alice"
    store.delete(KEY)
    assert store.load(KEY) is None


def test_large_token_set_in_secret_service(secret_service) -> None:
    store = KeyringStore(secret_service)
    big = make_tokens("meba_" + "a" * 3000, "mebr_" + "b" * 3000)
    store.save(KEY, big)
    assert store.load(KEY).refresh_token == big.refresh_token
    store.delete(KEY)
    assert store.load(KEY) is None


def test_session_uses_the_keyring_and_status_says_so(secret_service, mock) -> None:
    from client_kit import profiles

    store = KeyringStore(secret_service)
    session = Session(
        profiles.custom("https://mb.test"),
        CLIENT_ID,
        CLIENT_SECRET,
        store=store,
        account="keyring-test",
    )
    store.save(session.key, make_tokens(expires_in=-5))
    mock.post("/oauth2/token").respond(
        200,
        json={"access_token": "refreshed-into-keyring", "expires_in": 3600, "token_type": "Bearer"},
    )
    assert session.access_token() == "refreshed-into-keyring"
    assert KeyringStore(secret_service).load(session.key).access_token == ("refreshed-into-keyring")
    assert "SecretService" in session.status()["store"]
    session.forget()


def test_no_backend_is_a_clear_error() -> None:
    from keyring.backends import fail

    with pytest.raises(_errors.NoKeyringBackend, match="no keyring backend") as info:
        KeyringStore(fail.Keyring()).save(KEY, make_tokens())
    assert "--store file" in explain(info.value)
