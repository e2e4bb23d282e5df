"""What a profile declares, or a premise assumes, never hides a violation.

Against the bundled server behind the mutating proxy: a deployment with its own scope names is
checked with them and fails only SCOPE-IDENTIFIERS, with the renaming as the reason; a profile
declaring no out-of-band support fails the out-of-band rules; one declaring that the website
offers no way to revoke fails REVOKE-MANUAL. A driver that cannot revoke leaves it unchecked.
A premise that a server without loopback port wildcards would refuse still reaches its check.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from steps.consent.base import DriverError
from steps.definitions.exchange import other_valid_uri
from steps.definitions.revocation import Revocations, WebsiteRevocations
from steps.definitions.revocation import revoke_manually as revoke_manually_step
from steps.definitions.revocation_outcomes import refresh_dead as refresh_dead_step
from steps.outcomes import NotChecked
from steps.profiles.profile import RegisteredApp, TargetProfile, parse_profile
from steps.profiles.writer import write_profile
from steps.scenario.scene import HeldGrant, IssuedCode, Scene
from tests.suite.broken.harness import (
    ProxyHandle,
    Run,
    bundled_profile,
    run_against,
    run_conformance,
    running_proxy,
)
from tests.suite.broken.mutations import MUTATIONS

# The steps as functions: a step's wrapper asks pytest's request (for the run's stash), which
# a test calling the step's own code has no need of.
revoke_manually = inspect.unwrap(revoke_manually_step)
refresh_dead = inspect.unwrap(refresh_dead_step)


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProxyHandle]:
    work = tmp_path_factory.mktemp("declared")
    with bundled_profile(work) as upstream, running_proxy(upstream, work / "proxy") as handle:
        yield handle


def messages(run: Run, rule: str) -> list[str]:
    """The messages of a rule's scenarios in the run's results."""
    results = json.loads((run.report_dir / "results.json").read_text())
    return [s["message"] for s in results["scenarios"] if rule in s["rules"]]


def run_declaring(proxy: ProxyHandle, tmp_path: Path, rules: list[str], **capabilities: Any) -> Run:
    """The transparent proxy, with a profile declaring some capabilities."""
    proxy.switch("none")
    profile = proxy.profile(MUTATIONS["none"])
    profile["capabilities"] = {**profile.get("capabilities", {}), **capabilities}
    path = write_profile(tmp_path / "profile.toml", profile)
    args = ["--profile", str(path), "--run-lasting"]
    for rule in rules:
        args += ["--rule", rule]
    return run_conformance(args, tmp_path / "reports")


def test_a_renamed_scope_fails_only_scope_identifiers_with_the_renaming_as_reason(
    proxy: ProxyHandle, tmp_path: Path
) -> None:
    mutation = MUTATIONS["metabrainz-scopes"]
    run = run_against(proxy, mutation, tmp_path)
    assert run.by_rule["SCOPE-IDENTIFIERS"] == "fail", run.summary()
    found = messages(run, "SCOPE-IDENTIFIERS")  # one a kind of application
    assert found, run.summary()
    for message in found:
        assert "the deployment names scope tag as musicbrainz:tag" in message
        assert "the deployment names scope submit_barcode as musicbrainz:submit_barcode" in message
    # the email scope's rules could not be checked: its positive twin asks for "email"
    passing = mutation.also - {"SCOPE-EMAIL-GRANTS-EMAIL", "SCOPE-EMAIL-WITHHELD"}
    assert {rule: run.by_rule[rule] for rule in passing} == dict.fromkeys(passing, "pass")
    assert run.by_rule["SCOPE-EMAIL-WITHHELD"] in ("pass", "could not be checked")


def test_no_out_of_band_support_fails_the_out_of_band_rules(
    proxy: ProxyHandle, tmp_path: Path
) -> None:
    rules = ["CODE-OOB-SHOWN", "DESKTOP-OOB", "DESKTOP-LOCALHOST-ANY-PORT"]
    run = run_declaring(proxy, tmp_path, rules, oob=False)
    verdicts = {rule: run.by_rule[rule] for rule in rules}
    assert verdicts == {"CODE-OOB-SHOWN": "fail", "DESKTOP-OOB": "fail",
                        "DESKTOP-LOCALHOST-ANY-PORT": "pass"}, run.summary()  # fmt: skip
    assert all(
        "the profile declares no out-of-band support" in m for m in messages(run, "DESKTOP-OOB")
    )
    assert run.exit_code == 1


def test_a_website_without_revocation_fails_revoke_manual(proxy: ProxyHandle, tmp_path: Path):
    run = run_declaring(proxy, tmp_path, ["REVOKE-MANUAL"], manual_revocation="none")
    assert run.by_rule["REVOKE-MANUAL"] == "fail", run.summary()
    found = messages(run, "REVOKE-MANUAL")
    assert len(found) >= 2  # a kind of application each, and after its access token was revoked
    assert all("the profile declares the deployment has no way to revoke" in m for m in found)


def test_a_driver_that_cannot_revoke_leaves_revoke_manual_unchecked() -> None:
    profile = parse_profile(
        {
            "base_url": "https://mb.example",
            "user": {"username": "alice"},
            "capabilities": {"manual_revocation": False},
        }
    )
    with pytest.raises(NotChecked, match="cannot revoke on the website"):
        revoke_manually(Scene(), None, profile, Revocations(), WebsiteRevocations())  # type: ignore[arg-type]


def test_the_redirect_uri_premise_reaches_its_check_without_port_wildcards(
    proxy: ProxyHandle, tmp_path: Path
) -> None:
    """On a server that takes only the registered loopback URI, TOKEN-REDIRECT-URI-SAME still
    gets a code (for the registered URI) and checks its exchange with another one."""
    rules = ["TOKEN-REDIRECT-URI-SAME", "DESKTOP-LOCALHOST-ANY-PORT"]
    run = run_against(proxy, MUTATIONS["loopback-port-refused"], tmp_path, rules=rules)
    assert run.by_rule["DESKTOP-LOCALHOST-ANY-PORT"] == "fail", run.summary()
    assert run.by_rule["TOKEN-REDIRECT-URI-SAME"] == "pass", run.summary()


class GrantNotListed:
    """A consent driver that finds nothing to revoke on the user's page."""

    def revoke_manually(self, client_id: str, scope: str | None = None) -> None:
        raise DriverError(f"no revoke form for client {client_id}")


