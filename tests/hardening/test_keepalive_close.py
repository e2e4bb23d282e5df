"""When the server ends an idle connection, the TCP connection ends with it.

After its idle (or head) timeout the server sent the TLS close_notify and then waited up to
30 s for the client's. MusicBrainz Picard (Qt) never answers a close_notify: it wrote its next
request into that half-closed connection, and Picard 3 lost a refresh, Picard 2 stalled 25 s.
RFC 8446 6.1 and RFC 9112 9.8 let the server close at once. The client here answers nothing
either, and reads the raw socket: the FIN must follow the close_notify, not 30 s later.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from soak_lib.attacks import address
from soak_lib.rawtls import Ending, RawTls

from reference_server.launcher import ServerProcess

TIMEOUT = 2
BOUND = 20.0  # far below the 30 s the server waited, far above the moment it takes now


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    data_dir = tmp_path_factory.mktemp("keepalive") / "data"
    options = ("--idle-timeout", str(TIMEOUT), "--header-timeout", str(TIMEOUT))
    with ServerProcess(data_dir, extra_args=options) as running:
        yield running


def _ending(server: ServerProcess, request: bytes | None) -> Ending:
    client = RawTls.connect(address(server), server.ssl_context(), timeout=BOUND)
    try:
        if request is not None:
            client.send(request)
            assert client.response().startswith(b"HTTP/1.1 200 ")
        return client.wait_for_end(BOUND)
    finally:
        client.close()


@pytest.mark.parametrize(
    "request_bytes",
    [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", None],
    ids=["idle after a response", "no request after the handshake"],
)
def test_the_tcp_connection_ends_right_after_the_close_notify(
    server: ServerProcess, request_bytes: bytes | None
):
    ending = _ending(server, request_bytes)
    assert ending.close_notify is not None, "the server ended without a close_notify"
    assert ending.tcp_closed is not None, (
        f"the TCP connection was still open {BOUND} s after the close_notify: the server "
        "waits for the client's close_notify, which Picard never sends"
    )
    assert not ending.reset, "ended by a reset rather than a FIN"
