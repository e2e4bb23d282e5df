"""The session: one user's login to one service with one client, and everything after it.

A facade: it composes the parts and is the public face of each. The endpoints (requests and
answers, ``endpoints``), the connections that send them (``connections``), the refresh engine
that keeps the stored tokens valid (``refresh``), and the login's steps (``twostep``) built on
those three; the interactive login (``desktop``) and the GUI handle (``handle``) run the
steps with the session's user interface. No part imports the session.

Threads: the methods without an ``a`` block the calling thread (the store, a lock, the
network; ``login`` for the whole login). The asynchronous ones never block the loop: each
runs its synchronous twin in a worker thread (``asyncio.to_thread``), so the loop never waits
on a keyring, a lock file or the network, and a cancelled call still finishes in the
background (a refresh still saves its rotated refresh token). The modules they need are
imported with this one, not on the loop's thread at the first call.
"""

from __future__ import annotations

# asyncio.to_thread creates the loop's executor on first use, and with it imports this module:
# imported here, the first asynchronous call imports nothing on the loop's thread
import concurrent.futures.thread  # noqa: F401
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal, TypeVar, Unpack

from client_kit._connections import Connections
from client_kit._endpoints import ClientCredentials, Endpoints, JsonObject
from client_kit._errors import ConfigurationError, NotLoggedIn
from client_kit._handle import HandleOptions, LoginHandle, await_handle
from client_kit._refresh import RefreshEngine
from client_kit._status import LoginStatus
from client_kit._storage import StoreKey, TokenStore
from client_kit._twostep import BeginOptions, CompleteOptions, LoginSteps
from client_kit._ui import Console, UserInterface
from client_kit.profiles import Profile

if TYPE_CHECKING:
    from client_kit._auth import BearerAuth
    from client_kit._authorization import AuthorizationRequest
    from client_kit._desktop import LoginOptions
    from client_kit._tokens import TokenSet

T = TypeVar("T")

DEFAULT_SCOPES = ("profile",)
#: ``access``: the access token only (the refresh token stays); ``all``: the whole grant
Revocable = Literal["access", "all"]


