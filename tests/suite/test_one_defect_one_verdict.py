"""One defect, one verdict: full runs against one-rule defects.

Each target of `registry.ONE_RULE` breaks one rule, in the way of one of the issue's classes
(`registry.KINDS`: a premise's format, a reader's leniency, a rule's variant, a flaky defect).
The suite runs every rule against it, slow and lasting scenarios included (the bundled
server's test clock lets time pass), and its verdicts are compared with those of the same full
run through the transparent proxy: the failing rules (fail or warning) must be exactly the
broken one, and every other rule must keep its verdict or say "could not be checked".

A flaky target shows its defect in a share (`rate`) of its tries: the suite must find it
whenever it showed, and when it never showed the suite must have tried often enough to find it
with 99 % probability (and no rule may fail: nothing was broken).

One full run through the proxy takes about 20 s, so the module takes a few minutes. The runs go
one after another: the proxy serves one mutation at a time, and the slow scenarios move the
one server's clock, which would expire a concurrent run's tokens halfway through a scenario.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from steps.reports.verdicts import UNCHECKED
from steps.rules.catalogue import load_catalogue
from tests.suite.broken.harness import ProxyHandle, Run, bundled_profile, run_against, running_proxy
from tests.suite.broken.mutations import MUTATIONS, ONE_RULE, Mutation
from tests.suite.broken.registry import KINDS

pytestmark = pytest.mark.slow

#: The probability with which the suite must find a flaky defect.
CONFIDENCE = 0.99
#: Targets per class of the issue, at least ("at least two").
PER_KIND = 3
NOT_REAL = ("skipped", "not run", str(UNCHECKED))


def samples_needed(rate: float, confidence: float = CONFIDENCE) -> int:
    """Tries after which a defect shown at `rate` per try has shown at least once with the
    given confidence: 1 - (1 - rate) ** n >= confidence."""
    return math.ceil(math.log(1 - confidence) / math.log(1 - rate))


def full_run(proxy: ProxyHandle, mutation: Mutation, work: Path) -> Run:
    """Every rule of the catalogue against the target (lasting ones too), with the server's
    guard as fresh as for a first run."""
    proxy.let_guard_forget()
    return run_against(proxy, mutation, work, rules=load_catalogue())


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProxyHandle]:
    work = tmp_path_factory.mktemp("one-rule")
    with bundled_profile(work) as upstream, running_proxy(upstream, work / "proxy") as handle:
        yield handle


@pytest.fixture(scope="module")
def baseline(proxy: ProxyHandle, tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The full run through the transparent proxy, once for the module."""
    return full_run(proxy, MUTATIONS["none"], tmp_path_factory.mktemp("baseline"))


def test_every_class_has_its_one_rule_targets() -> None:
    catalogue = load_catalogue()
    kinds = Counter(m.kind for m in ONE_RULE.values())
    assert set(kinds) == set(KINDS)
    assert all(kinds[kind] >= PER_KIND for kind in KINDS), kinds
    for name, mutation in ONE_RULE.items():
        assert len(mutation.breaks) == 1 and mutation.breaks <= set(catalogue), name
        assert not mutation.also and mutation.summary, name
        assert (mutation.kind == "flaky") == (0 < mutation.rate < 1), name
    assert not set(ONE_RULE) & set(MUTATIONS), "a name serves two proofs"
    handlers = [m.handler for m in [*ONE_RULE.values(), *MUTATIONS.values()]]
    assert len(set(handlers)) == len(handlers), "two targets share a handler"


def test_samples_needed_for_a_flaky_defect() -> None:
    assert samples_needed(0.5) == 7  # 0.5 ** 7 < 1 % < 0.5 ** 6
    assert samples_needed(0.5, 0.999) == 10
    assert samples_needed(0.1) == 44
    assert samples_needed(0.99) == 1


def test_the_baseline_checks_every_rule_and_fails_none(baseline: Run) -> None:
    """Without a defect every rule gets a real verdict, or a changed verdict proves nothing."""
    assert baseline.failing == set(), baseline.summary()
    not_real = {r: v for r, v in baseline.by_rule.items() if v in NOT_REAL}
    assert not_real == {}, baseline.summary()
    assert set(baseline.by_rule) >= set(load_catalogue())
    assert baseline.exit_code == 0


def _case(name: str) -> object:
    """A target the suite is known to get wrong is an expected (strict) failure."""
    gap = ONE_RULE[name].known_gap
    marks = [pytest.mark.xfail(reason=f"suite gap: {gap}", strict=True)] if gap else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_case(name) for name in sorted(ONE_RULE)])
def test_one_defect_changes_one_verdict(
    name: str, proxy: ProxyHandle, baseline: Run, tmp_path: Path
) -> None:
    mutation = ONE_RULE[name]
    run = full_run(proxy, mutation, tmp_path)
    counters = proxy.counters()
    expected = set(mutation.breaks)
    problems = []
    if mutation.rate:
        problems += sampling_problems(mutation, counters)
        if not counters.get("shown"):
            expected = set()  # the defect never showed: there was nothing to find
    problems += verdict_problems(baseline, run, expected)
    if problems:
        pytest.fail(f"{name} ({mutation.summary}):\n" + "\n".join(problems), pytrace=False)


def sampling_problems(mutation: Mutation, counters: dict[str, int]) -> list[str]:
    """Whether the suite tried a flaky defect often enough to find it with CONFIDENCE. A check
    may stop sampling at the first try that shows the defect (its rule then fails: see
    verdict_problems); one that never saw it must have tried often enough."""
    tries, needed = counters.get("tries", 0), samples_needed(mutation.rate)
    if tries >= needed or counters.get("shown"):
        return []
    chance = 1 - (1 - mutation.rate) ** tries
    return [
        f"  tried {tries} times (shown {counters.get('shown', 0)}): a defect shown at "
        f"{mutation.rate:.0%} is found with {chance:.1%}; {CONFIDENCE:.0%} needs {needed} tries"
    ]


def verdict_problems(baseline: Run, run: Run, expected: set[str]) -> list[str]:
    """The broken rule not failing, another rule failing, or another verdict changed to
    anything but "could not be checked"; each with what the run said about the rule."""
    before, after = baseline.by_rule, run.by_rule
    problems = [
        f"  missed {r}: {after.get(r)}{why(run, r)}" for r in sorted(expected - run.failing)
    ]
    for rule in sorted(set(before) | set(after)):
        old, new = before.get(rule), after.get(rule)
        if rule not in expected and new not in (old, str(UNCHECKED)):
            problems.append(f"  changed {rule}: {old} -> {new}{why(run, rule)}")
    return problems


def why(run: Run, rule: str) -> str:
    """The first message of a scenario of the rule that did not pass."""
    entry = next((r for r in run.verdicts["rules"] if r["id"] == rule), {})
    messages = [s.get("message", "") for s in entry.get("scenarios", []) if s.get("message")]
    return f" ({' '.join(messages[0].split())[:160]})" if messages else ""
