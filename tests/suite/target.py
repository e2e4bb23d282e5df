"""A bundled server of its own for the suite's tests, and a profile file describing it."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from reference_server.launcher import ServerProcess
from steps.profiles.bundled import SUITE_GUARD_FREE, bundled_deviations

APPS = {
    "web": ("Suite web app", "confidential", "https://client.example/callback"),
    "installed": ("Suite desktop app", "public", "http://localhost/callback"),
    "other_web": ("Suite other web app", "confidential", "https://other.example/cb"),
}


@dataclass
class Target:
    """A provisioned server and the profile that describes it."""

    server: ServerProcess
    profile_path: Path
    password: str
    clients: dict[str, dict[str, str]]

    def secrets(self) -> list[str]:
        """Values that must never appear unmasked in evidence."""
        return [self.password] + [c["client_secret"] for c in self.clients.values()]


def profile_text(
    server: ServerProcess, password: str, clients: dict[str, dict[str, str]], **extra: str
) -> str:
    """A deployment profile for the bundled server (driver and preset overridable)."""
    lines = [
        'name = "bundled server (suite tests)"',
        f"base_url = {json.dumps(server.base_url)}",
        f"ca_file = {json.dumps(str(server.ca_file))}",
        "failures_per_minute = 0",
        "[capabilities]",
        'test_clock = "/_test/clock"',
        "oob = true",
        "manual_revocation = true",
        "[user]",
        'username = "alice"',
        f"password = {json.dumps(password)}",
        'email = "alice@example.org"',
    ]
    for role, client in clients.items():
        lines.append(f"[clients.{role}]")
        lines += [
            f"{key} = {json.dumps(client[key])}"
            for key in ("client_id", "client_secret", "redirect_uri")
        ]
    lines.append("[known_deviations]")  # the rules the server does not meet yet
    lines += [
        f"{json.dumps(rule)} = {json.dumps(why)}" for rule, why in bundled_deviations().items()
    ]
    lines += [
        "[consent]",
        f"driver = {json.dumps(extra.get('driver', 'form'))}",
        'preset = "bundled"',
    ]
    return "\n".join(lines) + "\n"


@contextmanager
def bundled_target(work: Path, guard_free: int | None = SUITE_GUARD_FREE) -> Iterator[Target]:
    """Start a server with a test clock, add alice and the three applications. Its guard lets
    a whole run's deliberate failures through, as the suite's own server does; `guard_free=None`
    keeps the server's default guard (a target that throttles)."""
    password = secrets.token_urlsafe(12)
    guard = ("--guard-free", str(guard_free)) if guard_free is not None else ()
    with ServerProcess(work / "data", test_clock=True, extra_args=guard) as server:
        server.add_user("alice", password, email="alice@example.org")
        clients = {role: server.add_app("alice", *spec) for role, spec in APPS.items()}
        path = work / "profile.toml"
        path.write_text(profile_text(server, password, clients), encoding="utf-8")
        yield Target(server, path, password, clients)
