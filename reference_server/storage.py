"""The server's one SQLite file: connection settings, units of work and data access.

Only data access lives here (the tables are in schema.py); the rules of the spec live in
`grants.py` and the endpoints. Every write that depends on a read runs inside `transaction()`
(BEGIN IMMEDIATE), so two workers on the same file cannot both redeem one code or both revoke
and refresh one grant.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from contextvars import ContextVar
from pathlib import Path

from . import migrate
from .checkpoint import Checkpointer
from .schema import SCHEMA

Row = sqlite3.Row

# `run --durability`: what a commit survives. WAL with synchronous=NORMAL syncs the WAL only at
# checkpoints: a commit survives a crash of the server (SIGKILL), and a power cut or an OS
# crash may undo the last ones. FULL syncs the WAL at every commit, so those survive too.
SYNCHRONOUS = {"normal": "NORMAL", "full": "FULL"}

# Set by a request handler that awaits `Store.settled()` before it answers (hotpath.py): only
# then may its writes join the shared transaction of `Store.unit()`.
group_commit: ContextVar[bool] = ContextVar("group_commit", default=False)
# The shared transaction the current request's writes went into (one context per request).
_joined: ContextVar[_Batch | None] = ContextVar("_joined", default=None)


class _Batch:
    """The requests of one shared transaction (`Store.unit`), waiting for its COMMIT.

    Each request waits on a future of its own (a cancelled request cancels only its own wait),
    which costs less than `asyncio.shield` around one shared future.
    """

    __slots__ = ("done", "error", "waiters")

    def __init__(self) -> None:
        self.waiters: list[asyncio.Future[None]] = []
        self.done = False
        self.error: BaseException | None = None

    def end(self, error: BaseException | None) -> None:
        self.done, self.error = True, error
        for waiter in self.waiters:
            if waiter.done():
                continue  # its request was cancelled
            if error is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(error)

    async def wait(self) -> None:
        if not self.done:
            waiter = asyncio.get_running_loop().create_future()
            self.waiters.append(waiter)
            await waiter
        elif self.error is not None:
            raise self.error


def _has_hex_keys(db: sqlite3.Connection) -> bool:
    """A database from before split tokens: codes and tokens keyed by their hex SHA-256."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(access_tokens)")}
    return bool(columns) and "id" not in columns


class _Unit:
    """The context of `Store.transaction()` and `Store.unit()` (a class, not a generator: it is
    entered on every token request). Yields the connection; all or nothing."""

    __slots__ = ("_joins", "_store")

    def __init__(self, store: Store, *, may_join: bool) -> None:
        self._store = store
        self._joins = may_join  # a savepoint in the shared transaction, or one of its own

    def __enter__(self) -> sqlite3.Connection:
        store = self._store
        if self._joins:
            store._join_batch()
            store.db.execute("SAVEPOINT unit")
        else:
            store.flush()
            store.db.execute("BEGIN IMMEDIATE")
        store._in_unit = True
        return store.db

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        store = self._store
        store._in_unit = False
        if self._joins:
            if kind is not None:
                store.db.execute("ROLLBACK TO unit")
            store.db.execute("RELEASE unit")
        else:
            store.db.execute("COMMIT" if kind is None else "ROLLBACK")


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
        self, path: Path, *, background_checkpoints: bool = False, durability: str = "normal"
    ) -> None:
        self.path = path
        _private_file(path)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA busy_timeout = 10000")
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute(f"PRAGMA synchronous = {SYNCHRONOUS[durability]}")
        self.db.execute("PRAGMA foreign_keys = ON")
        # Reads of a large file through the memory map and a bigger page cache: lookups by
        # hash land on random pages, which the default 2 MB cache mostly misses.
        self.db.execute("PRAGMA cache_size = -65536")  # KiB: 64 MiB
        self.db.execute("PRAGMA mmap_size = 268435456")  # 256 MiB
        self._create_schema()
        self._checkpointer: Checkpointer | None = None
        self._batch: _Batch | None = None  # the open shared transaction
        self._in_unit = False
        self._group = background_checkpoints  # the serving processes commit in groups
        if background_checkpoints:
            self.db.execute(f"PRAGMA wal_autocheckpoint = {8 * Checkpointer.RESTART_PAGES}")
            self._checkpointer = Checkpointer(path)

    def _create_schema(self) -> None:
        if _has_hex_keys(self.db):
            migrate.to_split_tokens(self.db, SCHEMA)
        # executescript commits on its own; the statements are idempotent.
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.flush()
        if self._checkpointer is not None:
            self._checkpointer.stop()
        self.db.close()

    def transaction(self) -> _Unit:
        """BEGIN IMMEDIATE: take the write lock before reading what decides the write.

        Committed when the block ends; a shared transaction still open is committed first.
        """
        return _Unit(self, may_join=False)

    def unit(self) -> _Unit:
        """A unit of work of the token endpoints: all or nothing, like `transaction()`.

        Group commit: in a serving process, for a request whose handler awaits `settled()`
        before it answers (`group_commit` set), the unit is a SAVEPOINT inside a transaction
        shared by every such request of one turn of the event loop, committed once by
        `flush()` at the end of that turn. BEGIN IMMEDIATE and COMMIT (writing each dirty
        page to the WAL) were most of a token request's database time; a page that several
        requests touch is now written once. Nobody is answered before the commit; a failing
        unit rolls back to its savepoint and leaves the others alone. Elsewhere (CLI, tests,
        other handlers) it is `transaction()`.
        """
        return _Unit(self, may_join=self._group and group_commit.get())

    def _join_batch(self) -> None:
        """Open the shared transaction if this turn of the loop has none; the request joins it."""
        if self._batch is None:
            loop = asyncio.get_running_loop()
            self.db.execute("BEGIN IMMEDIATE")
            self._batch = _Batch()
            loop.call_soon(self.flush)
        _joined.set(self._batch)

    def flush(self) -> None:
        """Commit the shared transaction of `unit()`, if one is open, and wake its requests."""
        batch, self._batch = self._batch, None
        if batch is None:
            return
        try:
            self.db.execute("COMMIT")
        except sqlite3.Error as error:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            batch.end(error)
            return
        batch.end(None)

    async def settled(self) -> None:
        """Until what this request wrote in `unit()` is committed (at once if it is)."""
        batch = _joined.get()
        if batch is not None:
            _joined.set(None)
            await batch.wait()

    def one(self, sql: str, *args: object) -> Row | None:
        row: Row | None = self.db.execute(sql, args).fetchone()
        return row

    def all(self, sql: str, *args: object) -> list[Row]:
        return self.db.execute(sql, args).fetchall()

    def run(self, sql: str, *args: object) -> sqlite3.Cursor:
        if self._batch is not None and not self._in_unit:
            self.flush()  # a write of its own: it commits on its own, as it always did
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
