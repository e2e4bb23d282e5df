"""Server time, with an optional offset that tests may move forward.

The offset lives in the database so that every worker process sees the same clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol


class ServerClock(Protocol):
    """What tells the server the time: the system's, or a test clock moved forward."""

    def now(self) -> int: ...


class SystemClock:
    """Wall-clock seconds; the only clock of a server started without --test-clock."""

    def now(self) -> int:
        return int(time.time())


class TestClock:
    """Wall clock plus an offset stored in the database, moved only forward."""

    __test__ = False  # not a pytest class

    def __init__(self, read_offset: Callable[[], int], write_offset: Callable[[int], None]) -> None:
        self._read_offset = read_offset
        self._write_offset = write_offset

    def offset(self) -> int:
        return self._read_offset()

    def now(self) -> int:
        return int(time.time()) + self._read_offset()

    def advance(self, seconds: int) -> int:
        if seconds < 0:
            raise ValueError("the test clock only moves forward")
        offset = self._read_offset() + seconds
        self._write_offset(offset)
        return offset
