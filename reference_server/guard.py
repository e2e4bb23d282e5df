"""Throttling of guesses: passwords, client secrets, codes and refresh tokens (RFC 6749 10.10).

Throttle the attacker, not the victim (RFC 6819 5.1.4.2.3): a lock per user name or client_id
lets anyone who knows the name (every authorization URL shows a client_id) lock its owner out.
So failures are counted per source address *and* name, in the database so that every worker
sees them: the guessing address slows down while the owner, elsewhere, is untouched. After
FREE failures each further one makes that address wait before its next try for that name:
60 s, then 120, 240, ... up to an hour; never a permanent lock, and a quiet day forgets.
An IPv6 address counts by its /64 (one subscriber's block).

Race-free: a login reserves its slot (counts a failure) in one transaction *before* the slow
password hash and gives it back when the password is right, so of any number of concurrent
attempts at most the free ones are checked. Client secrets, codes and refresh tokens are
checked in microseconds with no await between check and record: atomic within a worker.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from . import credentials
from .accounts import Application
from .clock import Clock
from .errors import OAuthError, Throttled, invalid_client
from .storage import Store

MAX_NAME = 256
_DUMMY_HASH = credentials.token_hash(credentials.new_token())


def source(host: str) -> str:
    """Who is guessing: the peer's address (a /64 for IPv6)."""
    if ":" not in host:
        return host
    try:
        return str(ipaddress.IPv6Network(f"{host}/64", strict=False).network_address) + "/64"
    except ValueError:
        return host


def key(source: str, name: str) -> str:
    return f"{source} {name[:MAX_NAME]}"


def grant_key_of(source: str, client_id: str) -> str:
    """Guessed codes and refresh tokens count apart from bad secrets (both per address)."""
    return key(source, "grant:" + client_id)


def check_secret(app: Application | None, secret: str) -> Application:
    """`app` if `secret` is its Client Secret; the same work when there is no such client."""
    expected = app.secret_hash if app else _DUMMY_HASH
    if not credentials.same(expected, credentials.token_hash(secret)) or app is None:
        raise invalid_client()
    return app


@dataclass(frozen=True)
class GuardPolicy:
    free: int = 20  # failures per address and name before any delay
    base_delay: int = 60  # seconds after the free ones; doubled at each further failure
    max_delay: int = 3600
    forget_after: int = 86400  # a key quiet this long starts over

    def delay(self, failures: int) -> int:
        if failures < self.free:
            return 0
        return min(self.base_delay << min(failures - self.free, 16), self.max_delay)


class Guard:
    """The failure counts of one database, read on one clock, under one policy."""

    def __init__(self, store: Store, clock: Clock, policy: GuardPolicy | None = None) -> None:
        self.store = store
        self.clock = clock
        self.policy = policy or GuardPolicy()

    def _count(self, throttle_key: str, only_if_free: bool) -> int | None:
        """Count one failure; with `only_if_free`, none while the key waits (its Retry-After)."""
        store, policy = self.store, self.policy
        with store.transaction():
            now = self.clock.now()
            row = store.one(
                "SELECT failures, blocked_until, last_at FROM throttle WHERE key = ?",
                throttle_key,
            )
            if row is not None and only_if_free and row["blocked_until"] > now:
                wait: int = row["blocked_until"] - now
                return wait
            fresh = row is None or now - row["last_at"] >= policy.forget_after
            failures = 1 if fresh or row is None else row["failures"] + 1
            earlier = 0 if fresh or row is None else row["blocked_until"]
            until = max(now + policy.delay(failures), earlier)
            store.run(
                "INSERT INTO throttle (key, failures, blocked_until, last_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(key) DO UPDATE SET failures = excluded.failures,"
                " blocked_until = excluded.blocked_until, last_at = excluded.last_at",
                throttle_key,
                failures,
                until,
                now,
            )
        return None

    def reserve(self, throttle_key: str) -> None:
        """Before a slow check: a slot (counted as a failure), or `Throttled` while it waits."""
        wait = self._count(throttle_key, only_if_free=True)
        if wait is not None:
            raise Throttled(wait)

    def release(self, throttle_key: str) -> None:
        """The check succeeded: this address is the rightful party for this name."""
        self.store.run("DELETE FROM throttle WHERE key = ?", throttle_key)

    def record_failure(self, throttle_key: str) -> None:
        self._count(throttle_key, only_if_free=False)

    def authenticate(self, source: str, client_id: str, secret: str) -> Application:
        """The client, if not waiting and the secret is right; one query reads both.

        A success clears this address's failures for the client (a write only when there
        were any): the rightful client that mistyped its secret is not slowed later.
        """
        return self.authenticate_for(source, client_id, secret)[0]

    def authenticate_for(
        self, source: str, client_id: str, secret: str
    ) -> tuple[Application, bool]:
        """`authenticate`, also checking the client's guesses of codes and refresh tokens.

        Returns the client and whether its grant key has failures (to clear on a success).
        """
        client_key, grant_key = key(source, client_id), grant_key_of(source, client_id)
        now = self.clock.now()
        row = self.store.one(
            "SELECT (SELECT blocked_until FROM throttle WHERE key = ?) AS client_until,"
            " (SELECT blocked_until FROM throttle WHERE key = ?) AS grant_until, a.*"
            " FROM (SELECT 1) LEFT JOIN applications a ON a.client_id = ?",
            client_key,
            grant_key,
            client_id,
        )
        assert row is not None  # the outer SELECT 1 always yields one row
        for until in (row["client_until"], row["grant_until"]):
            if until is not None and until > now:
                raise Throttled(until - now)
        app = Application.from_row(row) if row["id"] is not None else None
        try:
            found = check_secret(app, secret)
        except OAuthError:
            self.record_failure(client_key)
            raise
        if row["client_until"] is not None:
            self.release(client_key)
        return found, row["grant_until"] is not None
