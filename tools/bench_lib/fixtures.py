"""Data for the load: a user, an application, and codes and tokens minted straight into SQLite.

Codes go through `reference_server.grants.issue_code` (the server's own code path). Grants with
their tokens are bulk-inserted in one transaction (for the pools of tokens and for the
database-size scaling runs), as split tokens made by the server's own
`credentials.new_split_token` (a grant's id is its refresh token's selector).
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from reference_server import accounts, credentials, grants
from reference_server.app import DATABASE_NAME
from reference_server.storage import Store

USER, PASSWORD = "bench", "bench-password"
REDIRECT_URI = "https://client.example/callback"
SCOPE = "profile email"


@dataclass(frozen=True)
class Client:
    database: Path
    client_id: str
    client_secret: str
    app_id: int
    user_id: int

    def form(self, **fields: str) -> str:
        return urlencode(
            {**fields, "client_id": self.client_id, "client_secret": self.client_secret}
        )


def provision(data_dir: Path) -> Client:
    """A user and a confidential web application in a new data folder."""
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    database = data_dir / DATABASE_NAME
    store = Store(database)
    try:
        now = int(time.time())
        user = accounts.add_user(store, USER, PASSWORD, now, email="bench@example.org")
        new = accounts.add_application(
            store, user, "bench web app", "confidential", REDIRECT_URI, now
        )
    finally:
        store.close()
    app = new.application
    return Client(database, app.client_id, new.client_secret, app.id, user.id)


def mint_codes(client: Client, count: int) -> list[str]:
    """`count` fresh codes (offline, PKCE S256); returns one token-request body per code."""
    store = Store(client.database)
    try:
        app = accounts.application_by_client_id(store, client.client_id)
        user = accounts.user_by_id(store, client.user_id)
        assert app is not None and user is not None
        verifier = secrets.token_urlsafe(48)
        request = grants.CodeRequest(
            application=app,
            user=user,
            scope=SCOPE,
            redirect_uri=REDIRECT_URI,
            challenge=_s256(verifier),
            challenge_method="S256",
            offline=True,
        )
        now = int(time.time())
        with store.transaction():
            codes = [grants.issue_code(store, now, request) for _ in range(count)]
    finally:
        store.close()
    return [
        client.form(
            grant_type="authorization_code",
            code=code,
            redirect_uri=REDIRECT_URI,
            code_verifier=verifier,
        )
        for code in codes
    ]


def _s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass(frozen=True)
class TokenPool:
    refresh_tokens: list[str]
    access_tokens: list[str]


def bulk_grants(
    client: Client, count: int, keep: int | None = None, *, live: bool = True, history: int = 0
) -> TokenPool:
    """`count` offline grants, each with a live access token and the redeemed code behind it.

    Returns the plaintext tokens of the first `keep` grants (all when None). One transaction,
    executemany, rows in key order; `live=False` (no server has the file open yet) also turns
    the journal off for the load. `history`: revoked access tokens added to each kept grant,
    as a grant refreshed that many times before has.
    """
    keep = count if keep is None else min(keep, count)
    now = int(time.time())
    refresh_kept: list[str] = []
    access_kept: list[str] = []
    # Our own connection, tuned for a bulk load: a big page cache, no fsync until the end.
    db = sqlite3.connect(client.database, isolation_level=None)
    try:
        db.execute("PRAGMA busy_timeout = 10000")
        db.execute("PRAGMA cache_size = -1000000")
        db.execute("PRAGMA synchronous = OFF")
        if not live:  # nobody else has the file open: no journal at all (the server sets WAL)
            db.execute("PRAGMA journal_mode = OFF")
        db.execute("BEGIN IMMEDIATE")
        batch = 100_000
        kept_ids: list[int] = []
        for start in range(0, count, batch):
            size = min(batch, count - start)
            grant_rows, access_rows, code_rows = [], [], []
            noise = os.urandom(96 * size)  # random hashes, 32 bytes each
            for i in range(size):
                index = start + i
                if index < keep:
                    refresh, refresh_key = credentials.new_split_token()
                    access, access_key = credentials.new_split_token()
                    refresh_kept.append(refresh)
                    access_kept.append(access)
                    grant_id, refresh_hash = refresh_key.selector, refresh_key.digest
                    access_id, access_hash = access_key.selector, access_key.digest
                    kept_ids.append(refresh_key.selector or 0)
                else:  # nobody will present these: random hashes are enough
                    grant_id, access_id = credentials.new_selector(), credentials.new_selector()
                    refresh_hash = noise[96 * i : 96 * i + 32]
                    access_hash = noise[96 * i + 32 : 96 * i + 64]
                grant_rows.append(
                    (grant_id, client.app_id, client.user_id, SCOPE, refresh_hash, now)
                )
                access_rows.append((access_id, access_hash, grant_id, SCOPE, now + 3600))
                code_rows.append(
                    (
                        credentials.new_selector(),
                        noise[96 * i + 64 : 96 * i + 96],
                        client.app_id,
                        client.user_id,
                        SCOPE,
                        REDIRECT_URI,
                        1,
                        now - 1,
                        grant_id,
                        now - 1,
                    )
                )
            # Selectors increase: the B-tree inserts append, as the server's do.
            db.executemany(
                "INSERT INTO grants (id, application_id, user_id, scope, refresh_hash,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                grant_rows,
            )
            db.executemany(
                "INSERT INTO access_tokens (id, token_hash, grant_id, scope, expires_at)"
                " VALUES (?, ?, ?, ?, ?)",
                access_rows,
            )
            db.executemany(
                "INSERT INTO codes (id, code_hash, application_id, user_id, scope, redirect_uri,"
                " offline, expires_at, grant_id, redeemed_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                code_rows,
            )
        for start in range(0, keep * history, batch):
            size = min(batch, keep * history - start)
            noise = os.urandom(32 * size)
            past = [
                (
                    credentials.new_selector(),
                    noise[32 * i : 32 * i + 32],
                    kept_ids[(start + i) // history],
                    SCOPE,
                    now - 1,
                    now - 1,
                )
                for i in range(size)
            ]
            db.executemany(
                "INSERT INTO access_tokens (id, token_hash, grant_id, scope, expires_at,"
                " revoked_at) VALUES (?, ?, ?, ?, ?, ?)",
                past,
            )
        db.execute("COMMIT")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        db.close()
    return TokenPool(refresh_kept, access_kept)


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path
