"""The system keyring as a token store: found quickly, bounded in time, chunked when large.

Every keyring call (finding the backend included) runs in :mod:`client_kit._keyring_worker`
and is awaited at most ``timeout`` seconds, so a locked or hung keyring is reported as a
:class:`~client_kit._errors.KeyringTimeout` instead of blocking forever.
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from client_kit._errors import (
    ConfigurationError,
    KeyringFailure,
    KeyringOperation,
    KeyringTimeout,
    KitError,
    NoKeyringBackend,
    StorageError,
)
from client_kit._keyring_worker import KeyringWorker
from client_kit._storage import StoreKey, default_lock_dir
from client_kit._tokens import TokenSet

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

T = TypeVar("T")

KEYRING_SERVICE_PREFIX = "mb-oauth"
#: Windows allows 2560 bytes per credential blob, stored as UTF-16: keep chunks well below
KEYRING_CHUNK_CHARS = 1000

#: the kit's words; ``mb-oauth`` adds how to opt in to a file store, a library user knows
#: its own ``store=``
NO_KEYRING_HELP = (
    "no keyring backend is available to store tokens safely. Install and unlock one "
    "(on Linux: gnome-keyring or KeePassXC with the Secret Service enabled; macOS and Windows "
    "have one built in)"
)


def keyring_available(backend: KeyringBackend) -> bool:
    """False for keyring's "fail" backend and for a chainer with nothing to chain."""
    from keyring.backends import chainer, fail

    if isinstance(backend, fail.Keyring):
        return False
    return not (isinstance(backend, chainer.ChainerBackend) and not backend.backends)


def _platform_backend() -> KeyringBackend | None:
    """The platform's own keyring, found without keyring's full discovery.

    keyring's discovery imports every backend module (its macOS module alone costs tens of
    milliseconds on Linux), which dominates ``mb-oauth token``. The platform backend is what
    discovery would pick in the common case; None means "ask keyring".
    """
    try:
        if sys.platform.startswith("linux") or "bsd" in sys.platform:
            from keyring.backends import SecretService

            # keyring's SecretService.Keyring has no annotated __init__
            backend: KeyringBackend = SecretService.Keyring()  # type: ignore[no-untyped-call]
        elif sys.platform == "darwin":
            from keyring.backends import macOS

            backend = macOS.Keyring()
        elif sys.platform == "win32":
            from keyring.backends import Windows

            backend = Windows.WinVaultKeyring()
        else:
            return None
        return backend if backend.priority > 0 else None
    except Exception:  # not viable here (no D-Bus, missing module, ...): let keyring decide
        return None


def default_backend() -> KeyringBackend:
    """What ``keyring.get_keyring()`` would use, honouring the user's keyring settings."""
    import keyring.core

    chosen = keyring.core.load_env() or keyring.core.load_config()
    if chosen is None:
        chosen = _platform_backend()
    return chosen if chosen is not None else keyring.get_keyring()


#: seconds to wait for one keyring call before giving up (MB_OAUTH_KEYRING_TIMEOUT overrides)
DEFAULT_KEYRING_TIMEOUT = 5.0
KEYRING_TIMEOUT_ENV = "MB_OAUTH_KEYRING_TIMEOUT"


def keyring_timeout(value: float | str | None = None) -> float:
    """The keyring timeout: ``value``, else ``$MB_OAUTH_KEYRING_TIMEOUT``, else 5 seconds."""
    source = "the keyring timeout"
    if value is None:
        value = os.environ.get(KEYRING_TIMEOUT_ENV) or None
        source = KEYRING_TIMEOUT_ENV
    if value is None:
        return DEFAULT_KEYRING_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise ConfigurationError(
            f"{source} must be a positive number of seconds, not {value!r}",
            setting="keyring_timeout",
        )
    return seconds


