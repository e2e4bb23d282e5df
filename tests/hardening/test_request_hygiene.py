"""Request hygiene: disconnects, Host, file modes, the OOB page.

(Two Authorization headers and a missing Host: see test_http_limits.py, where the protocol
refuses them before the application runs.)
"""

from __future__ import annotations

import socket
import stat
import time
from pathlib import Path

import httpx
import pytest

from reference_server.launcher import ServerProcess
from reference_server.redirects import OOB
from tests.support.user_agent import UserAgent

from .helpers import App, World, authorize_params, exchange, provision, query_of, tokens

WAIT = 15.0  # a bound on waiting for the server's log, not a measure


def _log_after(site: World, offset: int, needle: str) -> str:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        text = site.log_path.read_bytes()[offset:].decode(errors="replace")
        if needle in text:
            time.sleep(0.2)  # let anything that follows the line land too
            return site.log_path.read_bytes()[offset:].decode(errors="replace")
        time.sleep(0.05)
    return site.log_path.read_bytes()[offset:].decode(errors="replace")


def test_a_client_leaving_mid_body_is_one_log_line(site: World):
    host, port = site.server.base_url.removeprefix("https://").rsplit(":", 1)
    offset = site.log_path.stat().st_size
    with socket.create_connection((host, int(port)), timeout=WAIT) as raw:
        conn = site.server.ssl_context().wrap_socket(raw, server_hostname=host)
        conn.sendall(
            b"POST /oauth2/token HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\n"
            b"grant_type=refresh_token&refr"
        )
        time.sleep(0.3)  # the application is now waiting for the rest of the body
        conn.close()
    text = _log_after(site, offset, "client left")
    assert "Traceback" not in text, text[:2000]
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and "client left" in lines[0], lines


def test_the_profile_url_does_not_come_from_the_host_header(site: World, client, agent):
    held = tokens(client, agent, site.installed)
    answer = client.get(
        "/oauth2/userinfo",
        headers={"Authorization": f"Bearer {held['access_token']}", "Host": "evil.example"},
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["profile"].startswith(site.server.base_url + "/user/")


def test_public_url_option_and_a_private_database_in_an_existing_folder(tmp_path: Path):
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o755)  # made beforehand, with the usual umask
    extra = ("--public-url", "https://mb.example")
    with ServerProcess(data_dir, test_clock=True, extra_args=extra) as running:
        site = provision(running)
        try:
            database = data_dir / "server.sqlite3"
            assert stat.S_IMODE(database.stat().st_mode) == 0o600
            for side in ("-wal", "-shm"):
                path = database.with_name(database.name + side)
                if path.exists():
                    assert stat.S_IMODE(path.stat().st_mode) == 0o600, side
            agent = site.agent()
            with site.http() as http:
                held = tokens(http, agent, site.installed)
                answer = http.get(
                    "/oauth2/userinfo", headers={"Authorization": f"Bearer {held['access_token']}"}
                )
            agent.close()
            assert answer.json()["profile"] == f"https://mb.example/user/{site.username}"
        finally:
            site.close()


# --- the out-of-band page ------------------------------------------------------------


def _oob_code(agent: UserAgent, app: App) -> str:
    params = authorize_params(app)
    params["redirect_uri"] = OOB
    location = agent.authorize(params)
    assert location.startswith("/oauth2/oob?"), location
    return query_of(location)["code"]


@pytest.mark.parametrize(
    "text", ["Your account is locked. Call +1 555 0100 to unlock it.", "x" * 32, "AAAA"]
)
def test_the_oob_page_shows_no_text_it_did_not_issue(agent: UserAgent, text: str):
    answer = agent.http.get("/oauth2/oob", params={"code": text, "state": text})
    assert answer.status_code == 400
    assert text not in answer.text and 'id="oob-code"' not in answer.text


def test_the_oob_page_shows_an_issued_code_until_it_is_used(
    site: World, agent: UserAgent, client: httpx.Client
):
    code = _oob_code(agent, site.installed)
    shown = agent.http.get("/oauth2/oob", params={"code": code, "state": "spoof text"})
    assert shown.status_code == 200 and f'id="oob-code">{code}<' in shown.text
    assert "spoof text" not in shown.text
    assert exchange(client, site.installed, code, redirect_uri=OOB).status_code == 200
    assert agent.http.get("/oauth2/oob", params={"code": code}).status_code == 400
