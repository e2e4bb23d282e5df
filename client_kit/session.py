"""The session: one user's login to one service with one client, and everything after it.

session = Session(profiles.musicbrainz(), client_id=..., client_secret=..., store=...)
session.login(scopes=["profile", "tag"])
with httpx.Client(auth=session.auth()) as http:
    http.get("https://musicbrainz.org/ws/2/tag?...")
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from client_kit import redaction
from client_kit.authorization import (
    AuthorizationRequest,
    build_request,
    check_redirect,
    parse_pasted,
)
from client_kit.endpoints import Client, Endpoints, transport_failure
from client_kit.errors import (
    ConfigurationError,
    KitError,
    LoginCancelled,
    LoginTimeout,
    NotLoggedIn,
)
from client_kit.profiles import OOB_REDIRECT_URI, Profile
from client_kit.refresh import RefreshEngine, describe_expiry
from client_kit.storage import StoreKey, TokenStore
from client_kit.tokens import TokenSet
from client_kit.ui import Console, UserInterface

if TYPE_CHECKING:
    import httpx

    from client_kit.auth import BearerAuth

log = redaction.get_logger("client_kit.session")

DEFAULT_TIMEOUT = 300.0
DEFAULT_SCOPES = ("profile",)


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
    ) -> None:
        if not client_id:
            raise ConfigurationError(
                "no client id; pass --client-id, set MB_OAUTH_CLIENT_ID or add client_id to "
                "the config file"
            )
        if store is None:
            from client_kit.storage import KeyringStore

            store = KeyringStore()
        self.profile = profile
        self.store = store
        self.ui: UserInterface = ui or Console()
        self.app_name = app_name
        self.key = StoreKey(profile.base_url, client_id, account)
        self.endpoints = Endpoints(profile, Client(client_id, client_secret))
        self.engine = RefreshEngine(self.endpoints, store, self.key, clock=clock)
        self._http: httpx.Client | None = None

    # -- plumbing ----------------------------------------------------------------------

    @property
    def http(self) -> httpx.Client:
        if self._http is None:
            self._http = self.profile.http_client()
        return self._http

    def _send(self, request: httpx.Request) -> httpx.Response:
        import httpx

        try:
            return self.http.send(request)
        except httpx.TransportError as exc:
            raise transport_failure(exc) from exc

    def close(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- login -------------------------------------------------------------------------

    def login(
        self,
        scopes: Sequence[str] = DEFAULT_SCOPES,
        *,
        method: str = "loopback",
        ports: Sequence[int] = (),
        redirect_path: str | None = None,
        open_browser: bool = True,
        timeout: float = DEFAULT_TIMEOUT,
        use_pkce: bool = True,
        fetch_user: bool = True,
    ) -> TokenSet:
        """Run a desktop login (``loopback`` or ``oob``); save and return the tokens."""
        try:
            if method == "oob":
                request, code = self._oob(scopes, open_browser, use_pkce)
            elif method == "loopback":
                request, code = self._loopback(
                    scopes, ports, redirect_path, open_browser, timeout, use_pkce
                )
            else:
                raise ConfigurationError(f"unknown login method {method!r}; use loopback or oob")
        except KeyboardInterrupt:
            raise LoginCancelled("login interrupted") from None
        return self.complete_login(request, code, fetch_user=fetch_user)

    def _loopback(
        self,
        scopes: Sequence[str],
        ports: Sequence[int],
        redirect_path: str | None,
        open_browser: bool,
        timeout: float,
        use_pkce: bool,
    ) -> tuple[AuthorizationRequest, str]:
        from client_kit.loopback import LoopbackListener

        ports = tuple(ports) or self.profile.loopback_ports
        if self.profile.exact_loopback_port and not ports:
            raise ConfigurationError(
                f"{self.profile.name} matches redirect URIs exactly, port included: register "
                "one or more http://localhost:PORT/callback URIs for your app and pass the "
                "ports with --port (or ports = [...] in the config file)"
            )
        results: queue.Queue[tuple[str, dict[str, str]]] = queue.Queue()
        listener = LoopbackListener(
            redirect_path or self.profile.redirect_path,
            ports,
            results=results,
            app_name=self.app_name,
            redirect_host=self.profile.loopback_host,
        )
        with listener:
            request = build_request(
                self.profile, self.key.client_id, listener.redirect_uri, scopes, use_pkce=use_pkce
            )
            listener.expected_state = request.state
            opened = open_browser and self.ui.open_browser(request.url)
            self._show_url(request.url, opened, paste=not opened)
            if not opened:
                _start_paste_reader(self.ui, results)
            source, params = _wait(results, timeout)
        return request, check_redirect(params, request.state, pasted=source == "paste")

    def _oob(
        self, scopes: Sequence[str], open_browser: bool, use_pkce: bool
    ) -> tuple[AuthorizationRequest, str]:
        if not self.profile.allows_oob:
            raise ConfigurationError(
                f"{self.profile.name} has no out-of-band login; use the loopback login "
                "(without --oob) with a registered --port"
            )
        request = build_request(
            self.profile, self.key.client_id, OOB_REDIRECT_URI, scopes, use_pkce=use_pkce
        )
        opened = open_browser and self.ui.open_browser(request.url)
        self._show_url(request.url, opened, paste=False)
        line = self.ui.read_line("Paste the code shown after you approve (or that page's URL): ")
        if not line:
            raise LoginCancelled("no code was entered; login cancelled")
        return request, check_redirect(parse_pasted(line), request.state, pasted=True)

    def _show_url(self, url: str, opened: bool, *, paste: bool) -> None:
        if opened:
            self.ui.show(f"Your browser has been opened to log in. If not, open this URL:\n{url}")
        else:
            self.ui.show(f"Open this URL in a browser to log in:\n{url}")
        if paste:
            self.ui.show(
                "Waiting for the browser to come back. Or, if it cannot reach this "
                "machine, paste the URL it ended on here and press Enter:"
            )

    def complete_login(
        self, request: AuthorizationRequest, code: str, *, fetch_user: bool = True
    ) -> TokenSet:
        """Exchange the code, save the tokens, then learn who logged in."""
        response = self._send(
            self.endpoints.exchange_request(code, request.redirect_uri, request.code_verifier)
        )
        tokens = self.endpoints.token_response(response, requested_scopes=request.scopes)
        self.engine.remember(tokens)  # saved before the access token is used
        if fetch_user and "profile" in tokens.scopes:
            try:
                info = self.userinfo()
                tokens = tokens.with_username(str(info.get("username") or info.get("sub")))
                self.engine.remember(tokens)
            except KitError as exc:
                log.warning("logged in, but could not read the user information: %s", exc)
        return tokens

    # -- tokens ------------------------------------------------------------------------

    def tokens(self) -> TokenSet | None:
        """What is stored now, without refreshing."""
        return self.engine.stored()

    def access_token(self) -> str:
        """A valid access token, refreshed first if it is about to expire."""
        return self.engine.tokens().access_token

    async def aaccess_token(self) -> str:
        return (await self.engine.atokens()).access_token

    def refresh(self) -> TokenSet:
        """Refresh now (even when the access token is still valid)."""
        return self.engine.refresh()

    async def arefresh(self) -> TokenSet:
        return await self.engine.arefresh()

    def auth(self) -> BearerAuth:
        """An ``httpx.Auth`` for ``httpx.Client`` and ``httpx.AsyncClient``."""
        from client_kit.auth import BearerAuth

        return BearerAuth(self.engine)

    # -- calls -------------------------------------------------------------------------

    def userinfo(self) -> dict[str, Any]:
        """The user-information document (refreshing once if the token was refused)."""
        tokens = self.engine.tokens()
        response = self._send(self.endpoints.userinfo_request(tokens.access_token))
        if response.status_code in self.profile.unauthorized_statuses:
            tokens = self.engine.refresh(rejected=tokens.access_token)
            response = self._send(self.endpoints.userinfo_request(tokens.access_token))
        return self.endpoints.userinfo_response(response)

    async def auserinfo(self) -> dict[str, Any]:
        async with self.profile.async_http_client() as client:
            response = await client.get(self.profile.userinfo_url, auth=self.auth())
        return self.endpoints.userinfo_response(response)

    def revoke(self, which: str = "all") -> None:
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
        self.endpoints.revoke_response(self._send(self.endpoints.revoke_request(token)))

    def forget(self) -> None:
        """Delete the stored tokens of this login (no server call)."""
        self.store.delete(self.key)
        self.engine.forget()

    def logout(self, *, local_only: bool = False) -> None:
        """Revoke the grant at the server, then forget it here."""
        if not local_only and self.engine.stored() is not None:
            self.revoke("all")
        self.forget()

    def status(self) -> dict[str, Any]:
        """Who is logged in, with which scopes, until when, stored where (no secrets)."""
        tokens = self.engine.stored()
        info: dict[str, Any] = {
            "service": self.profile.name,
            "base_url": self.profile.base_url,
            "client_id": self.key.client_id,
            "account": self.key.account,
            "store": self.store.describe(),
            "logged_in": tokens is not None,
        }
        if tokens is not None:
            info.update(
                username=tokens.username,
                scopes=self.profile.short_scopes(tokens.scopes),
                has_refresh_token=bool(tokens.refresh_token),
                **describe_expiry(tokens),
            )
        return info


def _start_paste_reader(
    ui: UserInterface, results: queue.Queue[tuple[str, dict[str, str]]]
) -> None:
    """Read a pasted redirect URL in the background; the listener may win the race."""

    def read() -> None:
        try:
            line = ui.read_line("> ")
        except (OSError, ValueError, EOFError):
            return
        if line:
            results.put(("paste", parse_pasted(line)))

    threading.Thread(target=read, name="mb-oauth-paste", daemon=True).start()


def _wait(
    results: queue.Queue[tuple[str, dict[str, str]]], timeout: float
) -> tuple[str, dict[str, str]]:
    """The first callback or paste; Ctrl-C stays responsive (short waits in a loop)."""
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise LoginTimeout(
                f"no answer from the browser within {timeout:g} seconds; run the login again"
                " (use --oob or paste the redirected URL if the browser cannot reach this machine)"
            )
        try:
            return results.get(timeout=min(0.25, remaining))
        except queue.Empty:
            continue
