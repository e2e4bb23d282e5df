"""uvicorn's httptools protocol with the limits it lacks: head sizes, timeouts, a cap.

httptools (llhttp) sets no bound on a request head: a 200 MiB header was buffered whole, in
ever-growing pieces, while every other client waited. uvicorn's own knobs stop at the
keep-alive timeout (armed only after a first response) and a concurrency limit that answers
503 to everyone once slow clients fill it. Here, per connection:

- the head (request line and headers) may take `header_total` bytes, counted before they
  reach the parser; the request line, each header and the number of headers have their own
  bounds (414, 431), and a head without exactly one Host or with two Authorization headers
  is refused (400; RFC 9112 3.2, RFC 6750 3.1);
- a connection exists from its first TCP byte: its TLS handshake (tlsgate.py) must end
  within `handshake_timeout`; a head must arrive within `header_timeout` of its first byte
  or of the connection's start (the handshake included), a body within `body_timeout` of the
  head's end (408); an idle keep-alive connection is closed after `idle_timeout`;
- past `max_connections`, handshakes included, a connection without a request in the
  application is closed at once to make room (connections.py).

Every refusal closes the connection. The server's close_notify is followed at once by the
TCP close, with no wait for the client's (RFC 8446 6.1, RFC 9112 9.8): asyncio waited up to
30 s, and MusicBrainz Picard, which never answers one, lost a request written into that
half-closed connection.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httptools
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from .answers import encode_json
from .connections import SENDING_BODY, WAITING, roster
from .limits import Limits
from .writes import HeadWithBody

HANDSHAKE, IDLE, HEAD, BODY, BUSY = "handshake", "idle", "head", "body", "busy"
_WAITING = (HANDSHAKE, IDLE, HEAD)  # no request in the application: evicted first at the cap
_GRACE = 1.0  # seconds a refused client has to read our answer before the socket goes
_DRAIN_LIMIT = 1024 * 1024  # bytes we drop for a refused client before cutting it off
_LIMITS: Limits | None = None


def limits() -> Limits:
    global _LIMITS
    if _LIMITS is None:
        _LIMITS = Limits.from_environment()
    return _LIMITS


class _Refused(Exception):
    """Raised from a parser callback; the protocol answers `status` and closes."""


class LimitedHttpProtocol(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = limits()
        self._phase = HANDSHAKE  # made when the TCP connection is accepted
        self.since = self.loop.time()  # when the current phase began (the connection's start)
        self._raw: asyncio.Transport | None = None  # the TCP connection under TLS
        self._ending: float | None = None  # when we began to close it
        self._head_bytes = 0
        self._header_count = 0
        self._hosts = 0
        self._authorizations = 0
        self._refusal: tuple[int, str] = (400, "Invalid HTTP request.")
        self._draining = False  # refused: what still arrives is dropped, then we close
        self._drained = 0

    # connection ------------------------------------------------------------------------

    def tcp_made(self, raw: asyncio.Transport) -> bool:
        """The TCP connection, before TLS (tlsgate.py): counted toward the cap from now on.
        False: refused, nothing could be closed to make room (every other one is busy)."""
        self._raw = raw
        self.connections.add(self)
        members = roster(self.loop, self.connections, limits().sweep_interval)
        if members.admit(self, self.limits.max_connections):
            return True
        self.connections.discard(self)
        raw.abort()
        return False

    def tcp_lost(self) -> None:
        """The TLS handshake never completed: uvicorn never saw this connection."""
        if self._phase == HANDSHAKE:
            self.connections.discard(self)
            self._ending = self._ending or self.loop.time()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """The TLS connection: its first request head is due `header_timeout` after the
        connection's start (the handshake's time counts)."""
        if self._raw is None and not self.tcp_made(transport):  # served without tlsgate.py
            return
        super().connection_made(transport)
        self._phase = HEAD

    def connection_lost(self, exc: Exception | None) -> None:
        self._ending = self._ending or self.loop.time()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        if self._phase == HANDSHAKE:
            self._abort()
        else:
            super().shutdown()

    def rank(self) -> int | None:
        """Who goes first at the cap (connections.py); None: busy, or closing already."""
        if self._ending is not None or self._draining:
            return None
        if self._phase in _WAITING:
            return WAITING
        return SENDING_BODY if self._phase == BODY else None

    def evict(self) -> None:
        """Closed at once to make room (connections.py): the slot is free in this turn."""
        if self._phase == BODY or (self._phase == HEAD and self._head_bytes):
            self._answer(408, "The request was not received in time.")
        self._hang_up()
        self._abort()

    def deadline(self) -> float | None:
        """When this connection is closed unless something happens first."""
        if self._ending is not None:
            return self._ending + _GRACE  # still not gone: cut off (a client that reads nothing)
        if self._phase == HANDSHAKE:  # the head is due too: the handshake is part of its time
            return self.since + min(self.limits.handshake_timeout, self.limits.header_timeout)
        if self._phase == HEAD:
            return self.since + self.limits.header_timeout
        if self._phase == BODY:
            return self.since + self.limits.body_timeout
        if self._phase == IDLE:
            return self.since + self.limits.idle_timeout
        return None  # the application is working on a request

    def expire(self) -> None:
        if self._ending is not None or self._phase == HANDSHAKE:
            self._abort()
        elif self._draining:
            return
        elif self._phase == IDLE or (self._phase == HEAD and self._head_bytes == 0):
            self._hang_up()  # nothing asked, nothing to answer: a clean close
        else:
            self._refuse(408, "The request was not received in time.")

    def _hang_up(self) -> None:
        """close_notify, then the TCP connection as soon as what is queued is sent."""
        if self._ending is None:
            self._ending = self.loop.time()
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()  # the TLS layer queues its close_notify
        if self._raw is not None and self._raw is not self.transport:
            self._raw.close()

    def _abort(self) -> None:
        if self._ending is None:
            self._ending = self.loop.time()
        (self._raw or self.transport).abort()

    def _refuse(self, status: int, message: str) -> None:
        """Answer and stop reading; the socket closes once the client had time to read it.

        Closing at once would reset a connection whose client is still sending (a long
        head, a body), and the reset discards our answer before the client reads it: so we
        drain what still comes, up to a bound, for a short grace (a "lingering close").
        """
        if self._draining or self.transport.is_closing():
            return
        self._draining = True
        self._answer(status, message)
        if self.cycle is not None:
            self.cycle.keep_alive = False
        self.loop.call_later(_GRACE, self._abort)

    def _answer(self, status: int, message: str) -> None:
        """A JSON error with Connection: close, unless a response is already under way."""
        cycle = self.cycle  # the current request's, or the previous one's on a kept connection
        if cycle is None or cycle.response_complete or not cycle.response_started:
            body = encode_json({"error": "invalid_request", "error_description": message})
            self.transport.write(
                b"".join(
                    [
                        STATUS_LINE[status],
                        b"content-type: application/json\r\n",
                        b"content-length: %d\r\n" % len(body),
                        b"connection: close\r\n\r\n",
                        body,
                    ]
                )
            )

    # reading ---------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._draining or self._ending is not None:
            self._drained += len(data)
            if self._drained > _DRAIN_LIMIT:
                self._abort()
            return
        if self._phase in _WAITING:
            room = self.limits.header_total - self._head_bytes
            if len(data) > room:
                self._head_bytes += room
                self._feed(data[:room])
                if self.transport.is_closing():
                    return
                if self._phase in _WAITING:
                    self._refuse(431, "The request head is too large.")
                    return
                data = data[room:]
            else:
                self._head_bytes += len(data)
        self._feed(data)

    def _feed(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self._refuse(*self._refusal)
        except httptools.HttpParserUpgrade:
            self._refuse(400, "Protocol upgrades are not supported.")

    def _reject(self, status: int, message: str) -> None:
        self._refusal = (status, message)
        raise _Refused(message)

    # parser callbacks ------------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._phase != HEAD:
            self._phase, self.since = HEAD, self.loop.time()
        self._header_count = self._hosts = self._authorizations = 0

    def on_url(self, url: bytes) -> None:
        self.url += url
        if len(self.url) > self.limits.request_line:
            self._reject(414, "The request line is too long.")

    def on_header(self, name: bytes, value: bytes) -> None:
        name = name.lower()
        self._header_count += 1
        if self._header_count > self.limits.header_count:
            self._reject(431, "The request has too many headers.")
        if len(name) + len(value) > self.limits.header_field:
            self._reject(431, "A request header is too large.")
        if name == b"host":
            self._hosts += 1
        elif name == b"authorization":
            self._authorizations += 1
        elif name == b"expect" and value.lower() == b"100-continue":
            self.expect_100_continue = True
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        if self._hosts != 1:
            self._reject(400, "A request names its Host exactly once (RFC 9112 3.2).")
        if self._authorizations > 1:
            self._reject(400, "A request carries one Authorization header at most (RFC 6750 3.1).")
        self._phase, self.since, self._head_bytes = BODY, self.loop.time(), 0
        super().on_headers_complete()
        written: object = self.cycle.transport if self.cycle is not None else None
        if written is self.transport:  # a new request's: its head and body in one write
            held = HeadWithBody(self.transport, self.scope["method"])
            self.cycle.transport = held  # type: ignore[assignment]

    def on_message_complete(self) -> None:
        answered = self.cycle is not None and self.cycle.response_complete
        self._phase, self.since = (IDLE if answered else BUSY), self.loop.time()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        """uvicorn's, with our idle deadline in place of its keep-alive timer, and our end
        of a connection it closed (Connection: close)."""
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            self._hang_up()
            return
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
        elif self._phase == BUSY:
            self._phase, self.since = IDLE, self.loop.time()
