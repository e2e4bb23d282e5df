"""The throttle's own size is bounded.

The review's attack: token requests with random unknown client_ids, each of which made a row
of the throttle table in a write transaction of its own (6,000 requests, 6,000 rows): about
18 GB a day for one attacker. Now an unknown client_id is counted in the worker's memory
(a table of bounded size) and an address gets rows for a bounded number of names.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import httpx
import pytest

from reference_server import guard
from reference_server.clock import ServerClock
from reference_server.errors import TooManyGuesses
from reference_server.guard import MAX_NAMES, Guard, GuardPolicy, Strangers
from reference_server.storage import Store

from .helpers import App, World, read_db, revoke

ATTACK = 300


def _throttle_rows(site: World) -> int:
    with read_db(site.server.data_dir / "server.sqlite3") as db:
        return int(db.execute("SELECT COUNT(*) FROM throttle").fetchone()[0])


def _stranger() -> App:
    return App(secrets.token_urlsafe(16), secrets.token_urlsafe(24), "x", "confidential")


def test_random_unknown_client_ids_add_no_rows(site: World, client: httpx.Client):
    before = _throttle_rows(site)
    answers = {revoke(client, _stranger(), "t").status_code for _ in range(ATTACK)}
    assert answers == {401}  # each one refused, as ever
    assert _throttle_rows(site) == before, "unknown client_ids were written to the database"


def test_an_unknown_client_id_tried_again_and_again_is_still_throttled(
    site: World, client: httpx.Client
):
    stranger = _stranger()
    statuses = [revoke(client, stranger, "t").status_code for _ in range(GuardPolicy.free + 1)]
    assert statuses == [401] * GuardPolicy.free + [429]


class _Fixed(ServerClock):
    def __init__(self) -> None:
        self.at = 1_000_000

    def now(self) -> int:
        return self.at


@pytest.fixture
def fixed() -> _Fixed:
    return _Fixed()


@pytest.fixture
def store(tmp_path: Path):
    opened = Store(tmp_path / "server.sqlite3")
    yield opened
    opened.close()


def test_invented_user_names_make_a_bounded_number_of_rows(store: Store, fixed: _Fixed):
    """A login throttle key per user name: a flood of invented names from one address."""
    keeper = Guard(store, fixed)
    refused = 0
    for _ in range(5 * MAX_NAMES):
        try:
            keeper.reserve(guard.key("192.0.2.7", "user:" + secrets.token_hex(8)))
        except TooManyGuesses:
            refused += 1
    keeper.reserve(guard.key("192.0.2.8", "user:someone"))  # another address: a row of its own
    rows = store.one("SELECT COUNT(*) FROM throttle")
    assert rows is not None and rows[0] == MAX_NAMES + 1 + 1
    assert refused == 4 * MAX_NAMES - GuardPolicy.free  # the shared count throttles them


def test_names_past_the_bound_are_throttled_together(store: Store, fixed: _Fixed):
    """The names that share a count cannot be used to guess without limit."""
    keeper = Guard(store, fixed)
    for index in range(MAX_NAMES):
        keeper.reserve(guard.key("192.0.2.7", f"user:filler-{index}"))
    for index in range(GuardPolicy.free):
        keeper.reserve(guard.key("192.0.2.7", f"user:guess-{index}"))
    with pytest.raises(TooManyGuesses):
        keeper.reserve(guard.key("192.0.2.7", "user:one-more"))
    keeper.reserve(guard.key("192.0.2.7", "user:filler-0"))  # a name of its own: its own count


def test_a_success_gives_back_a_shared_slot(store: Store, fixed: _Fixed):
    keeper = Guard(store, fixed)
    for index in range(MAX_NAMES):
        keeper.reserve(guard.key("192.0.2.7", f"user:filler-{index}"))
    for _ in range(3 * GuardPolicy.free):  # the rightful user, logging in again and again
        rightful = guard.key("192.0.2.7", "user:rightful")
        keeper.reserve(rightful)
        keeper.release(rightful)


def test_unknown_client_ids_in_memory_are_bounded():
    strangers = Strangers(GuardPolicy(), capacity=50)
    for _ in range(1000):
        strangers.fail(guard.key("192.0.2.7", secrets.token_hex(8)), 1_000_000)
    assert len(strangers) == 50
