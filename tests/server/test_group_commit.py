"""Group commit (storage.Store.group_commit, groupcommit.py): the units of one event-loop turn
share one transaction; nobody is answered before its COMMIT, one unit's failure is its own,
and the loop never waits on SQLite's write lock.

Driven straight on a serving `Store` with the requests as asyncio tasks, as the endpoints run
them: each hands its unit (writes in `transaction()`) to `group_commit` and awaits it.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server.storage import Store

HOLD_LIMIT = 10.0  # seconds: only ends a test that would otherwise hang


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    serving = Store(tmp_path / "db.sqlite3", background_checkpoints=True)
    serving.db.execute("CREATE TABLE seen (name TEXT PRIMARY KEY)")
    yield serving
    serving.close()


def _committed(path: Path) -> set[str]:
    """What another connection sees: only what was committed."""
    other = sqlite3.connect(path)
    try:
        return {name for (name,) in other.execute("SELECT name FROM seen")}
    finally:
        other.close()


def _insert(store: Store, name: str, *, fail: bool = False) -> str:
    with store.transaction() as db:
        db.execute("INSERT INTO seen (name) VALUES (?)", (name,))
        if fail:
            raise ValueError("the request's own failure")
    return name


async def _request(store: Store, name: str, *, fail: bool = False) -> str:
    try:
        await store.group_commit(lambda: _insert(store, name, fail=fail))
    except ValueError:
        return "refused"
    assert name in _committed(store.path), "answered before its write was committed"
    return "answered"


def _run(*requests: object) -> list[object]:
    async def turn() -> list[object]:
        return await asyncio.gather(*requests, return_exceptions=True)  # type: ignore[arg-type]

    return asyncio.run(turn())


def test_one_turn_shares_one_commit_and_answers_after_it(store: Store) -> None:
    commits: list[str] = []
    store.db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    outcomes = _run(*(_request(store, f"r{i}") for i in range(6)))
    assert outcomes == ["answered"] * 6
    assert commits == ["COMMIT"], "six requests of one turn, one COMMIT"
    assert _committed(store.path) == {f"r{i}" for i in range(6)}


def test_the_unit_returns_its_result(store: Store) -> None:
    assert _run(store.group_commit(lambda: _insert(store, "r0"))) == ["r0"]


def test_a_failing_unit_rolls_back_alone(store: Store) -> None:
    outcomes = _run(
        _request(store, "before"), _request(store, "broken", fail=True), _request(store, "after")
    )
    assert outcomes == ["answered", "refused", "answered"]
    assert _committed(store.path) == {"before", "after"}


def test_a_failed_commit_fails_every_request_of_the_batch(store: Store) -> None:
    def orphan() -> None:
        """A unit that passes but makes the COMMIT fail (a deferred foreign key)."""
        with store.transaction() as db:
            db.execute("INSERT INTO orphans (parent) VALUES ('nobody')")

    store.db.execute(
        "CREATE TABLE orphans (parent TEXT REFERENCES seen(name) DEFERRABLE INITIALLY DEFERRED)"
    )
    outcomes = _run(_request(store, "r0"), store.group_commit(orphan), _request(store, "r1"))
    assert [type(outcome) for outcome in outcomes] == [sqlite3.IntegrityError] * 3
    assert _committed(store.path) == set(), "nothing of a failed batch is committed"
    assert not store.db.in_transaction
    assert _run(_request(store, "later")) == ["answered"], "the next turn commits again"


def test_a_request_cancelled_before_its_turn_writes_nothing(store: Store) -> None:
    async def turn() -> list[object]:
        requests = [asyncio.ensure_future(_request(store, f"r{i}")) for i in range(3)]
        await asyncio.sleep(0)  # all three have queued their units
        requests[1].cancel()
        return await asyncio.gather(*requests, return_exceptions=True)

    outcomes = asyncio.run(turn())
    assert outcomes[0] == outcomes[2] == "answered"
    assert isinstance(outcomes[1], asyncio.CancelledError)
    assert _committed(store.path) == {"r0", "r2"}


def test_outside_group_commit_a_transaction_is_its_own(store: Store) -> None:
    with store.transaction() as db:  # the CLI, the pages, the tests
        db.execute("INSERT INTO seen (name) VALUES ('alone')")
    assert _committed(store.path) == {"alone"}
    assert not store.db.in_transaction


class _LockHolder(threading.Thread):
    """Another process's writer: holds the write lock until the event loop says it went on
    while a request waited for the lock (or HOLD_LIMIT passes: the loop was stuck)."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.holding = threading.Event()
        self.loop_went_on = threading.Event()
        self.saw_the_loop_go_on = False

    def run(self) -> None:
        other = sqlite3.connect(self.path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("INSERT INTO seen (name) VALUES ('other process')")
            self.holding.set()
            self.saw_the_loop_go_on = self.loop_went_on.wait(HOLD_LIMIT)
            other.execute("COMMIT")
        finally:
            other.close()


def test_the_loop_goes_on_while_another_process_holds_the_write_lock(store: Store) -> None:
    holder = _LockHolder(store.path)

    async def scenario() -> str:
        holder.start()
        await asyncio.to_thread(holder.holding.wait, HOLD_LIMIT)
        waiting = asyncio.ensure_future(_request(store, "mine"))
        for _ in range(20):  # turns of the loop: the unit's first attempts at the lock fail
            await asyncio.sleep(0.001)
        assert not waiting.done(), "committed while another process held the lock"
        holder.loop_went_on.set()  # from the loop: it was not stuck in SQLite's busy handler
        return await waiting

    outcome = asyncio.run(scenario())
    holder.join(HOLD_LIMIT)
    assert holder.saw_the_loop_go_on, "the event loop stood still while it waited for the lock"
    assert outcome == "answered"
    assert _committed(store.path) == {"other process", "mine"}


def test_units_fail_once_the_lock_stays_taken_past_the_timeout(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3", background_checkpoints=True, busy_timeout_ms=50)
    store.db.execute("CREATE TABLE seen (name TEXT PRIMARY KEY)")
    holder = _LockHolder(store.path)

    async def scenario() -> object:
        holder.start()
        await asyncio.to_thread(holder.holding.wait, HOLD_LIMIT)
        try:
            return await store.group_commit(lambda: _insert(store, "mine"))
        except sqlite3.OperationalError as error:
            return error
        finally:
            holder.loop_went_on.set()

    try:
        outcome = asyncio.run(scenario())
    finally:
        holder.join(HOLD_LIMIT)
        store.close()
    assert isinstance(outcome, sqlite3.OperationalError) and "locked" in str(outcome)
    assert _committed(store.path) == {"other process"}


def test_two_workers_on_one_file_both_get_every_write_through(tmp_path: Path) -> None:
    """Two stores, each with its own event loop in its own thread (two worker processes),
    contend for the write lock: every request of both is answered, every write is there."""
    path = tmp_path / "db.sqlite3"
    workers = [Store(path, background_checkpoints=True), Store(path)]
    workers[0].db.execute("CREATE TABLE seen (name TEXT PRIMARY KEY)")
    outcomes: dict[int, list[str]] = {}

    def serve(index: int) -> None:
        async def requests() -> list[str]:
            answered: list[str] = []
            for turn in range(20):  # 20 turns of 10 requests, as under load
                batch = (_request(workers[index], f"w{index}-{turn}-{i}") for i in range(10))
                answered += await asyncio.gather(*batch)
            return answered

        outcomes[index] = asyncio.run(requests())

    threads = [threading.Thread(target=serve, args=(i,)) for i in (0, 1)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        for worker in workers:
            worker.close()
    assert outcomes == {0: ["answered"] * 200, 1: ["answered"] * 200}
    assert len(_committed(path)) == 400
