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
from tests.conftest import Client

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
        client = Client(made["client_id"], made["client_secret"], made["redirect_uri"], "public")
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


def _app_args(data: str, owner: str, name: str, kind: str, uri: str) -> tuple[str, ...]:
    return (
        "add-app",
        "--data-dir",
        data,
        "--owner",
        owner,
        "--name",
        name,
        "--type",
        kind,
        "--redirect-uri",
        uri,
    )


@pytest.fixture(scope="module")
def cli_data(own_server) -> str:
    """A data folder made by `run` (the only command that makes one), with the user dave."""
    data = str(own_server.data_dir)
    added = cli("add-user", "dave", "--data-dir", data, "--password-stdin", stdin="dave-pass-1\n")
    assert added.returncode == 0, added.stderr
    return data


class TestCommandLine:
    def test_password_never_comes_from_argv(self):
        help_text = cli("add-user", "--help").stdout
        assert "--password-stdin" in help_text
        assert "--password " not in help_text and "--password=" not in help_text

    def test_add_user_and_app_with_json(self, cli_data):
        user = cli(
            "add-user",
            "carol",
            "--data-dir",
            cli_data,
            "--email",
            "c@example.org",
            "--password-stdin",
            "--json",
            stdin="carol-password\n",
        )
        assert user.returncode == 0, user.stderr
        assert json.loads(user.stdout)["name"] == "carol"
        app = cli(*_app_args(cli_data, "carol", "Tool", "confidential", "https://t.example/cb"))
        made = json.loads(
            cli(
                *_app_args(cli_data, "carol", "Tool 3", "public", "http://localhost/cb"), "--json"
            ).stdout
        )
        assert set(made) == {"client_id", "client_secret", "name", "type", "redirect_uri"}
        labels = [line.split(":")[0] for line in app.stdout.splitlines()]
        assert labels == ["Client ID", "Client Secret", "Name", "Type", "Redirect URI"]

    @pytest.mark.parametrize(
        "args",
        [
            _app_args("DATA", "nobody", "X", "public", "http://localhost/"),
            _app_args("DATA", "dave", "X", "confidential", "ftp://x/"),
            ("add-user", "dave", "--data-dir", "DATA", "--password-stdin"),
        ],
    )
    def test_errors_are_clear_and_lose_nothing(self, cli_data, args):
        result = cli(*(cli_data if a == "DATA" else a for a in args), stdin="another-pass\n")
        assert result.returncode == 1
        assert result.stderr.startswith("Error:")
        assert "Traceback" not in result.stderr


class TestCommandsRefuseWhatWouldSurprise:
    """Issue 12, item 10: the server's commands as a new user meets them."""

    @pytest.mark.parametrize(
        "args",
        [
            ("add-user", "erin", "--password-stdin"),
            (
                "add-app",
                "--owner",
                "erin",
                "--name",
                "X",
                "--type",
                "public",
                "--redirect-uri",
                "http://localhost/cb",
            ),
            ("purge",),
        ],
    )
    def test_only_run_creates_a_data_folder(self, tmp_path, args):
        mistyped = tmp_path / "mistyped"
        result = cli(*args, "--data-dir", str(mistyped), stdin="erin-password\n")
        assert result.returncode == 1
        assert "does not exist" in result.stderr and str(mistyped) in result.stderr
        assert not mistyped.exists()
        folder = tmp_path / "empty"
        folder.mkdir()
        result = cli(*args, "--data-dir", str(folder), stdin="erin-password\n")
        assert result.returncode == 1 and "not a data folder" in result.stderr
        assert list(folder.iterdir()) == []

    @pytest.mark.parametrize("name", ["DAVE", "Dave", "dAvE"])
    def test_user_names_are_unique_regardless_of_case(self, cli_data, name):
        result = cli(
            "add-user", name, "--data-dir", cli_data, "--password-stdin", stdin="other-password\n"
        )
        assert result.returncode == 1
        assert "taken" in result.stderr and "'dave'" in result.stderr

    @pytest.mark.parametrize(
        ("option", "value"),
        [
            ("--email", "not-an-address"),
            ("--email", "a@b"),
            ("--email", "two words@example.org"),
            ("--website", "alice.example"),
            ("--website", "javascript:alert(1)"),
            ("--website", "https://"),
            ("--timezone", "Mars/Olympus"),
            ("--timezone", "../../etc/passwd"),
        ],
    )
    def test_profile_fields_are_validated(self, cli_data, option, value):
        result = cli(
            "add-user",
            "frank",
            option,
            value,
            "--data-dir",
            cli_data,
            "--password-stdin",
            stdin="frank-password\n",
        )
        assert result.returncode == 1
        assert repr(value) in result.stderr
        listed = cli(
            "add-app", *_app_args(cli_data, "frank", "X", "public", "http://localhost/")[1:]
        )
        assert "no user 'frank'" in listed.stderr  # nothing was created

    def test_valid_profile_fields_are_accepted(self, cli_data):
        result = cli(
            "add-user",
            "gina",
            "--email",
            "gina@example.org",
            "--website",
            "https://gina.example/",
            "--timezone",
            "Europe/Berlin",
            "--data-dir",
            cli_data,
            "--password-stdin",
            stdin="gina-password\n",
        )
        assert result.returncode == 0, result.stderr

    def test_application_names_are_unique_per_owner(self, cli_data):
        first = cli(*_app_args(cli_data, "dave", "Tagger", "public", "http://localhost/cb"))
        assert first.returncode == 0, first.stderr
        again = cli(*_app_args(cli_data, "dave", "tagger ", "public", "http://localhost/cb"))
        assert again.returncode == 1 and "'Tagger' already" in again.stderr
        cli("add-user", "hugo", "--data-dir", cli_data, "--password-stdin", stdin="hugo-pass-1\n")
        other = cli(*_app_args(cli_data, "hugo", "Tagger", "public", "http://localhost/cb"))
        assert other.returncode == 0, other.stderr


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
