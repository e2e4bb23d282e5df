"""The loopback listener's sockets: reachable from this computer only, and the page is out
before the callback is handed over (client_kit._loopback_server)."""

from __future__ import annotations

import queue
import socket
import subprocess

import pytest

from client_kit._loopback import LoopbackListener
from tests.kit.helpers import (
    GUARD,
    callback,
)


def non_loopback_addresses() -> set[str]:
    """This machine's own addresses that are not loopback ones (may be empty)."""
    import ipaddress

    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.add(str(info[4][0]))
    except OSError:
        pass
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10)
        found.update(out.stdout.split())
    except (OSError, subprocess.SubprocessError):
        pass
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:  # the source address of the default route (UDP connect sends nothing)
            with socket.socket(family, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                found.add(udp.getsockname()[0])
        except OSError:
            pass
    result = set()
    for text in found:
        try:
            address = ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            continue
        if not (address.is_loopback or address.is_unspecified or address.is_link_local):
            result.add(text)
    return result


def test_the_listener_cannot_be_reached_from_other_addresses(listener) -> None:
    assert listener._server.socket.getsockname()[0] == "127.0.0.1"
    for address in sorted(non_loopback_addresses()):
        with pytest.raises(OSError):
            socket.create_connection((address, listener.port), timeout=5).close()
    # still reachable from loopback, and nothing was delivered by the attempts
    assert listener.results.empty()
    assert callback(listener, "code=C&state=good-state")[0] == 200


def handler_answer(listener: LoopbackListener, peer: str, target: str) -> bytes:
    """Feed one request to the listener's handler as if it came from ``peer``."""
    ours, theirs = socket.socketpair()
    try:
        theirs.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        listener._server.RequestHandlerClass(ours, (peer, 40000), listener._server)
        ours.close()
        theirs.settimeout(GUARD)
        chunks = []
        while chunk := theirs.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("peer", ["192.0.2.7", "10.0.0.2", "fd00::2", "::ffff:192.0.2.7", "x"])
def test_the_handler_refuses_a_peer_that_is_not_loopback(listener, peer) -> None:
    answer = handler_answer(listener, peer, "/callback?code=C&state=good-state")
    assert answer.startswith(b"HTTP/1.0 403") and b"Only this computer" in answer
    assert listener.results.empty()
    # the refused request did not end the login: the real callback is still accepted
    assert callback(listener, "code=REAL&state=good-state")[0] == 200


@pytest.mark.parametrize("peer", ["127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"])
def test_the_handler_accepts_loopback_peers(listener, peer) -> None:
    answer = handler_answer(listener, peer, "/callback?code=C&state=good-state")
    assert answer.startswith(b"HTTP/1.0 200")
    assert listener.results.get(timeout=GUARD)[1]["code"] == "C"


class PeekingQueue(queue.Queue):
    """Results queue that records what the browser had received when the callback arrived."""

    def __init__(self, browser_end: socket.socket) -> None:
        super().__init__()
        self.browser_end = browser_end
        self.received_at_delivery: bytes | None = None

    def put(self, item, block=True, timeout=None) -> None:
        self.browser_end.setblocking(False)
        data = b""
        try:
            while chunk := self.browser_end.recv(65536):
                data += chunk
        except BlockingIOError:
            pass
        finally:
            self.browser_end.setblocking(True)
        self.received_at_delivery = data
        super().put(item, block, timeout)


@pytest.mark.parametrize(
    ("query_string", "page"),
    [
        ("code=C&state=good-state", b"Authorization received"),
        ("error=access_denied&state=good-state", b"Login failed"),
    ],
)
def test_the_page_is_complete_before_the_callback_is_delivered(query_string, page) -> None:
    """Once delivered, the login may end and the process exit: the browser has its page."""
    ours, theirs = socket.socketpair()
    results = PeekingQueue(theirs)
    try:
        with LoopbackListener("/callback", results=results) as lst:
            lst.expected_state = "good-state"
            request = f"GET /callback?{query_string} HTTP/1.1\r\nHost: localhost\r\n\r\n"
            theirs.sendall(request.encode())
            lst._server.RequestHandlerClass(ours, ("127.0.0.1", 40000), lst._server)
        assert results.qsize() == 1
        seen = results.received_at_delivery
        assert seen is not None and seen.startswith(b"HTTP/1.0 200")
        assert page in seen and seen.rstrip().endswith(b"</html>")
    finally:
        ours.close()
        theirs.close()
