"""The keyring store when the keyring fails or hangs (client_kit._keyring_store and its
worker): reported within the timeout, never a lost or half-written token set, and writes
land in order even when a caller gave up on one."""

from __future__ import annotations

import threading

import pytest

from client_kit import _cli_exit, _errors
from client_kit._cli_exit import exit_code
from client_kit._cli_hints import explain
from client_kit._errors import KeyringTimeout
from client_kit._keyring_store import KEYRING_CHUNK_CHARS, KeyringStore
from client_kit._storage import StoreKey
from client_kit._tokens import TokenSet
from tests.kit.helpers import (
    BASE,
    CLIENT_ID,
    GUARD,
    BrokenKeyring,
    GatedKeyring,
    LockedKeyring,
    SleepyKeyring,
    in_thread,
    make_tokens,
    wait_for,
)


@pytest.fixture
def sleepy():
    SleepyKeyring.release.clear()
    yield SleepyKeyring()
    SleepyKeyring.release.set()  # let the abandoned worker threads finish


KEY = StoreKey(BASE, CLIENT_ID)

OPERATIONS = {
    "load": lambda store: store.load(KEY),
    "save": lambda store: store.save(KEY, make_tokens()),
    "delete": lambda store: store.delete(KEY),
}


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_hanging_keyring_is_reported_not_waited_on(sleepy, operation) -> None:
    store = KeyringStore(sleepy, timeout=0.5)
    finished, _, error = in_thread(OPERATIONS[operation], store)
    assert finished, "the kit waited on a hung keyring"
    assert isinstance(error, KeyringTimeout) and isinstance(error, _errors.StorageError)
    assert error.seconds == 0.5 and error.operation == "read"  # every operation reads first
    message = str(error)
    assert "did not answer within 0.5 s" in message and "Unlock the keyring" in message
    assert "--store" not in message  # the command line's advice is mb-oauth's
    advice = explain(error)
    assert "--store file" in advice and "MB_OAUTH_KEYRING_TIMEOUT" in advice
    assert exit_code(error) == _cli_exit.EXIT_STORAGE


def test_keyring_timeout_defaults_and_comes_from_the_environment(sleepy, monkeypatch) -> None:
    monkeypatch.delenv("MB_OAUTH_KEYRING_TIMEOUT", raising=False)
    assert KeyringStore(sleepy).timeout == 5
    assert KeyringStore(sleepy, timeout=2.5).timeout == 2.5
    monkeypatch.setenv("MB_OAUTH_KEYRING_TIMEOUT", "0.4")
    store = KeyringStore(sleepy)
    assert store.timeout == 0.4
    finished, _, error = in_thread(store.load, KEY)
    assert finished and isinstance(error, KeyringTimeout) and "within 0.4 s" in str(error)
    for bad in ("soon", "0", "-3", "inf", "nan"):
        monkeypatch.setenv("MB_OAUTH_KEYRING_TIMEOUT", bad)
        with pytest.raises(_errors.ConfigurationError, match="MB_OAUTH_KEYRING_TIMEOUT"):
            KeyringStore(sleepy)


@pytest.mark.parametrize(
    ("backend", "name"), [(LockedKeyring(), "KeyringLocked"), (BrokenKeyring(), "RuntimeError")]
)
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_failing_keyring_is_a_clear_storage_error(backend, name, operation) -> None:
    store = KeyringStore(backend, timeout=GUARD / 3)
    finished, _, error = in_thread(OPERATIONS[operation], store)
    assert finished
    assert isinstance(error, _errors.StorageError) and not isinstance(error, KeyringTimeout)
    assert isinstance(error, _errors.KeyringFailure)
    message = str(error)
    assert name in message and "unlock the keyring" in message
    assert "--store file" in explain(error)
    assert exit_code(error) == _cli_exit.EXIT_STORAGE


def big_tokens(tag: str, n: int = 2500) -> TokenSet:
    """A large token set, as it reads back from a store (JSON rounds the times)."""
    tokens = make_tokens(f"meba_{tag}_" + "a" * n, f"mebr_{tag}_" + "b" * n)
    return TokenSet.from_json(tokens.to_json())


def set_calls(tokens: TokenSet) -> int:
    """How many set_password calls a save of ``tokens`` makes (chunks + pointer)."""
    length = len(tokens.to_json())
    return 1 if length <= KEYRING_CHUNK_CHARS else -(-length // KEYRING_CHUNK_CHARS) + 1


@pytest.mark.parametrize("where", ["first chunk", "middle chunk", "last chunk", "pointer"])
def test_a_save_that_hangs_never_loses_or_corrupts_the_stored_tokens(where) -> None:
    backend = GatedKeyring()
    store = KeyringStore(backend, timeout=0.5)
    before = big_tokens("old", 1500)
    store.save(KEY, before)
    new = big_tokens("new")
    calls = set_calls(new)
    assert calls >= 4
    index = {"first chunk": 0, "middle chunk": 2, "last chunk": calls - 2, "pointer": calls - 1}
    backend.sets = 0
    backend.hang_on = index[where]

    finished, _, error = in_thread(store.save, KEY, new)
    assert finished and isinstance(error, KeyringTimeout) and "save" in str(error)
    # while the keyring hangs, a load is reported too (it queues behind the hung call)
    finished, _, error = in_thread(store.load, KEY)
    assert finished and isinstance(error, KeyringTimeout)
    calls_when_abandoned = list(backend.calls)

    backend.gate.set()  # the hung call completes after its caller gave up
    assert backend.finished_hung_call.wait(GUARD)
    # the abandoned save issued nothing more, and the abandoned load never ran
    wait_for(lambda: store._worker.idle)
    assert backend.calls == calls_when_abandoned
    # what is stored is one whole token set: the old one, or the new one if the pointer moved
    assert store.load(KEY) == (new if where == "pointer" else before)
    # and the keyring works again for the next save
    latest = big_tokens("latest")
    store.save(KEY, latest)
    assert store.load(KEY) == latest


def test_a_write_finishing_late_never_lands_after_a_newer_one() -> None:
    backend = GatedKeyring()
    store = KeyringStore(backend, timeout=0.5)
    store.save(KEY, make_tokens("access-0", "refresh-0"))
    backend.sets = 0
    backend.hang_on = 0
    finished, _, error = in_thread(store.save, KEY, make_tokens("access-stale", "refresh-stale"))
    assert finished and isinstance(error, KeyringTimeout)

    # the stale write is released only once a newer write reaches the backend, or after a
    # while: calls in order means the newer one cannot start before the stale one ends
    newer_started = threading.Event()
    real_set = backend.set_password

    def set_password(service: str, username: str, password: str) -> None:
        if "access-newer" in password:
            newer_started.set()
        real_set(service, username, password)

    backend.set_password = set_password  # type: ignore[method-assign]
    threading.Thread(
        target=lambda: (newer_started.wait(3), backend.gate.set()), daemon=True
    ).start()
    store.timeout = GUARD / 3
    store.save(KEY, make_tokens("access-newer", "refresh-newer"))
    assert backend.finished_hung_call.is_set()
    assert store.load(KEY).access_token == "access-newer"
