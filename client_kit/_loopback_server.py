"""The sockets of the loopback listener: 127.0.0.1 and [::1] on one port, and the handler
that answers the browser before it hands the callback over, telling the listener who (which
user id, where the platform says: :mod:`client_kit._peer_owner`) is asking.

Both stacks are bound on the same port because the redirect URI says ``localhost``, which a
browser may resolve to either: a local process holding the other one would receive the code
(RFC 8252 8.3). What to answer is the listener's decision (:mod:`client_kit._loopback`).
"""

from __future__ import annotations

import errno
import socket
import socketserver
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol

from client_kit._logs import get_logger
from client_kit._peer_owner import socket_owner

log = get_logger("client_kit.loopback")

LOOPBACK_HOST = "127.0.0.1"
LOOPBACK_HOST_V6 = "::1"
#: errors of binding [::1] that mean "this machine has no IPv6 loopback" (nobody can squat it)
_NO_IPV6 = (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT)
_BUSY = (errno.EADDRINUSE, errno.EACCES)


def _nothing() -> None:
    return None


@dataclass(frozen=True)
class Decision:
    """The listener's answer to one request, and what it delivers once that answer is out."""

    status: HTTPStatus
    body: bytes = b""
    #: puts a valid callback on the login's queue (a no-op for anything else)
    deliver: Callable[[], None] = _nothing
    #: where the browser is sent (303 See Other) instead of a page
    location: str | None = None


class Decider(Protocol):
    """What the handler asks the listener."""

    def decide(self, target: str, peer: str, owner: int | None) -> Decision: ...


class Busy(Exception):
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

    def handle_error(self, request: object, client_address: object) -> None:
        log.debug("loopback: a connection failed")


class _ServerV6(_Server):
    address_family = socket.AF_INET6


def bind_both(port: int, handler: type[BaseHTTPRequestHandler]) -> list[ThreadingHTTPServer]:
    """127.0.0.1 and [::1] on one port (``0``: a free one), or :class:`Busy`."""
    try:
        first = _Server((LOOPBACK_HOST, port), handler)
    except OSError as exc:
        if exc.errno not in _BUSY:
            raise
        raise Busy(f"{LOOPBACK_HOST}:{port}") from exc
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
        raise Busy(f"[{LOOPBACK_HOST_V6}]:{port}") from exc


def handler_for(listener: Decider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 10
        server_version = "mb-oauth"
        sys_version = ""

        def do_GET(self) -> None:
            owner = socket_owner(self.connection)
            decision = listener.decide(self.path, str(self.client_address[0]), owner)
            try:
                self._answer(decision)
            finally:
                decision.deliver()  # after the page is out: the login may end (and exit)

        def _answer(self, decision: Decision) -> None:
            self.send_response(decision.status)
            if decision.location is not None:
                self.send_header("Location", decision.location)
            body = decision.body
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

        def log_message(self, format: str, *args: object) -> None:
            # the request line carries the code: never log it
            return

    return Handler
