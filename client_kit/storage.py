"""Where token sets live: the system keyring (default), a file (opt-in) or memory.

One entry per (service, client id, account). Saving is all-or-nothing: a failed save leaves
whatever was stored before untouched, so a crash or a full disk never loses a working login.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import secrets
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from client_kit.errors import (
    ConfigurationError,
    KeyringTimeout,
    KitError,
    NoKeyringBackend,
    StorageError,
)
from client_kit.tokens import TokenSet

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

KEYRING_SERVICE_PREFIX = "mb-oauth"
#: Windows allows 2560 bytes per credential blob, stored as UTF-16: keep chunks well below
KEYRING_CHUNK_CHARS = 1000

NO_KEYRING_HELP = (
    "no keyring backend is available to store tokens safely. Install and unlock one "
    "(on Linux: gnome-keyring or KeePassXC with the Secret Service enabled; macOS and Windows "
    "have one built in), or opt in to a plain file store readable only by you with "
    '--store file (or MB_OAUTH_STORE=file, or store = "file" in the config file).'
)


@dataclass(frozen=True)
class StoreKey:
    """Identifies one stored login."""

    service: str
    client_id: str
    account: str = "default"

    def slug(self) -> str:
        """A file-name-safe, collision-free name for this key."""
        raw = f"{self.service}\n{self.client_id}\n{self.account}".encode()
        return hashlib.sha256(raw).hexdigest()[:32]


class TokenStore(Protocol):
    """What the kit needs from a place that keeps token sets."""

    def load(self, key: StoreKey) -> TokenSet | None: ...

    def save(self, key: StoreKey, tokens: TokenSet) -> None: ...

    def delete(self, key: StoreKey) -> None: ...

    def describe(self) -> str: ...

    def lock_path(self, key: StoreKey) -> Path | None:
        """A file to lock for cross-process refreshes, or None when in-process is enough."""
        ...


def default_lock_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base else Path.home() / ".cache"
    return root / "mb-oauth" / "locks"


def _private_dir(path: Path) -> Path:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


# -- memory -------------------------------------------------------------------------------


class MemoryStore:
    """Keeps token sets in this process only: for tests and for embedding."""

    def __init__(self) -> None:
        self._data: dict[StoreKey, TokenSet] = {}
        self._lock = threading.Lock()

    def load(self, key: StoreKey) -> TokenSet | None:
        with self._lock:
            return self._data.get(key)

    def save(self, key: StoreKey, tokens: TokenSet) -> None:
        with self._lock:
            self._data[key] = tokens

    def delete(self, key: StoreKey) -> None:
        with self._lock:
            self._data.pop(key, None)

    def describe(self) -> str:
        return "memory (this process only)"

    def lock_path(self, key: StoreKey) -> Path | None:
        return None


# -- file ---------------------------------------------------------------------------------


def default_file_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME")
    root = Path(base) if base else Path.home() / ".local" / "share"
    return root / "mb-oauth" / "tokens"


class FileStore:
    """One JSON file per login, mode 0600 in a 0700 directory, replaced atomically."""

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory else default_file_dir()

    def _path(self, key: StoreKey) -> Path:
        return self.directory / f"{key.slug()}.json"

    def load(self, key: StoreKey) -> TokenSet | None:
        try:
            text = self._path(key).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"cannot read {self._path(key)}: {exc.strerror}") from exc
        return TokenSet.from_json(text)

    def save(self, key: StoreKey, tokens: TokenSet) -> None:
        target = self._path(key)
        try:
            _private_dir(self.directory)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
        except OSError as exc:
            raise StorageError(f"cannot write in {self.directory}: {exc.strerror}") from exc
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                os.fchmod(handle.fileno(), 0o600)
                handle.write(tokens.to_json())
                handle.flush()
                os.fsync(handle.fileno())
            Path(tmp).replace(target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                Path(tmp).unlink()
            raise StorageError(f"cannot write {target}: {exc.strerror}") from exc

    def delete(self, key: StoreKey) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()

    def describe(self) -> str:
        return f"file {self.directory}"

    def lock_path(self, key: StoreKey) -> Path | None:
        return self.directory / f"{key.slug()}.lock"


# -- keyring ------------------------------------------------------------------------------


def keyring_available(backend: Any) -> bool:
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

            backend: KeyringBackend = SecretService.Keyring()
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
        raise ConfigurationError(f"{source} must be a positive number of seconds, not {value!r}")
    return seconds


class _Job:
    """One keyring call, run by a worker; abandoned jobs that have not started never run."""

    def __init__(self, func: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.func = func
        self.args = args
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self._started = False
        self._abandoned = False

    def run(self) -> None:
        with self._lock:
            if self._abandoned:
                return
            self._started = True
        try:
            self.result = self.func(*self.args)
        except BaseException as exc:  # handed to the waiting caller
            self.error = exc
        finally:
            self.done.set()

    def abandon(self) -> bool:
        """Give up on this job; True when it is still running (and may finish later)."""
        with self._lock:
            self._abandoned = True
            return self._started and not self.done.is_set()


class _KeyringWorker:
    """Runs keyring calls one at a time, in order, in a daemon thread.

    A hung keyring call cannot be stopped, so the caller stops waiting for it instead. The
    daemon thread never keeps the process alive, and because calls run strictly in order,
    a write that finishes after its caller gave up can never land after a later one.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, job: _Job) -> None:
        with self._lock:
            self._jobs.put(job)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="mb-oauth-keyring", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    self._thread = None  # idle: the next submit starts a new thread
                    return
            job.run()


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
        self._worker = _KeyringWorker()

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

    def _bounded(self, what: str, func: Callable[..., Any], *args: str) -> Any:
        """``func(*args)`` in the worker, awaited at most ``self.timeout`` seconds."""
        job = _Job(func, args)
        self._worker.submit(job)
        if not job.done.wait(self.timeout) and (job.abandon() or not job.done.is_set()):
            raise KeyringTimeout(
                f"the keyring did not answer within {self.timeout:g} s while trying to {what} "
                "the tokens; it may be locked (waiting for its password) or its service may "
                "be hung. Unlock the keyring (or restart its service) and try again, or opt "
                "in to a plain file store with --store file (or MB_OAUTH_STORE=file). To wait "
                f"longer, set {KEYRING_TIMEOUT_ENV} to a number of seconds."
            )
        if job.error is not None:
            raise job.error
        return job.result

    @staticmethod
    def _names(key: StoreKey) -> tuple[str, str]:
        return f"{KEYRING_SERVICE_PREFIX} {key.service}", f"{key.client_id}/{key.account}"

    def _call(self, what: str, func: Callable[..., Any], *args: str) -> Any:
        from keyring.errors import NoKeyringError

        try:
            return self._bounded(what, func, *args)
        except KitError:
            raise
        except NoKeyringError as exc:
            raise NoKeyringBackend(NO_KEYRING_HELP) from exc
        except Exception as exc:  # backends raise many kinds (D-Bus, locked collection, ...)
            from client_kit.redaction import redact

            raise StorageError(
                f"the keyring could not {what} the tokens ({type(exc).__name__}: "
                f"{redact(str(exc))}); unlock the keyring and try again, or opt in to a plain "
                "file store with --store file"
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
            raise StorageError(
                f"the keyring could not delete the tokens ({type(exc).__name__}); "
                "unlock the keyring and try again"
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


def open_store(spec: str | None) -> TokenStore:
    """A store from a setting: ``keyring`` (default), ``file``, ``file:DIR`` or ``memory``."""
    spec = (spec or "keyring").strip()
    if spec == "keyring":
        return KeyringStore()
    if spec == "memory":
        return MemoryStore()
    if spec == "file" or spec.startswith("file:"):
        directory = spec[5:] or None
        return FileStore(Path(directory).expanduser() if directory else None)
    raise ConfigurationError(f"unknown store {spec!r}; use keyring, file, file:DIR or memory")