class Session:
    """Log in, keep tokens valid, call the service, log out."""

    def __init__(
        self,
        profile: Profile,
        client_id: str,
        client_secret: str | None = None,
        *,
        store: TokenStore | None = None,
        account: str = "default",
        ui: UserInterface | None = None,
        app_name: str = "the application",
        clock: Callable[[], float] = time.time,
        broker_url: str | None = None,
        broker_ca_bundle: str | None = None,
    ) -> None:
        """``broker_url``: send code exchange, refresh and revocation to the application's
        own back end, which holds the client secret (see :mod:`client_kit.broker`);
        ``broker_ca_bundle``: the CA file that signed the broker's certificate, when it is
        not one the profile trusts (default: the profile's ``ca_bundle`` or the system's)."""
        if not client_id:
            raise ConfigurationError("no client id was given", setting="client_id")
        if broker_url and client_secret:
            raise ConfigurationError(
                "broker mode keeps the client secret on the broker: pass client_secret or "
                "broker_url, not both",
                setting="broker_url",
            )
        if store is None:
            from client_kit._keyring_store import KeyringStore

            store = KeyringStore()
        self.profile = profile
        self.store = store
        self.ui: UserInterface = ui or Console()
        self.app_name = app_name
        self.key = StoreKey(profile.base_url, client_id, account)
        credentials = ClientCredentials(client_id, client_secret)
        self.endpoints = Endpoints(profile, credentials, broker_url, broker_ca_bundle)
        self.connections = Connections(self.endpoints)
        self.engine = RefreshEngine(self.connections, store, self.key, clock=clock)
        self.steps = LoginSteps(self.endpoints, self.connections, self.engine, app_name=app_name)

    def close(self) -> None:
        """Stop the listeners of begun logins, close the HTTP clients."""
        self.steps.close()
        self.connections.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- login -------------------------------------------------------------------------

    def login(
        self, scopes: Sequence[str] = DEFAULT_SCOPES, **options: Unpack[LoginOptions]
    ) -> TokenSet:
        """Run a desktop login (``loopback`` or ``oob``); save and return the tokens.

        Blocks the calling thread: GUIs use :meth:`start_login` or :meth:`alogin`. The
        options are :class:`~client_kit._desktop.LoginOptions`. ``check`` (default True):
        before the browser opens, read the token store, ask the authorization endpoint (an
        unknown client id, redirect URI or scope fails at once, with the error ``mb-oauth``
        reports) and check the client secret (or the broker) where that is cheap.
        """
        from client_kit._desktop import DesktopLogin

        return DesktopLogin(self.steps, self.ui).login(scopes, **options)

    def start_login(
        self, scopes: Sequence[str] = DEFAULT_SCOPES, **options: Unpack[HandleOptions]
    ) -> LoginHandle:
        """A login running in the background that a GUI observes and cancels (see handle);
        it checks before the browser as :meth:`login` does (``check``, default True)."""
        return LoginHandle(self.steps, self.ui, scopes, **options).start()

    async def alogin(
        self, scopes: Sequence[str] = DEFAULT_SCOPES, **options: Unpack[HandleOptions]
    ) -> TokenSet:
        """``login`` for asyncio: awaits without blocking the loop; cancelling the task
        cancels the login. ``on_event`` is called on the loop's thread; ``check`` as in
        :meth:`login` (default True). Cancelled, it returns once the loopback listener is
        closed (a login started again at once finds the port free)."""
        return await await_handle(self.steps, self.ui, scopes, **options)

    def begin_login(
        self, scopes: Sequence[str] = DEFAULT_SCOPES, **options: Unpack[BeginOptions]
    ) -> AuthorizationRequest:
        """Step one of a login: the request whose ``url`` the user opens.

        ``oob``: the service shows a code to paste. ``loopback``: a listener on this machine
        starts now and receives the redirect (``complete_login`` waits for it); or pass your
        own registered ``redirect_uri`` and hand ``complete_login`` the URL it receives.
        The request is plain data (``to_json``): persist it to finish after a restart.
        The options are :class:`~client_kit._twostep.BeginOptions`.
        """
        return self.steps.begin(scopes, **options)

    def complete_login(
        self,
        request: AuthorizationRequest,
        code: str | None = None,
        **options: Unpack[CompleteOptions],
    ) -> TokenSet:
        """Step two: exchange the code, save the tokens, learn who logged in.

        Give the URL the browser was sent to (``redirected_url``; its ``state`` is checked),
        or the ``code`` the user pasted; with neither, wait for the loopback listener that
        ``begin_login`` started. A failure leaves stored tokens as they were.
        The options are :class:`~client_kit._twostep.CompleteOptions`.
        """
        from client_kit._desktop import DesktopLogin

        emit = DesktopLogin(self.steps, self.ui).emitter()
        return self.steps.complete(request, code, emit=emit, **options)

    def cancel_login(self, request: AuthorizationRequest) -> None:
        """Stop the listener of a begun login (stored tokens are not touched)."""
        self.steps.cancel(request)

    # -- tokens ------------------------------------------------------------------------

    def tokens(self) -> TokenSet | None:
        """What is stored now, without refreshing."""
        return self.engine.stored()

    def access_token(self) -> str:
        """A valid access token, refreshed first if it is about to expire."""
        return self.engine.tokens().access_token

    async def aaccess_token(self) -> str:
        """:meth:`access_token` in a worker thread (see the class's doc)."""
        return await _in_thread(self.access_token)

    def refresh(self) -> TokenSet:
        """Refresh now (even when the access token is still valid)."""
        return self.engine.refresh()

    async def arefresh(self) -> TokenSet:
        """:meth:`refresh` in a worker thread."""
        return await _in_thread(self.refresh)

    def auth(self) -> BearerAuth:
        """An ``httpx.Auth`` for ``httpx.Client`` and ``httpx.AsyncClient``."""
        from client_kit._auth import BearerAuth

        return BearerAuth(self.engine)

    # -- calls -------------------------------------------------------------------------

    def userinfo(self) -> JsonObject:
        """The user-information document (refreshing once if the token was refused)."""
        return self.connections.userinfo(self.auth())

    async def auserinfo(self) -> JsonObject:
        """:meth:`userinfo` in a worker thread."""
        return await _in_thread(self.userinfo)

    def revoke(self, which: Revocable = "all") -> None:
        """Revoke at the server: ``access`` (the refresh token stays) or ``all`` (the grant).

        After ``all`` the local tokens are useless and are forgotten; after ``access`` the
        stored set is marked expired so that the next use refreshes.
        """
        tokens = self.engine.stored()
        if tokens is None:
            raise NotLoggedIn("not logged in; nothing to revoke")
        if which not in ("access", "all"):
            raise ConfigurationError(f"unknown token kind {which!r}; use access or all")
        if which == "all" and tokens.refresh_token:
            self._revoke(tokens.refresh_token)
        self._revoke(tokens.access_token)
        if which == "all":
            self.forget()
        else:
            self.engine.remember(tokens.expired_copy())

    def _revoke(self, token: str) -> None:
        response = self.connections.send(self.endpoints.revoke_request(token))
        self.endpoints.revoke_response(response)

    def forget(self) -> None:
        """Delete the stored tokens of this login (no server call)."""
        self.store.delete(self.key)
        self.engine.forget()

    def logout(self, *, local_only: bool = False) -> None:
        """Revoke the grant at the server, then forget it here."""
        if not local_only and self.engine.stored() is not None:
            self.revoke("all")
        self.forget()

    def status(self) -> LoginStatus:
        """Who is logged in, with which scopes, until when, stored where (no secrets)."""
        return LoginStatus.of(self.profile, self.key, self.store.describe(), self.engine.stored())


async def _in_thread(call: Callable[[], T]) -> T:
    """``call()`` in a worker thread, awaited (asyncio is the caller's: imported already)."""
    import asyncio

    return await asyncio.to_thread(call)
