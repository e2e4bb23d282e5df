"""The two steps of a login, with no user interface: build the request, then exchange its code.

The steps work with the parts they are given: the endpoints (the profile and the client's
credentials), the connections that send to them, and the refresh engine that saves the
tokens in the store. ``Session.begin_login`` / ``complete_login`` are their public face; the
desktop login (:mod:`client_kit._desktop`) and the GUI handle (:mod:`client_kit._handle`) run
the same steps. A begun loopback login owns a listener until it is completed or cancelled.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal, TypedDict

from client_kit import _logs
from client_kit._authorization import (
    AuthorizationRequest,
    build_request,
    check_redirect,
    parse_pasted,
)
from client_kit._errors import ConfigurationError, KitError
from client_kit._flow import (
    DONE,
    SCOPES_DIFFER,
    Answers,
    Emit,
    LoginEvent,
    LoginRun,
    NextInput,
    ignore,
    queue_input,
)
from client_kit._safe_text import NAME_LIMIT, WORD_LIMIT, clean
from client_kit.profiles import OOB_REDIRECT_URI

if TYPE_CHECKING:
    from client_kit._connections import Connections
    from client_kit._endpoints import Endpoints
    from client_kit._loopback import LoopbackListener
    from client_kit._pages import LoopbackPages
    from client_kit._refresh import RefreshEngine
    from client_kit._tokens import TokenSet

#: the session's logger: applications configure "client_kit.session" for login messages
log = _logs.get_logger("client_kit.session")

#: ``loopback``: a redirect to this machine; ``oob``: the user pastes a code the service shows
LoginMethod = Literal["loopback", "oob"]
DEFAULT_TIMEOUT = 300.0


class BeginOptions(TypedDict, total=False):
    """The keyword options of ``Session.begin_login`` (defaults: :meth:`LoginSteps.begin`)."""

    method: LoginMethod
    redirect_uri: str | None
    ports: Sequence[int]
    redirect_path: str | None
    use_pkce: bool
    pages: LoopbackPages | None


class CompleteOptions(TypedDict, total=False):
    """The keyword options of ``Session.complete_login`` (defaults: :meth:`LoginSteps.complete`)."""

    redirected_url: str | None
    timeout: float
    fetch_user: bool


class LoginSteps:
    """The begun logins of one session and their listeners."""

    def __init__(
        self,
        endpoints: Endpoints,
        connections: Connections,
        engine: RefreshEngine,
        *,
        app_name: str = "the application",
    ) -> None:
        """``engine``: saves the exchanged tokens (and holds the store the checks read);
        ``app_name``: what the listener's pages call the application."""
        self.endpoints = endpoints
        self.profile = endpoints.profile
        self.connections = connections
        self.engine = engine
        self.app_name = app_name
        self._listeners: dict[str, LoopbackListener] = {}

    def begin(
        self,
        scopes: Sequence[str],
        *,
        method: LoginMethod = "loopback",
        redirect_uri: str | None = None,
        ports: Sequence[int] = (),
        redirect_path: str | None = None,
        use_pkce: bool = True,
        pages: LoopbackPages | None = None,
    ) -> AuthorizationRequest:
        """See ``Session.begin_login``."""
        profile = self.profile
        if method == "oob":
            if not profile.allows_oob:
                raise ConfigurationError(
                    f"{profile.name} has no out-of-band login; use the loopback login with "
                    "a registered port",
                    setting="method",
                )
            return self._build(OOB_REDIRECT_URI, scopes, use_pkce)
        if method != "loopback":
            raise ConfigurationError(
                f"unknown login method {method!r}; use loopback or oob", setting="method"
            )
        if redirect_uri is not None:
            return self._build(redirect_uri, scopes, use_pkce)
        listener = self._listener(ports, redirect_path, pages)
        try:
            request = self._build(listener.redirect_uri, scopes, use_pkce)
        except BaseException:
            listener.close()
            raise
        listener.expected_state = request.state
        request = replace(request, launcher_url=listener.launcher(request.url))
        self._listeners[request.state] = listener
        return request

    def check(self, request: AuthorizationRequest) -> None:
        """The checks before the browser (``check=True``): see :mod:`client_kit._preflight`."""
        from client_kit._preflight import before_browser

        engine = self.engine
        before_browser(request, self.endpoints, self.connections, engine.store, engine.key)

    def answers(self, request: AuthorizationRequest) -> Answers | None:
        """The queue the loopback listener of ``request`` delivers to (None: no listener)."""
        listener = self._listeners.get(request.state)
        return None if listener is None else listener.results

    def complete(
        self,
        request: AuthorizationRequest,
        code: str | None = None,
        *,
        redirected_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        fetch_user: bool = True,
        emit: Emit = ignore,
    ) -> TokenSet:
        """See ``Session.complete_login``."""
        try:
            if redirected_url is not None:
                code = check_redirect(parse_pasted(redirected_url), request.state)
            elif code is not None:
                code = check_redirect({"code": code}, request.state, pasted=True)
            else:
                answers = self.answers(request)
                if answers is None:
                    raise ConfigurationError(
                        "no loopback listener for this request (it was begun in another "
                        "process or already finished); pass redirected_url= or code="
                    )
                next_input = queue_input(answers, ignore)
                return self.finish(
                    request, next_input, timeout=timeout, emit=emit, fetch_user=fetch_user
                )
            return self.exchange(request, code, fetch_user=fetch_user, emit=emit)
        finally:
            self.cancel(request)

    def finish(
        self,
        request: AuthorizationRequest,
        next_input: NextInput,
        *,
        timeout: float,
        emit: Emit = ignore,
        cancel: threading.Event | None = None,
        fetch_user: bool = True,
    ) -> TokenSet:
        """Wait for the answer to ``request`` (a callback or a paste, from ``next_input``)
        and exchange its code: the one run of a login, whoever shows it (the desktop login,
        the GUI handle, ``complete_login``)."""
        run = LoginRun(
            self,
            request,
            next_input,
            timeout=timeout,
            emit=emit,
            cancel=cancel,
            fetch_user=fetch_user,
        )
        return run.run()

    def cancel(self, request: AuthorizationRequest) -> None:
        """Stop the listener of a begun login (stored tokens are not touched)."""
        listener = self._listeners.pop(request.state, None)
        if listener is not None:
            listener.close()

    def close(self) -> None:
        for listener in list(self._listeners.values()):
            listener.close()
        self._listeners.clear()

    def exchange(
        self,
        request: AuthorizationRequest,
        code: str,
        *,
        fetch_user: bool = True,
        emit: Emit = ignore,
    ) -> TokenSet:
        """Exchange the code, save the tokens (before use), then learn who logged in."""
        endpoints = self.endpoints
        response = self.connections.send(
            endpoints.exchange_request(code, request.redirect_uri, request.code_verifier)
        )
        tokens = endpoints.token_response(response, requested_scopes=request.scopes)
        self.engine.remember(tokens)  # saved before the access token is used
        self._compare_scopes(request.scopes, tokens.scopes, emit)
        if fetch_user and self.profile.scopes.get("profile", "profile") in tokens.scopes:
            from client_kit._auth import BearerAuth  # httpx: only once a login is done

            try:
                info = self.connections.userinfo(BearerAuth(self.engine))
                name = clean(info.get("username") or info.get("sub"), NAME_LIMIT)
                tokens = tokens.with_username(name)
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
        profile = self.profile
        message = scope_difference(profile.short_scopes(requested), profile.short_scopes(granted))
        log.warning("%s", message)
        emit(LoginEvent(SCOPES_DIFFER, message, requested=requested, granted=granted))

    def _build(
        self, redirect_uri: str, scopes: Sequence[str], use_pkce: bool
    ) -> AuthorizationRequest:
        client_id = self.endpoints.credentials.client_id
        request = build_request(self.profile, client_id, redirect_uri, scopes, use_pkce=use_pkce)
        _logs.announce(request.url)
        return request

    def _listener(
        self, ports: Sequence[int], redirect_path: str | None, pages: LoopbackPages | None
    ) -> LoopbackListener:
        from client_kit._loopback import LoopbackListener

        profile = self.profile
        ports = tuple(ports) or profile.loopback_ports
        if profile.exact_loopback_port and not ports:
            raise ConfigurationError(
                f"{profile.name} matches redirect URIs exactly, port included: register "
                "one or more http://localhost:PORT/callback URIs for your app and give "
                "their ports",
                setting="ports",
            )
        listener = LoopbackListener(
            redirect_path or profile.redirect_path,
            ports,
            app_name=self.app_name,
            redirect_host=profile.loopback_host,
            pages=pages,
        )
        listener.start()
        return listener


def scope_difference(requested: Sequence[str], granted: Sequence[str]) -> str:
    """Which scopes differ, in words (the granted names are the service's: shown clean)."""
    granted = [clean(name, WORD_LIMIT) for name in granted]
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
