"""Standing consents (approval_prompt=auto) and the user's list of authorized applications,
both read from the grants a consent led to."""

from __future__ import annotations

from dataclasses import dataclass

from ..accounts import Account, Application
from ..storage import Store


def has_consent(store: Store, user: Account, app: Application, scope: str, now: int) -> bool:
    """A standing consent for exactly this scope set skips the page; another set does not.

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
        scope,  # AUTHZ-APPROVAL-AUTO-NEW-SCOPES: exactly this set, no other
        now,
    )
    return row is not None  # AUTHZ-APPROVAL-AUTO


def record_consent(store: Store, now: int, user: Account, app: Application, scope: str) -> None:
    store.run(
        "INSERT INTO consents (user_id, application_id, scope, granted_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT DO UPDATE SET granted_at = excluded.granted_at",
        user.id,
        app.id,
        scope,
        now,
    )


@dataclass(frozen=True)
class Authorization:
    """One line of "applications you have authorized": an application and a scope set."""

    client_id: str
    application_name: str
    scope: str
    since: int
    offline: bool


def authorizations(store: Store, user: Account, now: int) -> list[Authorization]:
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
