"""Under pytest-xdist, a scenario that moves the target's clock runs alone: it holds an
exclusive lock that every other scenario takes shared, so no code or token of another worker
expires halfway through its scenario."""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def clock_lock(config: pytest.Config, *, moves_clock: bool) -> Iterator[None]:
    """Hold the run's clock lock (exclusive when the scenario moves the clock) in a worker;
    nothing to hold in a sequential run."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        yield
        return
    lock = Path(tempfile.gettempdir()) / f"mb-oauth-clock-{workerinput['testrunuid']}.lock"
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if moves_clock else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
