"""`mb-oauth-conformance`: run the conformance suite against the bundled server or any target.

Without --target the bundled reference server is started in a throwaway folder, provisioned
(user alice and the three applications) and described by a profile written into the report
directory. Pytest runs in a subprocess (a clean interpreter per run: no state leaks between
runs, and xdist works unchanged); the reports are then rebuilt from results.json, passed
through the secret safety net, summarised on the terminal, and the verdict becomes the exit
status: 0 conforms, 1 does not, 2 usage or setup error.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from steps.reports import (
    RESULTS,
    finalize_reports,
    load_profile,
    load_results,
    write_reports,
)
from steps.reports.redact import profile_secrets
from steps.reports.stream import run_masked
from steps.verdicts import LEVELS

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_DIR = PACKAGE_DIR.parent
#: What pytest collects: the scenario modules of the steps package (they bind features/).
COLLECT_TARGET = PACKAGE_DIR / "test_features.py"
PROFILE_NAME = "profile.toml"
PYTEST_LOG = "pytest-output.txt"
#: Files of an earlier run that must not be mistaken for this run's.
STALE_FILES = ("results.json", "verdicts.json", "summary.txt", "report.html", "junit.xml",
               "cucumber.json", PYTEST_LOG)  # fmt: skip

BUNDLED_USER = "alice"
BUNDLED_EMAIL = "alice@example.org"
BUNDLED_APPS = {
    # role: (application name, type, registered redirect URI)
    "web": ("Conformance web app", "confidential", "https://client.example/callback"),
    "installed": ("Conformance desktop app", "public", "http://localhost/callback"),
    "other_web": ("Conformance other web app", "confidential", "https://other.example/cb"),
}
#: Plugins loaded explicitly (autoloading is off, see run_pytest).
PYTEST_PLUGINS = ("pytest_bdd.plugin", "steps.plugin", "no:cacheprovider")
# Exit codes of pytest that mean "the run itself went wrong" rather than "tests failed".
PYTEST_BROKEN = {2: "interrupted", 3: "internal error", 4: "usage error", 5: "no scenario selected"}


class SetupError(click.ClickException):
    """The run could not be set up or did not produce results: exit status 2."""

    exit_code = 2


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
    strict: bool = False
    workers: int = 0
    extra: tuple[str, ...] = field(default_factory=tuple)


# --- the bundled server -------------------------------------------------------------------


def provision(server: Any, password: str | None = None) -> dict[str, Any]:
    """Add the test user and the three applications to a running ServerProcess; a profile."""
    password = password or secrets.token_urlsafe(18)
    server.add_user(BUNDLED_USER, password, email=BUNDLED_EMAIL)
    clients = {}
    for role, (name, app_type, redirect_uri) in BUNDLED_APPS.items():
        app = server.add_app(BUNDLED_USER, name, app_type, redirect_uri)
        clients[role] = {
            "client_id": app["client_id"],
            "client_secret": app["client_secret"],
            "redirect_uri": app.get("redirect_uri", redirect_uri),
        }
    return {
        "name": "bundled reference server",
        "base_url": server.base_url,
        "ca_file": server.ca_file,
        "known_deviations": [],
        "min_interval": 0.0,
        "capabilities": {
            "test_clock": "/_test/clock" if getattr(server, "test_clock", True) else False,
            "oob": True,
            "manual_revocation": True,
            "plain_http_url": "",
        },
        "user": {"username": BUNDLED_USER, "password": password, "email": BUNDLED_EMAIL},
        "clients": clients,
        "consent": {"driver": "form", "preset": "bundled"},
    }


@contextlib.contextmanager
def bundled_server(work_dir: Path) -> Iterator[Any]:
    """The reference server with a test clock, on a free port, in a throwaway data folder."""
    try:
        from reference_server.launcher import ServerProcess
    except ImportError as error:  # the suite extra without the server extra
        raise SetupError(f"the bundled server is not installed: {error}") from None
    server = ServerProcess(work_dir / "server-data", test_clock=True)
    try:
        server.start()
    except Exception as error:
        raise SetupError(f"the bundled server did not start: {error}") from None
    try:
        yield server
    finally:
        server.stop()


# --- profiles -----------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    """A TOML literal for the few value types a profile holds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    # A JSON string with ASCII escapes is a valid TOML basic string.
    return json.dumps(str(value), ensure_ascii=True)


