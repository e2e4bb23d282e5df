"""Access tokens presented by their bearer (spec 4.5, RFC 6750): the grant behind one."""

from __future__ import annotations

from typing import NamedTuple

from ..accounts import User
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


def access_grant_and_user(
    store: Store, now: int, token: str
) -> tuple[AccessGrant, User | None] | None:
    """The grant behind a valid access token and its user (None if deleted), in one query.

    None when the token is unknown, revoked or expired (USERINFO-ERR-INVALID-TOKEN).
    """
    row = _ACCESS_AND_USER.find(store, token)
    if row is None or row["expires_at"] <= now:  # LIFETIME-ACCESS-EXPIRES
        return None
    grant = AccessGrant(row["user_id"], row["application_id"], frozenset(row["scope"].split()))
    return grant, (User.from_row(row) if row["id"] is not None else None)
