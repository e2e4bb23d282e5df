"""Under pytest-xdist, a scenario that moves the target's clock runs alone: it holds an
exclusive lock that every other scenario takes shared, so no code or token of another worker
expires halfway through its scenario. The lock file is in the user's own run-wide folder
(steps/safety/run_files.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from steps.safety.run_files import locked, run_folder


@contextmanager
def clock_lock(config: pytest.Config, *, moves_clock: bool) -> Iterator[None]:
    """Hold the run's clock lock (exclusive when the scenario moves the clock) in a worker;
    nothing to hold in a sequential run."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        yield
        return
    with locked(run_folder() / f"clock-{workerinput['testrunuid']}.lock", exclusive=moves_clock):
        yield
