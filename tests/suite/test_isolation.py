"""Isolation by design: no verdict depends on what another scenario did.

The unit tests pin the two rules of steps/scheduling/isolation.py (writers own their grants; a
shared grant lives one epoch). The proof runs the suite against a target that revokes whole token
families, as metabrainz.org does: one run with the rules' scenarios in the order they are
written (readers and family-revoking writers interleaved), one in the suite's own order, and
each rule alone must all give the same verdicts, and the true ones.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd.parser import FeatureParser

from steps.profiles.profile import RegisteredApp
from steps.rules.catalogue import FEATURES_DIR
from steps.scenario.grants import GrantCache
from steps.scenario.scene import HeldGrant
from steps.scheduling.isolation import ORDER_ENV, Isolation
from steps.scheduling.writers import is_writer
from tests.suite.broken.harness import ProxyHandle, bundled_profile, run_against, running_proxy
from tests.suite.broken.mutations import MUTATIONS

SHARED_GRANT = "the user has granted"


def _scenarios() -> list[tuple[str, str, list[str]]]:
    found = []
    for path in sorted(FEATURES_DIR.glob("*.feature")):
        feature = FeatureParser(str(FEATURES_DIR), path.name).parse()
        for template in feature.scenarios.values():
            contexts = [c for ex in template.examples for c in ex.as_contexts()] or [{}]
            for context in contexts:
                steps = [step.name for step in template.render(context).steps]
                found.append((path.name, template.name, steps))
    return found


def test_no_scenario_that_changes_a_grant_asks_for_a_shared_one() -> None:
    shared_writers = [
        f"{file}: {name}"
        for file, name, steps in _scenarios()
        if is_writer(steps) and any(SHARED_GRANT in step for step in steps)
    ]
    assert shared_writers == []


def test_the_writer_classes_are_read_from_the_steps() -> None:
    writers = {name for _, name, steps in _scenarios() if is_writer(steps)}
    assert "A refresh token stays valid after use (<client>)" in writers
    assert (
        "Revoking the refresh token of the <client> revokes the whole grant: the access token "
        "<origin>, passed <delivery>"
    ) in writers
    assert "A refresh token issued to the <client> cannot be used by another application" in writers
    email = "The email scope shows the user's email: a token of the <client> <origin>, passed "
    assert email + "<delivery>" not in writers
    assert email + "<delivery>, on a grant of its own" in writers  # a refresh first
    assert is_writer(["the application asks for the user's profile with its access token that "
                      "has expired, passed in a form body"])  # fmt: skip
    assert is_writer(["When 3700 seconds pass"]) and is_writer(
        ["the application exchanges the code again"]
    )
    assert is_writer(["the application has refreshed the access token"])
    assert is_writer(["the application has revoked the access token"])
    assert not is_writer(
        ["the application asks for the user's profile with the token in the query string"]
    )
    for reads in (
        "the refresh answered 200 OK",
        "the refresh said the token type is Bearer",
        "the refresh is refused",
        "the response carries a refresh token",
        "the response carries the same refresh token",
    ):
        assert not is_writer([reads]), reads
    tries = ("the refresh token no longer works", "no refresh token of the grant works either")
    assert all(is_writer([step]) for step in tries)


@dataclass
class FakeAuthorizer:
    """Counts authorizations (each a consent-page visit) instead of running them."""

    issued: list[HeldGrant] = field(default_factory=list)

    def grant(self, role: str, scope: str, *, offline: bool = False) -> HeldGrant:
        client = RegisteredApp(role, "id", "secret", "https://app.example/cb")
        number = len(self.issued)
        body = {"access_token": f"a{number}", "expires_in": 3600}
        tokens = HeldGrant(client, scope, f"a{number}", None, body, "application/json", 0.0)
        self.issued.append(tokens)
        return tokens


@dataclass
class FakeClock:
    seconds: float = 0.0

    def now(self) -> float:
        return self.seconds


def _cache() -> tuple[GrantCache, FakeAuthorizer, FakeClock, Isolation]:
    authorizer, clock, isolation = FakeAuthorizer(), FakeClock(), Isolation()
    return GrantCache(authorizer, clock, isolation), authorizer, clock, isolation  # type: ignore[arg-type]


def test_readers_share_a_grant_within_an_epoch() -> None:
    cache, authorizer, _, _ = _cache()
    first = cache.get("web", "profile email")
    assert cache.get("web", "email profile") is first
    assert cache.get("web", "profile") is not first
    assert len(authorizer.issued) == 2


def test_a_finished_writer_makes_the_next_reader_get_a_new_grant() -> None:
    cache, authorizer, _, isolation = _cache()
    first = cache.get("web", "profile")
    isolation.end_epoch()
    again = cache.get("web", "profile")
    assert again is not first and len(authorizer.issued) == 2
    assert cache.get("web", "profile") is again


def test_a_writer_takes_the_shared_grant_only_as_its_last_user() -> None:
    """No writer touched the shared grant of the epoch and readers do not change grants: the
    first writer may take it, and no scenario gets it after that writer."""
    cache, authorizer, _, isolation = _cache()
    shared = cache.get("web", "profile")
    isolation.writer = True
    assert cache.take("web", "profile") is shared
    second = cache.get("web", "profile")
    assert second is not shared and len(authorizer.issued) == 2
    isolation.writer = False
    isolation.end_epoch()
    assert cache.get("web", "profile") not in (shared, second)


def test_a_writer_takes_no_grant_of_an_earlier_epoch_and_a_reader_takes_none() -> None:
    cache, authorizer, _, isolation = _cache()
    shared = cache.get("installed", "profile email")
    assert cache.take("installed", "profile email", offline=True) is not shared  # a reader
    isolation.end_epoch()
    isolation.writer = True
    assert cache.take("installed", "profile email") is not shared
    assert len(authorizer.issued) == 3


def test_an_installed_application_shares_its_grant_whatever_offline_says() -> None:
    """Its request is the same either way: only a web application asks for offline access."""
    cache, authorizer, _, isolation = _cache()
    shared = cache.get("installed", "profile email")
    isolation.writer = True
    assert cache.take("installed", "email profile", offline=True) is shared
    assert len(authorizer.issued) == 1


def test_an_expiring_grant_is_issued_anew_not_refreshed() -> None:
    cache, authorizer, clock, _ = _cache()
    first = cache.get("web", "profile")
    clock.seconds = 3600 - 30
    assert cache.get("web", "profile") is not first
    assert len(authorizer.issued) == 2


def test_the_epoch_is_shared_through_a_file(tmp_path: Path) -> None:
    one, two = Isolation(tmp_path / "epoch"), Isolation(tmp_path / "epoch")
    one.end_epoch()
    one.end_epoch()
    assert two.epoch() == 2


# --- the proof against a family-revoking target ---------------------------------------------

FAMILY = MUTATIONS["token-families"]
#: Rules whose scenarios share grants or poison them; the true verdicts against the target.
TRUE_VERDICTS = {rule: "pass" for rule in FAMILY.also} | {
    "REFRESH-SAME-TOKEN": "fail",
    "REFRESH-TOKEN-STAYS-VALID": "fail",
    "REVOKE-MANUAL": "fail",
    "SCOPE-EMAIL-WITHHELD": "pass",
    "SCOPE-PROFILE-WITHHELD": "pass",
    "AUTHZ-APPROVAL-AUTO": "pass",
    "TOKEN-EXPIRES-IN-3600": "pass",
    "TOKEN-CODE-SINGLE-USE": "pass",
}


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProxyHandle]:
    work = tmp_path_factory.mktemp("families")
    with bundled_profile(work) as upstream, running_proxy(upstream, work / "proxy") as handle:
        yield handle


def _verdicts(run: Any) -> dict[str, str]:
    return {rule: run.by_rule[rule] for rule in TRUE_VERDICTS}


@pytest.mark.slow
def test_a_family_revoking_target_gets_the_same_verdicts_in_any_order_and_alone(
    proxy: ProxyHandle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite_order = run_against(proxy, FAMILY, tmp_path / "suite", rules=TRUE_VERDICTS)
    assert _verdicts(suite_order) == TRUE_VERDICTS, suite_order.summary()
    monkeypatch.setenv(ORDER_ENV, "as-written")
    written = run_against(proxy, FAMILY, tmp_path / "written", rules=TRUE_VERDICTS)
    assert _verdicts(written) == TRUE_VERDICTS, written.summary()
    monkeypatch.delenv(ORDER_ENV)
    alone = {
        rule: run_against(proxy, FAMILY, tmp_path / rule, rules=[rule]).by_rule[rule]
        for rule in sorted(TRUE_VERDICTS)
    }
    assert alone == TRUE_VERDICTS
