"""Where token sets live: the system keyring (default), a file (opt-in) or memory.

One entry per (service, client id, account). Saving is all-or-nothing: a failed save leaves
whatever was stored before untouched, so a crash or a full disk never loses a working login.
The keyring store lives in :mod:`client_kit._keyring_store` (it imports ``keyring``, which
``mb-oauth token`` on a file store never needs); a store named by a setting (``keyring``,
``file:DIR``...) is :func:`client_kit._config.open_store`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from client_kit._errors import StorageError
from client_kit._tokens import TokenSet
from client_kit.private_files import private_dir, read_private, write_private


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
    """One JSON file per login, mode 0600 in a 0700 directory, replaced atomically.

    The folder must be the user's own: one that others may write to is made private
    (with a warning), one of another user refused; a token file that is a symbolic link
    is refused, never followed (see :mod:`client_kit.private_files`).
    """

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory else default_file_dir()

    def _path(self, key: StoreKey) -> Path:
        return self.directory / f"{key.slug()}.json"

    def load(self, key: StoreKey) -> TokenSet | None:
        path = self._path(key)
        try:
            if not private_dir(self.directory, create=False):
                return None
            text = read_private(path, "token file")
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StorageError(f"cannot read {path}: {exc.strerror}") from exc
        return TokenSet.from_json(text)

    def save(self, key: StoreKey, tokens: TokenSet) -> None:
        target = self._path(key)
        private_dir(self.directory)
        try:
            write_private(target, tokens.to_json())
        except OSError as exc:
            raise StorageError(f"cannot write {target}: {exc.strerror}") from exc

    def delete(self, key: StoreKey) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()

    def describe(self) -> str:
        return f"file {self.directory}"

    def lock_path(self, key: StoreKey) -> Path | None:
        return self.directory / f"{key.slug()}.lock"
