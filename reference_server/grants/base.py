"""What every grant kind shares: lifetimes, what an exchange or refresh issued, finding a
presented code or token by its split key, inserting new ones, ending a grant."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import credentials
from ..storage import Row, Store

CODE_LIFETIME = 600  # TOKEN-CODE-LIFETIME: RFC 6749 4.1.2 recommends at most ten minutes
ACCESS_TOKEN_LIFETIME = 3600  # TOKEN-EXPIRES-IN-3600 (spec 8)


@dataclass(frozen=True, kw_only=True)
class IssuedTokens:
    """What a code exchange or a refresh issued; every field named where one is built (its
    answer on the wire: oauth/replies.py `token_answer`)."""

    access_token: str
    expires_in: int = ACCESS_TOKEN_LIFETIME
    refresh_token: str | None


@dataclass(frozen=True)
class Lookup:
    """A query for the row of a presented code or token (credentials.py, split tokens): by
    the selector (the row's id), then the stored hash compared with the verifier's in
    constant time. Anything that is no split token is found nowhere, without a query."""

    select: str  # up to WHERE
    id_column: str
    hash_column: str  # selected too
    rest: str = ""  # more conditions, with their own parameters
    by_selector: str = field(init=False)
    stored: str = field(init=False)  # the hash column's name in the row

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_selector", f"{self.select} {self.id_column} = ?{self.rest}")
        object.__setattr__(self, "stored", self.hash_column.rsplit(".", 1)[-1])

    def find(self, store: Store, token: str, *args: object) -> Row | None:
        key = credentials.token_key(token)
        if key is None:
            return None
        row = store.one(self.by_selector, key.selector, *args)
        if row is None:
            return None
        stored = row[self.stored]
        if stored is None or not credentials.same_digest(stored, key.digest):
            return None
        return row


def insert_keyed(insert: Callable[[credentials.TokenKey], object]) -> str:
    """A new split token, its row inserted by `insert`; a second try if another process took
    the same selector in the same millisecond (20 random bits apart: rare, not impossible)."""
    token, key = credentials.new_split_token()
    try:
        insert(key)
    except sqlite3.IntegrityError:
        token, key = credentials.new_split_token()
        insert(key)
    return token


def new_access_token(store: Store, now: int, grant_id: int, scope: str) -> str:
    return insert_keyed(
        lambda key: store.run(
            "INSERT INTO access_tokens (id, token_hash, grant_id, scope, expires_at)"
            " VALUES (?, ?, ?, ?, ?)",
            key.selector,
            key.digest,
            grant_id,
            scope,
            now + ACCESS_TOKEN_LIFETIME,
        ),
    )


def end_access_tokens(store: Store, now: int, grant_id: int) -> None:
    """Every live access token of the grant ends now."""
    store.run(
        "UPDATE access_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
        now,
        grant_id,
    )


def revoke_grant(store: Store, now: int, grant_id: int | None) -> None:
    """The grant ends, and with it its refresh token and every access token."""
    if grant_id is None:
        return
    store.run("UPDATE grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", now, grant_id)
    end_access_tokens(store, now, grant_id)