def _toml_lines(table: Mapping[str, Any], prefix: str) -> list[str]:
    scalars = [(k, v) for k, v in table.items() if not isinstance(v, Mapping)]
    tables = [(k, v) for k, v in table.items() if isinstance(v, Mapping)]
    lines = [f"{k} = {_toml_value(v)}" for k, v in scalars if v is not None]
    for key, sub in tables:
        name = f"{prefix}.{key}" if prefix else key
        lines += ["", f"[{name}]", *_toml_lines(sub, name)]
    return lines


def write_profile(path: Path, profile: Mapping[str, Any]) -> Path:
    """Write a profile as TOML, readable by its owner only (it holds the secrets)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "# Written by mb-oauth-conformance for this run; holds secrets.\n"
    text += "\n".join(_toml_lines(profile, "")) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path


# --- running pytest -----------------------------------------------------------------------


def pytest_command(options: RunOptions) -> list[str]:
    """The pytest command line: plugin options, report files and the collection target."""
    rd = options.report_dir
    cmd = [sys.executable, "-m", "pytest", *(f"-p{p}" for p in PYTEST_PLUGINS)]
    cmd += ["-q", "--tb=short", "--color=yes" if sys.stdout.isatty() else "--color=no"]
    cmd += ["--profile", str(options.profile), "--report-dir", str(rd)]
    cmd += [f"--junitxml={rd / 'junit.xml'}", f"--cucumberjson={rd / 'cucumber.json'}"]
    if options.target:
        cmd += ["--target", options.target]
    for level in options.levels:
        cmd += ["--level", level]
    for rule in options.rules:
        cmd += ["--rule", rule]
    if options.tags:
        cmd += ["-m", options.tags]
    if options.run_slow:
        cmd.append("--run-slow")
    if options.run_lasting:
        cmd.append("--run-lasting")
    if options.min_interval is not None:
        cmd += ["--min-interval", str(options.min_interval)]
    # --strict is not passed on: pytest 9 owns that option; the runner applies it to verdicts.
    if options.workers > 0:
        cmd += ["-pxdist.plugin", "-psteps.reports.xdist_bridge", "-n", str(options.workers)]
    return [*cmd, *options.extra, str(COLLECT_TARGET)]


def run_pytest(options: RunOptions) -> int:
    """Run pytest in a subprocess from the project folder, its output masked; its exit code."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join(_python_path())}
    # Only the plugins the suite needs: the others installed in the environment (hypothesis,
    # anyio, ...) cost seconds of start-up per run. `-- -p NAME` brings one back.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    secrets = profile_secrets(load_profile(options.profile))
    log = options.report_dir / PYTEST_LOG
    return run_masked(pytest_command(options), secrets, sys.stdout, log, cwd=PROJECT_DIR, env=env)


def _python_path() -> list[str]:
    existing = os.environ.get("PYTHONPATH", "")
    return [str(PROJECT_DIR), *([existing] if existing else [])]


def clear_stale(report_dir: Path) -> None:
    """Remove the files of an earlier run, so a failed run is never read as a passed one."""
    for name in STALE_FILES:
        (report_dir / name).unlink(missing_ok=True)


def known_rule_ids() -> set[str]:
    """Ids of the rule catalogue, for checking --rule before a long run starts."""
    from steps.catalogue import load_catalogue

    return set(load_catalogue())


