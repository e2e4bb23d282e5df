"""The interactive desktop login (client_kit._desktop): an interrupted, timed-out or denied
login leaves the stored tokens as they were, byte for byte, in every kind of store."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest

from client_kit import _cli_exit, _errors
from client_kit._cli_exit import exit_code
from client_kit._keyring_store import KeyringStore
from client_kit._session import Session
from client_kit._storage import FileStore, MemoryStore, StoreKey
from tests.kit.helpers import (
    CLIENT_ID,
    CLIENT_SECRET,
    GUARD,
    FakeUI,
    GatedKeyring,
    http_get,
    make_tokens,
    query,
    redirect_with,
    token_json,
)


class StoreUnderTest:
    """A store holding a valid login, and a byte-level snapshot of what it holds."""

    def __init__(self, kind: str, tmp_path: Path, key: StoreKey) -> None:
        self.kind = kind
        self.key = key
        if kind == "memory":
            self.store: MemoryStore | FileStore | KeyringStore = MemoryStore()
        elif kind == "file":
            self.directory = tmp_path / "store"
            self.store = FileStore(self.directory)
        else:
            self.backend = GatedKeyring()
            self.store = KeyringStore(self.backend, timeout=GUARD / 3)
        self.store.save(key, make_tokens("access-kept-123", "refresh-kept-456", username="alice"))

    def snapshot(self) -> object:
        if self.kind == "memory":
            return self.store.load(self.key)
        if self.kind == "file":
            return {
                p.name: (p.read_bytes(), stat.S_IMODE(p.stat().st_mode))
                for p in sorted(self.directory.iterdir())
            }
        return dict(self.backend.data)


def interrupting_browser(outcome: str):
    """What the 'user' does with the authorization URL for each kind of interruption."""

    def run(url: str) -> None:
        if outcome == "ctrl-c":
            os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, delivered to the main thread
        elif outcome == "denied":
            http_get(redirect_with(url, error="access_denied", state=query(url)["state"]))
        # "timeout": the user never comes back

    return run


@pytest.mark.parametrize("kind", ["memory", "file", "keyring"])
@pytest.mark.parametrize(
    ("outcome", "error"),
    [
        ("ctrl-c", _errors.LoginCancelled),
        ("timeout", _errors.LoginTimeout),
        ("denied", _errors.AccessDenied),
    ],
)
def test_interrupted_login_keeps_the_stored_tokens(
    mb_profile, mock, tmp_path, kind, outcome, error
) -> None:
    token = mock.post("/oauth2/token").respond(200, json=token_json("access-new", "refresh-new"))
    key = StoreKey(mb_profile.base_url, CLIENT_ID)
    held = StoreUnderTest(kind, tmp_path, key)
    before = held.snapshot()
    session = Session(
        mb_profile,
        CLIENT_ID,
        CLIENT_SECRET,
        store=held.store,
        ui=FakeUI(browser=interrupting_browser(outcome)),
    )
    with pytest.raises(error) as info:
        session.login(timeout=0.5 if outcome == "timeout" else GUARD)
    assert exit_code(info.value) == _cli_exit.EXIT_CANCELLED
    assert not token.calls
    assert held.snapshot() == before
    assert session.tokens() == held.store.load(key)
    assert session.tokens().access_token == "access-kept-123"
