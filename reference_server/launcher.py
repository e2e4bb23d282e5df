"""Start the reference server as a child process and provision it: for tests and the suite."""

from __future__ import annotations

import json
import os
import resource
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from .serve import READY_FILE

START_TIMEOUT = 30.0


class ServerError(RuntimeError):
    """The server did not start, or a provisioning command failed."""


class ServerProcess:
    """A reference server on a free loopback port, over HTTPS, with its own data folder."""

    def __init__(
        self,
        data_dir: Path,
        *,
        test_clock: bool = False,
        workers: int = 1,
        host: str = "127.0.0.1",
        port: int = 0,
        extra_args: tuple[str, ...] = (),
        descriptors: tuple[int, int] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.test_clock = test_clock
        self.workers = workers
        self.host = host
        self.port = port
        self.extra_args = extra_args  # more `run` options: timeouts, --public-url, ...
        self.descriptors = descriptors  # (soft, hard) RLIMIT_NOFILE to start with, if given
        self.process: subprocess.Popen[bytes] | None = None
        self.base_url = ""
        self.ca_file = ""

    # lifecycle -------------------------------------------------------------------------

    def _command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "reference_server", *args]

    def start(self) -> ServerProcess:
        ready = self.data_dir / READY_FILE
        args = ["run", "--data-dir", str(self.data_dir), "--host", self.host]
        args += ["--port", str(self.port), "--workers", str(self.workers)]
        if self.test_clock:
            args.append("--test-clock")
        args += self.extra_args
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            self._command(*args),
            stdout=log,
            stderr=log,
            start_new_session=True,
            preexec_fn=self._limit_descriptors if self.descriptors else None,
        )
        log.close()
        deadline = time.monotonic() + START_TIMEOUT
        while (info := self._ready_info(ready)) is None:
            if self.process.poll() is not None:
                raise ServerError(f"the server exited with status {self.process.returncode}")
            if time.monotonic() > deadline:
                self.stop()
                raise ServerError("the server did not start in time")
            time.sleep(0.05)
        self.base_url, self.ca_file = info["base_url"], info["ca_file"]
        # Keep the same port across restarts, so URLs handed out stay valid.
        self.port = int(self.base_url.rsplit(":", 1)[1])
        return self

    def _limit_descriptors(self) -> None:
        assert self.descriptors is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, self.descriptors)

    @property
    def log_path(self) -> Path:
        return self.data_dir.parent / f"{self.data_dir.name}.log"

    def _ready_info(self, ready: Path) -> dict[str, Any] | None:
        """Our server's ready file: one left by an earlier server (or by another one still
        running, which ours then refuses to join) is never read as ours, nor deleted."""
        try:
            info: dict[str, Any] = json.loads(ready.read_text())
        except (OSError, ValueError):
            return None
        assert self.process is not None
        return info if info.get("pid") == self.process.pid else None

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        """SIGKILL the whole server, workers included: a crash, for recovery tests."""
        self.stop(signal.SIGKILL)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # clients ---------------------------------------------------------------------------

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.ca_file)

    def url(self, path: str) -> str:
        return self.base_url + path

    # provisioning ----------------------------------------------------------------------

    def _cli_json(self, args: list[str], stdin: str = "") -> dict[str, Any]:
        result = subprocess.run(
            self._command(*args, "--data-dir", str(self.data_dir), "--json"),
            input=stdin.encode(),
            capture_output=True,
            check=False,
        )
        if result.returncode != 0:
            raise ServerError(result.stderr.decode(errors="replace").strip())
        answer: dict[str, Any] = json.loads(result.stdout)
        return answer

    def add_user(
        self,
        name: str,
        password: str,
        email: str | None = None,
        website: str | None = None,
        gender: str | None = None,
        timezone: str | None = None,
    ) -> dict[str, Any]:
        args = ["add-user", name, "--password-stdin"]
        for option, value in (
            ("--email", email),
            ("--website", website),
            ("--gender", gender),
            ("--timezone", timezone),
        ):
            if value is not None:
                args += [option, value]
        return self._cli_json(args, stdin=password + "\n")

    def add_app(self, owner: str, name: str, app_type: str, redirect_uri: str) -> dict[str, Any]:
        args = ["add-app", "--owner", owner, "--name", name, "--type", app_type]
        return self._cli_json([*args, "--redirect-uri", redirect_uri])

    def advance_clock(self, seconds: int) -> int:
        """Move the test clock forward; returns the new offset."""
        import httpx

        response = httpx.post(
            self.url("/_test/clock"), data={"advance": str(seconds)}, verify=self.ssl_context()
        )
        response.raise_for_status()
        return int(response.json()["offset"])
