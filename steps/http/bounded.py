"""Every answer the suite reads, bounded: in size, and in time as a whole.

httpx reads a whole answer into memory (a 200 MB answer cost a run 1 GB), and its timeout
bounds each read, not a request: a token endpoint that sends one byte every few seconds held
one request for minutes. So `BoundedReader.send` streams each answer and

* stops reading past a size limit (`Content-Length` first, then the bytes as they come,
  counted after decompression): 1 MB for a page, 64 kB for an answer of the token, revocation
  or user-information endpoint;
* gives each request a deadline (20 s) for all its phases: connecting, TLS, the head, the
  body. When it passes, the sockets the layer knows are shut down, so a blocked read returns at
  once (the suite sends one request at a time per process; an idle connection shut with it is
  replaced by the pool on its next use).

A request lost with a kept-alive connection, before any byte of its answer, is sent once more
on a connection of its own: a server closes an idle connection when its keep-alive time is up
(5 s for Apache and uvicorn, as long as httpx keeps one), and a request sent at that moment
reaches nobody. Browsers resend in the same case. A fresh connection that fails is an error.

An answer beyond either bound raises `AnswerUnread` (a `NotChecked`): the scenario could not be
checked, and says why. An endpoint whose answers missed the deadline three times is not asked
again in the run (each later request is "could not be checked" at once, naming those): a
deployment that drips every answer would otherwise hold a whole run for hours.

The kit has the same bounds (`client_kit.transfer`) for its own requests, on connections it
opens per request and with its own errors; the suite keeps its connections (one TLS handshake
per client, not per request) and httpx's errors (a plain-HTTP connection refused is a
verdict), so it learns each connection's socket as it opens (httpx's `trace` extension) and
keeps it, weakly, for as long as the pool does.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import weakref

import httpx

from steps.outcomes import NotChecked

KB = 1024
#: A page of the service (login, consent, the user's applications): only real pages fit.
PAGE_LIMIT = 1024 * KB
#: An answer of the token, revocation or user-information endpoint: a small JSON object.
ANSWER_LIMIT = 64 * KB
#: The longest one request may take, all phases together.
DEADLINE = 20.0
#: Answers of one endpoint that may miss the deadline before the suite stops asking it.
GIVE_UP_AFTER = 3
#: Headers of the answer that no longer hold once its body is read (and decoded).
_DECODED = frozenset({"content-encoding"})


class AnswerUnread(NotChecked):
    """An answer the suite would not read: larger than its limit, or not over in time."""

    def __init__(self, reason: str, response: httpx.Response | None = None) -> None:
        super().__init__(reason)
        #: Status and headers, when the head had arrived (for the evidence).
        self.status = response.status_code if response is not None else None
        self.headers = list(response.headers.multi_items()) if response is not None else []


#: How a kept-alive connection the server closed while idle fails the next request on it.
_DROPS = (httpx.RemoteProtocolError, httpx.WriteError, httpx.ReadError)


class _DroppedIdle(Exception):
    """A request lost with the idle connection it was sent on, before any byte of an answer."""


class BoundedReader:
    """Sends requests with a deadline each and reads their answers up to a limit."""

    def __init__(self, deadline: float = DEADLINE) -> None:
        self.deadline = deadline
        #: The sockets of the layer's open connections (forgotten as the pool drops them).
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        #: Answers that missed the deadline, by endpoint (its address without the query).
        self._late: dict[str, int] = {}

    def send(
        self, client: httpx.Client, request: httpx.Request, limit: int
    ) -> tuple[httpx.Response, list[tuple[str, str]]]:
        """The answer to `request`, read whole (AnswerUnread past a bound; httpx's errors for
        transport failures), and its headers as received (the answer's own lack those that no
        longer hold of a decoded body)."""
        late = self._late.get(_where(request), 0)
        if late >= GIVE_UP_AFTER:
            raise AnswerUnread(
                f"{_where(request)} did not finish {late} answers within {self.deadline:g} s: "
                "the suite no longer asks it in this run"
            )
        while True:  # ends: each drop takes a kept connection out of the pool, and then
            try:  # a request on a connection of its own does not raise _DroppedIdle
                return self._attempt(client, request, limit)
            except _DroppedIdle:
                continue

    def _attempt(
        self, client: httpx.Client, request: httpx.Request, limit: int
    ) -> tuple[httpx.Response, list[tuple[str, str]]]:
        watch = _Deadline(self.deadline, self._sockets)
        request.extensions["trace"] = watch.trace
        head: httpx.Response | None = None
        try:
            with watch:
                head = client.send(request, stream=True)
                try:
                    body = _read(head, limit)
                finally:
                    head.close()
        except httpx.TransportError as exc:
            if watch.fired:
                raise self._too_slow(request, head) from None
            if head is None and not watch.connected and isinstance(exc, _DROPS):
                raise _DroppedIdle from exc
            raise
        if watch.fired:
            raise self._too_slow(request, head)
        received = list(head.headers.multi_items())
        extensions = {k: v for k, v in head.extensions.items() if k != "network_stream"}
        response = httpx.Response(
            head.status_code,
            headers=[(k, v) for k, v in received if k.lower() not in _DECODED],
            content=body,
            request=request,
            extensions=extensions,
        )
        return response, received

    def _too_slow(self, request: httpx.Request, head: httpx.Response | None) -> AnswerUnread:
        self._late[_where(request)] = self._late.get(_where(request), 0) + 1
        return AnswerUnread(
            f"the answer to {request.method} {_where(request)} did not finish within "
            f"{self.deadline:g} s: the suite stopped waiting",
            head,
        )


def _read(head: httpx.Response, limit: int) -> bytes:
    """The decoded body, refused past `limit` bytes (declared or counted)."""
    declared = head.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(head, limit, f"it declared {int(declared):,} bytes")
    chunks: list[bytes] = []
    size = 0
    for chunk in head.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise _too_large(head, limit, f"{size:,} bytes read when the suite stopped")
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(head: httpx.Response, limit: int, detail: str) -> AnswerUnread:
    return AnswerUnread(
        f"the answer to {head.request.method} {_where(head.request)} (HTTP {head.status_code}) "
        f"is larger than {limit // KB:,} kB ({detail}): the suite does not read it",
        head,
    )


def _where(request: httpx.Request) -> str:
    """The request's address without its query (which may hold secrets)."""
    return str(request.url.copy_with(query=None, fragment=None))


