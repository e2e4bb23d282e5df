"""The servers under test: the reference server and the bare-Starlette baseline."""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

from reference_server.launcher import ServerProcess

from .common import TOOLS, Pinning, free_port


class PinnedServer(ServerProcess):
    """The reference server (and its workers), started under taskset when asked."""

    def __init__(self, data_dir: Path, cpus: str | None, **kwargs) -> None:
        super().__init__(data_dir, **kwargs)
        self.cpus = cpus

    def _command(self, *args: str) -> list[str]:
        return [*Pinning.prefix(self.cpus), *super()._command(*args)]


class BaselineServer:
    """`baseline_app` on the reference server's uvicorn settings and certificate."""

    def __init__(
        self,
        cert: Path,
        key: Path,
        cpus: str | None,
        workers: int,
        log: Path,
        limited: bool = False,
    ) -> None:
        self.cert, self.key, self.cpus, self.workers, self.log = cert, key, cpus, workers, log
        self.limited = limited  # served by reference_server/protocol.py
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> BaselineServer:
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TOOLS), *sys.path])}
        command = [
            *Pinning.prefix(self.cpus),
            sys.executable,
            "-m",
            "bench_lib.baseline_server",
            "--cert",
            str(self.cert),
            "--key",
            str(self.key),
            "--port",
            str(self.port),
            "--workers",
            str(self.workers),
            *(["--limited"] if self.limited else []),
        ]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command, stdout=log, stderr=log, env=env, start_new_session=True
            )
        wait_for_https(self.base_url + "/", self.process)
        return self

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None


def wait_for_https(url: str, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """Until the server answers a TLS handshake (every worker may not be up yet)."""
    port = int(url.split(":")[2].split("/")[0])
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode}")
        try:
            with (
                socket.create_connection(("127.0.0.1", port), timeout=1) as raw,
                context.wrap_socket(raw),
            ):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer in time") from None
            time.sleep(0.05)
