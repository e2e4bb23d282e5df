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

Bounded (6,000 random client_ids once made 6,000 rows, each its own write). An unknown
client_id has no secret to guess: its failures are counted in the worker's memory, in a table
of STRANGERS entries at most, and never written. One address gets rows for MAX_NAMES user
names at most; further names from it share one count (SPILL), so a flood of invented names
makes one row, not one per name. A row quiet for a day is purged (purge.py).
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, NoReturn, TypeVar

from . import credentials
from .accounts import Application
from .clock import ServerClock
from .errors import OAuthError, TooManyGuesses, invalid_client
from .storage import Store

MAX_NAME = 256
MAX_NAMES = 100  # names per address with a count of their own (a row each)
SPILL = "*more names*"  # the name under which an address's further names are counted
STRANGERS = 4096  # unknown client_ids counted in memory, per worker
_DUMMY_HASH = credentials.token_hash(credentials.new_token())
T = TypeVar("T")


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


def check_secret(app: Application, secret: str) -> bool:
    """Whether `secret` is the client's Client Secret, compared in constant time and whole: a
    secret that differs only at its end is as wrong as any."""
    return credentials.same(app.secret_hash, credentials.token_hash(secret))


class Authenticated(NamedTuple):
    """A client whose secret was right, as one address presented it (a named tuple: made on
    every token request)."""

    application: Application
    grant_key: str  # where this address's guesses of the client's codes are counted
    has_guessed: bool  # the grant key has failures: a successful redemption clears them


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

    def after_failure(self, row: tuple[int, int, int] | None, now: int) -> tuple[int, int]:
        """Failures and blocked-until after one more failure; `row`: (failures,
        blocked_until, last_at) so far, if any."""
        if row is None or now - row[2] >= self.forget_after:
            return 1, now + self.delay(1)
        failures = row[0] + 1
        return failures, max(now + self.delay(failures), row[1])


class Strangers:
    """Failures of unknown client_ids, in memory: the oldest forgotten past `capacity`."""

    def __init__(self, policy: GuardPolicy, capacity: int = STRANGERS) -> None:
        self.policy = policy
        self.capacity = capacity
        self._rows: OrderedDict[str, tuple[int, int, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._rows)

    def wait(self, throttle_key: str, now: int) -> int:
        row = self._rows.get(throttle_key)
        return max(0, row[1] - now) if row else 0

    def fail(self, throttle_key: str, now: int) -> None:
        failures, until = self.policy.after_failure(self._rows.pop(throttle_key, None), now)
        self._rows[throttle_key] = (failures, until, now)
        if len(self._rows) > self.capacity:
            self._rows.popitem(last=False)


def _spill_key(throttle_key: str) -> str:
    return key(throttle_key.split(" ", 1)[0], SPILL)


class Guard:
    """The failure counts of one database, read on one clock, under one policy."""

    def __init__(self, store: Store, clock: ServerClock, policy: GuardPolicy | None = None) -> None:
        self.store = store
        self.clock = clock
        self.policy = policy or GuardPolicy()
        self.strangers = Strangers(self.policy)

    def _count(self, throttle_key: str, only_if_free: bool, spill: bool = False) -> int | None:
        """Count one failure; with `only_if_free`, none while the key waits (its Retry-After).
        With `spill`, a new name of an address that has MAX_NAMES counts under SPILL."""
        store = self.store
        with store.transaction():
            now = self.clock.now()
            row = self._row(throttle_key)
            if row is None and spill and self._names(throttle_key) >= MAX_NAMES:
                throttle_key = _spill_key(throttle_key)
                row = self._row(throttle_key)
            if row is not None and only_if_free and row[1] > now:
                return row[1] - now
            failures, until = self.policy.after_failure(row, now)
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

    def _row(self, throttle_key: str) -> tuple[int, int, int] | None:
        row = self.store.one(
            "SELECT failures, blocked_until, last_at FROM throttle WHERE key = ?", throttle_key
        )
        return None if row is None else (row[0], row[1], row[2])

    def _names(self, throttle_key: str) -> int:
        """Rows of the key's address (keys are "<address> <name>"), counted up to MAX_NAMES."""
        address = throttle_key.split(" ", 1)[0]
        row = self.store.one(
            "SELECT COUNT(*) FROM (SELECT 1 FROM throttle WHERE key > ? AND key < ? LIMIT ?)",
            address + " ",
            address + "!",  # "!" follows " ": the range holds exactly this address's keys
            MAX_NAMES,
        )
        return int(row[0]) if row else 0

    def reserve(self, throttle_key: str) -> None:
        """Before a slow check: a slot (counted as a failure), or `TooManyGuesses` while the
        key waits."""
        wait = self._count(throttle_key, only_if_free=True, spill=True)
        if wait is not None:
            raise TooManyGuesses(wait)

    def release(self, throttle_key: str) -> None:
        """The check succeeded: this address is the rightful party for this name (a slot
        reserved under SPILL is given back)."""
        if not self.store.run("DELETE FROM throttle WHERE key = ?", throttle_key).rowcount:
            self.store.run(
                "UPDATE throttle SET failures = failures - 1 WHERE key = ? AND failures > 0",
                _spill_key(throttle_key),
            )

    def record_failure(self, throttle_key: str) -> None:
        self._count(throttle_key, only_if_free=False)

    def authenticate(self, source: str, client_id: str, secret: str) -> Authenticated:
        """The client, if neither of its counts from this address waits and the secret is
        right; one query reads both counts and the client.

        A success clears this address's failures for the client (a write only when there
        were any): the rightful client that mistyped its secret is not slowed later.
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
                raise TooManyGuesses(until - now)
        if row["id"] is None:
            self._stranger(client_key, secret, now)
        app = Application.from_row(row)
        # AUTH-TOKEN-CLIENT-SECRET, AUTH-REVOKE-CLIENT-SECRET: refused as
        # TOKEN-ERR-INVALID-CLIENT and REVOKE-ERR-INVALID-CLIENT
        if not check_secret(app, secret):
            self.record_failure(client_key)
            raise invalid_client()
        if row["client_until"] is not None:
            self.release(client_key)
        return Authenticated(app, grant_key, row["grant_until"] is not None)

    def redeem(self, client: Authenticated, attempt: Callable[[Application], T]) -> T:
        """`attempt(client.application)`: the client presents a code or a refresh token.
        One refused as invalid_grant is a guess, counted for this address apart from bad
        secrets; a success clears the address's earlier guesses."""
        try:
            result = attempt(client.application)
        except OAuthError as error:
            if error.error == "invalid_grant":
                self.record_failure(client.grant_key)
            raise
        if client.has_guessed:
            self.release(client.grant_key)
        return result

    def _stranger(self, client_key: str, secret: str, now: int) -> NoReturn:
        """An unknown client_id: the same comparison as for a real one, counted in memory."""
        wait = self.strangers.wait(client_key, now)
        if wait:
            raise TooManyGuesses(wait)
        credentials.same(_DUMMY_HASH, credentials.token_hash(secret))  # a real client's work
        self.strangers.fail(client_key, now)
        raise invalid_client()
