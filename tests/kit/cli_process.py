"""Runs ``mb-oauth`` as a real process against the bundled server (for end-to-end tests)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

#: mb-oauth as a terminal starts it: with Ctrl-C raising KeyboardInterrupt even where the tests
#: themselves were started in the background of a script, which ignores SIGINT in every child
#: (POSIX), so a test's Ctrl-C would reach nobody and the login would hang.
_CLI = [
    sys.executable,
    "-c",
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from client_kit._cli import main; main()",
]


def cli_env(ref_server, app: dict, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MB_OAUTH_")}
    env.update(
        MB_OAUTH_SERVICE=ref_server.base_url,
        MB_OAUTH_CA_BUNDLE=ref_server.ca_file,
        MB_OAUTH_CLIENT_ID=app["client_id"],
        MB_OAUTH_CLIENT_SECRET=app["client_secret"],
        MB_OAUTH_STORE=f"file:{tmp_path / 'store'}",
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
        PYTHONFAULTHANDLER="1",  # a hang reported with its stacks (see LoginProcess.finish)
    )
    return env


def run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_CLI, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


class LoginProcess:
    """``mb-oauth login`` running in the background; hands out the URL it prints."""

    def __init__(self, env: dict[str, str], *args: str, cli: list[str] | None = None) -> None:
        # cli: the command line before ``login`` (default: mb-oauth; e.g. with --debug added)
        self.process = subprocess.Popen(
            [*(cli or _CLI), "login", *args],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stderr_lines: list[str] = []
        self._url: str | None = None
        self._found = threading.Event()
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr_lines.append(line)
            # the URL alone on its line (not a --debug log line of the preflight request)
            if line.startswith("https://") and "/oauth2/authorize?" in line and not self._url:
                self._url = line.strip()
                self._found.set()
        self._found.set()

    def authorization_url(self) -> str:
        self._found.wait(60)
        assert self._url, "".join(self.stderr_lines)
        return self._url

    def finish(self) -> tuple[int, str, str]:
        assert self.process.stdout is not None
        try:  # a hung login fails the test (with its output) instead of hanging the suite
            code = self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: every stack
            self.process.wait(10)
            self._reader.join(10)
            raise AssertionError("mb-oauth login hung:\n" + "".join(self.stderr_lines)) from None
        stdout = self.process.stdout.read()
        self._reader.join(60)  # the last lines (the error message) may still be in the pipe
        return code, stdout, "".join(self.stderr_lines)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def headless_env(ref_server, app: dict, tmp_path: Path) -> dict[str, str]:
    env = cli_env(ref_server, app, tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER", "SSH_CONNECTION", "MB_OAUTH_NO_BROWSER"):
        env.pop(name, None)
    return env
