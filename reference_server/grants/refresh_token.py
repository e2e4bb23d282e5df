"""The refresh token grant (spec 4.3, RFC 6749 6): a new access token for a live grant."""

from __future__ import annotations

from .. import scopes
from ..accounts import Application
from ..errors import OAuthError, invalid_grant
from ..storage import Store
from .base import IssuedTokens, Lookup, end_access_tokens, new_access_token

_LIVE_GRANT = Lookup("SELECT * FROM grants WHERE", "id", "refresh_hash", " AND revoked_at IS NULL")


def refresh(
    store: Store, now: int, app: Application, refresh_token: str, scope: str | None
) -> IssuedTokens:
    """A new access token of the grant, for the same client, as musicbrainz.org does it: the
    grant's earlier access tokens end (one valid at a time; spec 3 leaves it open), and its
    one refresh token stays, never rotated."""
    with store.transaction():
        grant = _LIVE_GRANT.find(store, refresh_token)  # LIFETIME-REFRESH-PERSISTS: until revoked
        if grant is None or grant["application_id"] != app.id:  # REFRESH-CROSS-CLIENT
            raise invalid_grant("the refresh token is unknown, revoked or another client's")
        granted = frozenset(grant["scope"].split())
        asked = granted if scope is None else _narrowed(scope, granted)
        end_access_tokens(store, now, grant["id"])
        # REFRESH-NEW-ACCESS-TOKEN
        access = new_access_token(store, now, grant["id"], scopes.canonical(asked))
    # REFRESH-SAME-TOKEN (spec 2.3): the answer repeats the refresh token sent in;
    # REFRESH-TOKEN-STAYS-VALID (spec 3): nothing above ended it
    return IssuedTokens(access_token=access, refresh_token=refresh_token)


def _narrowed(scope: str, granted: frozenset[str]) -> frozenset[str]:
    """RFC 6749 6: a refresh may ask for fewer scopes, never for more."""
    try:
        asked = scopes.parse_scope(scope)
    except scopes.ScopeError as error:
        raise OAuthError("invalid_scope", str(error)) from None
    if not asked <= granted:
        raise OAuthError("invalid_scope", "a refresh cannot add scopes to the grant")
    return asked
