"""The suite catches what it claims to: run it against deliberately broken targets.

One bundled server and one mutating proxy serve the whole module; each broken target is the
proxy with one mutation switched on, and the suite runs only the rules the mutation concerns
(plus neighbours that must keep passing). The rules reported as failing or warning must be
exactly the ones the mutation breaks, so a scenario that misses a violation, or one that
fails for the wrong reason, makes its test fail.
"""

from __future__ import annotations

import json
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from steps.http.html import login_forms
from steps.profiles.profile import load_profile
from steps.profiles.writer import write_profile
from steps.rules.catalogue import load_catalogue
from steps.runner import RunOptions, pytest_command
from tests.suite.broken.harness import (
    ProxyHandle,
    Run,
    bundled_profile,
    run_against,
    run_conformance,
    running_proxy,
)
from tests.suite.broken.mutations import MUTATIONS
from tests.suite.broken.proxy import _listen

BROKEN = sorted(n for n, m in MUTATIONS.items() if n != "none" and not m.conforming)
CONFORMING = sorted(n for n, m in MUTATIONS.items() if m.conforming)


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProxyHandle]:
    work = tmp_path_factory.mktemp("broken")
    with bundled_profile(work) as upstream, running_proxy(upstream, work / "proxy") as handle:
        yield handle


def test_there_are_twenty_broken_targets_each_breaking_something_different() -> None:
    """Two targets may break the same rule in different ways (a rule checked on one client
    type or one kind of input misses the other), but never with the same handler."""
    breaks = [MUTATIONS[name].breaks for name in BROKEN]
    assert len(BROKEN) >= 20
    assert all(breaks), "every broken target must break at least one rule"
    assert len(set(breaks)) >= 60, "fewer than 60 different sets of broken rules"
    handlers = [MUTATIONS[name].handler for name in BROKEN]
    assert len(set(handlers)) == len(handlers), "two broken targets share a handler"


def test_conforming_variants_break_nothing_and_name_rules() -> None:
    assert len(CONFORMING) >= 3
    assert all(not MUTATIONS[n].breaks and MUTATIONS[n].also for n in CONFORMING)


def test_every_rule_a_broken_target_names_is_in_the_catalogue() -> None:
    catalogue = load_catalogue()
    named = set().union(*(m.selection for m in MUTATIONS.values()))
    assert named - set(catalogue) == set()


def test_the_transparent_proxy_passes_every_selected_rule(proxy: ProxyHandle, tmp_path: Path):
    """Without a mutation the proxy must not break anything, or the other tests prove nothing."""
    everything = MUTATIONS["none"]
    selection = set().union(*(MUTATIONS[name].selection for name in BROKEN + CONFORMING))
    run = run_against(proxy, everything, tmp_path, rules=selection)
    assert run.failing == set(), run.summary()
    assert_ran(run, selection)
    assert run.exit_code == 0


def _case(name: str) -> object:
    """A broken target; one the suite is known to miss is an expected (strict) failure."""
    gap = MUTATIONS[name].known_gap
    marks = [pytest.mark.xfail(reason=f"suite gap: {gap}", strict=True)] if gap else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_case(name) for name in BROKEN])
def test_broken_target_fails_exactly_its_rules(
    name: str, proxy: ProxyHandle, tmp_path: Path
) -> None:
    mutation = MUTATIONS[name]
    run = run_against(proxy, mutation, tmp_path)
    assert run.failing_among(mutation.selection) == set(mutation.breaks), run.summary()
    assert_ran(run, mutation.selection)
    catalogue = load_catalogue()
    spec_broken = any(catalogue[rule].level == "spec" for rule in mutation.breaks)
    assert run.exit_code == (1 if spec_broken else 0), run.summary()
    if name == "earlier-description":
        assert_earlier_description(run)


@pytest.mark.parametrize("name", CONFORMING)
def test_conforming_variant_passes_every_rule(
    name: str, proxy: ProxyHandle, tmp_path: Path
) -> None:
    """A server that answers as the spec allows, though not as the bundled server does, must
    pass: a fail here is a spec-level verdict stricter than the spec."""
    variant = MUTATIONS[name]
    run = run_against(proxy, variant, tmp_path)
    assert run.failing == set(), run.summary()
    assert_ran(run, variant.selection)
    assert run.exit_code == 0, run.summary()


