"""The connection cap and the file descriptor limit.

At the common limit of 1,024 descriptors about a thousand silent connections made every
accept() fail, and every client with it. The server now raises its soft limit to the hard
one where allowed, and keeps the cap where the limit holds it (descriptors.py): it lowers the
default cap and refuses a cap given that cannot hold.
"""

from __future__ import annotations

import resource
import socket
from pathlib import Path

import httpx
import pytest
from soak_lib.attacks import address, descriptors

from reference_server.descriptors import BACKLOG, RESERVE
from reference_server.launcher import ServerError, ServerProcess

LOW = 1024
WAIT = 20.0
_HARD = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
pytestmark = pytest.mark.skipif(
    _HARD != resource.RLIM_INFINITY and _HARD < LOW,
    reason=f"the hard descriptor limit ({_HARD}) is below {LOW}: a server cannot be given it",
)


def _soft_limit(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError("no descriptor limit in /proc")


def test_the_soft_limit_is_raised_to_the_hard_one(tmp_path: Path):
    # A child's hard limit is ours at most.
    hard = 4 * LOW if _HARD == resource.RLIM_INFINITY else min(4 * LOW, _HARD)
    if hard <= LOW:
        pytest.skip(f"this process's hard descriptor limit ({_HARD}) leaves nothing to raise")
    with ServerProcess(tmp_path / "data", descriptors=(LOW, hard)) as server:
        assert server.process is not None
        assert _soft_limit(server.process.pid) == hard
    assert f"raised from {LOW}" in server.log_path.read_text()


def test_a_cap_the_limit_cannot_hold_is_refused(tmp_path: Path):
    server = ServerProcess(
        tmp_path / "data", descriptors=(LOW, LOW), extra_args=("--max-connections", "800")
    )
    with pytest.raises(ServerError):
        server.start()
    log = server.log_path.read_text()
    assert "--max-connections 800 cannot hold" in log
    assert f"use --max-connections {LOW - BACKLOG - RESERVE} or less" in log


def test_at_the_common_limit_a_flood_of_silent_connections_stops_nobody(tmp_path: Path):
    """The default cap, lowered to fit: 1,100 connections that never begin their handshake."""
    with ServerProcess(tmp_path / "data", descriptors=(LOW, LOW)) as server:
        assert server.process is not None
        held = [socket.create_connection(address(server), timeout=WAIT) for _ in range(1100)]
        try:
            with httpx.Client(verify=server.ssl_context(), timeout=WAIT) as http:
                assert http.get(server.url("/oauth2/userinfo")).status_code == 401
            assert descriptors(server.process.pid) < LOW
        finally:
            for sock in held:
                sock.close()
    assert f"at most {LOW - BACKLOG - RESERVE} per worker" in server.log_path.read_text()
