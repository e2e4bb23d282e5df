"""Group commit (storage.Store.unit): the token endpoints' writes of one event-loop turn share
one transaction; nobody is answered before its COMMIT, and one request's failure is its own.

Driven straight on a serving `Store` with the requests as asyncio tasks, as the hot paths run
them: each sets `group_commit`, writes in a unit, then awaits `settled()`.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server.storage import Store, group_commit


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


async def _request(store: Store, name: str, *, fail: bool = False) -> str:
    group_commit.set(True)
    try:
        with store.unit() as db:
            db.execute("INSERT INTO seen (name) VALUES (?)", (name,))
            if fail:
                raise ValueError("the request's own failure")
    except ValueError:
        return "refused"
    finally:
        await store.settled()
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


def test_a_failing_unit_rolls_back_alone(store: Store) -> None:
    outcomes = _run(
        _request(store, "before"), _request(store, "broken", fail=True), _request(store, "after")
    )
    assert outcomes == ["answered", "refused", "answered"]
    assert _committed(store.path) == {"before", "after"}


def test_a_failed_commit_fails_every_request_of_the_batch(store: Store) -> None:
    async def orphan() -> str:
        """A unit that passes but makes the COMMIT fail (a deferred foreign key)."""
        group_commit.set(True)
        with store.unit() as db:
            db.execute("INSERT INTO orphans (parent) VALUES ('nobody')")
        await store.settled()
        return "answered"

    store.db.execute(
        "CREATE TABLE orphans (parent TEXT REFERENCES seen(name) DEFERRABLE INITIALLY DEFERRED)"
    )
    outcomes = _run(_request(store, "r0"), orphan(), _request(store, "r1"))
    assert [type(outcome) for outcome in outcomes] == [sqlite3.IntegrityError] * 3
    assert _committed(store.path) == set(), "nothing of a failed batch is committed"
    assert not store.db.in_transaction
    assert _run(_request(store, "later")) == ["answered"], "the next turn commits again"


def test_a_cancelled_request_does_not_cancel_the_others(store: Store) -> None:
    async def turn() -> list[object]:
        requests = [asyncio.ensure_future(_request(store, f"r{i}")) for i in range(3)]
        await asyncio.sleep(0)  # all three wait for the commit now
        requests[1].cancel()
        return await asyncio.gather(*requests, return_exceptions=True)

    outcomes = asyncio.run(turn())
    assert outcomes[0] == outcomes[2] == "answered"
    assert isinstance(outcomes[1], asyncio.CancelledError)
    assert _committed(store.path) == {"r0", "r1", "r2"}, "its write was in the batch already"


def test_outside_group_commit_a_unit_is_its_own_transaction(store: Store) -> None:
    with store.unit() as db:  # no group_commit: the CLI, the pages, the tests
        db.execute("INSERT INTO seen (name) VALUES ('alone')")
    assert _committed(store.path) == {"alone"}
    assert not store.db.in_transaction
