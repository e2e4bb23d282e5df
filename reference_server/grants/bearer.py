"""Access tokens presented by their bearer (spec 4.5, RFC 6750): the grant behind one."""

from __future__ import annotations

import weakref
from typing import NamedTuple

from ..accounts import Account
from ..storage import Store
from .base import Lookup

_ACCESS_AND_USER = Lookup(
    "SELECT t.token_hash, t.scope, t.expires_at, g.user_id, g.application_id, u.id, u.name,"
    " u.email, u.email_verified, u.website, u.gender, u.timezone FROM access_tokens t"
    " JOIN grants g ON g.id = t.grant_id LEFT JOIN users u ON u.id = g.user_id WHERE",
    "t.id",
    "t.token_hash",
    " AND t.revoked_at IS NULL AND g.revoked_at IS NULL",
)


class AccessGrant(NamedTuple):
    """What a valid access token lets its bearer see (a named tuple: made on every userinfo
    request, at a third of a frozen dataclass's cost)."""

    user_id: int
    application_id: int
    scope: frozenset[str]


Found = tuple[AccessGrant, Account | None]


class RecentTokens:
    """The access tokens a process resolved lately, with what they resolved to, kept only
    while the database is as it was when they were read (`Store.change_mark`): a revocation,
    a changed or deleted user, any write by this worker or another process moves the mark and
    empties the memory; the expiry is compared with the clock at every use. A client asks
    the user-information endpoint with the same token again and again; the lookup (token
    key, hash comparison, join, row to objects) costs three times the mark's one PRAGMA.
    Only tokens that resolved are kept, at most `size` (the oldest go first), so unknown
    tokens cannot fill it."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._mark: tuple[int, int] | None = None
        self._found: dict[str, tuple[int, Found]] = {}

    def get(self, store: Store, token: str) -> tuple[int, Found] | None:
        mark = store.change_mark()
        if mark != self._mark:
            self._mark, self._found = mark, {}
            return None
        return self._found.get(token)

    def keep(self, token: str, expires_at: int, found: Found) -> None:
        if len(self._found) >= self.size:
            del self._found[next(iter(self._found))]
        self._found[token] = (expires_at, found)


_RECENT: weakref.WeakKeyDictionary[Store, RecentTokens] = weakref.WeakKeyDictionary()


def access_grant_and_user(store: Store, now: int, token: str) -> Found | None:
    """The grant behind a valid access token and its user (None if deleted), in one query
    (or none, for a token resolved since the database last changed: RecentTokens); None
    when the token is unknown, revoked or expired."""
    recent = _RECENT.get(store) or _RECENT.setdefault(store, RecentTokens())
    kept = recent.get(store, token)
    if kept is None:
        row = _ACCESS_AND_USER.find(store, token)
        if row is None:  # USERINFO-ERR-INVALID-TOKEN: unknown or revoked
            return None
        grant = AccessGrant(row["user_id"], row["application_id"], frozenset(row["scope"].split()))
        kept = row["expires_at"], (grant, Account.from_row(row) if row["id"] is not None else None)
        recent.keep(token, *kept)
    expires_at, found = kept
    # LIFETIME-ACCESS-EXPIRES; USERINFO-ERR-INVALID-TOKEN: expired
    return None if expires_at <= now else found
