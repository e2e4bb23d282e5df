"""Start the musicbrainz-server stand-in as a child process, and describe it with the shipped
example profile filled in as a README-following user fills in theirs."""

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

from tests.suite.example_profiles import write_filled_in

ROOT = Path(__file__).resolve().parents[3]
START_TIMEOUT = 30.0


@dataclass(frozen=True)
class MusicBrainzTarget:
    """The running stand-in and the filled-in example profile that describes it."""

    base_url: str
    profile_path: Path
    ready: dict[str, Any]


@contextmanager
def musicbrainz_target(work: Path, defects: tuple[str, ...] = ()) -> Iterator[MusicBrainzTarget]:
    """The stand-in on a free loopback port, until the block ends; `defects` are added faults
    musicbrainz-server does not have (see app.DEFECTS)."""
    data_dir = work / "musicbrainz"
    data_dir.mkdir(parents=True, exist_ok=True)
    log = (work / "musicbrainz.log").open("ab")
    command = [sys.executable, "-m", "tests.suite.musicbrainz.app", "--data-dir", str(data_dir)]
    command += ["--defect", ",".join(defects)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log, start_new_session=True)
    log.close()
    try:
        ready = _wait_ready(process, data_dir / "ready.json")
        path = write_filled_in("musicbrainz", ready, work / "musicbrainz.toml")
        yield MusicBrainzTarget(ready["base_url"], path, ready)
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
            raise RuntimeError(f"the musicbrainz stand-in did not start (see {ready.parent}.log)")
        time.sleep(0.05)
    return json.loads(ready.read_text())
