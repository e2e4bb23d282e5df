"""A TLS client over a plain socket that shows what `ssl.SSLSocket` hides: when the server's
close_notify arrives, and when its TCP connection ends.

It behaves like Qt's network stack in Picard: it never answers a close_notify, so a server
that waits for the answer before closing the TCP connection is seen waiting.
"""

from __future__ import annotations

import socket
import ssl
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Ending:
    """How a connection ended, in seconds from the moment the waiting began."""

    close_notify: float | None  # None: no close_notify came
    tcp_closed: float | None  # None: the TCP connection was still open at the bound
    reset: bool = False  # ended by a reset rather than a FIN


class RawTls:
    """TLS through memory buffers over `sock`: every record read is a recv on the socket."""

    def __init__(self, sock: socket.socket, context: ssl.SSLContext, host: str) -> None:
        self.sock = sock
        self._in, self._out = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self._in, self._out, server_hostname=host)

    @classmethod
    def connect(cls, address: tuple[str, int], context: ssl.SSLContext, timeout: float) -> RawTls:
        sock = socket.create_connection(address, timeout=timeout)
        client = cls(sock, context, address[0])
        client.handshake()
        return client

    def _flush(self) -> None:
        data = self._out.read()
        if data:
            self.sock.sendall(data)

    def _receive(self) -> bool:
        """One recv into the TLS buffer; False at the end of the TCP stream."""
        data = self.sock.recv(65536)
        if not data:
            self._in.write_eof()
            return False
        self._in.write(data)
        return True

    def handshake(self) -> None:
        while True:
            try:
                self.tls.do_handshake()
                self._flush()
                return
            except ssl.SSLWantReadError:
                self._flush()
                if not self._receive():
                    raise ConnectionError("the server closed during the handshake") from None

    def send(self, data: bytes) -> None:
        self.tls.write(data)
        self._flush()

    def response(self) -> bytes:
        """One response with a Content-Length body (what the server sends to GET /)."""
        received = b""
        while b"\r\n\r\n" not in received or len(received) < _expected_length(received):
            chunk = self._read_some()
            if not chunk:
                raise ConnectionError("the server's close_notify came mid-response")
            received += chunk
        return received

    def _read_some(self) -> bytes:
        """Some application data; b"" once the server's close_notify was read."""
        while True:
            try:
                return self.tls.read(65536)
            except ssl.SSLWantReadError:
                if not self._receive():
                    raise ConnectionError("the server closed mid-response") from None

    def wait_for_end(self, bound: float) -> Ending:
        """Read until the server's close_notify, then until its FIN; never answer either."""
        started = time.monotonic()
        notify: float | None = None
        try:
            while (elapsed := time.monotonic() - started) < bound:
                self.sock.settimeout(max(0.05, bound - elapsed))
                if notify is not None:
                    if not self.sock.recv(65536):
                        return Ending(notify, time.monotonic() - started)
                    continue
                try:
                    if not self._read_some():  # other application data is ignored
                        notify = time.monotonic() - started
                except ConnectionResetError:
                    raise
                except ConnectionError:  # a FIN with no close_notify before it
                    return Ending(None, time.monotonic() - started)
        except TimeoutError:
            pass
        except ConnectionResetError:
            return Ending(notify, time.monotonic() - started, reset=True)
        return Ending(notify, None)

    def close(self) -> None:
        self.sock.close()


def _expected_length(received: bytes) -> int:
    head, separator, _ = received.partition(b"\r\n\r\n")
    if not separator:
        return len(received) + 1
    for line in head.lower().split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return len(head) + 4 + int(line.split(b":", 1)[1])
    return len(received)
