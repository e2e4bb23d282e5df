"""How `mb-oauth-conformance` runs pytest: the options it passes to the suite's plugin, the
command line, and the subprocess (a clean interpreter per run, its output masked)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from client_kit.redaction import share_mask_key
from steps.reports import load_profile
from steps.reports.redact import PYTEST_LOG, profile_secrets
from steps.reports.stream import run_masked

PACKAGE_DIR = Path(__file__).resolve().parents[1]
PROJECT_DIR = PACKAGE_DIR.parent
#: What pytest collects: the scenario modules of the steps package (they bind features/).
COLLECT_TARGET = PACKAGE_DIR / "test_features.py"

#: Plugins loaded explicitly (autoloading is off, see run_pytest).
PYTEST_PLUGINS = ("pytest_bdd.plugin", "steps.plugin", "no:cacheprovider")


@dataclass
class RunOptions:
    """What the command line asked for, as the pytest plugin's options need it."""

    report_dir: Path
    profile: Path
    target: str | None = None
    levels: tuple[str, ...] = ()
    tags: str | None = None
    rules: tuple[str, ...] = ()
    run_slow: bool = False
    run_lasting: bool = False
    min_interval: float | None = None
    #: "pairs" or "product" (--combinations).
    combinations: str = "pairs"
    strict: bool = False
    workers: int = 0
    extra: tuple[str, ...] = field(default_factory=tuple)


def pytest_command(options: RunOptions) -> list[str]:
    """The pytest command line: plugins, report files, suite options, collection target."""
    rd = options.report_dir
    cmd = [sys.executable, "-m", "pytest", *(f"-p{p}" for p in PYTEST_PLUGINS), "--no-preflight"]
    cmd += ["-q", "--tb=short", "--color=yes" if use_colour() else "--color=no"]
    cmd += [f"--junitxml={rd / 'junit.xml'}", f"--cucumberjson={rd / 'cucumber.json'}"]
    cmd += suite_arguments(options)
    if options.workers > 0:
        cmd += ["-pxdist.plugin", "-psteps.reports.xdist_bridge", "-n", str(options.workers)]
    return [*cmd, *options.extra, str(COLLECT_TARGET)]


def use_colour() -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def suite_arguments(options: RunOptions) -> list[str]:
    """The plugin's options. --strict is not among them: pytest 9 owns that option, and the
    runner applies it to the verdicts itself."""
    args = ["--profile", str(options.profile), "--report-dir", str(options.report_dir)]
    args += ["--target", options.target] if options.target else []
    args += [arg for level in options.levels for arg in ("--level", level)]
    args += [arg for rule in options.rules for arg in ("--rule", rule)]
    args += ["-m", options.tags] if options.tags else []
    args += ["--run-slow"] if options.run_slow else []
    args += ["--run-lasting"] if options.run_lasting else []
    if options.min_interval is not None:
        args += ["--min-interval", str(options.min_interval)]
    if options.combinations != "pairs":
        args += ["--combinations", options.combinations]
    return args


def run_pytest(options: RunOptions) -> int:
    """Run pytest in a subprocess from the project folder, its output masked; its exit code."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join(_python_path())}
    # Only the plugins the suite needs: the others installed in the environment (hypothesis,
    # anyio, ...) cost seconds of start-up per run. `-- -p NAME` brings one back.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    # The manual driver's questions follow pytest's output through the relay when that output
    # reaches a terminal (in order, after the progress dots: steps/consent/console.py).
    from steps.consent.console import RELAYED_TO_TERMINAL  # the driver's module, on demand

    env[RELAYED_TO_TERMINAL] = "1" if sys.stdout.isatty() else "0"
    share_mask_key(env)  # pytest masks the evidence as this process masks the reports
    secrets = profile_secrets(load_profile(options.profile))
    log = options.report_dir / PYTEST_LOG
    return run_masked(pytest_command(options), secrets, sys.stdout, log, cwd=PROJECT_DIR, env=env)


def _python_path() -> list[str]:
    existing = os.environ.get("PYTHONPATH", "")
    return [str(PROJECT_DIR), *([existing] if existing else [])]
