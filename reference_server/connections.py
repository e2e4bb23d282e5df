"""The connections of one worker: the cap, and one sweep of their deadlines.

Past `max_connections` a connection is closed at once to make room, so the slow cannot keep a
normal client out: the one that has waited longest without a request in progress (in its TLS
handshake, between requests, or sending a head: nginx's "reusing connections"); if there is
none, the one that has been sending a request body longest. Each eviction closes a distinct
connection: one already closing is no candidate. Before, every newcomer of a second "evicted"
the same dying one, and 3,000 half-sent heads kept 3,018 descriptors open.

The waiting ones sit in a queue by age: a newcomer is the youngest, so it joins at the end,
and the queue is rebuilt (sorted) only once spent; a flood at the cap costs a few operations
per connection, not a scan of all of them. One sweep a second checks every deadline.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import MutableSet
from typing import Any, Protocol

WAITING, SENDING_BODY = 0, 1  # eviction ranks: the first go first


class Connection(Protocol):
    since: float  # when it began to wait (the eviction order)

    def rank(self) -> int | None: ...  # None: not to be evicted (busy, or closing already)
    def evict(self) -> None: ...
    def deadline(self) -> float | None: ...
    def expire(self) -> None: ...


Entry = tuple[float, Connection]


class Roster:
    """The cap and the sweep over uvicorn's set of connections (one per server)."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, members: MutableSet[Any], interval: float
    ) -> None:
        self.loop = loop
        self.members = members
        self.interval = interval
        self._queue: deque[Entry] = deque()  # waiting connections, oldest first (some stale)
        self._sweep = loop.call_later(interval, self.sweep)

    def admit(self, newcomer: Connection, cap: int) -> bool:
        """Make room for `newcomer` past the cap; False when nothing could be closed."""
        if len(self.members) > cap:
            victim = (
                self._oldest_waiting() or self._rebuilt(newcomer) or self._slowest_body(newcomer)
            )
            if victim is None:
                return False
            victim.evict()
        self._join(newcomer)
        return True

    def _join(self, newcomer: Connection) -> None:
        self._queue.append((newcomer.since, newcomer))
        if len(self._queue) > 2 * len(self.members) + 64:  # mostly stale: keep the rest
            self._queue = deque(entry for entry in self._queue if _current(entry))

    def _oldest_waiting(self) -> Connection | None:
        while self._queue:
            entry = self._queue.popleft()
            if _current(entry):
                return entry[1]
        return None

    def _rebuilt(self, newcomer: Connection) -> Connection | None:
        """Connections that began to wait again since the last rebuild join in their place."""
        waiting = [
            (c.since, c) for c in self._connections() if c is not newcomer and c.rank() == WAITING
        ]
        waiting.sort(key=lambda entry: entry[0])
        self._queue = deque(waiting)
        return self._oldest_waiting()

    def _slowest_body(self, newcomer: Connection) -> Connection | None:
        sending = [c for c in self._connections() if c is not newcomer and c.rank() == SENDING_BODY]
        return min(sending, key=lambda c: c.since, default=None)

    def _connections(self) -> list[Connection]:
        return [c for c in self.members if hasattr(c, "rank")]

    def sweep(self) -> None:
        now = self.loop.time()
        for connection in self._connections():
            deadline = connection.deadline()
            if deadline is not None and now >= deadline:
                connection.expire()
        self._sweep = self.loop.call_later(self.interval, self.sweep)


def _current(entry: Entry) -> bool:
    """The entry is the connection as it waits now (not an earlier wait of it)."""
    since, connection = entry
    return connection.since == since and connection.rank() == WAITING


_ROSTERS: dict[int, Roster] = {}


def roster(loop: asyncio.AbstractEventLoop, members: MutableSet[Any], interval: float) -> Roster:
    """The roster of `members`, made (and its sweep started) on first use."""
    found = _ROSTERS.get(id(members))
    if found is None or found.loop is not loop:
        found = _ROSTERS[id(members)] = Roster(loop, members, interval)
    return found
