"""Isolation of scenarios: no verdict may depend on what another scenario did.

Real providers revoke whole token families: metabrainz.org kills every token of a client and
user when a used refresh token or a replayed code comes back, and each refresh ends the other
access tokens of that client and user. A scenario that shares a grant with such a scenario, or
merely holds tokens of the same client and user while it runs, can be poisoned by it.

The scenarios fall in two classes, read from their steps (steps/scheduling/writers.py):
- *writers* may change the state of grants on the target: they refresh, revoke, replay a code,
  present a used, revoked or foreign token, or move the clock. Each gets grants of its own (the
  Authorizer, never the shared GrantCache: `GrantCache.get` hands a writer a fresh grant even
  if its feature asks for a shared one).
- *readers* (all others) only read: they may share grants (GrantCache), which keeps the number
  of approvals of a manual run low.

Two rules make the isolation hold whatever the target revokes:
1. A writer runs alone: under pytest-xdist it holds an exclusive lock that every reader takes
   shared (`pytest_runtest_call`); sequentially this holds trivially.
2. Every writer that ran ends an *epoch* (a counter, in a file shared by the xdist workers, in
   the user's own run-wide folder: steps/safety/run_files.py).
   The GrantCache re-issues a shared grant that was issued in an earlier epoch, by a new
   authorization (never by a refresh, which is itself a write).
Proof: a reader R uses a shared grant g only if g was issued in the current epoch, i.e. no
writer finished since g was issued; no writer runs while R runs (rule 1), and none ran while g
was issued (g is issued inside a reader). So no writer acted between g's issue and R's end,
and readers do not change grants. A writer's own tokens are issued inside the writer, after
every earlier writer finished, so earlier writers cannot have touched them either.

Two refinements save approvals without touching that proof:
- A writer's grant of its own may be the shared grant of the current epoch (`GrantCache.take`):
  no writer touched it since it was issued, readers do not change grants, and the writer is its
  last user (it ends the epoch, so no reader gets it again).
- Twins (steps/scheduling/twin_keys.py, steps/run/twins.py) share one run of the steps before
  their first check. A twin that replays them took no step of its own before its checks, so it
  changes nothing and ends no epoch; the shared state is valid only in the epoch that followed
  its recording (no other writer acted since).

Ordering only saves approvals: writers run after all readers, twins one after the other, the
ones that only check first (`pytest_collection_modifyitems`), so a sequential run never
re-issues a shared grant and every twin finds its shared state.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from steps.safety.run_files import locked, read_state, run_folder, write_state
from steps.scheduling.meta import META_KEY
from steps.scheduling.twin_keys import twin_of
from steps.scheduling.writers import is_writer

ISOLATION_KEY = pytest.StashKey["Isolation"]()
#: `as-written` keeps the features' order (readers and writers interleaved): the isolation must
#: hold without the ordering, and tests/suite/test_isolation.py proves it that way.
ORDER_ENV = "MB_OAUTH_SUITE_ORDER"
#: What the epoch's state file says it is (steps/safety/run_files.py).
EPOCH_KIND = "epoch"


@dataclass
class Isolation:
    """Run-wide isolation state: the current scenario's class and the epoch counter."""

    epoch_file: Path | None = None
    writer: bool = False
    _epoch: int = field(default=0, repr=False)

    def epoch(self) -> int:
        """Writers finished so far (in every xdist worker)."""
        if self.epoch_file is None:
            return self._epoch
        count = (read_state(self.epoch_file, EPOCH_KIND) or {}).get("writers", 0)
        return count if isinstance(count, int) else 0

    def end_epoch(self) -> None:
        """A writer finished: grants issued before now may have been touched (written whole:
        the writer holds the writers' lock, no other worker writes meanwhile)."""
        self._epoch += 1
        if self.epoch_file is not None:
            write_state(self.epoch_file, EPOCH_KIND, {"writers": self.epoch() + 1})


def isolation(config: pytest.Config) -> Isolation:
    """The run's isolation state (one per process)."""
    if ISOLATION_KEY not in config.stash:
        workerinput = getattr(config, "workerinput", None)
        path = None
        if workerinput is not None:
            path = run_folder() / f"epoch-{workerinput['testrunuid']}.json"
        config.stash[ISOLATION_KEY] = Isolation(path)
    return config.stash[ISOLATION_KEY]


def _steps(item: pytest.Item) -> list[str] | None:
    meta = item.stash.get(META_KEY, None)
    return None if meta is None else list(meta.steps)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Readers first, writers after them; twins together, those that only check first (stable
    otherwise): fewer shared grants re-issued, every twin after the one that records."""
    if os.environ.get(ORDER_ENV) == "as-written":
        return
    items[:] = run_order(items)


def run_order(items: list[pytest.Item]) -> list[pytest.Item]:
    """The suite's order of the items (see pytest_collection_modifyitems)."""
    first: dict[tuple[str, ...], int] = {}

    def key(pair: tuple[int, pytest.Item]) -> tuple[bool, int, bool]:
        index, item = pair
        meta = item.stash.get(META_KEY, None)
        if meta is None:
            return (False, index, False)
        twin = twin_of(meta.steps, meta.types)
        rank = index if twin is None else first.setdefault(twin.key, index)
        return (is_writer(meta.steps), rank, twin is not None and not twin.pure)

    ranked = sorted(enumerate(items), key=key)
    return [item for _, item in ranked]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    """Mark the scenario's class; a writer runs alone and ends an epoch."""
    steps = _steps(item)
    if steps is None:
        yield
        return
    state = isolation(item.config)
    state.writer = is_writer(steps)
    lock = _lock_file(item.config)
    with locked(lock, exclusive=state.writer) if lock is not None else contextlib.nullcontext():
        try:
            yield
        finally:
            if state.writer:
                state.end_epoch()
            state.writer = False


def _lock_file(config: pytest.Config) -> Path | None:
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return None
    return run_folder() / f"writers-{workerinput['testrunuid']}.lock"
