"""The refresh engine: valid tokens on demand, one refresh at a time, saved before use.

The refresh itself is a generator that yields the HTTP request and receives the answer
(the shape of httpx's auth flows), which the session's connections send. Asynchronous
callers run it in a worker thread (``Session.aaccess_token``, ``BearerAuth``), so one set of
rules and locks serves threads, asyncio tasks and processes:

1. take the lock (threads, asyncio tasks, processes);
2. read the store again: another process may have refreshed already;
3. refresh only if still needed; classify failures (see :mod:`client_kit._endpoints`): they
   leave the stored set as it was, except a refresh token the service rejects, whose login
   is over and is forgotten;
4. save the new set (with a rotated refresh token) before anyone uses its access token.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

from client_kit import _logs
from client_kit._connections import Connections
from client_kit._errors import LoginRequired, NotLoggedIn, RefreshTokenRejected, StorageError
from client_kit._locks import RefreshLock, lock_name
from client_kit._storage import StoreKey, TokenStore
from client_kit._tokens import EXPIRY_MARGIN, TokenSet

if TYPE_CHECKING:
    import httpx

log = _logs.get_logger("client_kit.refresh")

Flow = Generator["httpx.Request", "httpx.Response", TokenSet]


class RefreshEngine:
    """Hands out valid token sets for one stored login."""

    def __init__(
        self,
        connections: Connections,
        store: TokenStore,
        key: StoreKey,
        *,
        clock: Callable[[], float] = time.time,
        margin: float = EXPIRY_MARGIN,
    ) -> None:
        """``connections``: the session's, which send token requests to the service or the
        broker, each with its own connection settings and bounds."""
        self.connections = connections
        self.endpoints = connections.endpoints
        self.store = store
        self.key = key
        self.clock = clock
        self.margin = margin
        path = store.lock_path(key)
        self.lock = RefreshLock(lock_name(path, f"memory:{id(store)}:{key}"), path)
        self._cached: TokenSet | None = None
        self._unsaved: TokenSet | None = None
        #: refresh requests this engine sent (for status output and tests)
        self.refresh_count = 0

    # -- reading -----------------------------------------------------------------------

    def stored(self) -> TokenSet | None:
        """What the store holds now (or the set a failed save could not write)."""
        tokens = self._unsaved or self.store.load(self.key)
        self._cached = tokens
        return tokens

    def _fresh_cached(self) -> TokenSet | None:
        tokens = self._cached
        if tokens is not None and not tokens.is_expired(self.clock(), self.margin):
            return tokens
        return None

    def remember(self, tokens: TokenSet) -> None:
        """Save a set obtained elsewhere (a login): saved first, then cached."""
        self._save(tokens)

    def forget(self) -> None:
        self._cached = self._unsaved = None

    # -- sync --------------------------------------------------------------------------

    def tokens(self) -> TokenSet:
        """A token set whose access token is valid for at least the margin."""
        cached = self._fresh_cached()
        if cached is not None:
            return cached
        stored = self.stored()
        if stored is not None and not self._unsaved and not self._needs(stored, None, False):
            return stored
        return self._run(None, force=False)

    def refresh(self, rejected: str | None = None, *, force: bool = True) -> TokenSet:
        """Refresh now, unless another thread or process did since ``rejected`` was used."""
        return self._run(rejected, force=force and rejected is None)

    def _run(self, rejected: str | None, *, force: bool) -> TokenSet:
        with self.lock.held():
            flow = self._flow(rejected, force)
            try:
                request = next(flow)
                while True:
                    request = flow.send(self.connections.send(request))
            except StopIteration as done:
                return _returned(done)

    # -- the shared rules --------------------------------------------------------------

    def _needs(self, tokens: TokenSet, rejected: str | None, force: bool) -> bool:
        if rejected is not None:
            return tokens.access_token == rejected
        return force or tokens.is_expired(self.clock(), self.margin)

    def _flow(self, rejected: str | None, force: bool) -> Flow:
        """Runs with the lock held. Yields the refresh request, returns the new set."""
        if self._unsaved is not None:
            self._save(self._unsaved)
        tokens = self.store.load(self.key)
        if tokens is None:
            raise NotLoggedIn("not logged in")
        if not self._needs(tokens, rejected, force):
            self._cached = tokens
            return tokens
        if not tokens.refresh_token:
            raise LoginRequired(
                "the access token expired and there is no refresh token; log in again"
            )
        log.debug("refreshing the access token for %s", self.key.service)
        self.refresh_count += 1
        response = yield self.endpoints.refresh_request(tokens.refresh_token)
        try:
            new = self.endpoints.token_response(response, previous=tokens, refreshing=True)
        except RefreshTokenRejected:
            self._forget_rejected(tokens)
            raise
        rotating = self.endpoints.profile.rotating_refresh_tokens
        if rotating and new.refresh_token == tokens.refresh_token:
            log.debug("the service did not rotate the refresh token")
        self._save(new)
        return new

    def _forget_rejected(self, tokens: TokenSet) -> None:
        """The service rejected the refresh token: the login is over, so it is forgotten
        (``status().logged_in`` turns False), unless a login saved another set meanwhile."""
        try:
            if self.store.load(self.key) == tokens:
                self.store.delete(self.key)
        except StorageError as exc:
            log.warning("could not forget the rejected login: %s", exc)
        self.forget()

    def _save(self, tokens: TokenSet) -> None:
        """Save, then use. A failed save keeps the set in memory to retry, and raises."""
        try:
            self.store.save(self.key, tokens)
        except StorageError:
            self._unsaved = tokens
            raise
        self._unsaved = None
        self._cached = tokens


def _returned(done: StopIteration) -> TokenSet:
    """What the refresh flow returned (StopIteration.value is untyped)."""
    tokens = done.value
    if not isinstance(tokens, TokenSet):
        raise TypeError(f"the refresh flow returned {type(tokens).__name__}, not a TokenSet")
    return tokens