def finish(options: RunOptions, pytest_status: int) -> int:
    """Rebuild and mask the reports, print the summary; the verdict's exit status."""
    try:
        results = load_results(options.report_dir)
    except (OSError, ValueError):
        reason = PYTEST_BROKEN.get(pytest_status, f"exit status {pytest_status}")
        raise SetupError(f"the suite produced no {RESULTS} (pytest: {reason})") from None
    from steps.catalogue import load_catalogue

    profile_data = load_profile(options.profile)
    report = write_reports(
        options.report_dir,
        results,
        load_catalogue(),
        strict=options.strict,
        secrets=profile_secrets(profile_data),
    )
    finalize_reports(options.report_dir, options.profile)
    click.echo("\n" + report.summary(colour=sys.stdout.isatty()), nl=False)
    click.echo(f"Reports in {options.report_dir}/: report.html, verdicts.json, junit.xml, "
               "cucumber.json, summary.txt, pytest-output.txt")  # fmt: skip
    if pytest_status in PYTEST_BROKEN:
        raise SetupError(f"pytest: {PYTEST_BROKEN[pytest_status]}")
    return report.exit_status


def execute(options: RunOptions) -> int:
    """Run and report; the exit status."""
    options.report_dir.mkdir(parents=True, exist_ok=True)
    clear_stale(options.report_dir)
    status = run_pytest(options)
    return finish(options, status)


def run_bundled(options: RunOptions) -> int:
    """Start and provision the bundled server, write its profile, run everything against it."""
    options.report_dir.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix="mb-oauth-conformance-") as work,
        bundled_server(Path(work)) as server,
    ):
        click.echo(f"Bundled reference server at {server.base_url}", err=True)
        write_profile(options.profile, provision(server))
        return execute(options)


# --- command line -------------------------------------------------------------------------


def check_options(target: str | None, profile: Path | None, rules: Sequence[str]) -> None:
    """Usage errors (exit status 2) before anything starts."""
    if target and not profile:
        raise click.UsageError("--target needs --profile (the credentials for the target)")
    if target and not target.startswith("https://"):
        raise click.UsageError("--target must be an https:// URL")
    unknown = sorted(set(rules) - known_rule_ids())
    if unknown:
        raise click.UsageError(f"unknown rule id(s): {', '.join(unknown)}")


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--target", metavar="URL", help="Base URL of the deployment (overrides the profile).")
@click.option(
    "--profile",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Deployment profile (TOML). Without it the bundled server is started.",
)
@click.option("--level", "levels", multiple=True, type=click.Choice(LEVELS), help="Repeatable.")
@click.option("--tags", metavar="EXPR", help="Marker expression, as pytest -m.")
@click.option("--rule", "rules", multiple=True, metavar="ID", help="Rule id; repeatable.")
@click.option("--run-slow", is_flag=True, help="Also run scenarios that wait in real time.")
@click.option("--run-lasting", is_flag=True, help="Also run scenarios that change lasting state.")
@click.option("--min-interval", type=click.FloatRange(min=0), help="Seconds between requests.")
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("reports"),
    show_default=True,
)
@click.option("--strict", is_flag=True, help="rfc warnings also make the run fail.")
@click.option("--workers", type=click.IntRange(min=0), default=0, help="pytest-xdist workers.")
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def main(
    target: str | None,
    profile: Path | None,
    levels: tuple[str, ...],
    tags: str | None,
    rules: tuple[str, ...],
    run_slow: bool,
    run_lasting: bool,
    min_interval: float | None,
    report_dir: Path,
    strict: bool,
    workers: int,
    pytest_args: tuple[str, ...],
) -> None:
    """Check a MusicBrainz OAuth 2.0 deployment against the spec, rule by rule.

    Exit status: 0 every spec rule passes (or is a known deviation), 1 otherwise (--strict:
    rfc warnings too), 2 usage or setup error. Arguments after `--` go to pytest.
    """
    check_options(target, profile, rules)
    started = time.monotonic()
    options = RunOptions(
        report_dir=report_dir.resolve(),
        profile=(profile or report_dir / PROFILE_NAME).resolve(),
        target=target,
        levels=levels,
        tags=tags,
        rules=rules,
        run_slow=run_slow,
        run_lasting=run_lasting or profile is None,
        min_interval=min_interval,
        strict=strict,
        workers=workers,
        extra=pytest_args,
    )
    status = execute(options) if profile else run_bundled(options)
    click.echo(f"Finished in {time.monotonic() - started:.1f} s", err=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
