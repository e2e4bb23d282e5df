"""Codes, tokens and grants: the effects table of spec section 3.

A grant is one authorization of one application by one user for one scope set; a code
exchange creates it. It has a refresh token when spec 2.3 allows one (installed applications
and offline web applications) and any number of access tokens over time, of which only the
newest is valid. Revoking the grant ends all of them.

Over 300 lines on purpose: the whole state table of spec section 3 in one module, so that
every transition (issue, exchange, refresh, revoke, consent) reads beside the others.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

from . import credentials, pkce, scopes
from .accounts import Application, User
from .errors import OAuthError, invalid_grant, invalid_request
from .storage import Row, Store

CODE_LIFETIME = 600  # RFC 6749 4.1.2 recommends at most ten minutes
ACCESS_TOKEN_LIFETIME = 3600  # spec 8


@dataclass(frozen=True)
class CodeRequest:
    """An approved authorization request, about to become a code."""

    application: Application
    user: User
    scope: str
    redirect_uri: str
    challenge: str | None
    challenge_method: str | None
    offline: bool


@dataclass(frozen=True)
class TokenSet:
    access_token: str
    expires_in: int
    refresh_token: str | None

    def as_json(self) -> dict[str, object]:
        body: dict[str, object] = {
            "access_token": self.access_token,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
        }
        if self.refresh_token:
            body["refresh_token"] = self.refresh_token
        return body


@dataclass(frozen=True)
class AccessGrant:
    """What a valid access token lets its bearer see."""

    user_id: int
    application_id: int
    scope: frozenset[str]


@dataclass(frozen=True)
class _Lookup:
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


_CODE = _Lookup("SELECT * FROM codes WHERE", "id", "code_hash")
_PENDING_CODE = _Lookup(
    "SELECT code_hash FROM codes WHERE",
    "id",
    "code_hash",
    " AND redeemed_at IS NULL AND expires_at > ?",
)
_LIVE_GRANT = _Lookup("SELECT * FROM grants WHERE", "id", "refresh_hash", " AND revoked_at IS NULL")
_GRANT = _Lookup("SELECT id, application_id, refresh_hash FROM grants WHERE", "id", "refresh_hash")
_ACCESS = _Lookup(
    "SELECT t.id, t.token_hash, g.id AS grant_id, g.application_id, g.refresh_hash"
    " FROM access_tokens t JOIN grants g ON g.id = t.grant_id WHERE",
    "t.id",
    "t.token_hash",
)
_ACCESS_AND_USER = _Lookup(
    "SELECT t.token_hash, t.scope, t.expires_at, g.user_id, g.application_id, u.id, u.name,"
    " u.email, u.email_verified, u.website, u.gender, u.timezone FROM access_tokens t"
    " JOIN grants g ON g.id = t.grant_id LEFT JOIN users u ON u.id = g.user_id WHERE",
    "t.id",
    "t.token_hash",
    " AND t.revoked_at IS NULL AND g.revoked_at IS NULL",
)


def _insert_keyed(store: Store, insert: Callable[[credentials.TokenKey], object]) -> str:
    """A new split token, its row inserted by `insert`; a second try if another process took
    the same selector in the same millisecond (20 random bits apart: rare, not impossible)."""
    token, key = credentials.new_split_token()
    try:
        insert(key)
    except sqlite3.IntegrityError:
        token, key = credentials.new_split_token()
        insert(key)
    return token


def issue_code(store: Store, now: int, request: CodeRequest) -> str:
    return _insert_keyed(
        store,
        lambda key: store.run(
            "INSERT INTO codes (id, code_hash, application_id, user_id, scope, redirect_uri,"
            " challenge, challenge_method, offline, expires_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            key.selector,
            key.digest,
            request.application.id,
            request.user.id,
            request.scope,
            request.redirect_uri,
            request.challenge,
            (request.challenge_method or "plain") if request.challenge else None,
            1 if request.offline else 0,
            now + CODE_LIFETIME,
        ),
    )


def code_is_pending(store: Store, now: int, code: str) -> bool:
    """Was this code issued here, and is it still waiting to be exchanged?"""
    return _PENDING_CODE.find(store, code, now) is not None


def _pkce_problem(code: Row, verifier: str | None) -> OAuthError | None:
    if code["challenge"] is None:
        if verifier is not None:
            return invalid_grant("a code_verifier was sent for a code issued without PKCE")
        return None
    if verifier is None:
        return invalid_request("the code was issued with a code_challenge: send code_verifier")
    if not pkce.verifier_matches(verifier, code["challenge"], code["challenge_method"]):
        return invalid_grant("the code_verifier does not match the code_challenge")
    return None


def exchange_code(
    store: Store, now: int, app: Application, code: str, redirect_uri: str, verifier: str | None
) -> TokenSet:
    """Redeem a code once; a replay revokes what the first redemption issued (RFC 6749 4.1.2)."""
    with store.transaction():
        outcome = _redeem(store, now, app, code, redirect_uri, verifier)
    # Raised only after the commit: a replay's revocation must stick.
    if isinstance(outcome, OAuthError):
        raise outcome
    return outcome


def _redeem(
    store: Store, now: int, app: Application, code: str, redirect_uri: str, verifier: str | None
) -> TokenSet | OAuthError:
    row = _CODE.find(store, code)
    if row is None or row["application_id"] != app.id:
        return invalid_grant("the code is unknown or was issued to another client")
    if row["redeemed_at"] is not None:
        _revoke_grant(store, now, row["grant_id"])
        return invalid_grant("the code was used already; the tokens issued for it are revoked")
    if row["expires_at"] <= now:
        return invalid_grant("the code has expired")
    if row["redirect_uri"] != redirect_uri:
        return invalid_grant("redirect_uri differs from the one of the authorization request")
    problem = _pkce_problem(row, verifier)
    if problem is not None:
        return problem  # a failed exchange does not use up the code
    tokens, grant_id = _new_grant(store, now, row)
    store.run(
        "UPDATE codes SET redeemed_at = ?, grant_id = ? WHERE id = ?",
        now,
        grant_id,
        row["id"],
    )
    return tokens


def _new_grant(store: Store, now: int, code: Row) -> tuple[TokenSet, int]:
    """The grant's id is its refresh token's selector (a plain selector when it has none)."""
    made: list[int] = []

    def insert(key: credentials.TokenKey) -> None:
        assert key.selector is not None
        store.run(
            "INSERT INTO grants (id, application_id, user_id, scope, refresh_hash, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            key.selector,
            code["application_id"],
            code["user_id"],
            code["scope"],
            key.digest if code["offline"] else None,
            now,
        )
        made.append(key.selector)

    refresh = _insert_keyed(store, insert)
    grant_id = made[-1]
    access = _new_access_token(store, now, grant_id, code["scope"])
    return TokenSet(access, ACCESS_TOKEN_LIFETIME, refresh if code["offline"] else None), grant_id


def _new_access_token(store: Store, now: int, grant_id: int, scope: str) -> str:
    return _insert_keyed(
        store,
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


def refresh(
    store: Store, now: int, app: Application, refresh_token: str, scope: str | None
) -> TokenSet:
    """A new access token; the refresh token stays valid and the previous access token ends."""
    with store.transaction():
        grant = _LIVE_GRANT.find(store, refresh_token)
        if grant is None or grant["application_id"] != app.id:
            raise invalid_grant("the refresh token is unknown, revoked or another client's")
        granted = frozenset(grant["scope"].split())
        asked = granted if scope is None else _narrowed(scope, granted)
        store.run(
            "UPDATE access_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
            now,
            grant["id"],
        )
        access = _new_access_token(store, now, grant["id"], scopes.canonical(asked))
    return TokenSet(access, ACCESS_TOKEN_LIFETIME, refresh_token)


def _narrowed(scope: str, granted: frozenset[str]) -> frozenset[str]:
    """RFC 6749 6: a refresh may ask for fewer scopes, never for more."""
    try:
        asked = scopes.parse_scope(scope)
    except scopes.ScopeError as error:
        raise OAuthError("invalid_scope", str(error)) from None
    if not asked <= granted:
        raise OAuthError("invalid_scope", "a refresh cannot add scopes to the grant")
    return asked


def revoke(store: Store, now: int, app: Application, token: str) -> None:
    """RFC 7009 with the effects of spec section 3; other clients' tokens stay untouched."""
    with store.transaction():
        access = _ACCESS.find(store, token)
        if access is not None:
            if access["application_id"] != app.id:
                return
            if access["refresh_hash"] is None:
                _revoke_grant(store, now, access["grant_id"])  # online: the whole grant
            else:
                store.run(
                    "UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                    now,
                    access["id"],
                )
            return
        grant = _GRANT.find(store, token)
        if grant is not None and grant["application_id"] == app.id:
            _revoke_grant(store, now, grant["id"])


