"""The server's command line: its commands, and what they refuse rather than surprise."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys

import pytest

from .commands import cli


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
    """The server's commands as a new user meets them."""

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


class TestPasswordPrompt:
    """`add-user` on a terminal, as a person types."""

    def test_a_short_password_is_refused_before_it_is_repeated(self, cli_data):
        with Terminal("add-user", "ivy", "--data-dir", cli_data) as terminal:
            terminal.expect("Password: ")
            terminal.type("short")
            told = terminal.expect("Password: |Repeat for confirmation: ")
            assert "at least 8 characters" in told and told.endswith("Password: "), told
            terminal.type("ivy-password")
            terminal.expect("Repeat for confirmation: ")
            terminal.type("ivy-password")
            assert "Created user ivy" in terminal.expect(r"\(id \d+\)\.")
        assert terminal.returncode == 0

    def test_a_bad_user_name_fails_before_any_password_is_asked(self, cli_data):
        result = cli("add-user", "Tag\u200bger", "--data-dir", cli_data, stdin="")
        assert result.returncode == 1 and "U+200B" in result.stderr
        assert "Password" not in result.stderr


class Terminal:
    """A server command run on a pseudo-terminal (it prompts only on one), typed into."""

    def __init__(self, *args: str) -> None:
        self.args = args
        self.returncode: int | None = None

    def __enter__(self) -> Terminal:
        self.master, replica = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "reference_server", *self.args],
            stdin=replica,
            stdout=replica,
            stderr=replica,
            close_fds=True,
        )
        os.close(replica)
        self.seen = ""
        return self

    def __exit__(self, failed: type[BaseException] | None, *_: object) -> None:
        try:
            if failed is None:  # a failed test leaves the command at a prompt: end it now
                self.returncode = self.process.wait(timeout=60)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            os.close(self.master)

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def expect(self, pattern: str) -> str:
        """What the command wrote until `pattern` (a regex) appears at the end of it."""
        start = len(self.seen)
        while not re.search(f"(?:{pattern})\\s*$", self.seen[start:]):
            ready, _, _ = select.select([self.master], [], [], 60)
            assert ready, f"waited a minute for {pattern!r}; the terminal shows {self.seen!r}"
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # the command ended (EIO on Linux)
                chunk = b""
            assert chunk, f"the command ended before {pattern!r}: {self.seen!r}"
            self.seen += chunk.decode(errors="replace").replace("\r\n", "\n")
        return self.seen[start:]
