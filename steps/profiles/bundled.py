"""The bundled reference server as a target: started, provisioned, described by a profile."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from reference_server.launcher import ServerProcess

#: Failed guesses per address and name the suite's own throwaway server allows before its
#: guard delays (`mb-oauth-server run --guard-free`): a full run fails on purpose hundreds of
#: times (every near miss on every endpoint and kind of application), which a live service's
#: guard makes the suite pace (`failures_per_minute`); its own server need not be paced.
SUITE_GUARD_FREE = 1_000_000
BUNDLED_USER = "alice"
BUNDLED_EMAIL = "alice@example.org"
BUNDLED_APPS = {
    # role: (application name, type, registered redirect URI)
    "web": ("Conformance web app", "confidential", "https://client.example/callback"),
    "installed": ("Conformance desktop app", "public", "http://localhost/callback"),
    "other_web": ("Conformance other web app", "confidential", "https://other.example/cb"),
}


class SetupError(click.ClickException):
    """The run could not be set up or did not produce results: exit status 2."""

    exit_code = 2


def provision(server: ServerProcess, password: str | None = None) -> dict[str, Any]:
    """Add the test user and the three applications to a running ServerProcess; a profile.

    The applications are registered at the same time: each is a CLI process, and their
    start-up, not the database, is what takes the time."""
    password = password or secrets.token_urlsafe(18)
    server.add_user(BUNDLED_USER, password, email=BUNDLED_EMAIL)
    with ThreadPoolExecutor(len(BUNDLED_APPS)) as pool:
        registered = {
            role: pool.submit(server.add_app, BUNDLED_USER, name, app_type, redirect_uri)
            for role, (name, app_type, redirect_uri) in BUNDLED_APPS.items()
        }
    clients = {}
    for role, (_, _, redirect_uri) in BUNDLED_APPS.items():
        app = registered[role].result()
        clients[role] = {
            "client_id": app["client_id"],
            "client_secret": app["client_secret"],
            "redirect_uri": app.get("redirect_uri", redirect_uri),
        }
    return bundled_profile(server, password, clients)


def bundled_profile(
    server: ServerProcess, password: str, clients: dict[str, dict[str, str]]
) -> dict[str, Any]:
    """The profile of the suite's own server, its user and applications."""
    return {
        "name": "bundled reference server",
        "base_url": server.base_url,
        "ca_file": server.ca_file,
        "known_deviations": [],
        "min_interval": 0.0,
        "failures_per_minute": 0,
        "capabilities": {
            "test_clock": "/_test/clock" if getattr(server, "test_clock", True) else False,
            "oob": True,
            "manual_revocation": True,
            "plain_http_url": "",
        },
        "user": {"username": BUNDLED_USER, "password": password, "email": BUNDLED_EMAIL},
        "clients": clients,
        "consent": {"driver": "form", "preset": "bundled"},
    }


def _missing_server_reason(error: ImportError) -> str:
    """Tell a missing extra from a broken install: the two need different remedies."""
    missing = error.name or ""
    if missing.split(".")[0] == "reference_server":
        return (
            f"the installed mb-oauth is incomplete: its module {missing} is missing, so the "
            "distribution was built without it (reinstalling the same build changes nothing; "
            "build the wheel again from a checkout whose pyproject.toml lists that package)"
        )
    return (
        f"the bundled server needs {missing or error}, which is not installed: "
        "pip install 'mb-oauth[server]'"
    )


@contextlib.contextmanager
def bundled_server(work_dir: Path) -> Iterator[ServerProcess]:
    """The reference server with a test clock, on a free port, in a throwaway data folder."""
    try:
        from reference_server.launcher import ServerProcess
    except ImportError as error:
        raise SetupError(_missing_server_reason(error)) from None
    guard = ("--guard-free", str(SUITE_GUARD_FREE))
    server = ServerProcess(work_dir / "server-data", test_clock=True, extra_args=guard)
    try:
        server.start()
    except Exception as error:
        raise SetupError(f"the bundled server did not start: {error}") from None
    try:
        yield server
    finally:
        server.stop()
