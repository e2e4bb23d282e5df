"""The listener's launcher and its peers: who may open the login and answer it.

The browser is opened on a page of the listener that forwards it to the authorization URL.
Where the platform says who owns a connection (Linux: /proc/net/tcp), programs of another
user are refused everywhere on the listener; where it cannot tell, the launcher forwards
once, and a second request ends the login (someone else may have come first).
"""

from __future__ import annotations

import os
import socket
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from client_kit._errors import LoginIntercepted
from client_kit._flow import LoginRun, queue_input
from client_kit._loopback import LoopbackListener
from client_kit._peer_owner import kernel_address, owner_in_table, socket_owner
from tests.kit.helpers import follow_launcher, http_get

AUTHORIZE = "https://mb.test/oauth2/authorize?state=good-state&code_challenge=C"
OTHER_USER = os.getuid() + 1


@pytest.fixture
def launched(listener: LoopbackListener) -> tuple[LoopbackListener, str]:
    """The listener with its launcher for AUTHORIZE; and the launcher's path."""
    return listener, urlsplit(listener.launcher(AUTHORIZE)).path


def test_the_launcher_forwards_the_browser_and_names_nothing_of_the_login(launched) -> None:
    listener, path = launched
    launcher = f"http://localhost:{listener.port}{path}"
    assert "state" not in launcher and "challenge" not in launcher
    assert follow_launcher(launcher) == AUTHORIZE  # over a real socket: the owner is us
    assert listener.results.empty()


def test_another_users_program_is_refused_everywhere(launched) -> None:
    listener, path = launched
    for target in (path, "/callback?code=BOBS&state=good-state"):
        decision = listener.decide(target, owner=OTHER_USER)
        assert decision.status is HTTPStatus.FORBIDDEN and decision.location is None
        decision.deliver()
        assert b"good-state" not in decision.body
    assert listener.results.empty()
    # the refusals ended nothing: the user's own browser goes on
    assert listener.decide(path, owner=os.getuid()).location == AUTHORIZE


def test_the_users_own_programs_may_open_the_launcher_again(launched) -> None:
    listener, path = launched
    for _ in range(2):
        assert listener.decide(path, owner=os.getuid()).location == AUTHORIZE
    assert listener.results.empty()


def test_where_no_owner_is_known_a_second_opening_ends_the_login(launched) -> None:
    listener, path = launched
    assert listener.decide(path, owner=None).location == AUTHORIZE
    again = listener.decide(path, owner=None)
    assert again.status is HTTPStatus.CONFLICT and again.location is None
    assert b"opened twice" in again.body
    again.deliver()
    run = LoginRun(_NoExchange(), _request(), queue_input(listener.results, _ignore), timeout=5)
    with pytest.raises(LoginIntercepted, match="opened twice"):
        run.run()


def test_the_launcher_after_the_login_forwards_nobody(launched) -> None:
    listener, path = launched
    assert listener.decide("/callback?code=C&state=good-state").status is HTTPStatus.OK
    assert listener.decide(path, owner=os.getuid()).status is HTTPStatus.GONE


def test_the_owner_of_a_real_loopback_connection_is_this_user() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        accepted, _ = server.accept()
        with client, accepted:
            assert socket_owner(accepted) == (
                os.getuid() if Path("/proc/net/tcp").exists() else None
            )


def test_the_kernel_table_is_read_by_address_and_peer() -> None:
    peer, local = kernel_address("127.0.0.1", 40000), kernel_address("127.0.0.1", 8976)
    other = kernel_address("127.0.0.1", 40001)
    table = "\n".join(
        [
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid",
            f"   0: {local} 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 1",
            f"   1: {other} {local} 01 00000000:00000000 00:00000000 00000000  1001 0 2",
            f"   2: {peer} {local} 01 00000000:00000000 00:00000000 00000000  1002 0 3",
        ]
    )
    assert owner_in_table(table, peer, local) == 1002
    assert owner_in_table(table, kernel_address("127.0.0.1", 40002), local) is None
    assert kernel_address("::1", 8976).endswith(":2310") and len(kernel_address("::1", 1)) == 37


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="no socket owners here")
def test_the_handler_asks_the_kernel_who_is_calling(listener, monkeypatch) -> None:
    """Over a real socket: were the listener another user's, this test's request would be."""
    url = f"http://127.0.0.1:{listener.port}/callback?code=C&state=good-state"
    monkeypatch.setattr("client_kit._loopback._OWN_UID", OTHER_USER)
    assert http_get(url)[0] == 403 and listener.results.empty()
    monkeypatch.undo()
    assert http_get(url)[0] == 200


class _NoExchange:
    def exchange(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("nothing is exchanged after an intercepted login")


def _request():
    from client_kit._authorization import AuthorizationRequest

    return AuthorizationRequest(AUTHORIZE, "http://localhost:1/callback", "good-state")


def _ignore(event: object) -> None:
    return None
