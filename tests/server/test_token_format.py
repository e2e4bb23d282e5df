"""Split tokens (credentials.py) and the migration of a database from before them.

A database written by the earlier layout (codes and tokens keyed by the hex SHA-256 of the
whole token) is migrated when the server opens it, and every code and token it held still
works; new ones are split tokens, found by selector and checked by the verifier's hash.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import sqlite3
from pathlib import Path

import pytest

from reference_server import accounts, credentials, grants, migrate
from reference_server.errors import OAuthError
from reference_server.storage import Store

REDIRECT = "https://client.example/cb"
NOW = 1_800_000_000

# The tables of the earlier layout, as that server created them.
_HEX_LAYOUT = """
CREATE TABLE grants (id INTEGER PRIMARY KEY, application_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL, scope TEXT NOT NULL, refresh_hash TEXT UNIQUE,
    created_at INTEGER NOT NULL, revoked_at INTEGER);
CREATE INDEX grants_user_app ON grants(user_id, application_id);
CREATE TABLE access_tokens (token_hash TEXT PRIMARY KEY, grant_id INTEGER NOT NULL,
    scope TEXT NOT NULL, expires_at INTEGER NOT NULL, revoked_at INTEGER) WITHOUT ROWID;
CREATE INDEX access_tokens_live ON access_tokens(grant_id) WHERE revoked_at IS NULL;
CREATE TABLE codes (code_hash TEXT PRIMARY KEY, application_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL, scope TEXT NOT NULL, redirect_uri TEXT NOT NULL, challenge TEXT,
    challenge_method TEXT, offline INTEGER NOT NULL, expires_at INTEGER NOT NULL,
    grant_id INTEGER, redeemed_at INTEGER) WITHOUT ROWID;
CREATE INDEX codes_user_app ON codes(user_id, application_id);
"""


def _hex(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@pytest.fixture
def old_database(tmp_path: Path) -> tuple[Path, dict[str, str], int]:
    """A database of the earlier layout with a live grant, its access token and a code."""
    path = tmp_path / "server.sqlite3"
    store = Store(path)  # users and applications: unchanged by the migration
    owner = accounts.add_user(store, "owner", "password-123", NOW)
    app = accounts.add_application(store, owner, "app", "confidential", REDIRECT, NOW)
    store.close()
    old = {name: secrets.token_urlsafe(24) for name in ("refresh", "access", "code", "used")}
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript("DROP TABLE grants; DROP TABLE access_tokens; DROP TABLE codes;" + _HEX_LAYOUT)
    app_id, user_id = app.application.id, owner.id
    db.execute(
        "INSERT INTO grants VALUES (7, ?, ?, 'profile', ?, ?, NULL)",
        (app_id, user_id, _hex(old["refresh"]), NOW),
    )
    db.execute(
        "INSERT INTO access_tokens VALUES (?, 7, 'profile', ?, NULL)",
        (_hex(old["access"]), NOW + 3600),
    )
    for name, grant_id in (("code", None), ("used", 7)):
        db.execute(
            "INSERT INTO codes VALUES (?, ?, ?, 'profile', ?, NULL, NULL, 1, ?, ?, ?)",
            (_hex(old[name]), app_id, user_id, REDIRECT, NOW + 600, grant_id, grant_id and NOW),
        )
    db.close()
    return path, old, app_id


def test_old_codes_and_tokens_work_after_the_migration(old_database) -> None:
    path, old, _ = old_database
    store = Store(path)
    try:
        columns = {row[1] for row in store.db.execute("PRAGMA table_info(access_tokens)")}
        assert "id" in columns
        app = accounts.application_by_client_id(store, _client_id(store))
        assert app is not None
        found = grants.access_grant_and_user(store, NOW, old["access"])
        assert found is not None and found[0].scope == frozenset({"profile"})
        renewed = grants.refresh(store, NOW, app, old["refresh"], None)
        assert renewed.refresh_token == old["refresh"]
        assert len(renewed.access_token) == credentials.SPLIT_TOKEN_LENGTH
        assert grants.access_grant_and_user(store, NOW, old["access"]) is None  # replaced
        assert grants.access_grant_and_user(store, NOW, renewed.access_token) is not None
        assert grants.code_is_pending(store, NOW, old["code"])
        issued = grants.exchange_code(store, NOW, app, old["code"], REDIRECT, None)
        assert grants.access_grant_and_user(store, NOW, issued.access_token) is not None
        # A replay of a code used before the migration still revokes what it issued.
        with pytest.raises(OAuthError):
            grants.exchange_code(store, NOW, app, old["used"], REDIRECT, None)
        with pytest.raises(OAuthError):
            grants.refresh(store, NOW, app, old["refresh"], None)
        # Stored as 32-byte hashes, never as the tokens.
        for (value,) in store.db.execute("SELECT token_hash FROM access_tokens"):
            assert isinstance(value, bytes) and len(value) == 32
    finally:
        store.close()


def test_an_interrupted_migration_leaves_the_old_tables(old_database, monkeypatch) -> None:
    path, _, _ = old_database

    monkeypatch.setattr(migrate, "_COPIES", (*migrate._COPIES, "INSERT INTO nowhere VALUES (1)"))
    with pytest.raises(sqlite3.OperationalError):
        Store(path)
    db = sqlite3.connect(path)
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(access_tokens)")}
        assert "id" not in columns
        assert db.execute("SELECT COUNT(*) FROM codes").fetchone()[0] == 2
    finally:
        db.close()


def _client_id(store: Store) -> str:
    row = store.one("SELECT client_id FROM applications")
    assert row is not None
    return str(row["client_id"])


def test_split_tokens_are_found_by_selector_and_checked_by_verifier(tmp_path: Path) -> None:
    store = Store(tmp_path / "server.sqlite3")
    try:
        owner = accounts.add_user(store, "owner", "password-123", NOW)
        app = accounts.add_application(store, owner, "app", "public", REDIRECT, NOW).application
        request = grants.CodeRequest(app, owner, "profile", REDIRECT, None, None, offline=True)
        code = grants.issue_code(store, NOW, request)
        tokens = grants.exchange_code(store, NOW, app, code, REDIRECT, None)
        assert tokens.refresh_token is not None
        for token in (code, tokens.access_token, tokens.refresh_token):
            assert len(token) == credentials.SPLIT_TOKEN_LENGTH
            assert credentials.token_key(token).selector is not None
        assert grants.access_grant_and_user(store, NOW, tokens.access_token) is not None
        # The same selector with another verifier: refused.
        for token in (tokens.access_token, tokens.refresh_token):
            raw = bytearray(base64.urlsafe_b64decode(token + "="))
            raw[-1] ^= 1
            forged = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
            assert credentials.token_key(forged).selector == credentials.token_key(token).selector
            assert grants.access_grant_and_user(store, NOW, forged) is None
            with pytest.raises(OAuthError):
                grants.refresh(store, NOW, app, forged, None)
        # Another spelling of the same bytes (spare bits of the last character) is refused.
        twin = tokens.access_token[:-1] + chr(ord(tokens.access_token[-1]) + 1)
        assert credentials.token_key(twin).selector is None
        # Nor standard base64 or other characters in place of base64url ones.
        for odd in ("+", "/", ".", "="):
            assert credentials.token_key(odd + tokens.access_token[1:]).selector is None
        assert grants.access_grant_and_user(store, NOW, twin) is None
        # Nothing of a token is stored but the verifier's hash.
        dump = "\n".join(store.db.iterdump())
        for token in (code, tokens.access_token, tokens.refresh_token):
            assert token not in dump
    finally:
        store.close()
