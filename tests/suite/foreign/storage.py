"""The provider's SQLite file: users, clients with several exact redirect URIs, sessions,
codes and tokens. One connection, used from the event loop only (handlers are async)."""

from __future__ import annotations

import secrets
import sqlite3
import string
import time
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, username TEXT UNIQUE, password TEXT,
    email TEXT, member_since TEXT);
CREATE TABLE IF NOT EXISTS clients (client_id TEXT PRIMARY KEY, secret TEXT, name TEXT);
CREATE TABLE IF NOT EXISTS redirect_uris (client_id TEXT, uri TEXT);
CREATE TABLE IF NOT EXISTS sessions (sid TEXT PRIMARY KEY, user_id INTEGER, csrf TEXT);
CREATE TABLE IF NOT EXISTS codes (code TEXT PRIMARY KEY, client_id TEXT, user_id INTEGER,
    redirect_uri TEXT, scopes TEXT, challenge TEXT, method TEXT, expires REAL, used INTEGER);
CREATE TABLE IF NOT EXISTS tokens (id INTEGER PRIMARY KEY AUTOINCREMENT, token TEXT UNIQUE,
    kind TEXT, client_id TEXT, user_id INTEGER, scopes TEXT, code TEXT, expires REAL,
    revoked INTEGER DEFAULT 0, used INTEGER DEFAULT 0);
"""
ALPHABET = string.ascii_letters + string.digits


def random_string(length: int, prefix: str = "") -> str:
    """A prefixed random value of the provider's formats (meba_, mebr_, mebs_)."""
    return prefix + "".join(secrets.choice(ALPHABET) for _ in range(length))


class Clock:
    """Wall time plus the offset the test clock endpoint adds."""

    def __init__(self) -> None:
        self.offset = 0.0

    def now(self) -> float:
        return time.time() + self.offset