class StillRefreshing:
    """A service whose refresh token outlives everything."""

    def refresh(self, client: RegisteredApp, token: str) -> httpx.Response:
        return httpx.Response(200, json={"access_token": "new"})


def _revoking_profile() -> TargetProfile:
    return parse_profile(
        {
            "base_url": "https://mb.example",
            "user": {"username": "alice"},
            "capabilities": {"manual_revocation": True},
        }
    )


def _scene() -> Scene:
    client = RegisteredApp("installed", "id", "secret", "http://localhost/callback")
    tokens = HeldGrant(client, "profile collection", "a", "r", {}, "application/json", 0.0)
    return Scene(client=client, tokens=tokens)


def test_a_grant_hidden_from_the_user_after_its_access_token_was_revoked_fails() -> None:
    """The real musicbrainz-server: the page lists no grant whose access token was revoked,
    so the user cannot revoke it and its refresh token keeps working."""
    scene, profile, revocations = _scene(), _revoking_profile(), Revocations(["access"])
    revoke_manually(scene, GrantNotListed(), profile, revocations, WebsiteRevocations(worked=1))  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match="the website offered no way to revoke it"):
        refresh_dead(scene, StillRefreshing(), profile, revocations)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("revoked", "worked"), [((), 1), (("access",), 0)], ids=["no-access-revoked", "never-worked"]
)
def test_a_driver_that_finds_nothing_to_revoke_otherwise_leaves_it_unchecked(
    revoked: tuple[str, ...], worked: int
) -> None:
    """The driver's error goes on (a setup error: helper D makes DriverError a NotChecked)."""
    with pytest.raises(DriverError):
        revoke_manually(  # type: ignore[arg-type]
            _scene(),
            GrantNotListed(),
            _revoking_profile(),
            Revocations(list(revoked)),
            WebsiteRevocations(worked),
        )


@pytest.mark.parametrize(
    ("more", "expected"),
    [
        ((), "http://localhost:49153/callback"),
        (("http://127.0.0.1:8001/auth",), "http://127.0.0.1:8001/auth"),
    ],
    ids=["loopback-port", "further-registered-uri"],
)
def test_the_redirect_uri_premise_uses_another_uri_the_application_may_use(
    more: tuple[str, ...], expected: str
) -> None:
    client = RegisteredApp("installed", "id", "s", "http://localhost/callback", more)
    assert other_valid_uri(IssuedCode(client, "c", client.redirect_uri)) == expected
