"""The suite tells the truth about a deployment it has never seen.

The target is the foreign-style provider of tests/suite/foreign/ (metabrainz.org-like: it
differs from the spec in many places at once), described by a profile and driven by the
built-in `metabrainz` consent driver through its React-shell pages. `foreign/truth.toml`
holds the true verdict of every rule, decided by hand. The suite runs against it twice, on two
fresh providers at the same time (test clock moves in one run must not reach the other): once
as a full run (`mb-oauth-conformance`), once rule by rule (each rule alone, in one
interpreter: foreign/alone.py). Every rule's verdict must equal the table in both, and the two
must agree.

The direct probes of the provider, which check the facts the table's reasons rest on:
test_foreign_provider.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from steps.rules.catalogue import load_catalogue
from tests.suite.foreign.target import ROOT, ForeignTarget, foreign_target
from tests.support.matrix_artefact import keep_run

# Runs on one xdist worker (tests/conftest.py, ONE_WORKER): its tests share a module
# fixture, two suite runs against two providers, that a second worker would only repeat.
pytestmark = pytest.mark.slow

TRUTH_FILE = Path(__file__).with_name("foreign") / "truth.toml"
VERDICTS = {"pass", "fail", "warning", "observed", "skipped", "could not be checked"}
RULES = sorted(load_catalogue())
RUN_TIMEOUT = 600


def load_truth() -> dict[str, dict[str, str]]:
    with TRUTH_FILE.open("rb") as handle:
        return tomllib.load(handle)


TRUTH = load_truth()
#: Where a rule's true verdict for this provider goes, and how.
ADD_TRUTH = (
    f"add it to {TRUTH_FILE.relative_to(ROOT)}: [RULE-ID] verdict = one of "
    f"{', '.join(sorted(VERDICTS))} and reason = why, decided by reading the rule against the "
    "provider (tests/suite/foreign/README.md), never copied from the suite"
)


def true_verdict(rule: str) -> str:
    """The table's verdict of a rule; a rule the table lacks fails naming the file to edit."""
    entry = TRUTH.get(rule)
    if entry is None:
        pytest.fail(f"{rule} has no true verdict: {ADD_TRUTH}")
    return str(entry["verdict"])


@dataclass
class SuiteRun:
    """Verdicts of the suite by rule, with the messages of each rule's scenarios."""

    verdicts: dict[str, str]
    messages: dict[str, list[str]]
    exit_code: int
    output: str

    def explain(self, rule: str) -> str:
        """What the suite said about a rule, for an assertion message."""
        said = "\n  ".join(m[:400] for m in self.messages.get(rule, [])) or "(no scenario)"
        truth = TRUTH.get(rule, {})
        verdict = self.verdicts.get(rule)
        return (
            f"{rule}: the suite says {verdict!r}, {TRUTH_FILE.relative_to(ROOT)} says "
            f"{truth.get('verdict')!r} ({truth.get('reason', '?')})"
            f"\n  the suite's scenarios:\n  {said}"
        )


@dataclass
class Runs:
    full: SuiteRun
    alone: SuiteRun


