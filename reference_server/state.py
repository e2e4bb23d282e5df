"""What every request handler needs: the store, the clock and the guard (no web framework here).

`app.create_app` keeps one on the application; `inbound.server(request)` finds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .clock import ServerClock, SystemClock, TestClock
from .guard import Guard, GuardPolicy
from .purge import Purger
from .storage import Store

CLOCK_OFFSET_KEY = "test_clock_offset"
DEFAULT_PUBLIC_URL = "https://localhost"


@dataclass
class ServerState:
    store: Store
    clock: ServerClock
    test_clock: TestClock | None = None
    public_url: str = DEFAULT_PUBLIC_URL  # where users reach us; never read from Host
    purger: Purger | None = None
    #: Failures per address and name before the guard delays (GuardPolicy.free).
    guard_free: int = GuardPolicy.free
    guard: Guard = field(init=False)

    def __post_init__(self) -> None:
        self.guard = Guard(self.store, self.clock, GuardPolicy(free=self.guard_free))

    def now(self) -> int:
        return self.clock.now()

    @classmethod
    def open(
        cls,
        database: Path,
        test_clock: bool = False,
        *,
        serving: bool = False,
        public_url: str = DEFAULT_PUBLIC_URL,
        purge_interval: float | None = None,
        durability: str = "normal",
        guard_free: int = GuardPolicy.free,
    ) -> ServerState:
        """`serving`: for a process that answers requests (WAL checkpoints in a thread).

        `purge_interval`: seconds between purges of ended rows (purge.py), None for none.
        `durability`: what a commit survives (storage.SYNCHRONOUS).
        `guard_free`: failed guesses per address and name before the guard delays (guard.py).
        """
        store = Store(database, background_checkpoints=serving, durability=durability)
        purger = Purger(database, purge_interval, test_clock) if purge_interval else None
        if not test_clock:
            return cls(store, SystemClock(), None, public_url, purger, guard_free)
        clock = TestClock(
            lambda: int(store.setting(CLOCK_OFFSET_KEY, "0") or 0),
            lambda offset: store.set_setting(CLOCK_OFFSET_KEY, str(offset)),
        )
        return cls(store, clock, clock, public_url, purger, guard_free)
