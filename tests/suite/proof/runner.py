"""The proof's runs: the baseline (the transparent proxy) and every planned target, each a full
suite run (`mb-oauth-conformance --profile ... --run-lasting`, every rule) through a proxy in
front of a bundled server with a test clock; `jobs` proxies, each with its own server, take the
targets one after another.

A target's outcome compares its verdicts with the baseline's: its rule must fail (fail or
warning), and no other rule may get worse than "could not be checked" (a rule the fault's rule
restates, `Fault.implies`, may fail too). The proxy's counters say whether the fault applied at
all, which tells a combination the suite never sent from a rule that passed despite the
fault."""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from steps.profiles.writer import write_profile
from steps.reports.verdicts import UNCHECKED
from steps.rules.catalogue import load_catalogue
from steps.runner import main as conformance_main
from tests.suite.broken.harness import (
    ProxyHandle,
    Run,
    bundled_profile,
    run_conformance_process,
    running_proxy,
    stop_suite_runs,
)
from tests.suite.proof.fault import FAULTS
from tests.suite.proof.plan import PlannedTarget
from tests.suite.proof.target import BASELINE, TRACE

TARGETS_MODULE = "tests.suite.proof.target"
FAILING = ("fail", "warning")


@dataclass
class Outcome:
    """What one target's run showed."""

    target: PlannedTarget
    verdict: str  # the rule's verdict
    applied: int  # how often the fault applied
    seconds: float
    requests: int = 0
    collateral: dict[str, str] = field(default_factory=dict)  # rule -> "before -> after (why)"
    implied: dict[str, str] = field(default_factory=dict)  # restated rules that failed too
    why: str = ""  # the rule's first message when it did not fail
    error: str = ""  # the run itself went wrong (no verdicts)
    fault_errors: int = 0  # requests the fault itself failed on (a mistake of the proof)

    @property
    def caught(self) -> bool:
        return self.verdict in FAILING

    @property
    def missed(self) -> bool:
        return not self.caught

    @property
    def clean(self) -> bool:
        """Caught, and nothing else got worse."""
        return self.caught and not self.collateral and not self.error and not self.fault_errors


def judge(target: PlannedTarget, baseline: Run, run: Run, applied: int, seconds: float) -> Outcome:
    """The outcome of a target's run against the baseline's verdicts."""
    before, after = baseline.by_rule, run.by_rule
    implies = FAULTS[target.rule].implies
    outcome = Outcome(target, after.get(target.rule, "not run"), applied, seconds)
    counters = run.verdicts.get("proxy") or {}
    outcome.requests = int(counters.get("requests", 0))
    outcome.fault_errors = int(counters.get("fault errors", 0))
    if not after:
        outcome.error = run.output[-2000:]
        return outcome
    if outcome.missed:
        outcome.why = why(run, target.rule)
    for rule in sorted(set(before) | set(after)):
        old, new = before.get(rule), after.get(rule)
        if rule == target.rule or new in (old, str(UNCHECKED)) or new not in FAILING:
            continue
        change = f"{old} -> {new}{_because(why(run, rule))}"
        (outcome.implied if rule in implies else outcome.collateral)[rule] = change
    return outcome


def gap(outcome: Outcome) -> str:
    """What went wrong with a target, in a line: missed, collateral, or the run itself."""
    if outcome.error or outcome.fault_errors:
        return f"the run went wrong ({outcome.fault_errors} fault errors) {outcome.error[:200]}"
    parts = []
    if outcome.missed:
        how = f"applied {outcome.applied}x" if outcome.applied else "the fault never applied"
        parts.append(f"missed: {outcome.verdict} ({how}) {outcome.why}".strip())
    parts += [f"collateral {rule}: {change}" for rule, change in outcome.collateral.items()]
    return "; ".join(parts)


def why(run: Run, rule: str) -> str:
    """The first message of a scenario of the rule that did not pass, on one line."""
    entry: dict[str, Any] = next((r for r in run.verdicts.get("rules", []) if r["id"] == rule), {})
    scenarios = [s for s in entry.get("scenarios", []) if s.get("message")]
    scenarios.sort(key=lambda s: s.get("outcome") != "failed")  # a failure says most
    return " ".join(scenarios[0]["message"].split())[:300] if scenarios else ""


def _folder(name: str) -> str:
    """A target's folder: its name in characters any file system takes."""
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", name.removeprefix("proof:")).strip("_") or "target"


def _because(text: str) -> str:
    return f" ({text})" if text else ""


def supports_combinations() -> bool:
    """Whether the suite's runner takes --combinations (the product rows on request)."""
    return any("--combinations" in p.opts for p in conformance_main.params)


