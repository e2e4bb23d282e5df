"""Request heads of bounded size, slow clients timed out, a connection cap.

One server of its own with short timeouts and a small cap, so that every limit is reached in
seconds. Every wait is bounded; no test measures speed.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import ssl
import time
from collections.abc import Iterator

import httpx
import pytest

from reference_server.launcher import ServerProcess
from reference_server.limits import Limits

HEADER_TIMEOUT, BODY_TIMEOUT, IDLE_TIMEOUT, CAP = 2, 2, 9, 100
WAIT = 20.0  # the longest any test waits for the server to act (a bound, not a measure)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    options = (
        ("--header-timeout", HEADER_TIMEOUT),
        ("--body-timeout", BODY_TIMEOUT),
        ("--idle-timeout", IDLE_TIMEOUT),
        ("--max-connections", CAP),
    )
    extra = tuple(str(part) for pair in options for part in pair)
    data_dir = tmp_path_factory.mktemp("limits") / "data"
    with ServerProcess(data_dir, extra_args=extra) as running:
        yield running


def _address(server: ServerProcess) -> tuple[str, int]:
    host, port = server.base_url.removeprefix("https://").rsplit(":", 1)
    return host, int(port)


def _connect(server: ServerProcess) -> ssl.SSLSocket:
    host, port = _address(server)
    raw = socket.create_connection((host, port), timeout=WAIT)
    return server.ssl_context().wrap_socket(raw, server_hostname=host)


def _answer(conn: ssl.SSLSocket) -> bytes:
    """Everything the server sends until it closes the connection (bounded by WAIT)."""
    received = b""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            chunk = conn.recv(65536)
        except (ConnectionResetError, ssl.SSLError, BrokenPipeError):
            break
        if not chunk:
            break
        received += chunk
    return received


def _one_response(conn: ssl.SSLSocket) -> bytes:
    """One whole response of a keep-alive connection (head, then Content-Length bytes)."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += conn.recv(65536)
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


def _status(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1.1 "), answer[:200]
    return int(answer[9:12])


def _normal_request_works(server: ServerProcess) -> bool:
    with httpx.Client(verify=server.ssl_context(), timeout=WAIT) as http:
        return http.get(server.url("/")).status_code == 200


# --- sizes ------------------------------------------------------------------------------------

LIMITS = Limits()
OVERSIZED = [
    ("request line", b"GET /?" + b"a" * LIMITS.request_line + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    ("one header", b"GET / HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 9000 + b"\r\n\r\n", 431),
    (
        "many headers",
        b"GET / HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-%d: 1\r\n" % i for i in range(LIMITS.header_count + 1))
        + b"\r\n",
        431,
    ),
    (
        "head total",
        b"GET / HTTP/1.1\r\nHost: x\r\n"
        + b"".join(b"X-%d: %s\r\n" % (i, b"a" * 7000) for i in range(6))
        + b"\r\n",
        431,
    ),
    ("no Host", b"GET / HTTP/1.1\r\n\r\n", 400),
    ("two Hosts", b"GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400),
    (
        "two Authorization headers",
        b"GET /oauth2/userinfo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\n"
        b"Authorization: Bearer b\r\n\r\n",
        400,
    ),
]


@pytest.mark.parametrize(
    ("what", "request_bytes", "status"), OVERSIZED, ids=[o[0] for o in OVERSIZED]
)
def test_an_oversized_or_ambiguous_head_is_refused_and_the_connection_closed(
    server: ServerProcess, what: str, request_bytes: bytes, status: int
):
    with _connect(server) as conn:
        # Refused before we finished sending: the answer is still readable.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, ssl.SSLError):
            conn.sendall(request_bytes)
        answer = _answer(conn)
    assert _status(answer) == status, (what, answer[:300])
    assert b"connection: close" in answer.lower()


def test_a_huge_header_is_cut_off_while_others_are_served(server: ServerProcess):
    """The probe's 200 MiB header (64 MiB here): answered 431 long before it ends."""
    total, chunk = 64 * 1024 * 1024, b"a" * 65536
    with _connect(server) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Huge: ")
        sent = 0
        try:
            while sent < total and not select.select([conn], [], [], 0)[0]:
                conn.sendall(chunk)
                sent += len(chunk)
                if sent == 1024 * 1024:
                    assert _normal_request_works(server)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass
        answer = _answer(conn)
    # 431 once 32 KiB arrived; on a starved machine the head timeout may come first (408).
    assert _status(answer) in (431, 408)
    assert sent < total, "the server read the whole header before answering"
    assert _normal_request_works(server)


# --- slow clients -----------------------------------------------------------------------------

SLOW_KINDS = {
    "silent": b"",
    "partial head": b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ",
    "partial body": (
        b"POST /oauth2/token HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant"
    ),
}


async def _slow_client(server: ServerProcess, first_bytes: bytes) -> bytes | None:
    """Opens a connection, sends a little, then waits; what the server sends before closing."""
    host, port = _address(server)
    try:
        reader, writer = await asyncio.open_connection(
            host, port, ssl=server.ssl_context(), server_hostname=host
        )
    except OSError:
        return None  # refused at the cap: counted by the caller
    if first_bytes:
        writer.write(first_bytes)
        await writer.drain()
    try:
        answer = await asyncio.wait_for(reader.read(), timeout=WAIT)
    except (TimeoutError, ssl.SSLError):
        answer = b"<still open>"
    except ConnectionError:  # reset, or our TLS layer writing to the socket the server closed
        answer = b""
    writer.close()
    return answer


async def _many_slow_clients(server: ServerProcess, per_kind: int) -> dict[str, list]:
    tasks = {
        kind: [asyncio.create_task(_slow_client(server, data)) for _ in range(per_kind)]
        for kind, data in SLOW_KINDS.items()
    }
    await asyncio.sleep(0.5)  # let them connect; the normal client comes now
    normal = await asyncio.to_thread(_normal_request_works, server)
    results = {kind: [await t for t in found] for kind, found in tasks.items()}
    results["normal"] = [normal]
    return results


def test_hundreds_of_slow_clients_do_not_stop_a_normal_one_and_are_closed(server: ServerProcess):
    results = asyncio.run(_many_slow_clients(server, per_kind=100))
    assert results.pop("normal") == [True]
    for kind, answers in results.items():
        assert b"<still open>" not in answers, f"{kind}: a slow connection was never closed"
    # Those that sent part of a request are told why (408), unless evicted at the cap first.
    for kind in ("partial head", "partial body"):
        statuses = {a[9:12] for a in results[kind] if a}
        assert statuses <= {b"408"}, (kind, statuses)


def test_an_idle_keep_alive_connection_outlives_the_header_timeout(server: ServerProcess):
    """Idle between requests is not "slow"; the connection is reused, then closed."""
    with _connect(server) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _status(_one_response(conn)) == 200
        time.sleep(HEADER_TIMEOUT * 2 + 1)  # longer than a head may take, shorter than idle
        conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _status(_one_response(conn)) == 200
        # Then, left idle, it is closed cleanly: no error response, just the end.
        assert _answer(conn) == b""


def test_the_default_keep_alive_suits_desktop_clients():
    """Picard 3 (Qt 6) reuses an idle connection after ~20 s; common servers keep 60-75 s."""
    assert Limits().idle_timeout >= 60


def test_a_refusal_on_a_kept_connection_is_answered_too(server: ServerProcess):
    """The second request of a keep-alive connection gets its 431 like a first one."""
    with _connect(server) as conn:
        conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _status(_one_response(conn)) == 200
        conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 9000 + b"\r\n\r\n")
        assert _status(_answer(conn)) == 431
