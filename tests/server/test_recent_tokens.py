"""The memory of recently resolved access tokens (grants/bearer.py, RecentTokens) never answers
for a database that changed: a token revoked by this worker or by another process, a user whose
email changed, a token past its expiry are seen at once; unknown tokens are never kept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server import accounts, grants
from reference_server.grants.bearer import _RECENT
from reference_server.storage import Store

NOW = 1_800_000_000
REDIRECT = "https://client.example/cb"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Store, Store, accounts.Application, str]]:
    """A worker's store, another process's store on the same file, an application and a live
    access token the worker has just resolved (so it is remembered)."""
    path = tmp_path / "server.sqlite3"
    store = Store(path)
    owner = accounts.add_user(store, "owner", "password-123", NOW, email="o@example.org")
    app = accounts.add_application(store, owner, "app", "public", REDIRECT, NOW).application
    request = grants.CodeRequest(app, owner, "profile email", REDIRECT, None, None, offline=True)
    code = grants.issue_code(store, NOW, request)
    token = grants.exchange_code(store, NOW, app, code, REDIRECT, None).access_token
    assert grants.access_grant_and_user(store, NOW, token) is not None
    assert _RECENT[store].get(store, token) is not None  # remembered
    other = Store(path)
    yield store, other, app, token
    other.close()
    store.close()


def test_a_token_revoked_by_another_process_is_refused_at_once(world) -> None:
    store, other, app, token = world
    grants.revoke(other, NOW, app, token)
    assert grants.access_grant_and_user(store, NOW, token) is None


def test_a_token_revoked_by_this_worker_is_refused_at_once(world) -> None:
    store, _, app, token = world
    grants.revoke(store, NOW, app, token)
    assert grants.access_grant_and_user(store, NOW, token) is None


def test_a_changed_user_is_read_again(world) -> None:
    store, other, _, token = world
    other.run("UPDATE users SET email = 'new@example.org'")
    found = grants.access_grant_and_user(store, NOW, token)
    assert found is not None and found[1] is not None and found[1].email == "new@example.org"


def test_a_remembered_token_still_expires(world) -> None:
    store, _, _, token = world
    later = NOW + grants.ACCESS_TOKEN_LIFETIME
    assert grants.access_grant_and_user(store, later - 1, token) is not None
    assert grants.access_grant_and_user(store, later, token) is None


def test_unknown_tokens_are_not_kept_and_the_memory_is_bounded(world) -> None:
    store, _, _, token = world
    for n in range(3000):
        assert grants.access_grant_and_user(store, NOW, f"unknown-{n}") is None
    recent = _RECENT[store]
    kept = recent.get(store, token)
    assert kept is not None and len(recent._found) == 1
    for n in range(recent.size + 5):
        recent.keep(f"t{n}", *kept)
    assert len(recent._found) == recent.size and recent.get(store, token) is None
