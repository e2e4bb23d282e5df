"""A purge round (purge.purge_once) on the database directly: what goes, what stays, and that
the write lock is only held for the deletes, each of which finds its rows through an index.

tests/hardening/test_purge.py runs the same purge in the background of a serving server.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server import accounts, grants, purge
from reference_server.storage import Store

NOW = 1_900_000_000
LATER = NOW + 30 * 86400  # past every lifetime and grace period


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "server.sqlite3")
    yield opened
    opened.close()


def _grant(store: Store, name: str, *, revoked: bool) -> int:
    """An offline grant of user `name` from an exchanged code, revoked or not; its id."""
    user = accounts.add_user(store, name, "a long enough password", NOW)
    app = accounts.add_application(
        store, user, f"app of {name}", "confidential", "https://example.org/cb", NOW
    ).application
    request = grants.CodeRequest(app, user, "profile", "https://example.org/cb", None, None, True)
    code = grants.issue_code(store, NOW, request)
    tokens = grants.exchange_code(store, NOW, app, code, "https://example.org/cb", None)
    if revoked:
        assert tokens.refresh_token is not None
        grants.revoke(store, NOW, app, tokens.refresh_token)
    row = store.one("SELECT grant_id FROM codes ORDER BY id DESC LIMIT 1")
    assert row is not None
    return int(row["grant_id"])


def _counts(store: Store, grant_id: int) -> tuple[int, int, int]:
    def count(sql: str) -> int:
        row = store.one(sql, grant_id)
        assert row is not None
        return int(row[0])

    return (
        count("SELECT COUNT(*) FROM grants WHERE id = ?"),
        count("SELECT COUNT(*) FROM access_tokens WHERE grant_id = ?"),
        count("SELECT COUNT(*) FROM codes WHERE grant_id = ?"),
    )


def test_a_dead_grant_goes_with_its_tokens_and_code_a_live_one_stays(store: Store) -> None:
    dead, live = _grant(store, "gone", revoked=True), _grant(store, "stays", revoked=False)
    removed = purge.purge_once(store.db, LATER)
    assert removed["grants"] == 1
    assert _counts(store, dead) == (0, 0, 0)
    assert _counts(store, live) == (1, 1, 1)


def test_the_write_lock_is_held_only_for_deletes(store: Store) -> None:
    _grant(store, "gone", revoked=True)
    store.db.execute(
        "INSERT INTO sessions (session_hash, user_id, csrf, expires_at) VALUES ('s', NULL, 'c', 1)"
    )
    seen: list[tuple[str, bool]] = []
    store.db.set_trace_callback(lambda sql: seen.append((sql, store.db.in_transaction)))
    removed = purge.purge_once(store.db, LATER)
    store.db.set_trace_callback(None)
    assert removed["sessions"] == 1 and removed["grants"] == 1
    searches = [in_tx for sql, in_tx in seen if " LIMIT " in sql]
    assert searches and not any(searches), "a table was searched with the write lock held"
    deletes = [in_tx for sql, in_tx in seen if sql.startswith("DELETE")]
    assert deletes and all(deletes)


@pytest.mark.parametrize(
    "delete",
    [
        "DELETE FROM access_tokens WHERE grant_id = ?",
        "DELETE FROM codes WHERE grant_id = ?",
        "UPDATE access_tokens SET revoked_at = 1 WHERE grant_id = ? AND revoked_at IS NULL",
    ],
)
def test_what_touches_a_grants_rows_finds_them_through_an_index(store: Store, delete: str) -> None:
    """A full scan per dead grant held the write lock for 88 s when 500 grants of a database
    of a million were purged at once (tools/PERFORMANCE.md)."""
    plan = " ".join(row[3] for row in store.db.execute(f"EXPLAIN QUERY PLAN {delete}", (1,)))
    assert "SEARCH" in plan and "SCAN" not in plan, plan


def test_a_row_that_changed_after_it_was_found_stays(store: Store) -> None:
    """The delete checks again what the search found: a session renewed in between stays."""
    sessions = next(kind for kind in purge._KINDS if kind.table == "sessions")
    store.db.execute(
        "INSERT INTO sessions (session_hash, user_id, csrf, expires_at) VALUES ('s', NULL, 'c', ?)",
        (NOW,),
    )
    values = {"now": LATER, "grace": purge.GRACE, "online": 0, "limit": purge.BATCH}
    found = store.db.execute(sessions.select, values).fetchall()
    assert [tuple(row) for row in found] == [("s",)]
    store.db.execute("UPDATE sessions SET expires_at = ?", (LATER + 3600,))  # renewed
    assert store.db.execute(sessions.delete, values | {"k0": "s"}).rowcount == 0
    assert store.db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 1


def test_a_database_from_before_gets_the_indexes_when_opened(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite3"
    Store(path).close()
    with sqlite3.connect(path) as old:  # the layout of the previous release
        old.execute("DROP INDEX access_tokens_by_grant")
        old.execute("DROP INDEX codes_by_grant")
        old.execute(
            "CREATE INDEX access_tokens_live ON access_tokens(grant_id) WHERE revoked_at IS NULL"
        )
    reopened = Store(path)
    names = {row[0] for row in reopened.db.execute("SELECT name FROM sqlite_master")}
    reopened.close()
    assert {"access_tokens_by_grant", "codes_by_grant"} <= names
    assert "access_tokens_live" not in names
