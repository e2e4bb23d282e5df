"""Group commit: the writes of one event-loop turn in one transaction, without ever blocking
the loop on SQLite's write lock.

A request hands its unit of work (a function doing its reads and writes in
`Store.transaction()`) to `GroupCommit.run` and awaits it. At the end of the loop's turn the
units queued so far run one after the other inside one BEGIN IMMEDIATE ... COMMIT, and each
request gets its unit's result (or exception) once that COMMIT is done: nobody is answered
before their writes are durable in the WAL.

The write lock is tried without waiting (busy timeout 0). When another process holds it, the
loop goes on serving (reads, parsing, queueing more units) and the attempt is made again
after a short back-off; the lock is held only while the queued units' statements run, never
while requests are parsed or answered. SQLite's busy handler, which sleeps with the thread's
event loop stopped, is never entered from here.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Connected(Protocol):
    """What owns the connection (the Store): read at each flush, so a wrapper put in its place
    (tools/bench_inprocess times every statement) sees the group's statements too."""

    db: sqlite3.Connection


#: Seconds between attempts at the write lock while another process holds it (then the last).
BACKOFF = (0.0002, 0.0005, 0.001, 0.002)


class GroupCommit:
    """The queue of one connection's units and the transactions that run them."""

    def __init__(self, owner: Connected, busy_timeout_ms: int) -> None:
        self.owner = owner
        self.lock_timeout = busy_timeout_ms / 1000  # then the waiting units fail, as SQLite's would
        self._busy_timeout = f"PRAGMA busy_timeout = {busy_timeout_ms}"
        self._queued: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []
        self._scheduled = False
        self._attempts = 0  # failed attempts at the lock for the queued units
        self._waiting_since = 0.0

    async def run(self, unit: Callable[[], T]) -> T:
        """`unit()` in the next shared transaction; its result once that is committed."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[T] = loop.create_future()
        self._queued.append((unit, waiter))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self.flush)
        return await waiter

    def flush(self) -> None:
        """Run and commit every queued unit if the write lock is free; else try again later."""
        self._scheduled = False
        if not self._queued:
            return
        try:
            locked = self._try_lock()
        except sqlite3.Error as error:
            self._fail(self._take(), error)
            return
        if not locked:
            self._later()
            return
        self._attempts = 0
        self._commit(self._take())

    def _take(self) -> list[tuple[Callable[[], Any], asyncio.Future[Any]]]:
        units, self._queued = self._queued, []
        return [(unit, waiter) for unit, waiter in units if not waiter.done()]  # not cancelled

    def _try_lock(self) -> bool:
        """BEGIN IMMEDIATE if the write lock is free at once; False if another process has it."""
        db = self.owner.db
        db.execute("PRAGMA busy_timeout = 0")
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                raise
            return False
        finally:
            db.execute(self._busy_timeout)
        return True

    def _later(self) -> None:
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        if self._attempts == 0:
            self._waiting_since = now
        elif now - self._waiting_since > self.lock_timeout:
            self._attempts = 0
            self._fail(self._take(), sqlite3.OperationalError("database is locked"))
            return
        delay = BACKOFF[min(self._attempts, len(BACKOFF) - 1)]
        self._attempts += 1
        self._scheduled = True
        loop.call_later(delay, self.flush)

    def _commit(self, units: list[tuple[Callable[[], Any], asyncio.Future[Any]]]) -> None:
        db = self.owner.db
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        try:
            for unit, waiter in units:
                try:
                    outcomes.append((waiter, unit(), None))
                except Exception as failure:  # the unit's own: its savepoint rolled back
                    outcomes.append((waiter, None, failure))
            db.execute("COMMIT")
        except BaseException as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            self._fail(units, error)
            if not isinstance(error, Exception):
                raise
            return
        for waiter, result, raised in outcomes:
            if waiter.done():
                continue  # its request was cancelled meanwhile
            if raised is None:
                waiter.set_result(result)
            else:
                waiter.set_exception(raised)

    @staticmethod
    def _fail(
        units: list[tuple[Callable[[], Any], asyncio.Future[Any]]], error: BaseException
    ) -> None:
        for _, waiter in units:
            if not waiter.done():
                waiter.set_exception(error)
