"""What every grant kind shares: lifetimes, the token answer, finding a presented code or
token by its split key, inserting new ones, ending a grant."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import credentials
from ..storage import Row, Store

CODE_LIFETIME = 600  # RFC 6749 4.1.2 recommends at most ten minutes
ACCESS_TOKEN_LIFETIME = 3600  # TOKEN-EXPIRES-IN-3600 (spec 8)


@dataclass(frozen=True, kw_only=True)
class IssuedTokens:
    """A token answer (spec 2.3); every field named where one is built. Its JSON has the
    fields of spec 2.3 and no others (what INFO-TOKEN-EXTRA-FIELDS records of a deployment)."""

    access_token: str
    expires_in: int = ACCESS_TOKEN_LIFETIME
    refresh_token: str | None

    def as_json(self) -> dict[str, object]:
        body: dict[str, object] = {
            "access_token": self.access_token,  # TOKEN-RESPONSE-ACCESS-TOKEN: a string
            "token_type": "Bearer",  # TOKEN-TYPE-BEARER, spelt as INFO-TOKEN-TYPE-CASE records
            "expires_in": self.expires_in,
        }
        if self.refresh_token:
            body["refresh_token"] = self.refresh_token
        return body


@dataclass(frozen=True)
class Lookup:
    """A query for the row of a presented code or token (credentials.py, split tokens).

    By the selector (the row's id) for the current format, by the hash for the earlier one
    (through a partial index that holds the earlier rows only); either way the stored hash
    is then compared with the presented one in constant time.
    """

    select: str  # up to WHERE
    id_column: str
    hash_column: str  # selected too
    rest: str = ""  # more conditions, with their own parameters
    by_selector: str = field(init=False)
    by_hash: str = field(init=False)
    stored: str = field(init=False)  # the hash column's name in the row

    def __post_init__(self) -> None:
        legacy = f"{self.hash_column} = ? AND {self.id_column} < {credentials.LEGACY_IDS}"
        object.__setattr__(self, "by_selector", f"{self.select} {self.id_column} = ?{self.rest}")
        object.__setattr__(self, "by_hash", f"{self.select} {legacy}{self.rest}")
        object.__setattr__(self, "stored", self.hash_column.rsplit(".", 1)[-1])

    def find(self, store: Store, token: str, *args: object) -> Row | None:
        key = credentials.token_key(token)
        if key.selector is not None:
            row = store.one(self.by_selector, key.selector, *args)
        else:
            row = store.one(self.by_hash, key.digest, *args)
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
