"""Token revocation (spec 4.4, RFC 7009) and the user's own withdrawal (spec 3), with the
effects of spec section 3: what ends with the token presented."""

from __future__ import annotations

from ..accounts import Account, Application
from ..storage import Store
from .base import Lookup, revoke_grant

_GRANT = Lookup("SELECT id, application_id, refresh_hash FROM grants WHERE", "id", "refresh_hash")
_ACCESS = Lookup(
    "SELECT t.id, t.token_hash, g.id AS grant_id, g.application_id, g.refresh_hash"
    " FROM access_tokens t JOIN grants g ON g.id = t.grant_id WHERE",
    "t.id",
    "t.token_hash",
)


def revoke(store: Store, now: int, app: Application, token: str) -> None:
    """Ends what the token presented ends; an unknown token ends nothing, and another
    client's token, of either kind, stays untouched."""
    with store.transaction():
        access = _ACCESS.find(store, token)
        if access is not None:
            if access["application_id"] != app.id:  # REVOKE-OTHER-CLIENT
                return
            if access["refresh_hash"] is None:  # REVOKE-ONLINE-WHOLE-GRANT
                revoke_grant(store, now, access["grant_id"])
            else:  # REVOKE-ACCESS-KEEPS-REFRESH: only this access token
                store.run(
                    "UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                    now,
                    access["id"],
                )
            return
        grant = _GRANT.find(store, token)
        if grant is not None and grant["application_id"] == app.id:  # REVOKE-OTHER-CLIENT
            revoke_grant(store, now, grant["id"])  # REVOKE-REFRESH-WHOLE-GRANT


def revoke_manually(store: Store, now: int, user: Account, app: Application, scope: str) -> int:
    """The user withdraws an authorization; every grant, code and consent for it ends."""
    with store.transaction():
        grants = store.all(
            "SELECT id FROM grants WHERE user_id = ? AND application_id = ? AND scope = ?"
            " AND revoked_at IS NULL",
            user.id,
            app.id,
            scope,
        )
        for grant in grants:
            revoke_grant(store, now, grant["id"])  # REVOKE-MANUAL: its refresh token too
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