class KeyringStore:
    """The system keyring. Large token sets are split over several entries.

    Layout: the entry ``<client id>/<account>`` of service ``mb-oauth <service>`` holds the
    compact JSON, or ``chunks:<generation>:<count>`` pointing at entries
    ``<client id>/<account>#<generation>.<i>``. A new generation is written in full before the
    pointer moves, so a failure half-way leaves the previous token set readable.

    Every keyring call (finding the backend included) runs in a worker thread and is awaited
    at most ``timeout`` seconds (default 5, or ``$MB_OAUTH_KEYRING_TIMEOUT``): a keyring that
    hangs, e.g. locked behind an unlock prompt nobody answers, raises :class:`KeyringTimeout`
    instead of blocking forever. Calls run one at a time and in order; a call still running
    when its caller gave up may finish later, which is safe: chunks are written before the
    pointer that names them, and nothing is deleted until the pointer has moved.
    """

    def __init__(
        self,
        backend: KeyringBackend | None = None,
        lock_dir: Path | None = None,
        *,
        timeout: float | None = None,
    ) -> None:
        self._backend = backend
        self._lock_dir = lock_dir
        self.timeout = keyring_timeout(timeout)
        self._worker = KeyringWorker()

    @property
    def backend(self) -> KeyringBackend:
        if self._backend is None or not keyring_available(self._backend):
            self._backend = self._call("open", self._resolve_backend)
        return self._backend

    def _resolve_backend(self) -> KeyringBackend:
        if self._backend is None:
            self._backend = default_backend()  # kept even when unusable, for describe()
        backend = self._backend
        if not keyring_available(backend):
            raise NoKeyringBackend(NO_KEYRING_HELP)
        return backend

    def _bounded(self, what: KeyringOperation, func: Callable[..., T], *args: str) -> T:
        """``func(*args)`` in the worker, awaited at most ``self.timeout`` seconds."""
        finished, job = self._worker.call(lambda: func(*args), self.timeout)
        if not finished:
            raise KeyringTimeout(
                f"the keyring did not answer within {self.timeout:g} s while trying to {what} "
                "the tokens; it may be locked (waiting for its password) or its service may "
                "be hung. Unlock the keyring (or restart its service) and try again",
                operation=what,
                seconds=self.timeout,
            )
        return job.result()

    @staticmethod
    def _names(key: StoreKey) -> tuple[str, str]:
        return f"{KEYRING_SERVICE_PREFIX} {key.service}", f"{key.client_id}/{key.account}"

    def _call(self, what: KeyringOperation, func: Callable[..., T], *args: str) -> T:
        from keyring.errors import NoKeyringError

        try:
            return self._bounded(what, func, *args)
        except KitError:
            raise
        except NoKeyringError as exc:
            raise NoKeyringBackend(NO_KEYRING_HELP, operation=what) from exc
        except Exception as exc:  # backends raise many kinds (D-Bus, locked collection, ...)
            from client_kit._logs import redact

            raise KeyringFailure(
                f"the keyring could not {what} the tokens ({type(exc).__name__}: "
                f"{redact(str(exc))}); unlock the keyring and try again",
                operation=what,
            ) from exc

    def load(self, key: StoreKey) -> TokenSet | None:
        service, user = self._names(key)
        value = self._call("read", self.backend.get_password, service, user)
        if value is None:
            return None
        if value.startswith("chunks:"):
            value = self._read_chunks(service, user, value)
        return TokenSet.from_json(value)

    def _read_chunks(self, service: str, user: str, pointer: str) -> str:
        _, generation, count = pointer.split(":")
        parts = []
        for index in range(int(count)):
            part = self._call(
                "read", self.backend.get_password, service, f"{user}#{generation}.{index}"
            )
            if part is None:
                raise StorageError("a stored token set is incomplete; log in again")
            parts.append(part)
        return "".join(parts)

    def save(self, key: StoreKey, tokens: TokenSet) -> None:
        service, user = self._names(key)
        backend = self.backend
        old = self._call("read", backend.get_password, service, user)
        text = tokens.to_json()
        if len(text) <= KEYRING_CHUNK_CHARS:
            self._call("save", backend.set_password, service, user, text)
        else:
            generation = secrets.token_hex(4)
            chunks = [
                text[i : i + KEYRING_CHUNK_CHARS] for i in range(0, len(text), KEYRING_CHUNK_CHARS)
            ]
            for index, chunk in enumerate(chunks):
                self._call(
                    "save", backend.set_password, service, f"{user}#{generation}.{index}", chunk
                )
            self._call(
                "save", backend.set_password, service, user, f"chunks:{generation}:{len(chunks)}"
            )
        if old and old.startswith("chunks:"):
            self._forget_chunks(service, user, old)

    def _forget_chunks(self, service: str, user: str, pointer: str) -> None:
        _, generation, count = pointer.split(":")
        for index in range(int(count)):
            try:
                self._bounded(
                    "delete", self.backend.delete_password, service, f"{user}#{generation}.{index}"
                )
            except KeyringTimeout:
                return  # leftovers of an old generation are harmless; do not wait again
            except Exception:  # noqa: S112 - best effort: the pointer has already moved
                continue

    def delete(self, key: StoreKey) -> None:
        from keyring.errors import PasswordDeleteError

        service, user = self._names(key)
        old = self._call("read", self.backend.get_password, service, user)
        if old is None:
            return
        try:
            self._bounded("delete", self.backend.delete_password, service, user)
        except PasswordDeleteError:
            pass
        except KitError:
            raise
        except Exception as exc:
            raise KeyringFailure(
                f"the keyring could not delete the tokens ({type(exc).__name__}); "
                "unlock the keyring and try again",
                operation="delete",
            ) from exc
        if old.startswith("chunks:"):
            self._forget_chunks(service, user, old)

    def describe(self) -> str:
        backend = self._backend
        if backend is None:
            return "keyring (system default)"
        return f"keyring ({type(backend).__module__}.{type(backend).__name__})"

    def lock_path(self, key: StoreKey) -> Path | None:
        return (self._lock_dir or default_lock_dir()) / f"{key.slug()}.lock"
