"""Running the server: HTTPS only, its own CA, restarts, Ctrl-C, the CLI and the store."""

from __future__ import annotations

import json
import signal
import sqlite3
import ssl
import subprocess
import sys
import time

import httpx
import pytest

from reference_server.launcher import ServerProcess
from tests.support.world import App

from .flows import exchange, obtain_code, refresh, works


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reference_server", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def own_server(tmp_path_factory):
    """A server without a test clock, restarted by the tests of this module."""
    server = ServerProcess(tmp_path_factory.mktemp("own") / "data")
    server.start()
    yield server
    server.stop()


class TestTransport:
    def test_plain_http_is_refused(self, world):
        plain = world.server.base_url.replace("https://", "http://")
        with pytest.raises(httpx.TransportError):
            httpx.get(plain + "/oauth2/userinfo", headers={"Authorization": "Bearer x"})

    def test_certificate_is_issued_by_the_printed_ca(self, world):
        assert world.server.ca_file.endswith("ca.pem")
        with pytest.raises(httpx.ConnectError):
            httpx.get(world.server.base_url + "/", verify=ssl.create_default_context())
        assert (
            httpx.get(world.server.base_url + "/", verify=world.server.ssl_context()).status_code
            == 200
        )

    def test_private_keys_are_owner_only(self, world):
        for name in ("ca-key.pem", "server-key.pem"):
            assert (world.server.data_dir / name).stat().st_mode & 0o077 == 0


class TestLifecycle:
    def test_data_survives_a_restart_on_the_same_port(self, own_server):
        own_server.add_user("bob", "bob-password-1")
        made = own_server.add_app("bob", "Desk", "public", "http://localhost/callback")
        client = App(made["client_id"], made["client_secret"], made["redirect_uri"], "public")
        from tests.support.user_agent import UserAgent

        agent = UserAgent(own_server.base_url, own_server.ssl_context(), "bob", "bob-password-1")
        with httpx.Client(base_url=own_server.base_url, verify=own_server.ssl_context()) as h:
            tokens = exchange(h, client, obtain_code(agent, client)).json()
        agent.close()
        url = own_server.base_url
        own_server.stop()
        own_server.start()
        assert own_server.base_url == url
        with httpx.Client(base_url=own_server.base_url, verify=own_server.ssl_context()) as h:
            assert works(h, tokens["access_token"])
            assert refresh(h, client, tokens["refresh_token"]).status_code == 200

    def test_no_test_clock_without_the_flag(self, own_server):
        response = httpx.post(
            own_server.base_url + "/_test/clock",
            data={"advance": "10"},
            verify=own_server.ssl_context(),
        )
        assert response.status_code == 404

    def test_ctrl_c_stops_cleanly(self, tmp_path):
        data = tmp_path / "data"
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "reference_server",
                "run",
                "--data-dir",
                str(data),
                "--port",
                "0",
            ],
            stderr=subprocess.PIPE,
            text=True,
        )
        ready = data / "server.json"
        deadline = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        info = json.loads(ready.read_text())
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=15) == 0
        announced = process.stderr.read()
        assert info["base_url"] in announced
        assert str(data / "ca.pem") in announced
        assert not ready.exists()


class TestCommandLine:
    def test_password_never_comes_from_argv(self):
        help_text = cli("add-user", "--help").stdout
        assert "--password-stdin" in help_text
        assert "--password " not in help_text and "--password=" not in help_text

    def test_add_user_and_app_with_json(self, tmp_path):
        data = str(tmp_path / "d")
        user = cli(
            "add-user",
            "carol",
            "--data-dir",
            data,
            "--email",
            "c@example.org",
            "--password-stdin",
            "--json",
            stdin="carol-password\n",
        )
        assert user.returncode == 0, user.stderr
        assert json.loads(user.stdout)["name"] == "carol"
        app = cli(
            "add-app",
            "--data-dir",
            data,
            "--owner",
            "carol",
            "--name",
            "Tool",
            "--type",
            "confidential",
            "--redirect-uri",
            "https://t.example/cb",
            "--json",
        )
        made = json.loads(app.stdout)
        assert set(made) == {"client_id", "client_secret", "name", "type", "redirect_uri"}
        text = cli(
            "add-app",
            "--data-dir",
            data,
            "--owner",
            "carol",
            "--name",
            "Tool 2",
            "--type",
            "public",
            "--redirect-uri",
            "http://localhost/cb",
        ).stdout
        assert "Client Id:" in text and "Client Secret:" in text

    @pytest.mark.parametrize(
        "args",
        [
            (
                "add-app",
                "--owner",
                "nobody",
                "--name",
                "X",
                "--type",
                "public",
                "--redirect-uri",
                "http://localhost/",
            ),
            (
                "add-app",
                "--owner",
                "dave",
                "--name",
                "X",
                "--type",
                "confidential",
                "--redirect-uri",
                "ftp://x/",
            ),
            ("add-user", "dave", "--password-stdin"),
        ],
    )
    def test_errors_are_clear_and_lose_nothing(self, tmp_path, args):
        data = str(tmp_path / "d")
        assert (
            cli(
                "add-user", "dave", "--data-dir", data, "--password-stdin", stdin="dave-password\n"
            ).returncode
            == 0
        )
        result = cli(*args, "--data-dir", data, stdin="another-password\n")
        assert result.returncode == 1
        assert result.stderr.startswith("Error:")
        assert "Traceback" not in result.stderr


class TestStorage:
    def test_only_hashes_are_stored(self, world, user, http):
        code = obtain_code(user, world.installed)
        issued = exchange(http, world.installed, code).json()
        raw = b"".join(p.read_bytes() for p in world.server.data_dir.glob("server.sqlite3*"))
        for secret in (
            code,
            issued["access_token"],
            issued["refresh_token"],
            world.installed.client_secret,
            world.password,
        ):
            assert secret.encode() not in raw

    def test_wal_mode(self, world):
        db = sqlite3.connect(world.server.data_dir / "server.sqlite3")
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        db.close()

    def test_tokens_carry_at_least_128_bits(self, world, user, http):
        issued = exchange(http, world.installed, obtain_code(user, world.installed)).json()
        for token in (issued["access_token"], issued["refresh_token"]):
            assert len(token) * 6 >= 128
        assert (
            len(
                {
                    exchange(http, world.installed, obtain_code(user, world.installed)).json()[
                        "access_token"
                    ]
                    for _ in range(3)
                }
            )
            == 3
        )
