"""One write per response (reference_server/writes.py): the head waits for its body; the
answer to a HEAD, 100 Continue and a head before a close never wait.

The unit tests drive `HeadWithBody` over a recording transport; the last ones talk to the
session's server over a raw TLS socket, byte for byte.
"""

from __future__ import annotations

import socket
import ssl
import time

from reference_server.launcher import ServerProcess
from reference_server.writes import HeadWithBody

HEAD = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"
WAIT = 20.0  # a bound on every wait for the server, not a measure


class _Recorded:
    """A transport that keeps what it is asked to do."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


def _writer(method: str = "GET") -> tuple[HeadWithBody, _Recorded]:
    transport = _Recorded()
    return HeadWithBody(transport, method), transport  # type: ignore[arg-type]


def test_head_and_body_go_in_one_write() -> None:
    writer, transport = _writer("POST")
    writer.write(HEAD)
    assert transport.writes == []
    writer.write(b"{}")
    assert transport.writes == [HEAD + b"{}"]
    writer.write(b"more")  # a body in pieces: the rest as it comes
    assert transport.writes == [HEAD + b"{}", b"more"]


def test_the_answer_to_a_head_request_is_never_held() -> None:
    writer, transport = _writer("HEAD")
    writer.write(HEAD)  # uvicorn writes no body after it
    assert transport.writes == [HEAD]


def test_an_interim_answer_is_never_held() -> None:
    writer, transport = _writer("POST")
    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    assert transport.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]


def test_closing_sends_the_held_head_first() -> None:
    writer, transport = _writer()
    writer.write(HEAD)  # then the application stopped: uvicorn closes the connection
    writer.close()
    assert transport.writes == [HEAD] and transport.closed
    assert writer.is_closing(), "the rest goes to the transport as it is"


def _connect(server: ServerProcess) -> ssl.SSLSocket:
    host, port = server.base_url.removeprefix("https://").rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=WAIT)
    return server.ssl_context().wrap_socket(raw, server_hostname=host)


def _until(conn: ssl.SSLSocket, ending: bytes, received: bytes = b"") -> bytes:
    deadline = time.monotonic() + WAIT
    while not received.endswith(ending) and time.monotonic() < deadline:
        chunk = conn.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def test_a_server_answers_head_and_continue_and_keeps_the_connection(
    server: ServerProcess,
) -> None:
    host = server.base_url.removeprefix("https://")
    with _connect(server) as conn:
        conn.sendall(f"HEAD /oauth2/userinfo HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        head = _until(conn, b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 401 "), head
        body = b"token=nothing&client_id=nobody&client_secret=wrong"
        conn.sendall(
            (
                f"POST /oauth2/revoke HTTP/1.1\r\nHost: {host}\r\nExpect: 100-continue\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
        )
        interim = _until(conn, b"\r\n\r\n")
        assert interim == b"HTTP/1.1 100 Continue\r\n\r\n", interim
        conn.sendall(body)
        answer = _until(conn, b"}")
        assert answer.startswith(b"HTTP/1.1 401 ") and b'"invalid_client"' in answer, answer
