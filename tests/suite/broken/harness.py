"""Start the bundled server and the mutating proxy, and run the suite against the proxy."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from click.testing import CliRunner

from steps.profiles.bundled import bundled_server, provision
from steps.profiles.writer import write_profile
from steps.runner import PROJECT_DIR, main
from tests.suite.broken.mutations import Mutation
from tests.suite.broken.proxy import READY_FILE

START_TIMEOUT = 30.0
GUARD_WINDOW = 60  # seconds: the bundled server's brute-force guard counts failures per minute
#: Seconds of quiet after which the bundled server's guard forgets a client's failures
#: (GuardPolicy.forget_after), plus a minute.
GUARD_FORGETS = 86400 + 60


@dataclass
class ProxyHandle:
    """A running proxy: where it listens and how to switch its mutation."""

    base_url: str
    plain_url: str
    ca_file: str
    upstream_profile: dict[str, Any]

    def switch(self, name: str) -> None:
        """Select the mutation for the next run (state of the previous one is dropped)."""
        trust = ssl.create_default_context(cafile=self.ca_file)
        response = httpx.post(f"{self.base_url}/_proxy/mutation", data={"name": name}, verify=trust)
        response.raise_for_status()
        self._next_guard_window(trust)

    def counters(self) -> dict[str, int]:
        """What the current mutation counted since it was switched on (a flaky one's tries
        and shows); read it before the next switch."""
        trust = ssl.create_default_context(cafile=self.ca_file)
        response = httpx.get(f"{self.base_url}/_proxy/mutation", verify=trust)
        response.raise_for_status()
        return {str(k): int(v) for k, v in (response.json().get("counters") or {}).items()}

    def _next_guard_window(self, trust: ssl.SSLContext) -> None:
        """Move the server's test clock past its brute-force guard's window (failures counted
        per client and minute): each run is an experiment of its own, and the deliberate
        failures of the runs before must not throttle it."""
        path = (self.upstream_profile.get("capabilities") or {}).get("test_clock")
        if path:
            url = f"{self.base_url}{path}"
            httpx.post(url, data={"advance": str(GUARD_WINDOW)}, verify=trust).raise_for_status()

    def let_guard_forget(self) -> None:
        """Move the server's test clock (directly, not through a mutation) until its guard
        forgets every failure. The guard counts a client's failures until it has been quiet
        for a day: full runs in a row add up the deliberate failures of the second web
        application (it never exchanges a code of its own), which would throttle the next."""
        upstream = self.upstream_profile
        path = (upstream.get("capabilities") or {}).get("test_clock")
        if path:
            trust = ssl.create_default_context(cafile=upstream["ca_file"])
            url = f"{upstream['base_url']}{path}"
            httpx.post(url, data={"advance": str(GUARD_FORGETS)}, verify=trust).raise_for_status()

    def profile(self, mutation: Mutation) -> dict[str, Any]:
        """The upstream's profile pointed at the proxy, with the mutation's overrides."""
        profile = dict(self.upstream_profile)
        profile |= {"name": f"broken target: {mutation.name}", "base_url": self.base_url}
        profile["ca_file"] = self.ca_file
        for table, values in mutation.profile.items():
            merged = dict(profile.get(table) or {})
            merged |= {k: str(v).format(plain_url=self.plain_url) for k, v in values.items()}
            profile[table] = merged
        return profile


@contextmanager
def bundled_profile(work_dir: Path) -> Iterator[dict[str, Any]]:
    """The bundled server with a test clock, provisioned; its profile."""
    with bundled_server(work_dir) as server:
        yield provision(server)


@contextmanager
def running_proxy(
    upstream: Mapping[str, Any], work_dir: Path, targets: Iterable[str] = ()
) -> Iterator[ProxyHandle]:
    """The proxy as a child process in front of the upstream profile's server; `targets`
    names modules that register more targets in it (the generated proof's)."""
    work_dir.mkdir(parents=True, exist_ok=True)
    upstream_file = write_profile(work_dir / "upstream.toml", upstream)
    log = (work_dir / "proxy.log").open("ab")
    command = [sys.executable, "-m", "tests.suite.broken.proxy"]
    command += ["--upstream-profile", str(upstream_file), "--work-dir", str(work_dir)]
    command += [arg for module in targets for arg in ("--targets", module)]
    process = subprocess.Popen(
        command, cwd=PROJECT_DIR, stdout=log, stderr=log, start_new_session=True
    )
    log.close()
    try:
        ready = _wait_ready(process, work_dir / READY_FILE)
        yield ProxyHandle(ready["base_url"], ready["plain_url"], ready["ca_file"], dict(upstream))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)