def assert_ran(run: Run, selection: set[str] | frozenset[str]) -> None:
    """Every selected rule got a real verdict: a skipped rule would hide a miss."""
    not_run = {
        r: v for r, v in run.by_rule.items() if r in selection and v in ("skipped", "not run")
    }
    assert not_run == {}, run.output


def assert_earlier_description(run: Run) -> None:
    """The report names the description the target follows, item by item."""
    items = {i["item"]: i["follows"] for i in run.verdicts["description"]["items"]}
    assert items["token_type_mac"] == "earlier"
    assert items["revocation_endpoint"] == "earlier"
    assert items["userinfo_post_body"] == "earlier"
    assert items["pkce"] == "earlier"
    assert run.verdicts["description"]["follows"] == "earlier"
    summary = (run.report_dir / "summary.txt").read_text()
    assert "follows the earlier description" in summary


def test_strict_makes_rfc_warnings_fail(proxy: ProxyHandle, tmp_path: Path) -> None:
    mutation = MUTATIONS["token-cacheable"]  # breaks an rfc rule only
    run = run_against(proxy, mutation, tmp_path, extra=["--strict"])
    assert run.failing == {"TOKEN-NO-STORE"}
    assert run.exit_code == 1
    assert run.verdicts["failing_rules"] == ["TOKEN-NO-STORE"]


def test_known_deviations_are_expected_failures(proxy: ProxyHandle, tmp_path: Path) -> None:
    mutation = MUTATIONS["expires-in-7200"]
    run = run_against(
        proxy, mutation, tmp_path, deviations=["TOKEN-EXPIRES-IN-3600", "TOKEN-TYPE-BEARER"]
    )
    assert run.by_rule["TOKEN-EXPIRES-IN-3600"] == "expected failure"
    assert run.by_rule["TOKEN-TYPE-BEARER"] == "unexpected pass"
    assert run.exit_code == 0


def test_reports_show_the_evidence_and_hold_no_secret(proxy: ProxyHandle, tmp_path: Path):
    mutation = MUTATIONS["code-replay"]  # failures, so evidence is shown in full
    run = run_against(proxy, mutation, tmp_path)
    html = (run.report_dir / "report.html").read_text()
    failing = html.split('id="TOKEN-CODE-SINGLE-USE" open>', 1)[1].split("</details>", 1)[0]
    assert f"POST {proxy.base_url}/oauth2/token" in failing
    assert "grant_type=authorization_code" in failing
    secrets = [proxy.upstream_profile["user"]["password"]]
    secrets += [c["client_secret"] for c in proxy.upstream_profile["clients"].values()]
    files = sorted(p for p in run.report_dir.iterdir() if p.is_file())
    assert {"verdicts.json", "report.html", "junit.xml", "cucumber.json"} <= {p.name for p in files}
    for path in files:
        text = path.read_text(errors="replace")
        for secret in secrets:
            assert secret not in text, path.name


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    incomplete = tmp_path / "incomplete.toml"
    incomplete.write_text('name = "no base_url"\n')
    assert run_conformance(["--target", "https://example.org"], tmp_path).exit_code == 2
    assert run_conformance(["--rule", "NO-SUCH-RULE"], tmp_path).exit_code == 2
    assert run_conformance(["--profile", str(incomplete)], tmp_path).exit_code == 2
    assert run_conformance(["--level", "nonsense"], tmp_path).exit_code == 2


def test_a_full_run_against_the_bundled_server_conforms(tmp_path: Path) -> None:
    """`mb-oauth-conformance` without arguments: bundled server, every scenario, exit 0."""
    run = run_conformance([], tmp_path)
    assert run.exit_code == 0, run.summary()
    assert run.failing == set()
    catalogue = load_catalogue()
    ran = {r for r, v in run.by_rule.items() if v not in ("not run", "skipped")}
    assert ran >= {r for r, rule in catalogue.items() if rule.level == "spec"}
    assert run.verdicts["description"]["follows"] == "fuller"
    profile = (tmp_path / "profile.toml").read_text()
    assert "client_secret" in profile
    html = (tmp_path / "report.html").read_text()
    assert "<script" not in html
    assert json.loads((tmp_path / "cucumber.json").read_text())


