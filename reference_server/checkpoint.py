"""WAL checkpoints in a thread of their own, for the serving processes (see storage.Store)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path


class Checkpointer:
    """WAL checkpoints in a thread of their own, off the thread that serves requests.

    SQLite's automatic checkpoint runs inside the COMMIT that crosses 1000 WAL pages and ends
    with two fsyncs (WAL, then database): the event loop stood still for ~6-10 ms every 100-300
    write requests (see tools/PERFORMANCE.md). Here a thread copies the WAL into the database
    every INTERVAL seconds (PASSIVE: writers go on meanwhile); once the WAL holds RESTART_PAGES
    pages it asks for a RESTART, which waits for the writer of the moment and lets the next
    one start the WAL over, so the file stays small. Durability is unchanged: a commit is in
    the WAL either way, and synchronous=NORMAL syncs at checkpoints as before.
    """

    INTERVAL = 0.1
    RESTART_PAGES = 4000

    def __init__(self, path: Path) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(path,), name="sqlite-checkpoint", daemon=True
        )
        self._thread.start()

    def _run(self, path: Path) -> None:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 10000")
            while not self._stop.wait(self.INTERVAL):
                try:
                    _, pages, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if pages >= self.RESTART_PAGES:
                        db.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
                except sqlite3.Error:
                    continue  # another process is checkpointing, or the file is busy: later
        finally:
            db.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=15)