class _Deadline:
    """One request's deadline: shuts down every socket of the layer when it passes."""

    def __init__(self, seconds: float, sockets: weakref.WeakSet[socket.socket]) -> None:
        self.fired = False
        #: Whether the request opened a connection (not: sent on one the pool kept).
        self.connected = False
        self._sockets = sockets
        #: Duplicates of the raw sockets this request opened (TLS takes the originals over
        #: before its handshake, which a shutdown of a duplicate still ends).
        self._raw: list[socket.socket] = []
        self._lock = threading.Lock()
        self._over = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def trace(self, name: str, info: dict[str, object]) -> None:
        """httpx's trace hook: learn each connection's socket as it opens."""
        if name == "connection.connect_tcp.started":
            self.connected = True
        if name not in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            return
        get = getattr(info.get("return_value"), "get_extra_info", None)
        sock = get("socket") if get is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.add(sock)
            if name == "connection.connect_tcp.complete":
                self._raw.append(sock.dup())
            if self.fired:
                self._shut_all()

    def _fire(self) -> None:
        with self._lock:
            if not self._over:
                self.fired = True
                self._shut_all()

    def _shut_all(self) -> None:
        for sock in [*self._raw, *self._sockets]:
            with contextlib.suppress(OSError):  # closed meanwhile
                # the plain socket's shutdown, also for a TLS socket: the connection ends for
                # both sides and a blocked read returns, whatever the TLS layer is doing
                socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            self._over = True
            for raw in self._raw:
                raw.close()
            self._raw.clear()
