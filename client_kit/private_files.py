"""Files only their owner may touch: private folders, and files opened without following links.

The file store and the refresh locks live in folders. A folder others may write to lets them
swap a token file for a link to a file of theirs (the kit would hand out their token) or a
lock file for a link to any path (the kit would create a file there). So:

* a folder is made 0700; an existing one that group or others may write to is repaired
  (made 0700, with a warning) when it is the user's own, and refused when it is not or
  when it is shared on purpose (sticky and writable by all, like /tmp: never changed);
* token, lock and saved-request files are opened with ``O_NOFOLLOW``: a symbolic link is
  refused, never followed, and so is a file that is not a regular file of the user's own;
* they are written whole into a new 0600 file that then replaces the old one (a crash
  leaves the old one).

Without POSIX permissions (Windows) only what the system offers is done.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from client_kit._errors import StorageError
from client_kit._logs import get_logger

log = get_logger("client_kit.private_files")

POSIX = os.name == "posix"
#: 0 where the system has no such flag (links are then not refused)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a planted FIFO must not block the open
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: what ``open`` answers for a link under O_NOFOLLOW (ELOOP; FreeBSD: EMLINK)
_LINK_ERRORS = (errno.ELOOP, errno.EMLINK)


def _me() -> int:
    return os.geteuid()


def private_dir(path: Path, *, create: bool = True) -> bool:
    """Make sure ``path`` is a folder that only its owner, this user, may write to.

    False when it does not exist (and ``create`` is False). Raises :class:`StorageError`
    for a folder of another user; repairs (0700) and warns about a writable one of ours.
    """
    try:
        if create:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.stat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StorageError(f"cannot use the folder {path}: {exc.strerror}") from exc
    if not POSIX:
        return True
    if not stat.S_ISDIR(info.st_mode):
        raise StorageError(f"{path} is not a folder")
    if info.st_uid != _me():
        raise StorageError(
            f"the folder {path} belongs to another user (uid {info.st_uid}); the kit keeps "
            "tokens and locks only in a folder of your own"
        )
    if info.st_mode & stat.S_ISVTX and info.st_mode & 0o002:
        raise StorageError(
            f"the folder {path} is shared by all users (like /tmp); the kit keeps tokens and "
            "locks only in a folder of your own"
        )
    if info.st_mode & 0o022:
        try:
            path.chmod(0o700)
        except OSError as exc:
            raise StorageError(
                f"the folder {path} is writable by others (mode {stat.S_IMODE(info.st_mode):o}) "
                f"and cannot be made private: {exc.strerror}"
            ) from exc
        log.warning(
            "the folder %s was writable by others (mode %o); made it private (0700)",
            path,
            stat.S_IMODE(info.st_mode),
        )
    return True


def open_private(path: Path, flags: int, what: str) -> int:
    """``os.open`` without following a link; the file must be a regular file of our own.

    ``what`` names the file in messages ("token file", "lock file"). Raises
    :class:`StorageError` for a link or a foreign file, ``OSError`` otherwise (a missing
    file is ``FileNotFoundError``).
    """
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno in _LINK_ERRORS and path.is_symlink():
            raise StorageError(
                f"the {what} {path} is a symbolic link; the kit never follows one there "
                "(someone may have put it in place): remove it"
            ) from exc
        raise
    try:
        _check_own(path, os.fstat(fd), what)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _check_own(path: Path, info: os.stat_result, what: str) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise StorageError(f"the {what} {path} is not a regular file; remove it")
    if POSIX and info.st_uid != _me():
        raise StorageError(
            f"the {what} {path} belongs to another user (uid {info.st_uid}); remove it"
        )


def read_private(path: Path, what: str) -> str:
    """The text of a private file (``FileNotFoundError`` when there is none)."""
    fd = open_private(path, os.O_RDONLY, what)
    with os.fdopen(fd, "r", encoding="utf-8") as handle:
        return handle.read()


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to a new 0600 file beside ``path``, then put it in ``path``'s place
    (a link there is replaced, not followed). Raises ``OSError``; the old file stays."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            if POSIX:
                os.fchmod(handle.fileno(), 0o600)
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise
