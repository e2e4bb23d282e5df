"""The migration of a database from before split tokens (credentials.py) to their layout.

Codes and tokens were keyed by the hex SHA-256 of the whole token. The three tables are
renamed, created anew by the current schema and copied: ids for the codes and tokens
(numbered from 1, below credentials.LEGACY_IDS) and hashes as 32 bytes, so that every code
and token issued before stays valid, found by its hash through the *_legacy indexes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from .credentials import LEGACY_IDS

# The earlier tables, renamed and copied: ids for the codes and tokens (numbered from 1, below
# credentials.LEGACY_IDS), hashes as 32 bytes. Grants keep their ids.
_COPIES = (
    "INSERT INTO grants (id, application_id, user_id, scope, refresh_hash, created_at,"
    " revoked_at) SELECT id, application_id, user_id, scope, unhex(refresh_hash), created_at,"
    " revoked_at FROM grants_hex",
    "INSERT INTO access_tokens (token_hash, grant_id, scope, expires_at, revoked_at)"
    " SELECT unhex(token_hash), grant_id, scope, expires_at, revoked_at FROM access_tokens_hex",
    "INSERT INTO codes (code_hash, application_id, user_id, scope, redirect_uri, challenge,"
    " challenge_method, offline, expires_at, grant_id, redeemed_at) SELECT unhex(code_hash),"
    " application_id, user_id, scope, redirect_uri, challenge, challenge_method, offline,"
    " expires_at, grant_id, redeemed_at FROM codes_hex",
)


# Indexes that may exist on the tables being rebuilt; their names are the new tables' to take.
_INDEXES_OF_THE_OLD_TABLES = (
    "grants_user_app",
    "access_tokens_live",
    "access_tokens_by_grant",
    "codes_user_app",
    "codes_by_grant",
)


def to_split_tokens(db: sqlite3.Connection, schema: str) -> None:
    """Rebuild grants, access_tokens and codes in the new layout, in one transaction.

    Every code and token issued before stays valid (found by its hash). An interrupted
    migration leaves the old tables as they were.
    """
    db.create_function("unhex", 1, _unhex, deterministic=True)
    db.execute("PRAGMA foreign_keys = OFF")  # a no-op inside a transaction
    db.execute("PRAGMA legacy_alter_table = ON")  # renames leave other tables' references be
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            for table in ("grants", "access_tokens", "codes"):
                db.execute(f"ALTER TABLE {table} RENAME TO {table}_hex")
            for index in _INDEXES_OF_THE_OLD_TABLES:
                db.execute(f"DROP INDEX IF EXISTS {index}")
            for statement in _statements(schema):
                db.execute(statement)
            if db.execute("SELECT MAX(id) >= ? FROM grants_hex", (LEGACY_IDS,)).fetchone()[0]:
                raise RuntimeError("grant ids too large to migrate to split tokens")
            for copy in _COPIES:
                db.execute(copy)
            for table in ("access_tokens", "codes", "grants"):
                db.execute(f"DROP TABLE {table}_hex")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    finally:
        db.execute("PRAGMA legacy_alter_table = OFF")
        db.execute("PRAGMA foreign_keys = ON")


def _unhex(value: str | None) -> bytes | None:
    return bytes.fromhex(value) if value is not None else None


def _statements(script: str) -> Iterator[str]:
    """The statements of a script, one by one (executescript would commit first)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""
