"""Start the foreign-style provider as a child process and describe it in a profile, as an
operator would write one: its scope vocabulary, truthful capabilities (no out-of-band) and the
built-in `metabrainz` consent driver for its React-shell pages."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steps.profiles.writer import write_profile

ROOT = Path(__file__).resolve().parents[3]
START_TIMEOUT = 30.0
DRIVER = "metabrainz"
RENAMED = ("tag", "rating", "collection", "submit_isrc", "submit_barcode")


@dataclass(frozen=True)
class ForeignTarget:
    """The running provider and the profile file that describes it."""

    base_url: str
    profile_path: Path
    password: str
    clients: dict[str, dict[str, str]]
    #: What the provider announced (base_url, ca_file, password, email, clients).
    ready: dict[str, Any]


def profile_for(ready: dict[str, Any]) -> dict[str, Any]:
    """The deployment profile of the provider (spec scope name = the provider's name)."""
    return {
        "name": "foreign-style provider (metabrainz.org-like)",
        "base_url": ready["base_url"],
        "ca_file": ready["ca_file"],
        "capabilities": {"test_clock": "/_test/clock", "oob": False, "manual_revocation": True},
        "user": {"username": "alice", "password": ready["password"], "email": "alice@example.org"},
        "clients": ready["clients"],
        "consent": {"driver": DRIVER},
        "scopes": {name: f"musicbrainz:{name}" for name in RENAMED},
    }


@contextmanager
def foreign_target(work: Path, redesigned: tuple[str, ...] = ()) -> Iterator[ForeignTarget]:
    """The provider on a free loopback port with a fresh SQLite file, until the block ends;
    `redesigned` pages (login, consent, error, applications) come in a shape no driver knows."""
    data_dir = work / "provider"
    data_dir.mkdir(parents=True, exist_ok=True)
    log = (work / "provider.log").open("ab")
    command = [sys.executable, "-m", "tests.suite.foreign.app", "--data-dir", str(data_dir)]
    command += ["--redesigned", ",".join(redesigned)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log, start_new_session=True)
    log.close()
    try:
        ready = _wait_ready(process, data_dir / "ready.json")
        path = write_profile(work / "foreign-profile.toml", profile_for(ready))
        yield ForeignTarget(ready["base_url"], path, ready["password"], ready["clients"], ready)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_ready(process: subprocess.Popen[bytes], ready: Path) -> dict[str, Any]:
    deadline = time.monotonic() + START_TIMEOUT
    while not ready.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the foreign provider did not start (see {ready.parent}.log)")
        time.sleep(0.05)
    return json.loads(ready.read_text())
