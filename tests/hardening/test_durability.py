"""What a commit survives: `run --durability normal|full`.

normal (the default): WAL with synchronous=NORMAL, the WAL synced at checkpoints: a token
answered survives a crash of the server (test_crash.py kills it under load), and a power cut
may lose the last transactions. full: synchronous=FULL, the WAL synced at every commit.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from reference_server import app as app_module
from reference_server.launcher import ServerProcess
from reference_server.state import ServerState
from reference_server.storage import Store

NORMAL, FULL = 1, 2  # PRAGMA synchronous


def _synchronous(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA synchronous").fetchone()[0])


@pytest.mark.parametrize(("durability", "expected"), [("normal", NORMAL), ("full", FULL)])
def test_the_store_sets_the_pragma(tmp_path: Path, durability: str, expected: int):
    store = Store(tmp_path / "server.sqlite3", background_checkpoints=True, durability=durability)
    try:
        assert _synchronous(store.db) == expected
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        store.close()


def test_normal_is_the_default(tmp_path: Path):
    store = Store(tmp_path / "server.sqlite3")
    try:
        assert _synchronous(store.db) == NORMAL
    finally:
        store.close()


def test_the_worker_processes_open_the_database_as_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """`serve()` passes the choice through the environment to uvicorn's workers."""
    opened: list[ServerState] = []
    real_open = ServerState.open

    def recording_open(*args: object, **kwargs: object) -> ServerState:
        state = real_open(*args, **kwargs)  # type: ignore[arg-type]
        opened.append(state)
        return state

    monkeypatch.setattr(app_module.ServerState, "open", recording_open)
    monkeypatch.setenv("MB_OAUTH_SERVER_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MB_OAUTH_SERVER_DURABILITY", "full")
    monkeypatch.setenv("MB_OAUTH_SERVER_PURGE_INTERVAL", "3600")
    app_module.app_from_environment()
    try:
        assert [_synchronous(state.store.db) for state in opened] == [FULL]
    finally:
        for state in opened:
            if state.purger:
                state.purger.stop()
            state.store.close()


def test_run_durability_full_serves_and_says_so(tmp_path: Path):
    with ServerProcess(tmp_path / "data", extra_args=("--durability", "full")) as server:
        server.add_user("alice", "password-123")
    assert "Durability: full" in server.log_path.read_text()
