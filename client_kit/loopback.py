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
"""

from __future__ import annotations

import errno
import hmac
import html
import ipaddress
import queue
import socket
import socketserver
import threading
from collections.abc import Callable, Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from client_kit.errors import ConfigurationError, PortUnavailable
from client_kit.pages import LoopbackPages
from client_kit.redaction import get_logger

log = get_logger("client_kit.loopback")

LOOPBACK_HOST = "127.0.0.1"
LOOPBACK_HOST_V6 = "::1"
#: names the redirect URI may use for the listener, which binds 127.0.0.1 and ::1
REDIRECT_HOSTS = ("localhost", "127.0.0.1")
#: attempts at a free port (port 0) whose [::1] twin is free too
_FREE_PORT_ATTEMPTS = 20
#: errors of binding [::1] that mean "this machine has no IPv6 loopback" (nobody can squat it)
_NO_IPV6 = (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT)
_BUSY = (errno.EADDRINUSE, errno.EACCES)

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>body{{font-family:system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em;
color:#222}}h1{{font-size:1.5em;color:{colour}}}code{{background:#eee;padding:0 .2em}}</style>
</head><body><h1>{title}</h1>{body}</body></html>
"""


def render_page(title: str, lines: Sequence[str], ok: bool) -> bytes:
    """A small page; every argument is escaped here, so callers pass plain text."""
    body = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    colour = "#2a7a2a" if ok else "#a02020"
    return _PAGE.format(title=html.escape(title), body=body, colour=colour).encode()


