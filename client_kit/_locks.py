"""One refresh at a time: a thread lock and a lock file.

The lock file (``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows) serialises processes
(it lives in a private folder and is never opened through a symbolic link); the thread lock
serialises threads of one process before they touch the file. Asynchronous callers refresh
in a worker thread (see ``Session``), so they take the same locks.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from client_kit._errors import StorageError
from client_kit.private_files import open_private, private_dir

_registry_lock = threading.Lock()
_thread_locks: dict[str, threading.Lock] = {}


def _thread_lock(name: str) -> threading.Lock:
    with _registry_lock:
        return _thread_locks.setdefault(name, threading.Lock())


def _lock_file(handle: IO[bytes]) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        import msvcrt
        import time

        handle.seek(0)
        while True:
            try:
                msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]
                return
            except OSError:
                time.sleep(0.05)
    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)


def _unlock_file(handle: IO[bytes]) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
        return
    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


class RefreshLock:
    """Exclusive across threads and (with a path) processes."""

    def __init__(self, name: str, path: Path | None = None) -> None:
        self.name = name
        self.path = path
        self._thread_lock = _thread_lock(name)
        self._handle: IO[bytes] | None = None

    def acquire(self) -> None:
        self._thread_lock.acquire()
        try:
            if self.path is not None:
                handle = _open_lock_file(self.path)
                try:
                    _lock_file(handle)
                except BaseException:
                    handle.close()
                    raise
                self._handle = handle
        except BaseException:
            self._thread_lock.release()
            raise

    def release(self) -> None:
        handle, self._handle = self._handle, None
        try:
            if handle is not None:
                _unlock_file(handle)
                handle.close()
        finally:
            self._thread_lock.release()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()


def _open_lock_file(path: Path) -> IO[bytes]:
    """The lock file, in a private folder, never through a symbolic link."""
    private_dir(path.parent)
    try:
        fd = open_private(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, "lock file")
    except OSError as exc:
        raise StorageError(f"cannot open the lock file {path}: {exc.strerror}") from exc
    return os.fdopen(fd, "ab")


def lock_name(path: Path | None, fallback: str) -> str:
    return os.fspath(path) if path is not None else fallback
