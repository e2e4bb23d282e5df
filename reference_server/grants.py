"""Codes, tokens and grants: the effects table of spec section 3.

A grant is one authorization of one application by one user for one scope set; a code
exchange creates it. It has a refresh token when spec 2.3 allows one (installed applications
and offline web applications) and any number of access tokens over time, of which only the
newest is valid. Revoking the grant ends all of them.

Over 300 lines on purpose: the whole state table of spec section 3 in one module, so that
every transition (issue, exchange, refresh, revoke, consent) reads beside the others.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def issue_code(store: Store, now: int, request: CodeRequest) -> str:
    code = credentials.new_token()
    store.run(
        "INSERT INTO codes (code_hash, application_id, user_id, scope, redirect_uri, challenge,"
        " challenge_method, offline, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        credentials.token_hash(code),
        request.application.id,
        request.user.id,
        request.scope,
        request.redirect_uri,
        request.challenge,
        (request.challenge_method or "plain") if request.challenge else None,
        1 if request.offline else 0,
        now + CODE_LIFETIME,
    )
    return code


def code_is_pending(store: Store, now: int, code: str) -> bool:
    """Was this code issued here, and is it still waiting to be exchanged?"""
    row = store.one(
        "SELECT 1 FROM codes WHERE code_hash = ? AND redeemed_at IS NULL AND expires_at > ?",
        credentials.token_hash(code),
        now,
    )
    return row is not None


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
    row = store.one("SELECT * FROM codes WHERE code_hash = ?", credentials.token_hash(code))
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
        "UPDATE codes SET redeemed_at = ?, grant_id = ? WHERE code_hash = ?",
        now,
        grant_id,
        row["code_hash"],
    )
    return tokens


def _new_grant(store: Store, now: int, code: Row) -> tuple[TokenSet, int]:
    refresh = credentials.new_token() if code["offline"] else None
    cursor = store.run(
        "INSERT INTO grants (application_id, user_id, scope, refresh_hash, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        code["application_id"],
        code["user_id"],
        code["scope"],
        credentials.token_hash(refresh) if refresh else None,
        now,
    )
    grant_id = int(cursor.lastrowid or 0)
    access = _new_access_token(store, now, grant_id, code["scope"])
    return TokenSet(access, ACCESS_TOKEN_LIFETIME, refresh), grant_id


def _new_access_token(store: Store, now: int, grant_id: int, scope: str) -> str:
    token = credentials.new_token()
    store.run(
        "INSERT INTO access_tokens (token_hash, grant_id, scope, expires_at) VALUES (?, ?, ?, ?)",
        credentials.token_hash(token),
        grant_id,
        scope,
        now + ACCESS_TOKEN_LIFETIME,
    )
    return token


def refresh(
    store: Store, now: int, app: Application, refresh_token: str, scope: str | None
) -> TokenSet:
    """A new access token; the refresh token stays valid and the previous access token ends."""
    with store.transaction():
        grant = store.one(
            "SELECT * FROM grants WHERE refresh_hash = ? AND revoked_at IS NULL",
            credentials.token_hash(refresh_token),
        )
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
    digest = credentials.token_hash(token)
    with store.transaction():
        access = store.one(
            "SELECT t.token_hash, g.id AS grant_id, g.application_id, g.refresh_hash"
            " FROM access_tokens t JOIN grants g ON g.id = t.grant_id WHERE t.token_hash = ?",
            digest,
        )
        if access is not None:
            if access["application_id"] != app.id:
                return
            if access["refresh_hash"] is None:
                _revoke_grant(store, now, access["grant_id"])  # online: the whole grant
            else:
                store.run(
                    "UPDATE access_tokens SET revoked_at = ? WHERE token_hash = ?"
                    " AND revoked_at IS NULL",
                    now,
                    digest,
                )
            return
        grant = store.one("SELECT id, application_id FROM grants WHERE refresh_hash = ?", digest)
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
    row = store.one(
        "SELECT t.scope, t.expires_at, g.user_id, g.application_id, u.id, u.name, u.email,"
        " u.email_verified, u.website, u.gender, u.timezone FROM access_tokens t"
        " JOIN grants g ON g.id = t.grant_id LEFT JOIN users u ON u.id = g.user_id"
        " WHERE t.token_hash = ? AND t.revoked_at IS NULL AND g.revoked_at IS NULL",
        credentials.token_hash(token),
    )
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
