"""The run-wide files (the failure budget, the epoch of `--workers` runs, their locks), kept
where only the user running the suite can touch them.

In the shared temporary folder, under names anyone can compute, another local user could plant
a link there (the suite would overwrite a file of the person running it), or keep the file full
(the run would wait for as long as they liked). So the files live in a folder of the user's
own, `$XDG_RUNTIME_DIR/mb-oauth/conformance` (else `$XDG_CACHE_HOME`, else `~/.cache`), made
0700 and checked (owned by the user, not a link, not shared by all); each file is opened
without following a link and must be a regular file of the user's own (the kit's
`client_kit.private_files` does both). A state file is replaced whole (a new 0600 file put in
its place), never truncated, and only when it holds what the suite writes: a file of any other
content is left alone and named in the error. Lock files are created empty and never written.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from client_kit import StorageError
from client_kit.private_files import open_private, private_dir, write_private
from steps.outcomes import NotChecked

#: Inside the user's runtime (or cache) folder.
FOLDER = Path("mb-oauth") / "conformance"
#: What every state file of the suite says it is (a file without it is not the suite's).
MARK = "mb-oauth-conformance"
#: The largest state file the suite reads (its own are a few kB).
MAX_STATE = 1024 * 1024
#: Files unused for this long are removed: those of `--workers` runs that ended (named by their
#: run id), and the failure budgets of targets not checked since (a budget counts one minute).
STALE_AFTER = 2 * 24 * 3600.0
STALE_NAMES = ("epoch-", "writers-", "clock-", "failures-")

_cleaned: set[Path] = set()


class RunFileError(NotChecked):
    """A run-wide file or its folder is not safe to use: the message says what to fix."""


def run_folder(base: Path | None = None) -> Path:
    """The user's own folder of run-wide files (`base`, or the default above), made 0700 and
    checked; the files in it that no run used for long are removed."""
    folder = base if base is not None else _default_root() / FOLDER
    try:
        if folder.is_symlink():
            raise StorageError(f"{folder} is a symbolic link; remove it")
        private_dir(folder)
    except StorageError as error:
        raise RunFileError(
            f"the suite's run-wide files cannot be kept in {folder}: {error}"
        ) from None
    if folder not in _cleaned:
        _cleaned.add(folder)
        _forget_old_runs(folder)
    return folder


def _default_root() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("XDG_CACHE_HOME")
    return Path(base) if base else Path.home() / ".cache"


@contextlib.contextmanager
def locked(path: Path, *, exclusive: bool = True) -> Iterator[None]:
    """Hold an advisory lock on `path` (created empty, 0600, if missing; never written)."""
    try:
        fd = open_private(path, os.O_RDWR | os.O_CREAT, "lock file")
    except (StorageError, OSError) as error:
        raise RunFileError(f"the suite cannot use the lock file {path}: {error}") from None
    try:
        os.utime(fd)  # in use: not stale (see _forget_old_runs)
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield
    finally:
        os.close(fd)  # releases the lock


def read_state(path: Path, kind: str) -> dict[str, Any] | None:
    """The data of a state file the suite wrote (None when there is none); RunFileError for a
    file that is not one of the suite's (a link, another user's, other content)."""
    try:
        fd = open_private(path, os.O_RDONLY, "run-wide file")
    except FileNotFoundError:
        return None
    except (StorageError, OSError) as error:
        raise RunFileError(f"the suite cannot use {path}: {error}") from None
    with os.fdopen(fd, "rb") as handle:
        raw = handle.read(MAX_STATE + 1)
    try:
        document = json.loads(raw) if len(raw) <= MAX_STATE else None
    except ValueError:
        document = None
    if not isinstance(document, dict) or document.get(MARK) != kind:
        raise RunFileError(
            f"{path} is not a {kind} file of the suite (it holds something else); the suite "
            "never overwrites a file it did not write: remove it"
        )
    data = document.get("data")
    return data if isinstance(data, dict) else {}


def write_state(path: Path, kind: str, data: dict[str, Any]) -> None:
    """Put a new state file in `path`'s place (written whole, then renamed over it)."""
    try:
        write_private(path, json.dumps({MARK: kind, "data": data}))
    except OSError as error:
        raise RunFileError(f"the suite cannot write {path}: {error}") from None


def _forget_old_runs(folder: Path) -> None:
    """Remove the suite's files that no run used for STALE_AFTER (a lock is touched at each
    use, a state file written)."""
    limit = time.time() - STALE_AFTER
    for entry in folder.iterdir():
        if not entry.name.startswith(STALE_NAMES):
            continue
        with contextlib.suppress(OSError):
            info = entry.lstat()
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and info.st_mtime < limit:
                entry.unlink()
