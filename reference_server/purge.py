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
from pathlib import Path

from .grants import ACCESS_TOKEN_LIFETIME, CODE_LIFETIME

BATCH = 500
MAX_BATCHES = 40
GRACE = 3600
DUE_KEY = "purge_due"
CLOCK_OFFSET_KEY = "test_clock_offset"

# table -> a query of up to ? keys to delete, given (now, limit)
_SIMPLE = {
    "sessions": "SELECT session_hash FROM sessions WHERE expires_at <= :now LIMIT :limit",
    "form_tokens": "SELECT token_hash FROM form_tokens WHERE expires_at <= :now LIMIT :limit",
    "throttle": "SELECT key FROM throttle WHERE blocked_until <= :now"
    " AND last_at <= :now - 86400 LIMIT :limit",
    "codes": "SELECT id FROM codes WHERE redeemed_at IS NULL AND expires_at <= :now LIMIT :limit",
    # Ended tokens of a grant that holds a newer live one (a refresh replaced them): every
    # grant keeps at least one token; the grant's own end takes the rest.
    "access_tokens": "SELECT id FROM access_tokens t WHERE (revoked_at <= :now - :grace"
    " OR expires_at <= :now - :grace) AND EXISTS (SELECT 1 FROM access_tokens l"
    " WHERE l.grant_id = t.grant_id AND l.revoked_at IS NULL AND l.id != t.id)"
    " LIMIT :limit",
}
_KEYS = {
    "sessions": "session_hash",
    "form_tokens": "token_hash",
    "throttle": "key",
    "codes": "id",
    "access_tokens": "id",
}
# Ended grants: revoked, or online (no refresh token) with every access token long expired.
_DEAD_GRANTS = (
    "SELECT id FROM grants WHERE revoked_at <= :now - :grace OR (refresh_hash IS NULL"
    " AND created_at <= :now - :online AND NOT EXISTS (SELECT 1 FROM access_tokens t"
    " WHERE t.grant_id = grants.id AND t.expires_at > :now - :grace)) LIMIT :limit"
)
_ORPHAN_CONSENTS = (
    "SELECT user_id, application_id, scope FROM consents c WHERE granted_at <= :now - :grace"
    " AND NOT EXISTS (SELECT 1 FROM grants g WHERE g.user_id = c.user_id"
    " AND g.application_id = c.application_id AND g.scope = c.scope) LIMIT :limit"
)


def purge_once(db: sqlite3.Connection, now: int) -> dict[str, int]:
    """One bounded round; the number of rows removed per table."""
    removed: dict[str, int] = {}
    values = {
        "now": now,
        "grace": GRACE,
        "online": ACCESS_TOKEN_LIFETIME + GRACE,
        "limit": BATCH,
    }
    for table, query in _SIMPLE.items():
        removed[table] = _batches(db, query, values, _delete_keys(table, _KEYS[table]))
    removed["grants"] = _batches(db, _DEAD_GRANTS, values, _delete_grants)
    removed["consents"] = _batches(db, _ORPHAN_CONSENTS, values, _delete_consents)
    return removed


Rows = list[sqlite3.Row]
Delete = Callable[[sqlite3.Connection, Rows], int]


def _batches(db: sqlite3.Connection, query: str, values: dict[str, int], delete: Delete) -> int:
    total = 0
    for _ in range(MAX_BATCHES):
        db.execute("BEGIN IMMEDIATE")
        try:
            rows = db.execute(query, values).fetchall()
            count = delete(db, rows) if rows else 0
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        total += count
        if len(rows) < BATCH:
            break
        time.sleep(0.005)  # let the serving processes write between batches
    return total


def _delete_keys(table: str, key: str) -> Delete:
    def delete(db: sqlite3.Connection, rows: Rows) -> int:
        db.executemany(f"DELETE FROM {table} WHERE {key} = ?", [(r[0],) for r in rows])  # noqa: S608
        return len(rows)

    return delete


def _delete_grants(db: sqlite3.Connection, rows: Rows) -> int:
    ids = [(r[0],) for r in rows]
    db.executemany("DELETE FROM access_tokens WHERE grant_id = ?", ids)
    db.executemany("DELETE FROM codes WHERE grant_id = ?", ids)
    db.executemany("DELETE FROM grants WHERE id = ?", ids)
    return len(ids)


def _delete_consents(db: sqlite3.Connection, rows: Rows) -> int:
    db.executemany(
        "DELETE FROM consents WHERE user_id = ? AND application_id = ? AND scope = ?",
        [tuple(r) for r in rows],
    )
    return len(rows)


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
