"""What the server's database holds: rows per table and the bytes in use."""

from __future__ import annotations

import time
from pathlib import Path

from .integrity import connect

TABLES = ("sessions", "form_tokens", "codes", "grants", "access_tokens", "consents", "throttle")


def snapshot(database: Path) -> dict:
    """Rows per table; bytes in pages that hold data (free pages are reused, not counted)."""
    db = connect(database)
    try:
        rows = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}  # noqa: S608
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        free = db.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        db.close()
    return {
        "rows": rows,
        "bytes_in_use": page_size * (pages - free),
        "file_bytes": page_size * pages,
    }


def after_purge(database: Path, before: dict, wait: float = 15.0) -> dict:
    """The snapshot once the background purge has acted (row counts settle), bounded."""
    deadline = time.monotonic() + wait
    last = before
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = snapshot(database)
        if now["rows"] != before["rows"] and now["rows"] == last["rows"]:
            return now
        last = now
    return last