def _full_run(target: ForeignTarget, report_dir: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", "from steps.runner import main; main()"]
    command += ["--profile", str(target.profile_path), "--run-lasting"]
    return _start([*command, "--report-dir", str(report_dir)])


def _alone_runs(target: ForeignTarget, report_dir: Path, rules: list[str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "tests.suite.foreign.alone"]
    command += ["--profile", str(target.profile_path), "--report-dir", str(report_dir)]
    return _start([*command, *rules])


def _start(command: list[str]) -> subprocess.Popen[str]:
    env = os.environ | {"NO_COLOR": "1"}
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        output, _ = process.communicate(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
    return process.returncode, output


def _read_full(report_dir: Path, code: int, output: str) -> SuiteRun:
    verdicts_file, results_file = report_dir / "verdicts.json", report_dir / "results.json"
    assert verdicts_file.exists() and results_file.exists(), output[-3000:]
    verdicts = {r["id"]: r["verdict"] for r in json.loads(verdicts_file.read_text())["rules"]}
    messages: dict[str, list[str]] = {}
    for scenario in json.loads(results_file.read_text())["scenarios"]:
        line = f"{scenario['name']}: {scenario['outcome']}: {scenario['message']}"
        for rule in scenario["rules"]:
            messages.setdefault(rule, []).append(line)
    return SuiteRun(verdicts, messages, code, output)


def _read_alone(batches: list[tuple[Path, int, str]]) -> SuiteRun:
    found: dict[str, Any] = {}
    for report_dir, code, output in batches:
        alone_file = report_dir / "alone.json"
        assert code == 0 and alone_file.exists(), output[-3000:]
        found |= json.loads(alone_file.read_text())
    verdicts = {rule: entry["verdict"] for rule, entry in found.items()}
    messages = {rule: entry["messages"] for rule, entry in found.items()}
    return SuiteRun(verdicts, messages, 0, "")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    """The full run and two halves of the rule-alone runs at once, each against a provider of
    its own (the two cores are used; a test clock move reaches no other run)."""
    work = tmp_path_factory.mktemp("foreign")
    with ExitStack() as stack:
        full_target, *alone_targets = (
            stack.enter_context(foreign_target(work / name)) for name in ("full", "odd", "even")
        )
        full = _full_run(full_target, work / "full-report")
        halves = [
            (work / f"alone-{i}", _alone_runs(target, work / f"alone-{i}", RULES[i::2]))
            for i, target in enumerate(alone_targets)
        ]
        finished = _finish(full)
        keep_run("foreign-metabrainz-like", work / "full-report")  # a column of CI's matrix
        full_run = _read_full(work / "full-report", *finished)
        alone = _read_alone([(report_dir, *_finish(process)) for report_dir, process in halves])
        yield Runs(full_run, alone)


# --- the table ------------------------------------------------------------------------------


def table_problems(truth: dict[str, dict[str, str]], rules: list[str]) -> list[str]:
    """What the table lacks or holds wrongly, each naming the rule and what to do."""
    where = TRUTH_FILE.relative_to(ROOT)
    problems = [f"{rule} has no true verdict: {ADD_TRUTH}" for rule in rules if rule not in truth]
    problems += [
        f"{where} gives {rule}, which features/rules.toml does not have: remove it"
        for rule in truth
        if rule not in rules
    ]
    problems += [
        f"{where}: {rule}'s verdict {entry.get('verdict')!r} is none of {sorted(VERDICTS)}"
        for rule, entry in truth.items()
        if entry.get("verdict") not in VERDICTS
    ]
    problems += [
        f"{where}: give {rule} its reason (reason = what the provider does, in a sentence)"
        for rule, entry in truth.items()
        if len(entry.get("reason", "")) < 10
    ]
    return problems


def test_the_table_gives_every_rule_one_verdict_and_a_reason() -> None:
    problems = table_problems(TRUTH, RULES)
    assert not problems, "\n".join(problems)


def test_a_rule_the_table_lacks_is_named_with_the_file_to_edit() -> None:
    where = TRUTH_FILE.relative_to(ROOT)
    truth = {rule: entry for rule, entry in TRUTH.items() if rule != RULES[0]}
    truth["NO-SUCH-RULE"] = {"verdict": "maybe", "reason": "short"}
    problems = table_problems(truth, RULES)
    assert problems[0].startswith(f"{RULES[0]} has no true verdict: add it to {where}")
    assert [p.split(" (")[0].split(",")[0] for p in problems[1:]] == [
        f"{where} gives NO-SUCH-RULE",
        f"{where}: NO-SUCH-RULE's verdict 'maybe' is none of ['could not be checked'",
        f"{where}: give NO-SUCH-RULE its reason",
    ]


def test_the_full_run_exit_status_follows_the_table(runs: Runs) -> None:
    catalogue = load_catalogue()
    spec = [true_verdict(rule) for rule in RULES if catalogue[rule].level == "spec"]
    expected = 1 if "fail" in spec else 3 if "could not be checked" in spec else 0
    assert runs.full.exit_code == expected, runs.full.output[-3000:]


# --- the suite against the table --------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES)
def test_full_run_verdict_is_the_true_one(runs: Runs, rule: str) -> None:
    assert runs.full.verdicts.get(rule) == true_verdict(rule), runs.full.explain(rule)


@pytest.mark.parametrize("rule", RULES)
def test_rule_alone_verdict_is_the_true_one(runs: Runs, rule: str) -> None:
    assert runs.alone.verdicts.get(rule) == true_verdict(rule), runs.alone.explain(rule)


@pytest.mark.parametrize("rule", RULES)
def test_full_run_and_rule_alone_agree(runs: Runs, rule: str) -> None:
    full, alone = runs.full.verdicts.get(rule), runs.alone.verdicts.get(rule)
    assert full == alone, f"full run: {runs.full.explain(rule)}\nalone: {runs.alone.explain(rule)}"
