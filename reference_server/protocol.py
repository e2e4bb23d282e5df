"""uvicorn's httptools protocol with the limits it lacks: head sizes, timeouts, a cap.

httptools (llhttp) sets no bound on a request head: a 200 MiB header was buffered whole, in
ever-growing pieces, while every other client waited. uvicorn's own knobs stop at the
keep-alive timeout (armed only after a first response) and a concurrency limit that answers
503 to everyone once slow clients fill it. Here, per connection:

- the head (request line and headers) may take `header_total` bytes, counted before they
  reach the parser; the request line, each header and the number of headers have their own
  bounds (414, 431), and a head without exactly one Host or with two Authorization headers
  is refused (400; RFC 9112 3.2, RFC 6750 3.1);
- a head must arrive within `header_timeout` of its first byte (or of the connection's
  start), a body within `body_timeout` of the head's end (408), and an idle keep-alive
  connection is closed after `idle_timeout`;
- one sweep a second per process checks those deadlines (no timer per request);
- past `max_connections`, the connection that has waited longest without a request in
  progress is closed to make room, so slow clients cannot keep a normal one out.

Every refusal closes the connection.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection
from typing import Any

import httptools
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from .limits import Limits
from .writes import HeadWithBody

IDLE, HEAD, BODY, BUSY = "idle", "head", "body", "busy"
_WAITING = (IDLE, HEAD)  # no request in the application: may be evicted at the cap
_GRACE = 1.0  # seconds a refused client has to read our answer before the socket goes
_DRAIN_LIMIT = 1024 * 1024  # bytes we drop for a refused client before cutting it off
_LIMITS: Limits | None = None
_SWEEPS: dict[int, asyncio.TimerHandle] = {}


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
        self._phase = HEAD  # a new connection owes us a request head
        self._since = self.loop.time()
        self._head_bytes = 0
        self._header_count = 0
        self._hosts = 0
        self._authorizations = 0
        self._refusal: tuple[int, str] = (400, "Invalid HTTP request.")
        self._draining = False  # refused: what still arrives is dropped, then we close
        self._drained = 0

    # connection ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        _ensure_sweep(self.loop, self.connections)
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def _make_room(self) -> None:
        waiting = [
            c
            for c in self.connections
            if c is not self and isinstance(c, LimitedHttpProtocol) and c._phase in _WAITING
        ]
        if not waiting:
            self._refuse(503, "The server has too many connections; try again shortly.")
            return
        oldest = min(waiting, key=lambda c: c._since)
        oldest._expire()

    def deadline(self) -> float | None:
        """When this connection is closed unless something happens first."""
        if self._phase == HEAD:
            return self._since + self.limits.header_timeout
        if self._phase == BODY:
            return self._since + self.limits.body_timeout
        if self._phase == IDLE:
            return self._since + self.limits.idle_timeout
        return None  # the application is working on a request

    def _expire(self) -> None:
        if self.transport.is_closing() or self._draining:
            return
        if self._phase == IDLE or (self._phase == HEAD and self._head_bytes == 0):
            self.transport.close()  # nothing asked, nothing to answer: a clean close
        else:
            self._refuse(408, "The request was not received in time.")

    def _refuse(self, status: int, message: str) -> None:
        """Answer and stop reading; the socket closes once the client had time to read it.

        Closing at once would reset a connection whose client is still sending (a long
        head, a body), and the reset discards our answer before the client reads it: so we
        drain what still comes, up to a bound, for a short grace (a "lingering close").
        """
        if self._draining or self.transport.is_closing():
            return
        self._draining = True
        cycle = self.cycle  # the current request's, or the previous one's on a kept connection
        if cycle is None or cycle.response_complete or not cycle.response_started:
            body = json.dumps({"error": "invalid_request", "error_description": message})
            self.transport.write(
                b"".join(
                    [
                        STATUS_LINE[status],
                        b"content-type: application/json\r\n",
                        b"content-length: %d\r\n" % len(body),
                        b"connection: close\r\n\r\n",
                        body.encode(),
                    ]
                )
            )
        if self.cycle is not None:
            self.cycle.keep_alive = False
        self.loop.call_later(_GRACE, self.transport.abort)

    # reading ---------------------------------------------------------------------------

    def data_received(self, data: bytes) -> None:
        if self._draining:
            self._drained += len(data)
            if self._drained > _DRAIN_LIMIT:
                self.transport.abort()
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
            self._phase, self._since = HEAD, self.loop.time()
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
        self._phase, self._since, self._head_bytes = BODY, self.loop.time(), 0
        super().on_headers_complete()
        written: object = self.cycle.transport if self.cycle is not None else None
        if written is self.transport:  # a new request's: its head and body in one write
            held = HeadWithBody(self.transport, self.scope["method"])
            self.cycle.transport = held  # type: ignore[assignment]

    def on_message_complete(self) -> None:
        answered = self.cycle is not None and self.cycle.response_complete
        self._phase, self._since = (IDLE if answered else BUSY), self.loop.time()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        """uvicorn's, with our idle deadline in place of its keep-alive timer."""
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
        elif self._phase == BUSY:
            self._phase, self._since = IDLE, self.loop.time()


def _ensure_sweep(loop: asyncio.AbstractEventLoop, connections: Collection[object]) -> None:
    """One repeating check of every connection's deadline per event loop."""
    key = id(loop)
    if key in _SWEEPS:
        return
    interval = min(1.0, _shortest_timeout() / 4)

    def sweep() -> None:
        now = loop.time()
        for connection in list(connections):
            if isinstance(connection, LimitedHttpProtocol):
                deadline = connection.deadline()
                if deadline is not None and now >= deadline:
                    connection._expire()
        _SWEEPS[key] = loop.call_later(interval, sweep)

    _SWEEPS[key] = loop.call_later(interval, sweep)


def _shortest_timeout() -> float:
    found = limits()
    return min(found.header_timeout, found.body_timeout, found.idle_timeout)
