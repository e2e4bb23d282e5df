"""Transport: HTTPS only (spec 4, 5.4, 8), and no protocol older than TLS 1.2 (RFC 9700 2, BCP 195).

A bearer token or client secret sent in clear text must get no answer at all: there is no
plain-HTTP listener, so the server never reads (let alone processes) such a request.
"""

from __future__ import annotations

import socket
import ssl

import pytest

from .helpers import World


def _address(site: World) -> tuple[str, int]:
    host, port = site.server.base_url.removeprefix("https://").rsplit(":", 1)
    return host, int(port)


def test_plain_http_gets_no_http_answer(site: World, client):
    assert client.get("/_test/clock").status_code == 200  # the server is up, over TLS
    request = (
        b"POST /oauth2/token HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 47\r\n\r\n"
        b"grant_type=refresh_token&refresh_token=abcdefg"
    )
    with socket.create_connection(_address(site), timeout=5) as raw:
        raw.sendall(request)
        try:
            answer = raw.recv(4096)
        except (ConnectionResetError, TimeoutError):
            answer = b""
    assert not answer.startswith(b"HTTP/"), answer[:200]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("version", ["TLSv1", "TLSv1_1"])
def test_tls_older_than_1_2_is_refused(site: World, version: str):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(site.server.ca_file)
    try:
        context.minimum_version = getattr(ssl.TLSVersion, version)
        context.maximum_version = getattr(ssl.TLSVersion, version)
        context.set_ciphers("ALL:@SECLEVEL=0")
    except (ValueError, ssl.SSLError):
        pytest.skip(f"this OpenSSL cannot even offer {version}")  # the client side cannot try
    host, port = _address(site)
    with (
        socket.create_connection((host, port), timeout=5) as raw,
        pytest.raises((ssl.SSLError, ConnectionResetError)),
    ):
        context.wrap_socket(raw, server_hostname=host)


def test_tls_1_2_and_1_3_work(site: World):
    host, port = _address(site)
    for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
        context = ssl.create_default_context(cafile=site.server.ca_file)
        context.minimum_version = context.maximum_version = version
        with (
            socket.create_connection((host, port), timeout=5) as raw,
            context.wrap_socket(raw, server_hostname=host) as tls,
        ):
            assert tls.version() == version.name.replace("_", ".")


def test_idle_and_half_sent_connections_do_not_starve_others(site: World, client):
    """Slowloris-style load: hundreds of silent sockets and requests whose bodies never come."""
    host, port = _address(site)
    context = site.server.ssl_context()
    held: list[socket.socket] = []
    try:
        held += [socket.create_connection((host, port), timeout=5) for _ in range(200)]
        for _ in range(30):
            tls = context.wrap_socket(
                socket.create_connection((host, port), timeout=5), server_hostname=host
            )
            tls.sendall(
                b"POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 10000\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\n\r\ngrant_type="
            )
            held.append(tls)
        answer = client.get("/oauth2/userinfo")
        assert answer.status_code == 401  # served, and as usual
    finally:
        for sock in held:
            sock.close()
