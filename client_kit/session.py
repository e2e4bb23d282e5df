"""The session: one user's login to one service with one client, and everything after it.

session = Session(profiles.musicbrainz(), client_id=..., client_secret=..., store=...)
session.login(scopes=["profile", "tag"])
with httpx.Client(auth=session.auth()) as http:
    http.get("https://musicbrainz.org/ws/2/tag?...")
"""

from __future__ import annotations

import math
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
from client_kit.flow import (
    AUTHORIZATION_URL,
    DONE,
    FAILED,
    INPUT_REJECTED,
    PASTE_ATTEMPTS,
    SCOPES_DIFFER,
    TICK,
    WAITING,
    Emit,
    LoginEvent,
    LoginRun,
    ignore,
)
from client_kit.profiles import OOB_REDIRECT_URI, Profile
from client_kit.refresh import RefreshEngine, describe_expiry
from client_kit.storage import StoreKey, TokenStore
from client_kit.tokens import TokenSet
from client_kit.ui import Console, UserInterface

if TYPE_CHECKING:
    import httpx

    from client_kit.auth import BearerAuth
    from client_kit.handle import LoginHandle
    from client_kit.loopback import LoopbackListener
    from client_kit.pages import LoopbackPages

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
        broker_url: str | None = None,
    ) -> None:
        """``broker_url``: send code exchange, refresh and revocation to the application's
        own back end, which holds the client secret (see :mod:`client_kit.broker`)."""
        if not client_id:
            raise ConfigurationError(
                "no client id; pass --client-id, set MB_OAUTH_CLIENT_ID or add client_id to "
                "the config file"
            )
        if broker_url and client_secret:
            raise ConfigurationError(
                "broker mode keeps the client secret on the broker: pass client_secret or "
                "broker_url, not both"
            )
        if store is None:
            from client_kit.storage import KeyringStore

            store = KeyringStore()
        self.profile = profile
        self.store = store
        self.ui: UserInterface = ui or Console()
        self.app_name = app_name
        self.key = StoreKey(profile.base_url, client_id, account)
        self.endpoints = Endpoints(profile, Client(client_id, client_secret), broker_url)
        self.engine = RefreshEngine(self.endpoints, store, self.key, clock=clock)
        self._http: httpx.Client | None = None
        self._listeners: dict[str, LoopbackListener] = {}
        self._inputs: dict[str, queue.Queue[tuple[str, dict[str, str]]]] = {}

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
        for listener in list(self._listeners.values()):
            listener.close()
        self._listeners.clear()
        self._inputs.clear()
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
        check: bool = False,
        pages: LoopbackPages | None = None,
        on_event: Emit | None = None,
    ) -> TokenSet:
        """Run a desktop login (``loopback`` or ``oob``); save and return the tokens.

        Blocks the calling thread: GUIs use :meth:`start_login` or :meth:`alogin`.
        ``check``: before the browser, ask the authorization endpoint (fail at once on its
        error page or error redirect) and check the client secret where that is cheap.
        """
        emit = self._emitter(on_event)
        request: AuthorizationRequest | None = None
        try:
            request = self.begin_login(
                scopes,
                method=method,
                ports=ports,
                redirect_path=redirect_path,
                use_pkce=use_pkce,
                pages=pages,
            )
            if check:
                from client_kit.preflight import check_authorization, check_secret

                check_authorization(self, request)
                check_secret(self)
            next_input = self._announce(request, open_browser, timeout, emit)
            run = LoginRun(
                self, request, next_input, timeout=timeout, emit=emit, fetch_user=fetch_user
            )
            return run.run()
        except KeyboardInterrupt:
            emit(LoginEvent(FAILED, "Login interrupted.", reason="login interrupted"))
            raise LoginCancelled("login interrupted") from None
        except KitError as exc:
            emit(LoginEvent(FAILED, f"Login failed: {exc}", reason=str(exc), error=exc))
            raise
        finally:
            if request is not None:
                self.cancel_login(request)

    def _announce(
        self, request: AuthorizationRequest, open_browser: bool, timeout: float, emit: Emit
    ) -> Callable[[float], tuple[str, dict[str, str]]]:
        """Open the browser, tell the user what happens now; the source of the answer."""
        opened = open_browser and self.ui.open_browser(request.url)
        results = self._inputs.get(request.state)
        paste = results is not None and not opened and reads_concurrently(self.ui)
        self._show_url(request.url, opened, paste=paste)
        emit(LoginEvent(AUTHORIZATION_URL, "Open this URL to log in.", url=request.url))
        if results is None:
            emit(LoginEvent(WAITING, "Waiting for the code.", accepts_paste=True))
            return self._console_paste
        if paste:
            _start_paste_reader(self.ui, results)
        self._show_waiting(timeout)
        emit(
            LoginEvent(WAITING, "Waiting for the browser.", remaining=timeout, accepts_paste=paste)
        )
        return _waiter(results, emit)

    def start_login(self, scopes: Sequence[str] = DEFAULT_SCOPES, **options: Any) -> LoginHandle:
        """A login running in the background that a GUI observes and cancels (see handle)."""
        from client_kit.handle import LoginHandle

        return LoginHandle(self, scopes, **options).start()

    async def alogin(
        self,
        scopes: Sequence[str] = DEFAULT_SCOPES,
        *,
        on_event: Emit | None = None,
        **options: Any,
    ) -> TokenSet:
        """``login`` for asyncio: awaits without blocking the loop; cancelling the task
        cancels the login. ``on_event`` is called on the loop's thread."""
        from client_kit.handle import await_handle

        return await await_handle(self, scopes, on_event=on_event, **options)

    def begin_login(
        self,
        scopes: Sequence[str] = DEFAULT_SCOPES,
        *,
        method: str = "loopback",
        redirect_uri: str | None = None,
        ports: Sequence[int] = (),
        redirect_path: str | None = None,
        use_pkce: bool = True,
        pages: LoopbackPages | None = None,
    ) -> AuthorizationRequest:
        """Step one of a login: the request whose ``url`` the user opens.

        ``oob``: the service shows a code to paste. ``loopback``: a listener on this machine
        starts now and receives the redirect (``complete_login`` waits for it); or pass your
        own registered ``redirect_uri`` and hand ``complete_login`` the URL it receives.
        The request is plain data (``to_json``): persist it to finish after a restart.
        """
        if method == "oob":
            if not self.profile.allows_oob:
                raise ConfigurationError(
                    f"{self.profile.name} has no out-of-band login; use the loopback login "
                    "(without --oob) with a registered --port"
                )
            return self._build(OOB_REDIRECT_URI, scopes, use_pkce)
        if method != "loopback":
            raise ConfigurationError(f"unknown login method {method!r}; use loopback or oob")
        if redirect_uri is not None:
            return self._build(redirect_uri, scopes, use_pkce)
        listener = self._listener(ports, redirect_path, pages)
        try:
            request = self._build(listener.redirect_uri, scopes, use_pkce)
        except BaseException:
            listener.close()
            raise
        listener.expected_state = request.state
        self._listeners[request.state] = listener
        self._inputs[request.state] = listener.results
        return request

    def complete_login(
        self,
        request: AuthorizationRequest,
        code: str | None = None,
        *,
        redirected_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        fetch_user: bool = True,
    ) -> TokenSet:
        """Step two: exchange the code, save the tokens, learn who logged in.

        Give the URL the browser was sent to (``redirected_url``; its ``state`` is checked),
        or the ``code`` the user pasted; with neither, wait for the loopback listener that
        ``begin_login`` started. A failure leaves stored tokens as they were.
        """
        try:
            if redirected_url is not None:
                code = check_redirect(parse_pasted(redirected_url), request.state)
            elif code is not None:
                code = check_redirect({"code": code}, request.state, pasted=True)
            else:
                results = self._inputs.get(request.state)
                if results is None:
                    raise ConfigurationError(
                        "no loopback listener for this request (it was begun in another "
                        "process or already finished); pass redirected_url= or code="
                    )
                run = LoginRun(
                    self, request, _waiter(results, ignore), timeout=timeout, fetch_user=fetch_user
                )
                return run.run()
            return self._exchange(request, code, fetch_user=fetch_user)
        finally:
            self.cancel_login(request)

    def cancel_login(self, request: AuthorizationRequest) -> None:
        """Stop the listener of a begun login (stored tokens are not touched)."""
        self._inputs.pop(request.state, None)
        listener = self._listeners.pop(request.state, None)
        if listener is not None:
            listener.close()

    def _build(
        self, redirect_uri: str, scopes: Sequence[str], use_pkce: bool
    ) -> AuthorizationRequest:
        return build_request(
            self.profile, self.key.client_id, redirect_uri, scopes, use_pkce=use_pkce
        )

    def _listener(
        self, ports: Sequence[int], redirect_path: str | None, pages: LoopbackPages | None
    ) -> LoopbackListener:
        from client_kit.loopback import LoopbackListener

        ports = tuple(ports) or self.profile.loopback_ports
        if self.profile.exact_loopback_port and not ports:
            raise ConfigurationError(
                f"{self.profile.name} matches redirect URIs exactly, port included: register "
                "one or more http://localhost:PORT/callback URIs for your app and pass the "
                "ports with --port (or ports = [...] in the config file)"
            )
        listener = LoopbackListener(
            redirect_path or self.profile.redirect_path,
            ports,
            app_name=self.app_name,
            redirect_host=self.profile.loopback_host,
            pages=pages,
        )
        listener.start()
        return listener

    def _console_paste(self, remaining: float) -> tuple[str, dict[str, str]]:
        """The out-of-band code, read in the calling thread."""
        line = self.ui.read_line("Paste the code shown after you approve (or that page's URL): ")
        if not line:
            raise LoginCancelled("no code was entered; login cancelled")
        return "paste", parse_pasted(line)

    def _emitter(self, on_event: Emit | None) -> Emit:
        sinks = [sink for sink in (getattr(self.ui, "event", None), on_event) if sink]

        def emit(event: LoginEvent) -> None:
            if event.kind == INPUT_REJECTED:
                self.ui.show(event.message)
            for sink in sinks:
                sink(event)

        return emit

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

    def _show_waiting(self, timeout: float) -> None:
        self.ui.show(
            f"Waiting up to {describe_seconds(timeout)} for the login to finish in the "
            "browser (Ctrl-C to cancel)."
        )

    def _exchange(
        self,
        request: AuthorizationRequest,
        code: str,
        *,
        fetch_user: bool = True,
        emit: Emit = ignore,
    ) -> TokenSet:
        """Exchange the code, save the tokens (before use), then learn who logged in."""
        response = self._send(
            self.endpoints.exchange_request(code, request.redirect_uri, request.code_verifier)
        )
        tokens = self.endpoints.token_response(response, requested_scopes=request.scopes)
        self.engine.remember(tokens)  # saved before the access token is used
        self._compare_scopes(request.scopes, tokens.scopes, emit)
        if fetch_user and self.profile.scopes.get("profile", "profile") in tokens.scopes:
            try:
                info = self.userinfo()
                tokens = tokens.with_username(str(info.get("username") or info.get("sub")))
                self.engine.remember(tokens)
            except KitError as exc:
                log.warning("logged in, but could not read the user information: %s", exc)
        emit(LoginEvent(DONE, "Logged in.", username=tokens.username, granted=tokens.scopes))
        return tokens

    def _compare_scopes(
        self, requested: tuple[str, ...], granted: tuple[str, ...], emit: Emit
    ) -> None:
        """Say so when the service granted other scopes than those asked for."""
        if not requested or set(requested) == set(granted):
            return
        message = scope_difference(
            self.profile.short_scopes(requested), self.profile.short_scopes(granted)
        )
        log.warning("%s", message)
        self.ui.show(message)
        emit(LoginEvent(SCOPES_DIFFER, message, requested=requested, granted=granted))

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


