"""The named switches of the grants package (reference_server/grants/) act as their names say.

(That every rule is named where the server enforces it, once: tests/test_rule_thread.py.)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server import accounts, grants
from reference_server.grants import refresh_token
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


def test_same_refresh_token_repeats_the_one_sent_in(store: Store) -> None:
    app, issued = _offline_grant(store)
    assert issued.refresh_token is not None
    renewed = grants.refresh(store, NOW + 1, app, issued.refresh_token, None)
    assert refresh_token.SAME_REFRESH_TOKEN
    assert renewed.refresh_token == issued.refresh_token
    assert renewed.access_token != issued.access_token


def test_without_same_refresh_token_the_answer_leaves_it_out_and_it_stays_valid(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(refresh_token, "SAME_REFRESH_TOKEN", False)
    app, issued = _offline_grant(store)
    assert issued.refresh_token is not None
    renewed = grants.refresh(store, NOW + 1, app, issued.refresh_token, None)
    assert renewed.refresh_token is None
    again = grants.refresh(store, NOW + 2, app, issued.refresh_token, None)  # still valid
    assert again.access_token != renewed.access_token


@pytest.mark.parametrize("one_per_grant", [True, False])
def test_one_access_token_per_grant_ends_the_earlier_ones(
    store: Store, monkeypatch: pytest.MonkeyPatch, one_per_grant: bool
) -> None:
    monkeypatch.setattr(refresh_token, "ONE_ACCESS_TOKEN_PER_GRANT", one_per_grant)
    app, issued = _offline_grant(store)
    assert issued.refresh_token is not None
    grants.refresh(store, NOW + 1, app, issued.refresh_token, None)
    earlier = grants.access_grant_and_user(store, NOW + 2, issued.access_token)
    assert (earlier is None) is one_per_grant
