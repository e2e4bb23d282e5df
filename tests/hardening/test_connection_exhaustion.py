"""Connections that hold a descriptor and do nothing: TLS handshakes, half-sent heads.

1. Connections that never sent a ClientHello were held 60 s (asyncio's default), outside the
   connection cap and the head timeout: 5,000 cost 265 MB, 20,000 exhausted the descriptors.
2. 3,000 TLS connections each sending half a head left 3,018 descriptors open 12 s later: the
   cap "evicted" the same dying connection for every newcomer.

Each test counts the server process's open descriptors (/proc/<pid>/fd). Every wait is a
bound far from both outcomes, not a measure of speed.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import httpx
import pytest
from soak_lib.attacks import HALF_HEAD, address, descriptors, until

from reference_server.launcher import ServerProcess

CAP = 50
ATTACKERS = 6 * CAP
SLACK = 10  # descriptors a moment's newcomers may hold above the cap
WAIT = 20.0  # far below the 60 s of before, far above the few seconds of now


_AT_START: dict[int, int] = {}  # server pid -> its descriptors once started


def _start(tmp_path_factory: pytest.TempPathFactory, name: str, *options: str) -> ServerProcess:
    data_dir = tmp_path_factory.mktemp(name) / "data"
    server = ServerProcess(data_dir, extra_args=("--max-connections", str(CAP), *options))
    server.start()
    assert server.process is not None
    _served(server)  # the first request opens what the server keeps open
    _AT_START[server.process.pid] = descriptors(server.process.pid)
    return server


@pytest.fixture(scope="module")
def patient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Timeouts far longer than any wait here: only the cap can close connections."""
    server = _start(tmp_path_factory, "patient", "--header-timeout", "120")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def brisk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = _start(tmp_path_factory, "brisk", "--handshake-timeout", "2")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def hurried(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A long handshake timeout, a short head timeout: the head's counts from the start."""
    server = _start(
        tmp_path_factory, "hurried", "--handshake-timeout", "120", "--header-timeout", "2"
    )
    yield server
    server.stop()


def _idle_descriptors(server: ServerProcess) -> int:
    """The server's descriptors once the last test's connections are gone."""
    assert server.process is not None
    pid = server.process.pid
    until(lambda: descriptors(pid) <= _AT_START[pid], WAIT)
    return descriptors(pid)


def _silent_connections(server: ServerProcess, count: int) -> list[socket.socket]:
    return [socket.create_connection(address(server), timeout=WAIT) for _ in range(count)]


def _served(server: ServerProcess) -> bool:
    with httpx.Client(verify=server.ssl_context(), timeout=WAIT) as http:
        return http.get(server.url("/oauth2/userinfo")).status_code == 401


def _closed_by_the_server(server: ServerProcess) -> bool:
    """A connection that sends nothing at all: does the server end it within WAIT?"""
    with socket.create_connection(address(server), timeout=WAIT) as silent:
        try:
            return silent.recv(1) == b""
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False


def test_a_connection_without_a_client_hello_is_closed_at_the_handshake_timeout(
    brisk: ServerProcess,
):
    assert _closed_by_the_server(brisk), f"a silent connection was still open after {WAIT} s"


def test_the_head_timeout_covers_the_handshake(hurried: ServerProcess):
    assert _closed_by_the_server(hurried), f"a silent connection was still open after {WAIT} s"


def test_silent_handshakes_count_toward_the_connection_cap(patient: ServerProcess):
    assert patient.process is not None
    pid, idle = patient.process.pid, _idle_descriptors(patient)
    held = _silent_connections(patient, ATTACKERS)
    try:
        bounded = until(lambda: descriptors(pid) <= idle + CAP + SLACK, WAIT)
        assert bounded is not None, (
            f"{descriptors(pid)} descriptors open (idle: {idle}, cap: {CAP}) with "
            f"{ATTACKERS} connections that never began their TLS handshake"
        )
        assert _served(patient)  # a normal client still gets in
    finally:
        for sock in held:
            sock.close()


async def _half_heads(server: ServerProcess, count: int) -> list[asyncio.StreamWriter]:
    host, port = address(server)
    writers = []
    for _ in range(count):
        try:
            _, writer = await asyncio.open_connection(
                host, port, ssl=server.ssl_context(), server_hostname=host
            )
        except OSError:
            continue  # closed while its handshake was under way: one of the evicted
        writer.write(HALF_HEAD)
        writers.append(writer)
    return writers


def test_half_sent_heads_cannot_hold_more_descriptors_than_the_cap(patient: ServerProcess):
    assert patient.process is not None
    pid, idle = patient.process.pid, _idle_descriptors(patient)

    async def attack() -> float | None:
        writers = await _half_heads(patient, ATTACKERS)
        try:
            return await asyncio.to_thread(
                until, lambda: descriptors(pid) <= idle + CAP + SLACK, WAIT
            )
        finally:
            for writer in writers:
                writer.transport.abort()

    bounded = asyncio.run(attack())
    assert bounded is not None, (
        f"{descriptors(pid)} descriptors open (idle: {idle}, cap: {CAP}) with "
        f"{ATTACKERS} connections that sent half a request head"
    )
    assert _served(patient)
