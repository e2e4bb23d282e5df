"""TLS begun by the server's HTTP protocol rather than by the event loop: bounded handshakes.

uvicorn hands its SSL context to `loop.create_server`, which completes the handshake before
any protocol of ours sees the connection. A client that never sent a ClientHello was held
for the loop's default 60 s, outside --max-connections and the head timeout: 5,000 of them
cost 265 MB, and at 1,024 descriptors a thousand stopped the server.

Here the server listens for plain TCP (uvicorn's `http=` names `http_over_tls`). The protocol
of each TCP connection, `TlsGate`, registers it with its HTTP protocol at once (counted by the
cap, evictable, under the head timeout: protocol.py) and puts the event loop's own TLS
protocol in its place, with our handshake and shutdown timeouts: exactly what the loop does
for `create_server(ssl=...)`, one step earlier. The loop's TLS protocol class is not public
API, but asyncio's and uvloop's are the same code with the same constructor; every test over
TLS would fail at once if that changed. (`loop.start_tls`, the public way, reads the
ClientHello only a loop turn later, and uvloop starts reading before that.)
"""

from __future__ import annotations

import asyncio
import os
import ssl
from asyncio import sslproto
from pathlib import Path
from typing import Any, cast

from uvicorn.config import Config
from uvicorn.server import ServerState

from .protocol import LimitedHttpProtocol
from .tls import server_context

CERT_KEY, KEY_KEY = "MB_OAUTH_SERVER_CERT", "MB_OAUTH_SERVER_KEY"
# A backstop only: the HTTP protocol closes the TCP connection right after its close_notify.
SHUTDOWN_TIMEOUT = 5.0
_CONTEXT: ssl.SSLContext | None = None


def tls_to_environment(cert: Path, key: Path) -> None:
    """For uvicorn's worker processes, like the data folder and the limits."""
    os.environ[CERT_KEY], os.environ[KEY_KEY] = str(cert), str(key)


def _context() -> ssl.SSLContext:
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = server_context(Path(os.environ[CERT_KEY]), Path(os.environ[KEY_KEY]))
    return _CONTEXT


class TlsGate(asyncio.Protocol):
    """A TCP connection's first protocol: registers it, then hands it to TLS. Nothing else
    listens: plain HTTP ends in a failed handshake, unanswered, and a bearer token sent in it
    is never read."""

    def __init__(self, http: LimitedHttpProtocol, context: ssl.SSLContext) -> None:
        self.http = http
        self.context = context

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport = cast(asyncio.Transport, transport)  # uvloop's is one, unregistered
        if not self.http.tcp_made(transport):
            return  # refused at the cap: already aborted
        loop = self.http.loop
        done = loop.create_future()  # the handshake's end: connected, failed or timed out
        done.add_done_callback(self._handshake_ended)
        tls = _tls_protocol(loop)(
            loop,
            self.http,  # its connection_made comes with the TLS transport
            self.context,
            done,
            server_side=True,
            ssl_handshake_timeout=self.http.limits.handshake_timeout,
            ssl_shutdown_timeout=SHUTDOWN_TIMEOUT,
        )
        # TRANSPORT-HTTPS-ONLY, BEARER-HTTP-IGNORED: every byte goes through TLS first, so
        # plain HTTP fails the handshake, unanswered, and no token in it is ever read
        transport.set_protocol(tls)
        tls.connection_made(transport)

    def _handshake_ended(self, done: asyncio.Future[None]) -> None:
        if not done.cancelled():
            done.exception()  # a failed handshake is no error of ours: nothing to log
        self.http.tcp_lost()  # a no-op once the HTTP protocol has its TLS transport


def _tls_protocol(loop: asyncio.AbstractEventLoop) -> Any:
    """The loop's own TLS protocol class (uvloop's is compiled; both take the same arguments)."""
    try:
        import uvloop
        import uvloop.loop

        if isinstance(loop, uvloop.Loop):
            return uvloop.loop.SSLProtocol  # type: ignore[attr-defined]
    except ImportError:
        pass
    return sslproto.SSLProtocol


def http_over_tls(
    config: Config,
    server_state: ServerState,
    app_state: dict[str, Any],
    _loop: asyncio.AbstractEventLoop | None = None,
) -> TlsGate:
    """uvicorn's protocol factory (`http=`): the HTTP protocol behind its TLS gate."""
    http = LimitedHttpProtocol(config, server_state, app_state, _loop)
    return TlsGate(http, _context())
