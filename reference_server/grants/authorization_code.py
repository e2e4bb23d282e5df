"""The authorization code grant (spec 4.1-4.2, RFC 6749 4.1): a code issued on the user's
approval, exchanged once for a new grant and its tokens."""

from __future__ import annotations

from dataclasses import dataclass

from .. import credentials, pkce
from ..accounts import Account, Application
from ..errors import OAuthError, invalid_grant, invalid_request
from ..storage import Row, Store
from .base import CODE_LIFETIME, IssuedTokens, Lookup, insert_keyed, new_access_token, revoke_grant

_CODE = Lookup("SELECT * FROM codes WHERE", "id", "code_hash")
_PENDING_CODE = Lookup(
    "SELECT code_hash FROM codes WHERE",
    "id",
    "code_hash",
    " AND redeemed_at IS NULL AND expires_at > ?",
)


@dataclass(frozen=True)
class CodeRequest:
    """An approved authorization request, about to become a code."""

    application: Application
    user: Account
    scope: str
    redirect_uri: str
    challenge: str | None
    challenge_method: str | None
    offline: bool  # the grant gets a refresh token (web/authorize.py decides)


def issue_code(store: Store, now: int, request: CodeRequest) -> str:
    return insert_keyed(
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
            # PKCE-DEFAULT-PLAIN: a challenge without a method is plain
            (request.challenge_method or "plain") if request.challenge else None,
            1 if request.offline else 0,
            now + CODE_LIFETIME,
        ),
    )


def code_is_pending(store: Store, now: int, code: str) -> bool:
    """Was this code issued here, and is it still waiting to be exchanged?"""
    return _PENDING_CODE.find(store, code, now) is not None


def exchange_code(
    store: Store, now: int, app: Application, code: str, redirect_uri: str, verifier: str | None
) -> IssuedTokens:
    """A code redeemed once for a new grant and its tokens."""
    with store.transaction():
        outcome = _redeem(store, now, app, code, redirect_uri, verifier)
    # A replayed code's error is raised only once the unit is done: its revocation sticks.
    if isinstance(outcome, OAuthError):
        raise outcome
    return outcome


def _redeem(
    store: Store, now: int, app: Application, code: str, redirect_uri: str, verifier: str | None
) -> IssuedTokens | OAuthError:
    row = _CODE.find(store, code)
    if row is None or row["application_id"] != app.id:  # TOKEN-CROSS-CLIENT-CODE
        return invalid_grant("the code is unknown or was issued to another client")
    if row["redeemed_at"] is not None:  # TOKEN-CODE-SINGLE-USE
        revoke_grant(store, now, row["grant_id"])  # TOKEN-CODE-REPLAY-REVOKES
        return invalid_grant("the code was used already; the tokens issued for it are revoked")
    if row["expires_at"] <= now:  # TOKEN-CODE-LIFETIME
        return invalid_grant("the code has expired")
    # TOKEN-REDIRECT-URI-SAME; TOKEN-REDIRECT-URI-REGISTERED too: the code's own redirect URI
    # matched the registered one at the authorization endpoint
    if row["redirect_uri"] != redirect_uri:
        return invalid_grant("redirect_uri differs from the one of the authorization request")
    problem = _pkce_problem(row, verifier)
    if problem is not None:
        return problem  # a failed exchange does not use up the code
    tokens, grant_id = _new_grant(store, now, row)  # TOKEN-CODE-EXCHANGE
    store.run(
        "UPDATE codes SET redeemed_at = ?, grant_id = ? WHERE id = ?",
        now,
        grant_id,
        row["id"],
    )
    return tokens


def _pkce_problem(code: Row, verifier: str | None) -> OAuthError | None:
    if code["challenge"] is None:  # PKCE-OPTIONAL
        if verifier is not None:  # PKCE-DOWNGRADE
            return invalid_grant("a code_verifier was sent for a code issued without PKCE")
        return None
    if verifier is None:  # PKCE-VERIFIER-MISSING
        return invalid_request("the code was issued with a code_challenge: send code_verifier")
    # PKCE-S256, PKCE-PLAIN, PKCE-VERIFIER-MISMATCH
    if not pkce.verifier_matches(verifier, code["challenge"], code["challenge_method"]):
        return invalid_grant("the code_verifier does not match the code_challenge")
    return None


def _new_grant(store: Store, now: int, code: Row) -> tuple[IssuedTokens, int]:
    """The grant's id is its refresh token's selector (a plain selector when it has none)."""
    made: list[int] = []
    with_refresh = bool(code["offline"])  # as the authorization endpoint decided (spec 2.3)

    def insert(key: credentials.TokenKey) -> None:
        store.run(
            "INSERT INTO grants (id, application_id, user_id, scope, refresh_hash, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            key.selector,
            code["application_id"],
            code["user_id"],
            code["scope"],
            key.digest if with_refresh else None,
            now,
        )
        made.append(key.selector)

    refresh = insert_keyed(insert)
    grant_id = made[-1]
    access = new_access_token(store, now, grant_id, code["scope"])
    tokens = IssuedTokens(access_token=access, refresh_token=refresh if with_refresh else None)
    return tokens, grant_id
