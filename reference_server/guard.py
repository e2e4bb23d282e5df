"""Brute-force protection for client credentials and codes (RFC 6749 2.3.1, 10.10).

Failures are counted per client_id in fixed windows, in the database so every worker sees
them. A client past the limit is refused until its window ends; other clients are unaffected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .accounts import Application
from .oauth import clients
from .oauth.errors import OAuthError

if TYPE_CHECKING:
    from .state import ServerState


@dataclass
class Guard:
    limit: int = 20  # failed attempts per client and window
    window: int = 60  # seconds

    def _window_start(self, now: int) -> int:
        return now - now % self.window

    def check(self, state: ServerState, client_id: str) -> None:
        now = state.now()
        start = self._window_start(now)
        row = state.store.one(
            "SELECT failures FROM auth_failures WHERE client_id = ? AND window_start = ?",
            client_id[:256],
            start,
        )
        self._refuse_if_locked(row["failures"] if row is not None else None, start, now)

    def _refuse_if_locked(self, failures: int | None, start: int, now: int) -> None:
        if failures is not None and failures >= self.limit:
            retry = start + self.window - now
            error = OAuthError(
                "invalid_client",
                f"too many failed attempts for this client; retry in {retry} s",
                status=429,
            )
            error.headers = {"Retry-After": str(retry)}
            raise error

    def record_failure(self, state: ServerState, client_id: str) -> None:
        now = state.now()
        start = self._window_start(now)
        store = state.store
        store.run("DELETE FROM auth_failures WHERE window_start < ?", start)
        store.run(
            "INSERT INTO auth_failures (client_id, window_start, failures) VALUES (?, ?, 1)"
            " ON CONFLICT DO UPDATE SET failures = failures + 1",
            client_id[:256],
            start,
        )

    def authenticate(self, state: ServerState, client_id: str, secret: str) -> Application:
        """`check`, then `clients.authenticate`; one query reads the failures and the client."""
        now = state.now()
        start = self._window_start(now)
        row = state.store.one(
            "SELECT (SELECT failures FROM auth_failures WHERE client_id = ? AND window_start = ?)"
            " AS failures, a.* FROM (SELECT 1) LEFT JOIN applications a ON a.client_id = ?",
            client_id[:256],
            start,
            client_id,
        )
        assert row is not None  # the outer SELECT 1 always yields one row
        self._refuse_if_locked(row["failures"], start, now)
        app = Application.from_row(row) if row["id"] is not None else None
        try:
            return clients.check_secret(app, secret)
        except OAuthError:
            self.record_failure(state, client_id)
            raise
