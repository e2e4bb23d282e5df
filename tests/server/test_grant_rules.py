"""A refresh as musicbrainz.org does it (grants/refresh_token.py): the answer repeats the
refresh token, which stays valid, and the grant's earlier access token ends.

(That every rule is named where the server decides it: tests/test_rule_thread.py.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server import accounts, grants
from reference_server.storage import Store

NOW = 1_900_000_000
CALLBACK = "https://example.org/cb"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "server.sqlite3")
    yield opened
    opened.close()


def _offline_grant(store: Store) -> tuple[accounts.Application, grants.IssuedTokens]:
    user = accounts.add_user(store, "owner", "a long enough password", NOW)
    app = accounts.add_application(store, user, "app", "confidential", CALLBACK, NOW).application
    request = grants.CodeRequest(app, user, "profile", CALLBACK, None, None, offline=True)
    code = grants.issue_code(store, NOW, request)
    return app, grants.exchange_code(store, NOW, app, code, CALLBACK, None)


def test_a_refresh_repeats_the_refresh_token_which_stays_valid(store: Store) -> None:
    app, issued = _offline_grant(store)
    assert issued.refresh_token is not None
    renewed = grants.refresh(store, NOW + 1, app, issued.refresh_token, None)
    assert renewed.refresh_token == issued.refresh_token
    assert renewed.access_token != issued.access_token
    again = grants.refresh(store, NOW + 2, app, issued.refresh_token, None)
    assert again.access_token not in (issued.access_token, renewed.access_token)


def test_a_refresh_ends_the_grants_earlier_access_token(store: Store) -> None:
    app, issued = _offline_grant(store)
    assert issued.refresh_token is not None
    renewed = grants.refresh(store, NOW + 1, app, issued.refresh_token, None)
    assert grants.access_grant_and_user(store, NOW + 2, issued.access_token) is None
    assert grants.access_grant_and_user(store, NOW + 2, renewed.access_token) is not None