def _wait_ready(process: subprocess.Popen[bytes], ready: Path) -> dict[str, str]:
    deadline = time.monotonic() + START_TIMEOUT
    while not ready.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the proxy did not start (see {ready.parent / 'proxy.log'})")
        time.sleep(0.05)
    return json.loads(ready.read_text())


@dataclass
class Run:
    """The outcome of one conformance run."""

    exit_code: int
    verdicts: dict[str, Any]
    report_dir: Path
    output: str

    @property
    def by_rule(self) -> dict[str, str]:
        return {r["id"]: r["verdict"] for r in self.verdicts["rules"]}

    @property
    def failing(self) -> set[str]:
        """Rules reported as failing (spec) or warning (rfc)."""
        return {rule for rule, verdict in self.by_rule.items() if verdict in ("fail", "warning")}

    def failing_among(self, selection: Iterable[str]) -> set[str]:
        """Failing rules of a selection (a scenario may also carry rules outside it)."""
        return self.failing & set(selection)

    def summary(self) -> str:
        """The run's terminal summary, for assertion messages."""
        path = self.report_dir / "summary.txt"
        return path.read_text() if path.exists() else self.output


def run_conformance(args: list[str], report_dir: Path) -> Run:
    """mb-oauth-conformance in this process (pytest itself runs in a subprocess)."""
    result = CliRunner().invoke(main, [*args, "--report-dir", str(report_dir)])
    verdicts_file = report_dir / "verdicts.json"
    verdicts = json.loads(verdicts_file.read_text()) if verdicts_file.exists() else {"rules": []}
    return Run(result.exit_code, verdicts, report_dir, result.output)


#: Suite runs going on as processes of their own (each in a process group of its own).
_LIVE: set[subprocess.Popen[str]] = set()


def run_conformance_process(args: list[str], report_dir: Path, timeout: float = 1800) -> Run:
    """mb-oauth-conformance as a process of its own: runs can go on side by side in threads
    (the in-process runner swaps the interpreter's standard streams)."""
    command = [sys.executable, "-m", "steps.runner", *args, "--report-dir", str(report_dir)]
    process = subprocess.Popen(
        command,
        cwd=PROJECT_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    _LIVE.add(process)
    try:
        output, _ = process.communicate(timeout=timeout)
        exit_code = process.returncode
    except subprocess.TimeoutExpired:
        _stop(process)
        exit_code, output = -1, f"timed out after {timeout:.0f} s"
    finally:
        _LIVE.discard(process)
    verdicts_file = report_dir / "verdicts.json"
    verdicts = json.loads(verdicts_file.read_text()) if verdicts_file.exists() else {"rules": []}
    return Run(exit_code, verdicts, report_dir, output)


def stop_suite_runs() -> None:
    """End the suite runs still going on (an interrupted proof leaves none behind)."""
    for process in list(_LIVE):
        _stop(process)


def _stop(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=15)


def run_against(
    proxy: ProxyHandle,
    mutation: Mutation,
    work_dir: Path,
    rules: Iterable[str] | None = None,
    extra: Iterable[str] = (),
    deviations: Iterable[str] = (),
) -> Run:
    """Switch the proxy to a mutation and run the suite limited to the mutation's rules."""
    proxy.switch(mutation.name)
    listed = dict(proxy.profile(mutation).get("known_deviations") or {})  # the server's own
    profile = proxy.profile(mutation) | {"known_deviations": listed | dict.fromkeys(deviations, "")}
    profile_file = write_profile(work_dir / "profile.toml", profile)
    args = ["--profile", str(profile_file), "--run-lasting", *extra]
    for rule in sorted(mutation.selection if rules is None else rules):
        args += ["--rule", rule]
    return run_conformance(args, work_dir / "reports")
