"""The reference server's database after a crash or a race: sound, and nothing half-written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

# Each query counts rows that a half-done write would leave behind.
CONSISTENCY = {
    "code marked redeemed without its grant": "SELECT COUNT(*) FROM codes WHERE redeemed_at"
    " IS NOT NULL AND (grant_id IS NULL OR grant_id NOT IN (SELECT id FROM grants))",
    "code tied to a grant but not marked redeemed": "SELECT COUNT(*) FROM codes"
    " WHERE grant_id IS NOT NULL AND redeemed_at IS NULL",
    "grant not created by exactly one code": "SELECT COUNT(*) FROM grants g"
    " WHERE (SELECT COUNT(*) FROM codes c WHERE c.grant_id = g.id) != 1",
    "grant without any access token": "SELECT COUNT(*) FROM grants g"
    " WHERE NOT EXISTS (SELECT 1 FROM access_tokens t WHERE t.grant_id = g.id)",
    "access token without its grant": "SELECT COUNT(*) FROM access_tokens"
    " WHERE grant_id NOT IN (SELECT id FROM grants)",
    "unrevoked access token of a revoked grant": "SELECT COUNT(*) FROM access_tokens t"
    " JOIN grants g ON g.id = t.grant_id WHERE g.revoked_at IS NOT NULL AND t.revoked_at IS NULL",
    "grant with more than one unrevoked access token": "SELECT COUNT(*) FROM (SELECT grant_id"
    " FROM access_tokens WHERE revoked_at IS NULL GROUP BY grant_id HAVING COUNT(*) > 1)",
}


def connect(database: Path, readonly: bool = True) -> sqlite3.Connection:
    """A connection of our own; read-only unless the server is down (WAL recovery writes)."""
    mode = "?mode=ro" if readonly else ""
    return sqlite3.connect(f"file:{database}{mode}", uri=True, timeout=10)


def integrity_problems(database: Path, readonly: bool = True) -> list[str]:
    """PRAGMA integrity_check, foreign keys, and the invariants of half-written state."""
    problems: list[str] = []
    db = connect(database, readonly)
    try:
        result = [row[0] for row in db.execute("PRAGMA integrity_check")]
        if result != ["ok"]:
            problems.append(f"integrity_check: {result[:5]}")
        orphans = db.execute("PRAGMA foreign_key_check").fetchall()
        if orphans:
            problems.append(f"foreign_key_check: {orphans[:5]}")
        for what, sql in CONSISTENCY.items():
            count = db.execute(sql).fetchone()[0]
            if count:
                problems.append(f"{count} x {what}")
    finally:
        db.close()
    return problems
