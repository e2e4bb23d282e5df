"""The loopback listener on both stacks, against forged errors, and on a port just released.

A local process holding [::1]:PORT must not receive the code (the
redirect URI says ``localhost``, which the browser may try as ::1 first); an error without
the login's ``state`` neither ends the login nor shows its text; a fixed port is usable
again right after the previous login (TIME_WAIT).
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from client_kit import _errors, _loopback_server
from client_kit._cli_hints import explain
from client_kit._loopback import LoopbackListener
from client_kit._session import Session
from tests.kit.helpers import CLIENT_ID, CLIENT_SECRET, FakeUI, http_get, query, redirect_with
from tests.kit.test_login import browser, server  # noqa: F401 - the respx token endpoint


def free_port() -> int:
    """A port free on both loopback addresses at the time of asking."""
    for _ in range(20):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        with socket.socket(socket.AF_INET6) as probe6:
            try:
                probe6.bind(("::1", port))
            except OSError:
                continue
        return port
    raise AssertionError("no free port on both loopback addresses")


@contextmanager
def squatter(port: int) -> Iterator[socket.socket]:
    """A local process listening on [::1]:port, as the attacker would (address reuse on)."""
    sock = socket.socket(socket.AF_INET6)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    try:
        sock.bind(("::1", port))
        sock.listen()
        yield sock
    finally:
        sock.close()


def can_bind_v6(port: int) -> bool:
    with socket.socket(socket.AF_INET6) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("::1", port))
        except OSError:
            return False
        return True


# -- 13. both stacks -----------------------------------------------------------------------


def test_the_listener_holds_127_0_0_1_and_ipv6_loopback_on_one_port() -> None:
    with LoopbackListener("/callback") as listener:
        listener.expected_state = "good-state"
        assert listener.redirect_uri == f"http://localhost:{listener.port}/callback"
        assert not can_bind_v6(listener.port), "[::1] of the listener's port was left free"
        url = f"http://[::1]:{listener.port}/callback?code=C6&state=good-state"
        status, _ = http_get(url)
        assert status == 200
        assert listener.results.get(timeout=10)[1]["code"] == "C6"


def test_a_fixed_port_whose_ipv6_twin_is_taken_is_refused() -> None:
    taken, spare = free_port(), free_port()
    with squatter(taken):
        with pytest.raises(_errors.PortUnavailable, match=rf"\[::1\]:{taken}") as info:
            LoopbackListener("/cb", [taken]).start()
        assert info.value.ports == (taken,) and "--port" in explain(info.value)
        # the next registered port is used instead, both halves of it
        with LoopbackListener("/cb", [taken, spare]) as listener:
            assert listener.port == spare
            assert not can_bind_v6(spare)


def test_a_login_does_not_start_while_a_process_squats_ipv6_loopback(
    meta_profile,
    memory_store,
    server,  # noqa: F811
) -> None:
    port = free_port()
    ui = FakeUI(browser=browser())
    with squatter(port) as attacker:
        attacker.settimeout(0)
        session = Session(meta_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=ui)
        with session, pytest.raises(_errors.PortUnavailable, match=rf"\[::1\]:{port}"):
            session.login(ports=[port])
        with pytest.raises(BlockingIOError):
            attacker.accept()  # nobody was sent to it
    assert ui.opened == [] and server["token"] == []


# -- 14. a forged error --------------------------------------------------------------------


FORGED = "error=access_denied&error_description=Your+account+is+locked.+Call+0800-EVIL"


def test_an_error_without_state_neither_ends_the_login_nor_shows_its_text() -> None:
    with LoopbackListener("/callback", app_name="Test App") as listener:
        listener.expected_state = "good-state"
        status, page = http_get(f"http://127.0.0.1:{listener.port}/callback?{FORGED}")
        assert status == 400 and "does not belong" in page
        assert "0800-EVIL" not in page and "locked" not in page
        assert listener.results.empty()
        # the login goes on: the real answer is still taken
        status, _ = http_get(
            f"http://127.0.0.1:{listener.port}/callback?code=REAL&state=good-state"
        )
        assert status == 200
        assert listener.results.get(timeout=10)[1] == {"code": "REAL", "state": "good-state"}


def test_a_login_survives_a_forged_error(mb_profile, memory_store, server) -> None:  # noqa: F811
    def run(url: str) -> None:
        status, page = http_get(f"{query(url)['redirect_uri']}?{FORGED}")
        assert status == 400 and "0800-EVIL" not in page
        http_get(redirect_with(url, code="REAL", state=query(url)["state"]))

    ui = FakeUI(browser=run)
    with Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=ui) as session:
        tokens = session.login(timeout=60)
    assert tokens.access_token == "access-1"
    assert [form["code"] for form in server["token"]] == ["REAL"]
    assert not any("0800-EVIL" in line for line in ui.shown)


# -- 15. a fixed port again right after a login ---------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "[::1]"])
def test_a_fixed_port_is_free_again_right_after_a_login(host: str) -> None:
    port = free_port()
    for code in ("FIRST", "SECOND"):
        # the listener closes each answered connection first: its side waits in TIME_WAIT
        with LoopbackListener("/cb", [port]) as listener:
            listener.expected_state = "s"
            status, _ = http_get(f"http://{host}:{port}/cb?code={code}&state=s")
            assert status == 200
            assert listener.results.get(timeout=10)[1]["code"] == code


def test_two_logins_in_a_row_on_one_registered_port(
    meta_profile,
    memory_store,
    server,  # noqa: F811
) -> None:
    port = free_port()
    for code in ("CODE-1", "CODE-2"):
        ui = FakeUI(browser=browser(code))
        with Session(meta_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=ui) as s:
            s.login(ports=[port], timeout=60)
        assert query(ui.opened[0])["redirect_uri"] == f"http://localhost:{port}/callback"
    assert [form["code"] for form in server["token"]] == ["CODE-1", "CODE-2"]


def test_a_free_port_whose_ipv6_twin_is_taken_is_passed_over(monkeypatch) -> None:
    refused: list[int] = []
    real = _loopback_server._ServerV6

    class FirstOneTaken(real):  # the first free port's [::1] is someone else's
        def __init__(self, address, handler) -> None:
            if not refused:
                refused.append(address[1])
                raise OSError(errno.EADDRINUSE, "in use")
            super().__init__(address, handler)

    monkeypatch.setattr(_loopback_server, "_ServerV6", FirstOneTaken)
    with LoopbackListener("/cb") as listener:
        assert refused and listener.port != refused[0]
        assert len(listener._servers) == 2 and not can_bind_v6(listener.port)


def test_without_an_ipv6_loopback_127_0_0_1_alone_serves(monkeypatch) -> None:
    class NoIPv6(_loopback_server._ServerV6):
        def __init__(self, address, handler) -> None:
            raise OSError(errno.EADDRNOTAVAIL, "cannot assign requested address")

    monkeypatch.setattr(_loopback_server, "_ServerV6", NoIPv6)
    with LoopbackListener("/cb") as listener:
        listener.expected_state = "s"
        assert [s.server_address[0] for s in listener._servers] == ["127.0.0.1"]
        status, _ = http_get(f"http://127.0.0.1:{listener.port}/cb?code=C&state=s")
        assert status == 200
