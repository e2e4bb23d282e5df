"""The HTTP limits of the server: sizes of a request head, timeouts, the connection cap.

One frozen set of numbers per process. `serve()` hands them to uvicorn's worker processes
through the environment (like the data folder), as JSON.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, replace

ENVIRONMENT_KEY = "MB_OAUTH_SERVER_LIMITS"


@dataclass(frozen=True)
class Limits:
    # Sizes, in bytes, as common servers set them (nginx: 8 KiB lines; Apache: 100 fields).
    request_line: int = 16 * 1024  # the authorize endpoint takes queries of up to 8 KiB
    header_field: int = 8 * 1024  # one header, name and value
    header_total: int = 32 * 1024  # the whole head: request line and every header
    header_count: int = 100
    # Seconds. Slow clients are bounded while they send a request; an idle keep-alive
    # connection may wait as long as common servers allow (desktop clients reuse them).
    handshake_timeout: float = 10.0  # from the TCP connection to the end of the TLS handshake
    header_timeout: float = 20.0  # from a request's first byte (or the connection's start)
    body_timeout: float = 20.0  # from the end of the head to the end of the body
    idle_timeout: float = 75.0  # between requests on a keep-alive connection
    # Connections per worker process, TLS handshakes included; at the cap, the longest-waiting
    # connection that has no request in progress is closed to make room (nginx's "reusing
    # connections"). `serve()` lowers the default where the descriptor limit is lower.
    max_connections: int = 800

    def to_environment(self) -> None:
        os.environ[ENVIRONMENT_KEY] = json.dumps(asdict(self))

    @property
    def sweep_interval(self) -> float:
        """How often deadlines are swept: a quarter of the shortest timeout, a second at most."""
        shortest = min(
            self.handshake_timeout, self.header_timeout, self.body_timeout, self.idle_timeout
        )
        return min(1.0, shortest / 4)

    @classmethod
    def from_environment(cls) -> Limits:
        raw = os.environ.get(ENVIRONMENT_KEY)
        return cls(**json.loads(raw)) if raw else cls()

    def with_timeouts(
        self, header: float, body: float, idle: float, handshake: float | None = None
    ) -> Limits:
        return replace(
            self,
            handshake_timeout=self.handshake_timeout if handshake is None else handshake,
            header_timeout=header,
            body_timeout=body,
            idle_timeout=idle,
        )