class LoopbackListener:
    """Receives the authorization redirect on ``http://localhost:PORT/path``."""

    def __init__(
        self,
        path: str = "/callback",
        ports: Sequence[int] = (),
        *,
        results: queue.Queue[tuple[str, dict[str, str]]] | None = None,
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
        self.results = results if results is not None else queue.Queue()
        self.app_name = app_name
        self.expected_state: str | None = None
        #: the application's own page or redirect after the login (None: the kit's pages)
        self.pages = pages
        #: where the browser is sent (303) once decided, when ``pages`` asks for a redirect
        self.location: str | None = None
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
        handler = _handler_for(self)
        if not self.ports:
            for _ in range(_FREE_PORT_ATTEMPTS):
                try:
                    return _bind_both(0, handler)
                except _Busy:
                    continue  # [::1] of that free port is taken: another free port
            raise PortUnavailable("no free loopback port was found on both 127.0.0.1 and [::1]")
        busy = []
        for port in self.ports:
            try:
                return _bind_both(port, handler)
            except _Busy as exc:
                busy.append(exc.where)
        raise PortUnavailable(
            f"loopback port(s) in use: {', '.join(busy)}; close the program using them, or "
            "register another http://localhost:PORT redirect URI and pass it with --port"
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

    def _own_page(self, ok: bool, params: dict[str, str]) -> tuple[HTTPStatus, bytes]:
        """The application's page, or a 303 to its URL (the callback is delivered either way)."""
        assert self.pages is not None
        url = self.pages.url(ok)
        if url:
            self.location = url
            return HTTPStatus.OK, b""
        body = self.pages.html(ok)
        if body is not None:
            return HTTPStatus.OK, body
        if ok:
            return HTTPStatus.OK, render_page(
                "Authorization received",
                [f"You can close this tab and return to {self.app_name}."],
                ok=True,
            )
        return HTTPStatus.OK, _failure_page(params, self.app_name)

    # -- one request -------------------------------------------------------------------

    def handle(self, target: str, peer: str = LOOPBACK_HOST) -> tuple[HTTPStatus, bytes]:
        """Decide on one GET request from ``peer``; put a valid callback on the results queue.

        Thread-safe: of several callbacks arriving at once, exactly one is delivered.
        """
        status, body, deliver = self.decide(target, peer)
        deliver()
        return status, body

    def decide(
        self, target: str, peer: str = LOOPBACK_HOST
    ) -> tuple[HTTPStatus, bytes, Callable[[], None]]:
        """Like :meth:`handle`, but the callback is delivered only when ``deliver()`` is called.

        The request handler answers the browser first and delivers after: once the callback
        is delivered the login may end and the process exit, and the page must be complete.
        """
        status, body, params = self._decide(target, peer)
        if params is None:
            return status, body, _nothing
        return status, body, lambda: self.results.put(("loopback", params))

    def _decide(self, target: str, peer: str) -> tuple[HTTPStatus, bytes, dict[str, str] | None]:
        if not _is_loopback(peer):
            log.warning("loopback: refused a request from a non-loopback address")
            return (
                HTTPStatus.FORBIDDEN,
                render_page("Not allowed", ["Only this computer may answer this login."], ok=False),
                None,
            )
        parts = urlsplit(target)
        if parts.path != self.path:
            return (
                HTTPStatus.NOT_FOUND,
                render_page("Not found", ["Nothing here."], ok=False),
                None,
            )
        with self._decide_lock:
            status, body = self._decide_callback(parts.query)
            if status is not HTTPStatus.OK:
                return status, body, None
            return status, body, dict(parse_qsl(parts.query, keep_blank_values=True))

    def _decide_callback(self, query: str) -> tuple[HTTPStatus, bytes]:
        if self._done.is_set():
            return HTTPStatus.GONE, render_page(
                "Login already finished",
                [f"This login is complete. Return to {self.app_name}."],
                ok=False,
            )
        params = dict(parse_qsl(query, keep_blank_values=True))
        if not self._acceptable(params):
            # nothing of the request is shown: without the state it may be anyone's text
            log.info("loopback: refused a callback whose state does not match")
            return HTTPStatus.BAD_REQUEST, render_page(
                "Login not accepted",
                [
                    "This response does not belong to the login in progress.",
                    f"Return to {self.app_name} and start the login again, or, if you "
                    "cancelled this login yourself, stop it there.",
                ],
                ok=False,
            )
        self._done.set()
        if self.pages is not None:
            return self._own_page(ok="error" not in params, params=params)
        if "error" in params:
            return HTTPStatus.OK, _failure_page(params, self.app_name)
        return HTTPStatus.OK, render_page(
            "Authorization received",
            [f"You can close this tab and return to {self.app_name}."],
            ok=True,
        )

    def _acceptable(self, params: dict[str, str]) -> bool:
        """Only the login's own ``state`` ends it, with a code or an error.

        An error without state (MetaBrainz drops it on a refused consent) could come from
        any web page or local process: it neither ends the login nor shows its text.
        """
        state = params.get("state")
        expected = self.expected_state or ""
        return state is not None and bool(expected) and hmac.compare_digest(state, expected)


def _nothing() -> None:
    return None


def _is_loopback(peer: str) -> bool:
    try:
        address = ipaddress.ip_address(peer.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool((mapped or address).is_loopback)


def _failure_page(params: dict[str, str], app_name: str) -> bytes:
    lines = [f"The service answered: {params.get('error', '')}."]
    if params.get("error_description"):
        lines.append(params["error_description"])
    lines.append(f"Return to {app_name} for details.")
    return render_page("Login failed", lines, ok=False)


class _Busy(Exception):
    """One of the two loopback addresses is taken on this port."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # SO_REUSEADDR: a fixed port is free again right after the previous login, though its
    # connections linger in TIME_WAIT. It never lets two sockets listen on one address.
    allow_reuse_address = True

    def server_bind(self) -> None:
        # not HTTPServer.server_bind: it looks the host up (getfqdn), which can hang offline
        if self.address_family == socket.AF_INET6:
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        socketserver.TCPServer.server_bind(self)
        self.server_name = "localhost"
        self.server_port = self.server_address[1]

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("loopback: a connection failed")


class _ServerV6(_Server):
    address_family = socket.AF_INET6


def _bind_both(port: int, handler: type[BaseHTTPRequestHandler]) -> list[ThreadingHTTPServer]:
    """127.0.0.1 and [::1] on one port (``0``: a free one), or :class:`_Busy`."""
    try:
        first = _Server((LOOPBACK_HOST, port), handler)
    except OSError as exc:
        if exc.errno not in _BUSY:
            raise
        raise _Busy(f"{LOOPBACK_HOST}:{port}") from exc
    port = int(first.server_address[1])
    try:
        return [first, _ServerV6((LOOPBACK_HOST_V6, port), handler)]
    except OSError as exc:
        if exc.errno in _NO_IPV6 or not socket.has_ipv6:
            log.debug("loopback: no IPv6 loopback here; 127.0.0.1 only")
            return [first]
        first.server_close()
        if exc.errno not in _BUSY:
            raise
        raise _Busy(f"[{LOOPBACK_HOST_V6}]:{port}") from exc


def _handler_for(listener: LoopbackListener) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 10
        server_version = "mb-oauth"
        sys_version = ""

        def do_GET(self) -> None:
            status, body, deliver = listener.decide(self.path, str(self.client_address[0]))
            try:
                self._answer(status, body)
            finally:
                deliver()  # after the page is out: the login may end (and the process exit)

        def _answer(self, status: HTTPStatus, body: bytes) -> None:
            if status is HTTPStatus.OK and not body and listener.location:
                status = HTTPStatus.SEE_OTHER  # the application's own page elsewhere
                self.send_response(status)
                self.send_header("Location", listener.location)
            else:
                self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("X-Frame-Options", "DENY")
            self.send_header(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
            )
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            self.send_error(HTTPStatus.METHOD_NOT_ALLOWED)

        def log_message(self, format: str, *args: Any) -> None:
            # the request line carries the code: never log it
            return

    return Handler