@dataclass
class Prover:
    """Runs the baseline and the targets on `jobs` proxies."""

    work: Path
    jobs: int = 1
    combinations: str = "pairs"
    progress: Callable[[str], None] = print
    trace: bool = False  # each proxy writes its requests' classification (target.TRACE)
    resume: bool = False  # take the runs an earlier proof in `work` finished as they are
    finished_only: bool = False  # run nothing: judge the runs an earlier proof finished
    quick: bool = False  # a target runs its own rule's scenarios only (a fault's check)
    baseline: Run | None = None
    baseline_seconds: float = 0.0

    def prove(self, targets: Sequence[PlannedTarget]) -> list[Outcome]:
        """The outcome of every target, in the order given."""
        self.work.mkdir(parents=True, exist_ok=True)
        todo: queue.Queue[tuple[int, PlannedTarget]] = queue.Queue()
        for index, target in enumerate(targets):
            todo.put((index, target))
        results: dict[int, tuple[PlannedTarget, Run, int, float]] = {}
        if self.finished_only:
            return self._judge_finished(targets)
        with ExitStack() as stack:
            proxies = [stack.enter_context(self._proxy(n)) for n in range(max(1, self.jobs))]
            stack.callback(stop_suite_runs)  # on the way out, before the servers go
            self._baseline(proxies[0])
            workers = [
                threading.Thread(
                    target=self._work, args=(p, todo, results, len(targets)), daemon=True
                )
                for p in proxies
            ]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
        assert self.baseline is not None
        return [judge(t, self.baseline, run, n, s) for _, (t, run, n, s) in sorted(results.items())]

    @contextmanager
    def _proxy(self, number: int) -> Iterator[ProxyHandle]:
        work = self.work / f"server-{number}"
        shutil.rmtree(work, ignore_errors=True)  # a fresh server (an earlier proof's stays)
        work.mkdir(parents=True)
        if self.trace:
            os.environ[TRACE] = str(work / "trace.jsonl")  # read by the proxy started next
        with (
            bundled_profile(work) as upstream,
            running_proxy(upstream, work / "proxy", [TARGETS_MODULE]) as proxy,
        ):
            yield proxy

    def _baseline(self, proxy: ProxyHandle) -> None:
        self.baseline, self.baseline_seconds = self._finished(proxy, BASELINE, None)
        failing = sorted(r for r, v in self.baseline.by_rule.items() if v in FAILING)
        self.progress(
            f"baseline: {len(self.baseline.by_rule)} rules, failing {failing or 'none'} "
            f"({self.baseline_seconds:.0f} s)"
        )

    def _work(
        self,
        proxy: ProxyHandle,
        todo: queue.Queue[tuple[int, PlannedTarget]],
        results: dict[int, tuple[PlannedTarget, Run, int, float]],
        total: int,
    ) -> None:
        while True:
            try:
                index, target = todo.get_nowait()
            except queue.Empty:
                return
            run, seconds = self._finished(proxy, target.name, target)
            applied = int((run.verdicts.get("proxy") or {}).get("applied", 0))
            results[index] = (target, run, applied, seconds)
            self._report_one(index, total, target, run, applied, seconds)

    def _finished(
        self, proxy: ProxyHandle, name: str, target: PlannedTarget | None
    ) -> tuple[Run, float]:
        """A run of the target (or the baseline) and its seconds: an earlier proof's when
        resuming and it finished, else a new one; noted in its folder (outcome.json)."""
        work = self.work / _folder(name)
        earlier = self._earlier(name) if self.resume else None
        if earlier is not None:
            return earlier
        started = time.monotonic()
        run = self._run(proxy, name, target, work)
        run.verdicts["proxy"] = counters = proxy.counters()
        seconds = time.monotonic() - started
        outcome = {"name": name, "exit_code": run.exit_code, "counters": counters}
        (work / "outcome.json").write_text(json.dumps(outcome | {"seconds": seconds}) + "\n")
        return run, seconds

    def _earlier(self, name: str) -> tuple[Run, float] | None:
        """The run an earlier proof in `work` finished for this name, with its seconds."""
        work = self.work / _folder(name)
        noted, verdicts = work / "outcome.json", work / "reports" / "verdicts.json"
        if not (noted.exists() and verdicts.exists()):
            return None
        outcome = json.loads(noted.read_text())
        if outcome.get("name") != name:
            return None
        run = Run(outcome["exit_code"], json.loads(verdicts.read_text()), work, "")
        run.verdicts["proxy"] = outcome["counters"]
        return run, float(outcome["seconds"])

    def _judge_finished(self, targets: Sequence[PlannedTarget]) -> list[Outcome]:
        """The outcomes of the targets an earlier proof finished (the others left out)."""
        baseline = self._earlier(BASELINE)
        if baseline is None:
            raise RuntimeError(f"no finished baseline in {self.work}")
        self.baseline, self.baseline_seconds = baseline
        outcomes = []
        for target in targets:
            earlier = self._earlier(target.name)
            if earlier is not None:
                run, seconds = earlier
                applied = int((run.verdicts.get("proxy") or {}).get("applied", 0))
                outcomes.append(judge(target, self.baseline, run, applied, seconds))
        return outcomes

    def _report_one(
        self, index: int, total: int, target: PlannedTarget, run: Run, applied: int, seconds: float
    ) -> None:
        verdict = run.by_rule.get(target.rule, "no verdict")
        word = "caught" if verdict in FAILING else "MISSED"
        self.progress(
            f"[{index + 1}/{total}] {word:6} {target.rule} {target.words}: {verdict}, "
            f"fault applied {applied}x ({seconds:.0f} s)"
        )

    def _run(self, proxy: ProxyHandle, name: str, target: PlannedTarget | None, work: Path) -> Run:
        """One full suite run against the proxy switched to `name`."""
        proxy.let_guard_forget()
        proxy.switch(name)
        profile = self._profile(proxy, name, target)
        profile_file = write_profile(work / "profile.toml", profile)
        args = ["--profile", str(profile_file), "--run-lasting"]
        rules = [target.rule] if self.quick and target else sorted(load_catalogue())
        for rule in rules:
            args += ["--rule", rule]
        if self.combinations == "product" and supports_combinations():
            args += ["--combinations", "product"]
        return run_conformance_process(args, work / "reports")

    @staticmethod
    def _profile(proxy: ProxyHandle, name: str, target: PlannedTarget | None) -> dict[str, Any]:
        profile = dict(proxy.upstream_profile)
        profile |= {"name": f"broken target: {name}", "base_url": proxy.base_url}
        profile |= {"ca_file": proxy.ca_file, "known_deviations": []}
        edit = FAULTS[target.rule].profile if target else None
        return edit(profile, proxy.plain_url) if edit else profile
