"""Token stores: memory, file (0600, atomic), keyring (chunked, never half-written)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyring.backends import chainer, fail
from keyring.errors import PasswordDeleteError

from client_kit import _errors
from client_kit._cli_exit import exit_code
from client_kit._cli_hints import explain
from client_kit._config import open_store
from client_kit._keyring_store import KEYRING_CHUNK_CHARS, KeyringStore
from client_kit._storage import FileStore, MemoryStore, StoreKey
from client_kit._tokens import TokenSet
from tests.kit.helpers import make_tokens

KEY = StoreKey("https://mb.test", "cid", "default")


class DictKeyring(KeyringBackend):
    """An in-memory keyring backend that can be told to fail, with Windows' size limit."""

    priority = 1  # type: ignore[assignment]

    def __init__(self, max_blob_bytes: int = 2560) -> None:
        super().__init__()
        self.data: dict[tuple[str, str], str] = {}
        self.fail_after: int | None = None
        self.max_blob_bytes = max_blob_bytes

    def get_password(self, service: str, username: str) -> str | None:
        return self.data.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        if len(password.encode("utf-16-le")) > self.max_blob_bytes:
            raise OSError("credential blob too large")
        if self.fail_after is not None:
            if self.fail_after == 0:
                raise RuntimeError("keyring went away")
            self.fail_after -= 1
        self.data[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.data:
            raise PasswordDeleteError("missing")
        del self.data[(service, username)]


def big_tokens(n: int = 3000) -> TokenSet:
    return make_tokens("meba_" + "a" * n, "mebr_" + "b" * n)


@pytest.mark.parametrize("store_factory", [MemoryStore, lambda: KeyringStore(DictKeyring())])
def test_round_trip_and_delete(store_factory, tmp_path) -> None:
    store = store_factory()
    assert store.load(KEY) is None
    tokens = make_tokens()
    store.save(KEY, tokens)
    assert store.load(KEY).access_token == tokens.access_token
    other = StoreKey("https://mb.test", "cid", "second")
    assert store.load(other) is None  # one entry per (service, client id, account)
    store.delete(KEY)
    store.delete(KEY)
    assert store.load(KEY) is None


def test_file_store_permissions_and_atomic_replace(tmp_path) -> None:
    store = FileStore(tmp_path / "d" / "tokens")
    store.save(KEY, make_tokens("one"))
    store.save(KEY, make_tokens("two"))
    directory = tmp_path / "d" / "tokens"
    files = list(directory.iterdir())
    assert [f.suffix for f in files] == [".json"]  # no temp files left behind
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert store.load(KEY).access_token == "two"
    assert "two" not in files[0].name
    store.delete(KEY)
    assert store.load(KEY) is None


def test_file_store_failed_write_keeps_previous(tmp_path, monkeypatch) -> None:
    store = FileStore(tmp_path / "tokens")
    store.save(KEY, make_tokens("kept"))

    def broken_replace(self, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "replace", broken_replace)
    with pytest.raises(_errors.StorageError, match="No space left"):
        store.save(KEY, make_tokens("lost"))
    monkeypatch.undo()
    assert store.load(KEY).access_token == "kept"
    assert [p.name for p in (tmp_path / "tokens").iterdir() if p.name.startswith(".tmp")] == []


def test_keyring_splits_large_sets_under_the_windows_limit() -> None:
    backend = DictKeyring()
    store = KeyringStore(backend)
    tokens = big_tokens()
    store.save(KEY, tokens)
    assert len(backend.data) > 2
    assert all(len(v.encode("utf-16-le")) <= 2560 for v in backend.data.values())
    assert store.load(KEY) == TokenSet.from_json(tokens.to_json())
    # a small set replaces the chunks and the old chunks are cleaned up
    store.save(KEY, make_tokens("small"))
    assert len(backend.data) == 1
    assert store.load(KEY).access_token == "small"
    store.save(KEY, big_tokens())
    store.delete(KEY)
    assert backend.data == {}


def test_keyring_small_sets_fit_one_entry() -> None:
    backend = DictKeyring()
    KeyringStore(backend).save(KEY, make_tokens("meba_" + "x" * 100, "mebr_" + "y" * 100))
    (((service, user), value),) = backend.data.items()
    assert service == "mb-oauth https://mb.test" and user == "cid/default"
    assert value.startswith("{") and len(value) < KEYRING_CHUNK_CHARS


@pytest.mark.parametrize("fail_after", [0, 1, 3])
def test_keyring_failed_save_never_loses_stored_tokens(fail_after) -> None:
    backend = DictKeyring()
    store = KeyringStore(backend)
    store.save(KEY, big_tokens(1500))
    before = store.load(KEY)
    backend.fail_after = fail_after
    with pytest.raises(_errors.StorageError, match="keyring could not save"):
        store.save(KEY, big_tokens(2500))
    backend.fail_after = None
    assert store.load(KEY) == before


@pytest.mark.parametrize("backend", [fail.Keyring(), chainer.ChainerBackend()])
def test_no_keyring_backend_says_what_to_do(backend, monkeypatch) -> None:
    monkeypatch.setattr(chainer.ChainerBackend, "backends", [])
    store = KeyringStore(backend)
    with pytest.raises(_errors.NoKeyringBackend) as info:
        store.load(KEY)
    message = str(info.value)
    assert "gnome-keyring" in message and "--store" not in message  # the library's words
    advice = explain(info.value)  # and mb-oauth's
    assert "--store file" in advice and "MB_OAUTH_STORE=file" in advice
    assert exit_code(info.value) == 7


def test_default_keyring_fail_backend_is_detected(monkeypatch) -> None:
    # the user's keyring setting is honoured, here: "no keyring at all"
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    store = KeyringStore()
    with pytest.raises(_errors.NoKeyringBackend):
        store.save(KEY, make_tokens())
    assert "fail.Keyring" in store.describe()


def test_default_backend_falls_back_to_keyring_discovery(monkeypatch) -> None:
    import keyring

    import client_kit._keyring_store as storage

    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setattr(keyring.core, "load_config", lambda: None)
    monkeypatch.setattr(storage, "_platform_backend", lambda: None)
    backend = DictKeyring()
    monkeypatch.setattr(keyring, "get_keyring", lambda: backend)
    store = KeyringStore()
    store.save(KEY, make_tokens("via-discovery"))
    assert store.load(KEY).access_token == "via-discovery" and backend.data


def test_open_store_specs(tmp_path) -> None:
    assert isinstance(open_store(None), KeyringStore)
    assert isinstance(open_store("memory"), MemoryStore)
    store = open_store(f"file:{tmp_path}")
    assert isinstance(store, FileStore) and store.directory == tmp_path
    assert isinstance(open_store("file"), FileStore)
    with pytest.raises(_errors.ConfigurationError):
        open_store("sqlite")


def test_lock_files_live_in_private_places(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "run"))
    assert KeyringStore(DictKeyring()).lock_path(KEY).is_relative_to(tmp_path / "run")
    assert FileStore(tmp_path / "f").lock_path(KEY).parent == tmp_path / "f"
    assert MemoryStore().lock_path(KEY) is None
    assert os.sep not in KEY.slug()
