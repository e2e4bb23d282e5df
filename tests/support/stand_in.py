"""A stand-in provider run as a child process of the tests: started on a free loopback port,
ready when it has written its `ready.json`, stopped (the whole process group) at the end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0


@contextmanager
def running_stand_in(module: str, data_dir: Path, *args: str) -> Iterator[dict[str, Any]]:
    """`python -m module --data-dir DATA_DIR ARGS` until the block ends; yields its ready.json.
    Its output goes to DATA_DIR.log."""
    data_dir.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", module, "--data-dir", str(data_dir), *args]
    with Path(f"{data_dir}.log").open("ab") as log:  # the child keeps its own descriptor
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=log, stderr=log, start_new_session=True
        )
    try:
        yield _wait_ready(process, module, data_dir / "ready.json")
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_ready(process: subprocess.Popen[bytes], module: str, ready: Path) -> dict[str, Any]:
    deadline = time.monotonic() + START_TIMEOUT
    while not ready.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{module} did not start (see {ready.parent}.log)")
        time.sleep(0.05)
    return json.loads(ready.read_text())
