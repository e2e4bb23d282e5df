"""`mb-oauth-conformance`: run the conformance suite against the bundled server or any target.

Without --target the bundled reference server is started in a throwaway folder, provisioned
(user alice and the three applications) and described by a profile written into the report
directory. Pytest runs in a subprocess (a clean interpreter per run: no state leaks between
runs, and xdist works unchanged); the reports are then rebuilt from results.json, passed
through the secret safety net, summarised on the terminal, and the verdict becomes the exit
status: 0 conforms, 1 does not, 2 usage or setup error (profile, consent driver, preflight, a
selection that checks nothing), 3 incomplete (no spec rule fails, some could not be checked).
Before pytest starts, a preflight checks once that the target is reachable, its TLS verifies,
the clients' credentials are accepted and the user can log in.
"""

from __future__ import annotations

import sys
import tempfile
import time
import tomllib
from pathlib import Path

import click

from steps.profiles.bundled import SetupError, bundled_server, provision
from steps.profiles.writer import write_profile
from steps.reports import RESULTS, load_results, rewrite_reports
from steps.reports.redact import PYTEST_LOG
from steps.reports.stream import ProgressOnly
from steps.reports.verdicts import LEVELS
from steps.rules.catalogue import load_catalogue
from steps.run.compare import RunnerCommand
from steps.run.pytest_run import (
    COLLECT_TARGET,
    PROJECT_DIR,
    PYTEST_BROKEN,
    PYTEST_PLUGINS,
    RunOptions,
    broken_run,
    pytest_command,
    run_pytest,
    say_what_was_held,
    suite_arguments,
    use_colour,
)
from steps.run.usage import check_options
from steps.safety.text import shown

#: With the names tests and tools import from here (the pytest part lives in
#: steps/run/pytest_run.py).
__all__ = [
    "COLLECT_TARGET",
    "PROJECT_DIR",
    "PYTEST_PLUGINS",
    "RunOptions",
    "main",
    "pytest_command",
    "suite_arguments",
]

PROFILE_NAME = "profile.toml"
#: Files of an earlier run that must not be mistaken for this run's.
STALE_FILES = ("results.json", "verdicts.json", "summary.txt", "report.html", "junit.xml",
               "cucumber.json", PYTEST_LOG)  # fmt: skip


def clear_stale(report_dir: Path) -> None:
    """Remove the files of an earlier run, so a failed run is never read as a passed one."""
    for name in STALE_FILES:
        (report_dir / name).unlink(missing_ok=True)


def preflight(options: RunOptions) -> None:
    """The preflight checks (exit 2 with one line on the first problem)."""
    from steps.profiles.profile import ProfileError
    from steps.profiles.profile import load_profile as parse
    from steps.run.preflight import PreflightError, run_preflight

    try:
        profile = parse(options.profile, target=options.target, min_interval=options.min_interval)
        found = run_preflight(profile)
    except (ProfileError, tomllib.TOMLDecodeError, OSError) as error:
        raise SetupError(f"profile {options.profile}: {error}") from None
    except PreflightError as error:  # may quote the deployment: escaped
        raise SetupError(f"preflight: {shown(str(error))}") from None
    for note in found.notes:
        click.echo(f"preflight: {shown(note)}", err=True)


def finish(options: RunOptions, pytest_status: int) -> int:
    """Rebuild and mask the reports, print the summary; the verdict's exit status."""
    try:
        results = load_results(options.report_dir)
    except (OSError, ValueError):
        if pytest_status in PYTEST_BROKEN:
            raise broken_run(options, pytest_status) from None
        status = f"pytest: exit status {pytest_status}"
        raise SetupError(f"the suite produced no {RESULTS} ({status})") from None
    if options.label:
        results["label"] = options.label
    report = rewrite_reports(
        options.report_dir, results, load_catalogue(), options.profile, options.strict
    )
    if pytest_status in PYTEST_BROKEN:
        raise broken_run(options, pytest_status)
    click.echo("\n" + report.summary(colour=use_colour()), nl=False)
    click.echo(f"Reports in {options.report_dir}/: report.html, verdicts.json, junit.xml, "
               "cucumber.json, summary.txt, pytest-output.txt")  # fmt: skip
    return report.exit_status


