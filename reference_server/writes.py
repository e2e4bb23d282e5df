"""A response's head and body in one write: one TLS record and one send instead of two.

uvicorn writes the head when the application sends `http.response.start` and the body at
`http.response.body`; over TLS each write is a record of its own, a pass through asyncio's
SSL layer and a system call, which cost a token or userinfo request about as much CPU as the
routing and middleware of the application. `HeadWithBody` stands in for the transport a
request's cycle writes to (protocol.py sets it): the head waits for the next write. uvicorn
writes one for every `http.response.body` but a HEAD request's, so the answer to a HEAD is
never held; an application that stops after the head has its connection closed, which sends
the head first; an interim answer (100 Continue) is never held.
"""

from __future__ import annotations

import asyncio
from typing import Any

_RESPONSE_HEAD = b"HTTP/1.1 "
_INTERIM = b"HTTP/1.1 1"


class HeadWithBody:
    """The transport as one request's cycle sees it; everything but `write` and `close`
    goes to the connection's transport as it is."""

    __slots__ = ("_held", "_holds", "_transport")

    def __init__(self, transport: asyncio.Transport, method: str) -> None:
        self._transport = transport
        self._holds = method != "HEAD"  # uvicorn writes no body after a HEAD's head
        self._held = b""

    def write(self, data: bytes) -> None:
        if self._held:
            held, self._held = self._held, b""
            self._transport.write(held + data)
        elif self._holds and data.startswith(_RESPONSE_HEAD) and not data.startswith(_INTERIM):
            self._held = data
        else:
            self._transport.write(data)

    def flush(self) -> None:
        """What is held, now."""
        if self._held:
            held, self._held = self._held, b""
            self._transport.write(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)