def reads_concurrently(ui: UserInterface) -> bool:
    """Whether ``ui.read_line`` may run in a thread of the kit's own (the console's may).

    Other interfaces are never read from behind the application's back: a GUI passes a
    pasted URL to ``LoginHandle.submit`` or ``complete_login(redirected_url=...)``.
    """
    return bool(getattr(ui, "concurrent_read", False))


def describe_seconds(seconds: float) -> str:
    """``300`` -> ``5 min``, ``90`` -> ``1 min 30 s``."""
    minutes, rest = divmod(round(seconds), 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def scope_difference(requested: Sequence[str], granted: Sequence[str]) -> str:
    missing = [name for name in requested if name not in granted]
    extra = [name for name in granted if name not in requested]
    parts = []
    if missing:
        parts.append(f"not granted: {', '.join(missing)}")
    if extra:
        parts.append(f"granted without being asked for: {', '.join(extra)}")
    return (
        f"The service granted other scopes than requested ({'; '.join(parts)}); "
        f"granted: {', '.join(granted) or 'none'}."
    )


def _start_paste_reader(
    ui: UserInterface, results: queue.Queue[tuple[str, dict[str, str]]]
) -> None:
    """Read a pasted redirect URL in the background; the listener may win the race."""

    def read() -> None:
        for _ in range(PASTE_ATTEMPTS):  # a mistyped paste may be followed by another
            try:
                line = ui.read_line("> ")
            except (OSError, ValueError, EOFError):
                return
            if not line:
                return
            results.put(("paste", parse_pasted(line)))

    threading.Thread(target=read, name="mb-oauth-paste", daemon=True).start()


def _waiter(
    results: queue.Queue[tuple[str, dict[str, str]]],
    emit: Emit,
    cancel: threading.Event | None = None,
) -> Callable[[float], tuple[str, dict[str, str]]]:
    """``next_input`` for a :class:`LoginRun` fed by a queue (listener, pastes)."""

    def tick(left: int) -> None:
        emit(LoginEvent(TICK, remaining=float(left)))

    return lambda remaining: _wait(results, remaining, cancel=cancel, tick=tick)


def _wait(
    results: queue.Queue[tuple[str, dict[str, str]]],
    timeout: float,
    *,
    cancel: threading.Event | None = None,
    tick: Callable[[int], None] | None = None,
) -> tuple[str, dict[str, str]]:
    """The first callback or paste; Ctrl-C and ``cancel`` stay responsive (short waits)."""
    deadline = time.monotonic() + timeout
    last = -1
    while True:
        if cancel is not None and cancel.is_set():
            raise LoginCancelled("login cancelled")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise LoginTimeout(f"no answer from the browser within {timeout:g} seconds")
        whole = math.ceil(remaining)
        if tick is not None and whole != last:
            last = whole
            tick(whole)
        try:
            return results.get(timeout=min(0.25, remaining))
        except queue.Empty:
            continue
