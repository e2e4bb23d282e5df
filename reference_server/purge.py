"""Removal of what has expired or been revoked, in a thread, in small batches.

Without it the file only grew: sessions kept 14 days, used codes, every access token a refresh
replaced. Each round deletes at most BATCH rows per transaction (the write lock is held for
milliseconds) and at most MAX_BATCHES per table, on a connection of its own, off the event
loop. With several workers one of them takes each round (a due time in `settings`).

Kept on purpose: a redeemed code lives as long as its grant (a replay still revokes what it
issued); a revoked or expired grant or access token is removed only GRACE seconds after it
ended, so nothing a client just held vanishes under it; an access token goes early only when
a refresh replaced it. A grant goes with its access tokens and its code, in one transaction.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .grants import ACCESS_TOKEN_LIFETIME, CODE_LIFETIME

BATCH = 500
MAX_BATCHES = 40
GRACE = 3600
DUE_KEY = "purge_due"
CLOCK_OFFSET_KEY = "test_clock_offset"


@dataclass(frozen=True)
class _Kind:
    """Rows of one table that have ended, by a condition over the table's own columns.

    The condition is used twice: to find up to BATCH candidates with a plain read (writers go
    on meanwhile), then again in the DELETE of each, inside a short write transaction, so that
    a row that changed in between (a session renewed, a consent granted again) stays.
    """

    table: str
    keys: tuple[str, ...]
    ended: str

    @property
    def select(self) -> str:
        return f"SELECT {', '.join(self.keys)} FROM {self.table} WHERE {self.ended} LIMIT :limit"  # noqa: S608

    def key_test(self) -> str:
        """The row of one candidate: its key columns against :k0, :k1 ..."""
        names = ", ".join(self.keys)
        return f"({names}) = ({', '.join(f':k{i}' for i in range(len(self.keys)))})"

    @property
    def delete(self) -> str:
        return f"DELETE FROM {self.table} WHERE {self.key_test()} AND ({self.ended})"  # noqa: S608


_KINDS = (
    _Kind("sessions", ("session_hash",), "expires_at <= :now"),
    _Kind("form_tokens", ("token_hash",), "expires_at <= :now"),
    _Kind("throttle", ("key",), "blocked_until <= :now AND last_at <= :now - 86400"),
    _Kind("codes", ("id",), "redeemed_at IS NULL AND expires_at <= :now"),
    # Ended tokens of a grant that holds a newer live one (a refresh replaced them): every
    # grant keeps at least one token; the grant's own end takes the rest.
    _Kind(
        "access_tokens",
        ("id",),
        "(revoked_at <= :now - :grace OR expires_at <= :now - :grace) AND EXISTS (SELECT 1"
        " FROM access_tokens l WHERE l.grant_id = access_tokens.grant_id"
        " AND l.revoked_at IS NULL AND l.id != access_tokens.id)",
    ),
)
# Ended grants: revoked, or online (no refresh token) with every access token long expired.
# A grant goes with its access tokens and its code (both found through their grant_id index).
_DEAD_GRANTS = _Kind(
    "grants",
    ("id",),
    "revoked_at <= :now - :grace OR (refresh_hash IS NULL AND created_at <= :now - :online"
    " AND NOT EXISTS (SELECT 1 FROM access_tokens t WHERE t.grant_id = grants.id"
    " AND t.expires_at > :now - :grace))",
)
_ORPHAN_CONSENTS = _Kind(
    "consents",
    ("user_id", "application_id", "scope"),
    "granted_at <= :now - :grace AND NOT EXISTS (SELECT 1 FROM grants g"
    " WHERE g.user_id = consents.user_id AND g.application_id = consents.application_id"
    " AND g.scope = consents.scope)",
)


def purge_once(db: sqlite3.Connection, now: int) -> dict[str, int]:
    """One bounded round; the number of rows removed per table."""
    values = {
        "now": now,
        "grace": GRACE,
        "online": ACCESS_TOKEN_LIFETIME + GRACE,
        "limit": BATCH,
    }
    removed = {kind.table: _batches(db, kind, values, _delete_rows) for kind in _KINDS}
    removed["grants"] = _batches(db, _DEAD_GRANTS, values, _delete_grants)
    removed["consents"] = _batches(db, _ORPHAN_CONSENTS, values, _delete_rows)
    return removed


Params = list[dict[str, object]]
Delete = Callable[[sqlite3.Connection, "_Kind", Params], int]


def _batches(db: sqlite3.Connection, kind: _Kind, values: dict[str, int], delete: Delete) -> int:
    """Up to MAX_BATCHES rounds of: find candidates (a read), delete the still-ended ones (a
    write transaction of a few milliseconds: the lock is never held while a table is searched)."""
    total = 0
    for _ in range(MAX_BATCHES):
        rows = db.execute(kind.select, values).fetchall()
        if not rows:
            break
        params = [values | {f"k{i}": value for i, value in enumerate(row)} for row in rows]
        db.execute("BEGIN IMMEDIATE")
        try:
            total += delete(db, kind, params)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if len(rows) < BATCH:
            break
        time.sleep(0.005)  # let the serving processes write between batches
    return total


def _delete_rows(db: sqlite3.Connection, kind: _Kind, params: Params) -> int:
    return db.executemany(kind.delete, params).rowcount  # the rows each DELETE removed, summed


def _delete_grants(db: sqlite3.Connection, kind: _Kind, params: Params) -> int:
    still = f"SELECT id FROM grants WHERE {kind.key_test()} AND ({kind.ended})"  # noqa: S608
    ids = [(row[0],) for one in params for row in db.execute(still, one)]
    db.executemany("DELETE FROM access_tokens WHERE grant_id = ?", ids)
    db.executemany("DELETE FROM codes WHERE grant_id = ?", ids)
    db.executemany("DELETE FROM grants WHERE id = ?", ids)
    return len(ids)


def purge_time(db: sqlite3.Connection, test_clock: bool) -> int:
    """The server's now: real time, plus the test clock's offset on a test-clock server."""
    offset = 0
    if test_clock:
        row = db.execute("SELECT value FROM settings WHERE key = ?", (CLOCK_OFFSET_KEY,)).fetchone()
        offset = int(row[0]) if row else 0
    return int(time.time()) + offset


def _claim(db: sqlite3.Connection, interval: float) -> bool:
    """Is this round ours? One worker per round, by a due time in real seconds."""
    db.execute("BEGIN IMMEDIATE")
    try:
        row = db.execute("SELECT value FROM settings WHERE key = ?", (DUE_KEY,)).fetchone()
        due = float(row[0]) if row else 0.0
        mine = time.time() >= due
        if mine:
            db.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (DUE_KEY, repr(time.time() + interval * 0.9)),
            )
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return mine


class Purger:
    """Runs `purge_once` every `interval` seconds in a daemon thread."""

    def __init__(self, path: Path, interval: float, test_clock: bool) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(path, interval, test_clock), name="purge", daemon=True
        )
        self._thread.start()

    def _run(self, path: Path, interval: float, test_clock: bool) -> None:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 10000")
            while not self._stop.wait(interval):
                try:
                    if _claim(db, interval):
                        purge_once(db, purge_time(db, test_clock))
                except sqlite3.Error:
                    continue  # busy or locked: the next round tries again
        finally:
            db.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=15)


__all__ = ["CODE_LIFETIME", "Purger", "purge_once"]
