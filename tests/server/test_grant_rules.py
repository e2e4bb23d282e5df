"""The grants package (reference_server/grants/) names each rule where it enforces it: every
rule id written there is one of features/rules.toml, the effects of spec section 3 are all
named, and the named switches act as their names say.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from reference_server import accounts, grants
from reference_server.grants import refresh_token
from reference_server.storage import Store

ROOT = Path(__file__).resolve().parents[2]
GRANTS = ROOT / "reference_server" / "grants"
RULE_ID = re.compile(r"\b[A-Z]+(?:-[A-Z0-9]+)+\b")
NOW = 1_900_000_000
CALLBACK = "https://example.org/cb"
# The rules about what a code, a token or a grant becomes (spec 2.3 and 3, RFC 6749 and 7009)
SECTION_3 = {
    "TOKEN-CODE-SINGLE-USE",
    "TOKEN-CODE-REPLAY-REVOKES",
    "TOKEN-CODE-LIFETIME",
    "TOKEN-CROSS-CLIENT-CODE",
    "TOKEN-REDIRECT-URI-SAME",
    "TOKEN-REFRESH-INSTALLED",
    "TOKEN-REFRESH-OFFLINE",
    "TOKEN-NO-REFRESH-ONLINE",
    "REFRESH-SAME-TOKEN",
    "REFRESH-TOKEN-STAYS-VALID",
    "REFRESH-NEW-ACCESS-TOKEN",
    "REFRESH-CROSS-CLIENT",
    "REVOKE-ACCESS-KEEPS-REFRESH",
    "REVOKE-REFRESH-WHOLE-GRANT",
    "REVOKE-ONLINE-WHOLE-GRANT",
    "REVOKE-OTHER-CLIENT",
    "REVOKE-MANUAL",
    "LIFETIME-ACCESS-EXPIRES",
    "LIFETIME-REFRESH-PERSISTS",
}


def _catalogue() -> set[str]:
    rules = tomllib.loads((ROOT / "features" / "rules.toml").read_text())["rule"]
    return {rule["id"] for rule in rules}


def _named_in_grants() -> set[str]:
    """Words shaped like a rule id and starting as one does (TOKEN-, REVOKE-, ...)."""
    prefixes = {rule.split("-")[0] for rule in _catalogue()}
    return {
        found
        for path in GRANTS.glob("*.py")
        for found in RULE_ID.findall(path.read_text())
        if found.split("-")[0] in prefixes
    }


def test_every_rule_named_in_grants_is_in_the_catalogue() -> None:
    catalogue = _catalogue()
    assert catalogue >= SECTION_3
    unknown = _named_in_grants() - catalogue
    assert not unknown, f"not rules of features/rules.toml: {sorted(unknown)}"


def test_every_effect_of_section_3_is_named_where_it_is_enforced() -> None:
    missing = SECTION_3 - _named_in_grants()
    assert not missing, f"named nowhere in reference_server/grants/: {sorted(missing)}"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "server.sqlite3")
    yield opened
    opened.close()


def _offline_grant(store: Store) -> tuple[accounts.Application, grants.TokenSet]:
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