def test_workers_give_the_same_verdicts_and_reports(proxy: ProxyHandle, tmp_path: Path) -> None:
    """pytest-xdist: results, verdicts and cucumber JSON merged from the workers."""
    rules = MUTATIONS["code-replay"].selection | MUTATIONS["refresh-rotates"].selection
    alone = run_against(proxy, MUTATIONS["none"], tmp_path / "alone", rules=rules)
    shared = run_against(
        proxy, MUTATIONS["none"], tmp_path / "shared", rules=rules, extra=["--workers", "2"]
    )
    assert shared.exit_code == alone.exit_code == 0
    assert shared.by_rule == alone.by_rule
    assert cucumber_scenarios(shared) == cucumber_scenarios(alone) > 0


def cucumber_scenarios(run: Run) -> int:
    features = json.loads((run.report_dir / "cucumber.json").read_text())
    return sum(len(feature["elements"]) for feature in features)


def test_the_profile_the_runner_writes_reads_back(tmp_path: Path) -> None:
    tricky = 'p"a\\ss wörd\tend'
    data = {
        "name": "bundled reference server",
        "base_url": "https://127.0.0.1:8443",
        "ca_file": "/tmp/ca.pem",
        "known_deviations": ["TOKEN-CODE-LIFETIME"],
        "min_interval": 0.5,
        "capabilities": {"test_clock": "/_test/clock", "oob": True, "manual_revocation": False},
        "user": {"username": "alice", "password": tricky, "email": "alice@example.org"},
        "clients": {
            "web": {"client_id": "id", "client_secret": "s", "redirect_uri": "https://c.example/cb"}
        },
        "consent": {"driver": "form", "preset": "bundled"},
    }
    path = write_profile(tmp_path / "profile.toml", data)
    profile = load_profile(path)
    assert profile.user.password == tricky
    assert profile.clients["web"].redirect_uri == "https://c.example/cb"
    assert profile.known_deviations == ("TOKEN-CODE-LIFETIME",)
    assert profile.capabilities.test_clock == "/_test/clock"
    assert not profile.capabilities.manual_revocation
    assert path.stat().st_mode & 0o777 == 0o600


def test_the_pytest_command_carries_every_option(tmp_path: Path) -> None:
    options = RunOptions(
        report_dir=tmp_path,
        profile=tmp_path / "p.toml",
        target="https://target.example",
        levels=("spec", "rfc"),
        tags="not lasting",
        rules=("TOKEN-NO-STORE",),
        run_slow=True,
        run_lasting=True,
        min_interval=1.5,
        strict=True,
        workers=2,
        extra=("-x",),
    )
    cmd = pytest_command(options)
    text = " ".join(cmd)
    for part in (
        f"--profile {tmp_path / 'p.toml'}",
        f"--report-dir {tmp_path}",
        f"--junitxml={tmp_path / 'junit.xml'}",
        f"--cucumberjson={tmp_path / 'cucumber.json'}",
        "--target https://target.example",
        "--level spec --level rfc",
        "--rule TOKEN-NO-STORE",
        "-m not lasting",
        "--run-slow",
        "--run-lasting",
        "--min-interval 1.5",
        "-n 2",
        "-x",
    ):
        assert part in text
    assert "--strict" not in cmd  # pytest's own option; the runner applies it to verdicts
    assert cmd[-1].endswith("test_features.py")


def test_the_proxy_keeps_no_cookies(proxy: ProxyHandle) -> None:
    """The session one client got through the proxy never reaches another client: the proxy
    passes each client's cookies and keeps none (a shared jar logged every client in)."""
    trust = ssl.create_default_context(cafile=proxy.ca_file)
    user = proxy.upstream_profile["user"]
    with httpx.Client(verify=trust, base_url=proxy.base_url) as first:
        form = login_forms(first.get("/login").text)[0]
        fields = dict(form.fields) | {"username": user["username"], "password": user["password"]}
        assert first.post(form.attrs.get("action") or "/login", data=fields).status_code == 303
        assert first.get("/account/authorized").status_code == 200  # logged in
    with httpx.Client(verify=trust, base_url=proxy.base_url) as second:
        answer = second.get("/account/authorized")
    assert answer.status_code in (302, 303) and "/login" in answer.headers["location"]


def test_the_proxy_answers_without_waiting_for_an_ack() -> None:
    """Its listeners set TCP_NODELAY, which the connections they accept inherit: otherwise an
    answer's body waits for the client's delayed ACK of its head (40 ms an answer, the bulk of
    a full run through the proxy)."""
    listener = _listen()
    try:
        assert listener.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        listener.close()