def _revoke_grant(store: Store, now: int, grant_id: int | None) -> None:
    if grant_id is None:
        return
    store.run("UPDATE grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", now, grant_id)
    store.run(
        "UPDATE access_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL",
        now,
        grant_id,
    )


def access_grant_and_user(
    store: Store, now: int, token: str
) -> tuple[AccessGrant, User | None] | None:
    """The grant behind a valid access token and its user (None if deleted), in one query.

    None when the token is unknown, revoked or expired.
    """
    row = _ACCESS_AND_USER.find(store, token)
    if row is None or row["expires_at"] <= now:
        return None
    grant = AccessGrant(row["user_id"], row["application_id"], frozenset(row["scope"].split()))
    return grant, (User.from_row(row) if row["id"] is not None else None)


# consent (approval_prompt=auto) ---------------------------------------------------------


def has_consent(store: Store, user: User, app: Application, scope: str, now: int) -> bool:
    """A standing consent for exactly this scope set: approval_prompt=auto skips the page.

    It stands while a grant of it is live (a refresh token, or an unexpired access token), or
    before any grant exists (a code still on its way). Once the user revoked it on the
    authorized-applications page (the row goes), or every grant of it ended (revoked by the
    application, or all tokens expired), the user is asked again. So a consent in force is
    always a line of that page, where the user can end it.
    """
    row = store.one(
        "SELECT 1 FROM consents c WHERE c.user_id = ? AND c.application_id = ? AND c.scope = ?"
        " AND (EXISTS (SELECT 1 FROM grants g WHERE g.user_id = c.user_id"
        "  AND g.application_id = c.application_id AND g.scope = c.scope"
        "  AND g.revoked_at IS NULL AND (g.refresh_hash IS NOT NULL OR EXISTS ("
        "   SELECT 1 FROM access_tokens t WHERE t.grant_id = g.id AND t.revoked_at IS NULL"
        "   AND t.expires_at > ?)))"
        " OR NOT EXISTS (SELECT 1 FROM grants g WHERE g.user_id = c.user_id"
        "  AND g.application_id = c.application_id AND g.scope = c.scope))",
        user.id,
        app.id,
        scope,
        now,
    )
    return row is not None


