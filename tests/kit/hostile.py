"""A hostile stand-in for the service: real TLS, real sockets, answers that misbehave.

respx answers inside httpx, so it cannot show what a slow or endless answer does to the
kit's sockets, timers and memory; this server does. Each request gets the answer of the
behaviour set for its path (a function writing raw bytes to the TLS socket); it runs in a
thread of the test, and counts what it managed to send.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

Behaviour = Callable[["Exchange"], None]

JSON_HEAD = "HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"


class Exchange:
    """One request and the socket its answer goes to."""

    def __init__(self, server: HostileServer, sock: ssl.SSLSocket, head: str) -> None:
        self.server = server
        self.sock = sock
        self.head = head
        self.sent = 0

    def send(self, data: bytes | str) -> bool:
        """Write; False once the client has gone (or the server stops)."""
        if self.server.stopping.is_set():
            return False
        try:
            self.sock.sendall(data.encode() if isinstance(data, str) else data)
        except OSError:
            return False
        self.sent += len(data)
        self.server.sent_bytes += len(data)
        return True

    def wait(self, seconds: float) -> bool:
        """Sleep (False when the server stops meanwhile)."""
        return not self.server.stopping.wait(seconds)


class HostileServer:
    """``https://127.0.0.1:PORT`` answering each path with its behaviour."""

    def __init__(self, cert_dir: Path) -> None:
        from reference_server.tls import ensure_certificates

        cert_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        files = ensure_certificates(cert_dir, "127.0.0.1")
        self.ca_file = str(files.ca)
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(files.cert, files.key)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"https://127.0.0.1:{self._listener.getsockname()[1]}"
        self.behaviours: dict[str, Behaviour] = {}
        self.stopping = threading.Event()
        self.sent_bytes = 0
        self.requests: list[str] = []

    def __enter__(self) -> HostileServer:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._listener.close()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                raw, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        with contextlib.suppress(OSError), raw:
            raw.settimeout(30)
            with self._context.wrap_socket(raw, server_side=True) as sock:
                head = _read_head(sock)
                path = head.split(" ", 2)[1].split("?")[0] if " " in head else ""
                self.requests.append(head.split("\r\n", 1)[0])
                behaviour = self.behaviours.get(path, not_found)
                behaviour(Exchange(self, sock, head))


def _read_head(sock: ssl.SSLSocket) -> str:
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 65536:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    text = head.decode("latin-1")
    length = next(
        (
            int(line.split(":")[1])
            for line in text.split("\r\n")
            if line.lower().startswith("content-length:")
        ),
        0,
    )
    while len(body) < length:  # the form: read so that the client is not stuck writing
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return text


# -- behaviours -----------------------------------------------------------------------------


def not_found(exchange: Exchange) -> None:
    exchange.send("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


def drip(interval: float, head: bool = False) -> Behaviour:
    """One byte every ``interval`` seconds, for ever: of the body, or (``head``) of the head."""

    def run(exchange: Exchange) -> None:
        text = JSON_HEAD.format(status="200 OK") + "Content-Length: 1000\r\n\r\n"
        if not head:
            exchange.send(text)
        while exchange.send(text[0] if head else " "):
            text = text[1:] or text
            if not exchange.wait(interval):
                return

    return run


def endless(total: int, declare_length: bool) -> Behaviour:
    """A 200 answer of ``total`` bytes (spaces, then a JSON object), sent as fast as read."""

    def run(exchange: Exchange) -> None:
        length = f"Content-Length: {total}\r\n" if declare_length else ""
        chunked = "" if declare_length else "Transfer-Encoding: chunked\r\n"
        if not exchange.send(JSON_HEAD.format(status="200 OK") + length + chunked + "\r\n"):
            return
        block = b" " * 65536
        left = total
        while left > 0:
            piece = block[: min(left, len(block))]
            frame = piece if declare_length else b"%x\r\n%s\r\n" % (len(piece), piece)
            if not exchange.send(frame):
                return
            left -= len(piece)
        if not declare_length:
            exchange.send(b"0\r\n\r\n")

    return run


def answer(status: str, body: bytes | str) -> Behaviour:
    """A fixed answer."""
    data = body.encode() if isinstance(body, str) else body

    def run(exchange: Exchange) -> None:
        head = JSON_HEAD.format(status=status) + f"Content-Length: {len(data)}\r\n\r\n"
        exchange.send(head.encode() + data)

    return run


@contextlib.contextmanager
def hostile(tmp_path: Path) -> Iterator[HostileServer]:
    with HostileServer(tmp_path / "hostile-tls") as server:
        yield server
