"""The file descriptors a worker may open, and the connection cap that fits in them.

A worker holds one descriptor per connection, from its first TCP byte (TLS handshakes count),
and a few of its own: the listening socket, the database and its -wal and -shm files on three
connections (requests, checkpoints, purge), the event loop's, the log. Past the limit accept()
fails with EMFILE: asyncio then stops accepting for a second at a time, uvloop accepts and
drops what waits, and every client fails alike. At the common limit of 1,024 a thousand
silent connections did it.

So `serve()` raises the soft limit to the hard one where allowed, and keeps the cap where it
holds: the cap, plus what one burst can accept before the cap acts (the listen backlog: the
event loop accepts every waiting connection before it runs their protocols), plus RESERVE.
"""

from __future__ import annotations

import resource
from contextlib import suppress
from dataclasses import dataclass

BACKLOG = 512  # the listen backlog: connections accepted in one go (nginx's default is 511)
RESERVE = 64  # the worker's own descriptors, with room to spare
_CEILING = 1 << 20  # Linux's default nr_open: what an unlimited hard limit can be raised to


@dataclass(frozen=True)
class DescriptorLimit:
    before: int  # the soft limit the server was started with
    soft: int  # the soft limit now: what a worker may open
    hard: int  # the hard limit (RLIM_INFINITY as is)

    @property
    def connections(self) -> int:
        """The largest connection cap this limit holds (may be below 1)."""
        return self.soft - BACKLOG - RESERVE

    def describe(self) -> str:
        raised = f", raised from {self.before}" if self.soft != self.before else ""
        hard = "unlimited" if self.hard == resource.RLIM_INFINITY else str(self.hard)
        return f"{self.soft} file descriptors per worker{raised} (hard limit {hard})"


def raise_limit() -> DescriptorLimit:
    """Raise the soft RLIMIT_NOFILE to the hard limit where the system allows it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = _CEILING if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with suppress(ValueError, OSError):  # a system maximum below the hard limit
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    now = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return DescriptorLimit(soft, _CEILING if now == resource.RLIM_INFINITY else now, hard)


def connection_cap(limit: DescriptorLimit, asked: int | None, default: int) -> int:
    """The cap to serve with: `asked` if the limit holds it, else a ValueError that says why;
    without `asked`, `default` or as many as the limit holds."""
    fits = limit.connections
    if fits < 1:
        raise ValueError(
            f"the descriptor limit is too low to serve: {limit.describe()}, and a worker needs "
            f"{BACKLOG + RESERVE + 1} at least; raise it (ulimit -n)"
        )
    if asked is None:
        return min(default, fits)
    if asked > fits:
        raise ValueError(
            f"--max-connections {asked} cannot hold: {limit.describe()}, of which "
            f"{BACKLOG + RESERVE} are kept for connections accepted in one burst and the "
            f"server's own files; use --max-connections {fits} or less, or raise the limit "
            "(ulimit -n)"
        )
    return asked