def record_consent(store: Store, now: int, user: User, app: Application, scope: str) -> None:
    store.run(
        "INSERT INTO consents (user_id, application_id, scope, granted_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT DO UPDATE SET granted_at = excluded.granted_at",
        user.id,
        app.id,
        scope,
        now,
    )


# the user's own list of authorized applications -----------------------------------------


@dataclass(frozen=True)
class Authorization:
    """One line of "applications you have authorized": an application and a scope set."""

    client_id: str
    application_name: str
    scope: str
    since: int
    offline: bool


def authorizations(store: Store, user: User, now: int) -> list[Authorization]:
    rows = store.all(
        "SELECT a.client_id, a.name, g.scope, MIN(g.created_at) AS since,"
        " MAX(g.refresh_hash IS NOT NULL) AS offline"
        " FROM grants g JOIN applications a ON a.id = g.application_id"
        " WHERE g.user_id = ? AND g.revoked_at IS NULL AND (g.refresh_hash IS NOT NULL OR"
        "  EXISTS (SELECT 1 FROM access_tokens t WHERE t.grant_id = g.id"
        "          AND t.revoked_at IS NULL AND t.expires_at > ?))"
        " GROUP BY a.id, g.scope ORDER BY a.name, g.scope",
        user.id,
        now,
    )
    return [
        Authorization(r["client_id"], r["name"], r["scope"], r["since"], bool(r["offline"]))
        for r in rows
    ]


def revoke_manually(store: Store, now: int, user: User, app: Application, scope: str) -> int:
    """The user withdraws an authorization: every grant, code and consent for it ends."""
    with store.transaction():
        grants = store.all(
            "SELECT id FROM grants WHERE user_id = ? AND application_id = ? AND scope = ?"
            " AND revoked_at IS NULL",
            user.id,
            app.id,
            scope,
        )
        for grant in grants:
            _revoke_grant(store, now, grant["id"])
        store.run(
            "UPDATE codes SET expires_at = ? WHERE user_id = ? AND application_id = ?"
            " AND scope = ? AND redeemed_at IS NULL",
            now,
            user.id,
            app.id,
            scope,
        )
        store.run(
            "DELETE FROM consents WHERE user_id = ? AND application_id = ? AND scope = ?",
            user.id,
            app.id,
            scope,
        )
    return len(grants)
