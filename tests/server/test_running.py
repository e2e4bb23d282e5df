"""Running the server: HTTPS only, its own CA, restarts, Ctrl-C and SIGTERM, one server per
data folder, certificate problems and the store. The commands: test_cli.py."""

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

from .commands import cli
from .flows import exchange, obtain_code, refresh, works


class TestTransport:
    @pytest.mark.rule("TRANSPORT-HTTPS-ONLY", "BEARER-HTTP-IGNORED")
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


class TestOneServerPerDataFolder:
    def test_a_second_run_refuses_and_leaves_the_first_alone(self, own_server):
        ready = own_server.data_dir / "server.json"
        before = ready.read_text()
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "reference_server",
                "run",
                "--data-dir",
                str(own_server.data_dir),
                "--port",
                "0",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert second.returncode == 1
        assert "already running" in second.stderr
        assert str(own_server.process.pid) in second.stderr
        assert ready.read_text() == before
        answer = httpx.get(own_server.url("/"), verify=own_server.ssl_context())
        assert answer.status_code == 200


class TestCertificateProblems:
    @pytest.mark.parametrize("problem", ["not-a-certificate", "foreign-key", "missing-ca-key"])
    def test_reported_as_certificate_problems(self, tmp_path, problem):
        source = tmp_path / "source"
        with ServerProcess(source) as made:
            assert made.base_url
        cert, key = source / "server.pem", source / "server-key.pem"
        args = ["run", "--data-dir", str(tmp_path / "data"), "--port", "0"]
        if problem == "not-a-certificate":
            junk = tmp_path / "junk.pem"
            junk.write_text("hello")
            args += ["--cert", str(junk), "--key", str(key)]
        elif problem == "foreign-key":
            args += ["--cert", str(cert), "--key", str(source / "ca-key.pem")]
        else:
            (source / "ca-key.pem").write_text("damaged")
            (source / "server.pem").unlink()
            args = ["run", "--data-dir", str(source), "--port", "0"]
        result = cli(*args)
        assert result.returncode == 1
        assert "certificate problem" in result.stderr
        assert "cannot listen" not in result.stderr and "Traceback" not in result.stderr


class TestSigterm:
    def test_sigterm_stops_cleanly_and_removes_server_json(self, tmp_path):
        server = ServerProcess(tmp_path / "data").start()
        ready = server.data_dir / "server.json"
        assert ready.exists()
        assert server.process is not None
        process = server.process
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert not ready.exists()
        server.process = None


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
