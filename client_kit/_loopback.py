"""The loopback redirect listener (RFC 8252 section 7.3).

Binds the loopback address of both stacks, 127.0.0.1 and [::1], on the same port: the
redirect URI says ``localhost``, which a browser may resolve to either, so a local process
holding the other one would receive the code (RFC 8252 8.3). A port counts as free only
when both are free. The port is a free one, or the first free one of a fixed list (for
servers that match the port exactly), reusable at once after the previous login (address
reuse: no wait for TIME_WAIT). The listener answers exactly one valid callback on the exact
path, ignores everything else (favicon, stray requests, forged or stale ``state``, an error
without the login's ``state``) and tells the user in the browser whether it worked. Pages
are self-contained and every value is HTML-escaped.

The browser is opened on the listener's launcher (:meth:`LoopbackListener.launcher`), never
on the authorization URL: a browser's command line is readable by every local user
(``/proc/PID/cmdline``), and with the URL's ``state`` and PKCE challenge another user could
authorize the application as themselves and send their code to this listener. Where the
platform says who owns a connection (Linux), the listener answers only programs of the user
who runs it; elsewhere the launcher works once, and a second request ends the login.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import queue
import secrets
import threading
from collections.abc import Sequence
from dataclasses import replace
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from client_kit._errors import ConfigurationError, PortUnavailable
from client_kit._flow import Answer, Answers
from client_kit._logs import get_logger
from client_kit._loopback_server import LOOPBACK_HOST, Busy, Decision, bind_both, handler_for
from client_kit._pages import LoopbackPages, failure_page, render_page

log = get_logger("client_kit.loopback")

#: names the redirect URI may use for the listener, which binds 127.0.0.1 and ::1
REDIRECT_HOSTS = ("localhost", "127.0.0.1")
#: attempts at a free port (port 0) whose [::1] twin is free too
_FREE_PORT_ATTEMPTS = 20
#: the user running the login (None on Windows, where no socket owner is known either)
_OWN_UID = os.getuid() if hasattr(os, "getuid") else None


class LoopbackListener:
    """Receives the authorization redirect on ``http://localhost:PORT/path``."""

    def __init__(
        self,
        path: str = "/callback",
        ports: Sequence[int] = (),
        *,
        results: Answers | None = None,
        app_name: str = "the application",
        redirect_host: str = "localhost",
        pages: LoopbackPages | None = None,
    ) -> None:
        if redirect_host not in REDIRECT_HOSTS:
            raise ConfigurationError(
                f"the loopback redirect host must be one of {', '.join(REDIRECT_HOSTS)}"
            )
        self.redirect_host = redirect_host
        self.path = path if path.startswith("/") else "/" + path
        self.ports = tuple(ports)
        self.results: Answers = results if results is not None else queue.Queue()
        self.app_name = app_name
        self.expected_state: str | None = None
        #: the application's own page or redirect after the login (None: the kit's pages)
        self.pages = pages
        self._launch_path: str | None = None
        self._launch_target: str | None = None
        self._launched = False
        self._done = threading.Event()
        self._decide_lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None  # the 127.0.0.1 one
        self._servers: list[ThreadingHTTPServer] = []  # 127.0.0.1 and, if any, [::1]

    # -- life cycle --------------------------------------------------------------------

    def start(self) -> str:
        """Bind and serve in a thread; return the redirect URI to register/use."""
        self._servers = self._bind()
        self._server = self._servers[0]
        for server in self._servers:
            threading.Thread(
                target=server.serve_forever,
                kwargs={"poll_interval": 0.2},
                name="mb-oauth-loopback",
                daemon=True,
            ).start()
        return self.redirect_uri

    def _bind(self) -> list[ThreadingHTTPServer]:
        handler = handler_for(self)
        if not self.ports:
            for _ in range(_FREE_PORT_ATTEMPTS):
                try:
                    return bind_both(0, handler)
                except Busy:
                    continue  # [::1] of that free port is taken: another free port
            raise PortUnavailable("no free loopback port was found on both 127.0.0.1 and [::1]")
        busy = []
        for port in self.ports:
            try:
                return bind_both(port, handler)
            except Busy as exc:
                busy.append(exc.where)
        raise PortUnavailable(
            f"loopback port(s) in use: {', '.join(busy)}; close the program using them, or "
            "register another http://localhost:PORT redirect URI for the application",
            ports=self.ports,
        )

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the listener is not started")
        return int(self._server.server_address[1])

    @property
    def redirect_uri(self) -> str:
        return f"http://{self.redirect_host}:{self.port}{self.path}"

    def close(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers = []
        self._server = None

    def __enter__(self) -> LoopbackListener:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the browser's way in ---------------------------------------------------------

    def launcher(self, authorization_url: str) -> str:
        """The address to open in the browser: a page of this listener that sends the browser
        on to ``authorization_url`` (303), so that the URL, with its ``state`` and PKCE
        challenge, never stands in a command line that other users can read."""
        self._launch_path = f"/open/{secrets.token_urlsafe(16)}"
        self._launch_target = authorization_url
        return f"http://{self.redirect_host}:{self.port}{self._launch_path}"

    # -- one request -------------------------------------------------------------------

    def decide(self, target: str, peer: str = LOOPBACK_HOST, owner: int | None = None) -> Decision:
        """The answer to one GET request from ``peer``, whose socket belongs to the user id
        ``owner`` (None: the platform cannot tell).

        Thread-safe: of several callbacks arriving at once, exactly one is delivered. The
        request handler answers the browser first and delivers after: once the callback is
        delivered the login may end and the process exit, and the page must be complete.
        """
        if not _is_loopback(peer):
            log.warning("loopback: refused a request from a non-loopback address")
            return _refused("Only this computer may answer this login.")
        if owner is not None and owner != _OWN_UID:
            log.warning(
                "loopback: refused a request from a program of another user (uid %s)", owner
            )
            return _refused("Only the user who started this login may answer it.")
        parts = urlsplit(target)
        if self._launch_path is not None and parts.path == self._launch_path:
            return self._decide_launch(owner)
        if parts.path != self.path:
            return Decision(
                HTTPStatus.NOT_FOUND, render_page("Not found", ["Nothing here."], ok=False)
            )
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        with self._decide_lock:
            decision, accepted = self._decide_callback(params)
        if not accepted:
            return decision
        return replace(decision, deliver=lambda: self.results.put(("loopback", params)))

    def _decide_launch(self, owner: int | None) -> Decision:
        """The launcher forwards the browser of the user who started the login. Where the
        platform cannot say whose a connection is, it works once: a second request means the
        address was read elsewhere, perhaps by another user who came first, so the login ends."""
        with self._decide_lock:
            first, self._launched = not self._launched, True
        if (first or owner is not None) and not self._done.is_set():
            return Decision(HTTPStatus.SEE_OTHER, location=self._launch_target)
        if self._done.is_set():
            return self._finished_page()
        log.warning("loopback: the login's page was opened twice; the login is stopped")
        page = render_page(
            "Login stopped",
            [
                "This login's page was opened twice: another program may have read its address.",
                f"For your safety the login was stopped. Start it again in {self.app_name}.",
            ],
            ok=False,
        )
        alarm: Answer = ("intercepted", {})
        return Decision(HTTPStatus.CONFLICT, page, lambda: self.results.put(alarm))

    def _decide_callback(self, params: dict[str, str]) -> tuple[Decision, bool]:
        """The page for a callback, and whether it is this login's answer."""
        if self._done.is_set():
            return self._finished_page(), False
        if not self._acceptable(params):
            # nothing of the request is shown: without the state it may be anyone's text
            log.info("loopback: refused a callback whose state does not match")
            page = render_page(
                "Login not accepted",
                [
                    "This response does not belong to the login in progress.",
                    f"Return to {self.app_name} and start the login again, or, if you "
                    "cancelled this login yourself, stop it there.",
                ],
                ok=False,
            )
            return Decision(HTTPStatus.BAD_REQUEST, page), False
        self._done.set()
        ok = "error" not in params
        if self.pages is not None:
            return self._own_page(ok, params), True
        if not ok:
            return Decision(HTTPStatus.OK, failure_page(params, self.app_name)), True
        return Decision(HTTPStatus.OK, self._received_page()), True

    def _own_page(self, ok: bool, params: dict[str, str]) -> Decision:
        """The application's page, or a 303 to its URL (the callback is delivered either way)."""
        assert self.pages is not None
        url = self.pages.url(ok)
        if url:
            return Decision(HTTPStatus.SEE_OTHER, location=url)
        body = self.pages.html(ok)
        if body is not None:
            return Decision(HTTPStatus.OK, body)
        if ok:
            return Decision(HTTPStatus.OK, self._received_page())
        return Decision(HTTPStatus.OK, failure_page(params, self.app_name))

    def _received_page(self) -> bytes:
        return render_page(
            "Authorization received",
            [f"You can close this tab and return to {self.app_name}."],
            ok=True,
        )

    def _finished_page(self) -> Decision:
        return Decision(
            HTTPStatus.GONE,
            render_page(
                "Login already finished",
                [f"This login is complete. Return to {self.app_name}."],
                ok=False,
            ),
        )

    def _acceptable(self, params: dict[str, str]) -> bool:
        """Only the login's own ``state`` ends it, with a code or an error.

        An error without state (MetaBrainz drops it on a refused consent) could come from
        any web page or local process: it neither ends the login nor shows its text.
        """
        state = params.get("state")
        expected = self.expected_state or ""
        return state is not None and bool(expected) and hmac.compare_digest(state, expected)


def _refused(line: str) -> Decision:
    return Decision(HTTPStatus.FORBIDDEN, render_page("Not allowed", [line], ok=False))


def _is_loopback(peer: str) -> bool:
    try:
        address = ipaddress.ip_address(peer.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool((mapped or address).is_loopback)
