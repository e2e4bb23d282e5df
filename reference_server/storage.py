"""The server's one SQLite file: connection settings, units of work and data access.

Only data access lives here (the tables are in schema.py); the rules of the spec live in
`grants/` and the endpoints. Every write that depends on a read runs inside `transaction()`
(BEGIN IMMEDIATE), so two workers on the same file cannot both redeem one code or both revoke
and refresh one grant. The token endpoints hand their units to `group_commit`, which runs
them in a transaction shared by one turn of the event loop (groupcommit.py).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from .checkpoint import Checkpointer
from .groupcommit import GroupCommit
from .schema import SCHEMA

Row = sqlite3.Row

# `run --durability`: what a commit survives. WAL with synchronous=NORMAL syncs the WAL only at
# checkpoints: a commit survives a crash of the server (SIGKILL), and a power cut or an OS
# crash may undo the last ones. FULL syncs the WAL at every commit, so those survive too.
SYNCHRONOUS = {"normal": "NORMAL", "full": "FULL"}

T = TypeVar("T")
BUSY_TIMEOUT_MS = 10_000


class _Transaction:
    """The context of `Store.transaction()` (a class, not a generator: it is entered on every
    token request). Yields the connection; all or nothing."""

    __slots__ = ("_db", "_nested")

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._nested = False

    def __enter__(self) -> sqlite3.Connection:
        db = self._db
        # Inside a transaction already (group commit's, or an enclosing one): a savepoint of it.
        self._nested = db.in_transaction
        db.execute("SAVEPOINT nested" if self._nested else "BEGIN IMMEDIATE")
        return db

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        db = self._db
        if self._nested:
            if kind is not None:
                db.execute("ROLLBACK TO nested")
            db.execute("RELEASE nested")
        else:
            db.execute("COMMIT" if kind is None else "ROLLBACK")


def _private_file(path: Path) -> None:
    """The database holds password and token hashes: 0600 whatever the umask or folder.

    SQLite gives its -wal and -shm files the database file's mode.
    """
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    path.chmod(0o600)


class Store:
    """A connection to the server's database, one per process, used from one thread.

    `background_checkpoints`: for the serving processes, see `Checkpointer`; the automatic
    checkpoint of this connection then only acts if the thread falls far behind.
    """

    def __init__(
        self,
        path: Path,
        *,
        background_checkpoints: bool = False,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        durability: str = "normal",
    ) -> None:
        self.path = path
        _private_file(path)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        # How long a write waits for another process's: in SQLite's busy handler (which sleeps
        # with the thread) for `transaction()`, in the event loop for `group_commit`.
        self.db.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute(f"PRAGMA synchronous = {SYNCHRONOUS[durability]}")
        self.db.execute("PRAGMA foreign_keys = ON")
        # Reads of a large file through the memory map and a bigger page cache: lookups by
        # hash land on random pages, which the default 2 MB cache mostly misses.
        self.db.execute("PRAGMA cache_size = -65536")  # KiB: 64 MiB
        self.db.execute("PRAGMA mmap_size = 268435456")  # 256 MiB
        self._create_schema()
        self._checkpointer: Checkpointer | None = None
        self._group = GroupCommit(self, busy_timeout_ms)
        if background_checkpoints:
            self.db.execute(f"PRAGMA wal_autocheckpoint = {8 * Checkpointer.RESTART_PAGES}")
            self._checkpointer = Checkpointer(path)

    def _create_schema(self) -> None:
        # executescript commits on its own; the statements are idempotent.
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
        self.db.close()

    def transaction(self) -> _Transaction:
        """All or nothing: BEGIN IMMEDIATE (the write lock taken before reading what decides
        the write) ... COMMIT; inside a transaction already (a unit of `group_commit`), a
        savepoint of it, so that a failing unit leaves the others of its group alone."""
        return _Transaction(self.db)

    async def group_commit(self, unit: Callable[[], T]) -> T:
        """`unit()` in the transaction this turn of the event loop shares; returns or raises
        what it did, once that transaction is committed (groupcommit.py).

        What `unit` writes in `transaction()` is all or nothing, and its own: a unit that
        raises after such a block (a replayed code's revocation, a counted failure) keeps it.
        BEGIN IMMEDIATE and COMMIT (each dirty page written to the WAL) cost more than a
        token request's own statements; shared, a page several requests touch is written once.
        """
        return await self._group.run(unit)

    def change_mark(self) -> tuple[int, int]:
        """A mark that moves whenever what this connection reads may have changed: another
        connection committed (PRAGMA data_version) or this one changed a row, committed or
        not (total_changes). What was read under a mark holds while the mark is the same."""
        row = self.db.execute("PRAGMA data_version").fetchone()
        return row[0], self.db.total_changes

    def one(self, sql: str, *args: object) -> Row | None:
        row: Row | None = self.db.execute(sql, args).fetchone()
        return row

    def all(self, sql: str, *args: object) -> list[Row]:
        return self.db.execute(sql, args).fetchall()

    def run(self, sql: str, *args: object) -> sqlite3.Cursor:
        return self.db.execute(sql, args)

    # settings --------------------------------------------------------------------------

    def setting(self, key: str, default: str | None = None) -> str | None:
        row = self.one("SELECT value FROM settings WHERE key = ?", key)
        return row["value"] if row else default

    def set_setting(self, key: str, value: str) -> None:
        self.run(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            key,
            value,
        )
