"""`mb-oauth-conformance --port` (and `make conformance CONFORMANCE_PORT=...`): the bundled
server on the port asked for; a port in use is a setup error naming the port, and the option
belongs to the bundled server only."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from click.testing import CliRunner

from steps.runner import main
from tests.suite.broken.harness import run_conformance

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def held_port() -> Iterator[int]:
    """A loopback port something else listens on."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def free_port() -> int:
    with held_port() as port:
        return port


def test_the_bundled_server_serves_on_the_port_asked_for(tmp_path: Path) -> None:
    port = free_port()
    run = run_conformance(["--port", str(port), "--rule", "PKCE-S256"], tmp_path / "reports")
    assert run.exit_code == 0, run.output[-2000:]
    assert f"Bundled reference server at https://127.0.0.1:{port}\n" in run.output
    assert run.verdicts["target"] == f"https://127.0.0.1:{port}"
    # one rule of the catalogue: never "CONFORMS" for the deployment
    (last,) = [line for line in run.output.splitlines() if line.startswith("Rules:")]
    assert "Only 1 of the" in last and "NO FAILURE IN THE SELECTION" in last, last
    assert "CONFORMS" not in last and run.verdicts["conforms"] is False


def test_a_port_in_use_is_a_setup_error_that_says_so(tmp_path: Path) -> None:
    with held_port() as port:
        run = run_conformance(["--port", str(port)], tmp_path / "reports")
    errors = [line for line in run.output.splitlines() if line.startswith("Error:")]
    assert run.exit_code == 2, run.output[-2000:]
    assert errors == [
        "Error: the bundled server did not start: the server exited with status 1: "
        f"cannot listen on 127.0.0.1:{port}: Address already in use"
    ]


def test_the_port_is_the_bundled_servers_only(tmp_path: Path) -> None:
    profile = tmp_path / "profile.toml"
    profile.write_text('name = "x"\n')
    done = CliRunner().invoke(main, ["--port", "8443", "--profile", str(profile)])
    assert done.exit_code == 2 and "--port is the bundled server's" in done.output
    assert CliRunner().invoke(main, ["--port", "0"]).exit_code == 2  # 1-65535


def test_make_passes_conformance_port_on() -> None:
    dry = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed", "conformance", "CONFORMANCE_PORT=8555"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "mb-oauth-conformance --port 8555" in dry.stdout
