"""Every request of the kit, bounded: in time as a whole, and in the size of its answer.

httpx's timeout bounds each read, not a whole request: a service that sends one byte every
few seconds would hold a refresh (and the refresh lock) for ever. And httpx reads a whole
answer into memory: a 400 MB token answer would cost 400 MB. So every request the kit sends
gets

* a deadline (``Profile.deadline``): when it passes, the request is abandoned in whatever
  phase it is (connecting, TLS, the head, the body) and reported as a temporary failure;
* a size limit (:class:`Bounds`, by endpoint), checked while the answer streams in: a
  larger answer is refused without being read whole (``Content-Length`` first, then the
  bytes as they come).

Sync requests learn their connection's socket from httpx's ``trace`` extension when the
connection opens, and a timer shuts that socket down at the deadline; so the kit's clients
(:func:`kit_client`) keep no idle connection, and every request opens its own. Async requests
run under ``asyncio.timeout``. Network failures become the kit's errors
(:mod:`client_kit._network_errors`), naming who could not be reached and where.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from client_kit._errors import KitError, ProtocolError, TemporaryFailure
from client_kit._network_errors import transport_failure, where

if TYPE_CHECKING:
    import httpx

    from client_kit.profiles import Profile

KB = 1024
#: the largest answers the kit reads: a token answer (or a revocation's) is well under this
TOKEN_LIMIT = 64 * KB
#: user information: a small JSON object
USERINFO_LIMIT = 256 * KB
#: an HTML page (the authorization page the preflight reads): only its start is kept
PAGE_LIMIT = 512 * KB
#: headers of the answer the kit keeps (the body it hands on is already decoded and counted)
_DROPPED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


@dataclass(frozen=True)
class Bounds:
    """How long one request may take, how much of its answer is read, and who answers."""

    deadline: float
    limit: int
    #: who answers, in messages: "the service", "the broker"
    party: str = "the service"
    #: keep the first ``limit`` bytes of a larger answer (a page) instead of refusing it
    truncate: bool = False


def kit_client(profile: Profile) -> httpx.Client:
    """A client for the kit's own requests: no idle connections (see the module's doc)."""
    import httpx

    return httpx.Client(
        **profile.client_options(), limits=httpx.Limits(max_keepalive_connections=0)
    )


def kit_async_client(profile: Profile) -> httpx.AsyncClient:
    """An async client for the kit's own requests (bounded by ``asyncio.timeout``)."""
    import httpx

    return httpx.AsyncClient(**profile.client_options())


def send(
    client: httpx.Client,
    request: httpx.Request,
    bounds: Bounds,
    *,
    auth: httpx.Auth | None = None,
) -> httpx.Response:
    """Send ``request`` within ``bounds``; the answer comes back read (and counted)."""
    import httpx

    watch = _Watch(bounds.deadline)
    request.extensions["trace"] = watch.trace
    try:
        with watch:
            response = client.send(request, auth=auth, stream=True)
            try:
                body = _Body(response, bounds)
                for chunk in response.iter_bytes():
                    if body.add(chunk):
                        break
            finally:
                response.close()
    except httpx.TransportError as exc:
        if watch.fired:
            raise too_slow(request, bounds) from exc
        raise transport_failure(exc, bounds.party, request.url) from exc
    return body.response()


async def asend(
    client: httpx.AsyncClient,
    request: httpx.Request,
    bounds: Bounds,
    *,
    auth: httpx.Auth | None = None,
) -> httpx.Response:
    """:func:`send` for asyncio."""
    import asyncio

    import httpx

    try:
        async with asyncio.timeout(bounds.deadline):
            response = await client.send(request, auth=auth, stream=True)
            try:
                body = _Body(response, bounds)
                async for chunk in response.aiter_bytes():
                    if body.add(chunk):
                        break
            finally:
                await response.aclose()
    except TimeoutError as exc:
        raise too_slow(request, bounds) from exc
    except httpx.TransportError as exc:
        raise transport_failure(exc, bounds.party, request.url) from exc
    return body.response()


def too_slow(request: httpx.Request, bounds: Bounds) -> KitError:
    return TemporaryFailure(
        f"{bounds.party} at {where(request.url)} did not finish answering within "
        f"{bounds.deadline:g} s; the request was abandoned (tokens are kept), try again later"
    )


class _Body:
    """The answer's bytes, counted as they arrive."""

    def __init__(self, response: httpx.Response, bounds: Bounds) -> None:
        self.head = response
        self.bounds = bounds
        self.chunks: list[bytes] = []
        self.size = 0
        self.full = False
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > bounds.limit:
            self._over()

    def add(self, chunk: bytes) -> bool:
        """Keep ``chunk``; True when no more is to be read."""
        if self.full:
            return True
        room = self.bounds.limit - self.size
        self.chunks.append(chunk[:room])
        self.size += min(len(chunk), room)
        if len(chunk) > room:
            self._over()
        return self.full

    def _over(self) -> None:
        """A larger answer than allowed: a page is cut, the answer of a failing service
        (5xx) is dropped (its status says enough), anything else is refused."""
        self.full = True
        if self.bounds.truncate:
            return
        if self.head.status_code >= 500:
            self.chunks = []
            return
        raise ProtocolError(
            f"{self.bounds.party} at {where(self.head.request.url)} sent an answer larger than "
            f"{self.bounds.limit // KB} KB (HTTP {self.head.status_code}); the kit refuses it "
            "without reading it (tokens are kept)"
        )

    def response(self) -> httpx.Response:
        """The answer with the body read so far, as a plain (already read) response."""
        import httpx

        head = self.head
        headers = [
            (name, value)
            for name, value in head.headers.multi_items()
            if name.lower() not in _DROPPED_HEADERS
        ]
        return httpx.Response(
            head.status_code,
            headers=headers,
            content=b"".join(self.chunks),
            request=head.request,
            extensions={k: v for k, v in head.extensions.items() if k != "network_stream"},
        )


class _Watch:
    """Shuts down the sockets of one request when its deadline passes."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.fired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._over = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def trace(self, name: str, info: dict[str, object]) -> None:
        """httpx's trace hook: keep a handle on each connection as it opens."""
        if name != "connection.connect_tcp.complete":
            return
        stream = info.get("return_value")
        get = getattr(stream, "get_extra_info", None)
        sock = get("socket") if get is not None else None
        if not isinstance(sock, socket.socket):
            return
        # a duplicate: TLS takes the original over, the connection stays the same
        handle = sock.dup()
        with self._lock:
            self._sockets.append(handle)
            if self.fired:
                _shut(handle)

    def _fire(self) -> None:
        with self._lock:
            if self._over:
                return
            self.fired = True
            for handle in self._sockets:
                _shut(handle)

    def __enter__(self) -> _Watch:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            self._over = True
            for handle in self._sockets:
                handle.close()
            self._sockets.clear()


def _shut(handle: socket.socket) -> None:
    """End the connection for both sides: a blocked read returns at once."""
    with contextlib.suppress(OSError):
        handle.shutdown(socket.SHUT_RDWR)