class Store:
    """Queries of the provider, one short method per question it asks."""

    def __init__(self, path: Path, clock: Clock) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.row_factory = sqlite3.Row
        self.db.executescript("PRAGMA journal_mode=WAL;" + SCHEMA)
        self.clock = clock

    def one(self, sql: str, *args: Any) -> sqlite3.Row | None:
        return self.db.execute(sql, args).fetchone()

    def run(self, sql: str, *args: Any) -> None:
        self.db.execute(sql, args)

    # --- accounts and clients --------------------------------------------------------------

    def add_user(self, username: str, password: str, email: str) -> None:
        self.run(
            "INSERT INTO users (username, password, email, member_since) VALUES (?, ?, ?, ?)",
            username, password, email, "2019-04-01",
        )  # fmt: skip

    def add_client(self, name: str, uris: list[str]) -> dict[str, str]:
        client_id, secret = random_string(24), random_string(64, "mebs_")
        self.run("INSERT INTO clients VALUES (?, ?, ?)", client_id, secret, name)
        for uri in uris:
            self.run("INSERT INTO redirect_uris VALUES (?, ?)", client_id, uri)
        return {"client_id": client_id, "client_secret": secret, "redirect_uri": uris[0]}

    def client(self, client_id: str | None) -> sqlite3.Row | None:
        return self.one("SELECT * FROM clients WHERE client_id = ?", client_id or "")

    def registered(self, client_id: str, uri: str | None) -> bool:
        sql = "SELECT 1 FROM redirect_uris WHERE client_id = ? AND uri = ?"
        return self.one(sql, client_id, uri or "") is not None

    def user(self, user_id: int) -> sqlite3.Row:
        row = self.one("SELECT * FROM users WHERE id = ?", user_id)
        assert row is not None
        return row

    def login(self, username: str, password: str) -> int | None:
        row = self.one("SELECT * FROM users WHERE username = ?", username)
        ok = row is not None and secrets.compare_digest(row["password"], password)
        return row["id"] if ok else None

    # --- browser sessions ------------------------------------------------------------------

    def session(self, sid: str | None) -> sqlite3.Row:
        row = self.one("SELECT * FROM sessions WHERE sid = ?", sid or "")
        if row is None:
            sid = random_string(32)
            self.run("INSERT INTO sessions VALUES (?, NULL, ?)", sid, random_string(32))
            row = self.one("SELECT * FROM sessions WHERE sid = ?", sid)
        assert row is not None
        return row

    def sign_in(self, sid: str, user_id: int) -> None:
        self.run("UPDATE sessions SET user_id = ? WHERE sid = ?", user_id, sid)

    # --- codes and tokens ------------------------------------------------------------------

    def new_code(self, client_id: str, user_id: int, uri: str, scopes: str, pkce: tuple) -> str:
        code = random_string(48)
        self.run(
            "INSERT INTO codes VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)",
            code, client_id, user_id, uri, scopes, *pkce, self.clock.now() + 600,
        )  # fmt: skip
        return code

    def code(self, code: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM codes WHERE code = ?", code)

    def use_code(self, code: str) -> None:
        self.run("UPDATE codes SET used = 1 WHERE code = ?", code)

    def issue(self, client_id: str, user_id: int, scopes: str, code: str) -> dict[str, str]:
        """A new access token (1 hour) and refresh token (no expiry) of one grant."""
        access, refresh = random_string(42, "meba_"), random_string(64, "mebr_")
        sql = "INSERT INTO tokens (token, kind, client_id, user_id, scopes, code, expires) "
        sql += "VALUES (?, ?, ?, ?, ?, ?, ?)"
        self.run(sql, access, "access", client_id, user_id, scopes, code, self.clock.now() + 3600)
        self.run(sql, refresh, "refresh", client_id, user_id, scopes, code, None)
        return {"access_token": access, "refresh_token": refresh}

    def token(self, token: str | None, kind: str) -> sqlite3.Row | None:
        return self.one("SELECT * FROM tokens WHERE token = ? AND kind = ?", token or "", kind)

    def live_access(self, token: str) -> sqlite3.Row | None:
        sql = "SELECT * FROM tokens WHERE token = ? AND kind = 'access' AND revoked = 0"
        return self.one(sql + " AND expires > ?", token, self.clock.now())

    def revoke(self, token: str) -> None:
        self.run("UPDATE tokens SET revoked = 1 WHERE token = ?", token)

    def revoke_from_code(self, code: str) -> None:
        self.run("UPDATE tokens SET revoked = 1 WHERE code = ?", code)

    def revoke_family(self, client_id: str, user_id: int, kind: str = "%") -> None:
        sql = "UPDATE tokens SET revoked = 1 WHERE client_id = ? AND user_id = ? AND kind LIKE ?"
        self.run(sql, client_id, user_id, kind)

    def rotate(self, old: sqlite3.Row) -> dict[str, str]:
        """Use up a refresh token: revoke the other access tokens, issue a new pair."""
        self.run("UPDATE tokens SET used = 1 WHERE id = ?", old["id"])
        self.revoke_family(old["client_id"], old["user_id"], "access")
        return self.issue(old["client_id"], old["user_id"], old["scopes"], old["code"])

    def covered(self, client_id: str, user_id: int, scopes: set[str]) -> bool:
        """Whether a live access token of the client already covers the scopes."""
        sql = "SELECT scopes FROM tokens WHERE client_id = ? AND user_id = ? AND kind = 'access'"
        rows = self.db.execute(sql + " AND revoked = 0 AND expires > ?",
                               (client_id, user_id, self.clock.now()))  # fmt: skip
        return any(scopes <= set(row["scopes"].split()) for row in rows)

    def authorized(self, user_id: int) -> list[sqlite3.Row]:
        """Applications holding a live access token of the user: one whose access token was
        revoked drops off, although its refresh token lives on (as on metabrainz.org)."""
        sql = """SELECT DISTINCT c.client_id, c.name FROM tokens t JOIN clients c USING (client_id)
                 WHERE t.user_id = ? AND t.revoked = 0 AND t.kind = 'access' AND t.expires > ?"""
        return self.db.execute(sql, (user_id, self.clock.now())).fetchall()