def execute(options: RunOptions) -> int:
    """Run and report; the exit status."""
    options.report_dir.mkdir(parents=True, exist_ok=True)
    clear_stale(options.report_dir)
    preflight(options)
    terminal = sys.stdout if options.verbose else ProgressOnly(sys.stdout)
    status = run_pytest(options, terminal)
    if isinstance(terminal, ProgressOnly):
        say_what_was_held(options, terminal, status)
    return finish(options, status)


def run_bundled(options: RunOptions, port: int = 0) -> int:
    """Start and provision the bundled server (on `port`, 0: a free one), write its profile,
    run everything against it."""
    options.report_dir.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix="mb-oauth-conformance-") as work,
        bundled_server(Path(work), port) as server,
    ):
        click.echo(f"Bundled reference server at {server.base_url}", err=True)
        write_profile(options.profile, provision(server))
        return execute(options)


@click.command(cls=RunnerCommand, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--target", metavar="URL", help="Base URL of the deployment (overrides the profile).")
@click.option(
    "--profile",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Deployment profile (TOML). Without it the bundled server is started.",
)
@click.option(
    "--level",
    "levels",
    multiple=True,
    type=click.Choice(LEVELS),
    help="Only rules of this level; repeatable.",
)
@click.option("--tags", metavar="EXPR", help="Marker expression, as pytest -m.")
@click.option("--rule", "rules", multiple=True, metavar="ID", help="Only this rule; repeatable.")
@click.option("--run-slow", is_flag=True, help="Also run scenarios that wait in real time.")
@click.option(
    "--run-lasting",
    is_flag=True,
    help="Also run scenarios that change lasting state (always on for the bundled server).",
)
@click.option(
    "--min-interval",
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Pause between requests, to pace a live service.",
)
@click.option(
    "--combinations",
    type=click.Choice(["pairs", "product"]),
    default="pairs",
    show_default=True,
    help="pairs: every pair of values of each rule's dimensions (the full product where it is "
    "small); product: every combination (longer: see the summary's count of requests).",
)
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("reports"),
    show_default=True,
    help="Where the reports go.",
)
@click.option("--strict", is_flag=True, help="rfc warnings also make the run fail.")
@click.option(
    "--label",
    default="",
    metavar="NAME",
    help="What to call this run in its reports and in `compare` (default: its profile's name).",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Show pytest's whole output, the failed scenarios' tracebacks included "
    "(always in pytest-output.txt).",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    help="Port of the bundled server (without --profile; default: a free one).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=0,
    help="pytest-xdist workers (0: sequential).",
)
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
    combinations: str,
    report_dir: Path,
    strict: bool,
    label: str,
    verbose: bool,
    port: int | None,
    workers: int,
    pytest_args: tuple[str, ...],
) -> None:
    """Check a MusicBrainz OAuth 2.0 deployment against the spec, rule by rule.

    Exit status: 0 every spec rule passes (or is a known deviation), 1 some spec rule fails
    (--strict: or an rfc rule warns), 2 usage or setup error (profile, consent driver,
    preflight, a selection that checks nothing), 3 incomplete (no spec rule fails, but some
    could not be checked). Arguments after `--` go to pytest.
    """
    check_options(target, profile, rules, port=port)
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
        combinations=combinations,
        strict=strict,
        workers=workers,
        verbose=verbose,
        label=label,
        extra=pytest_args,
    )
    status = execute(options) if profile else run_bundled(options, port or 0)
    click.echo(f"Finished in {time.monotonic() - started:.1f} s", err=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
