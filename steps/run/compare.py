"""`mb-oauth-conformance compare`: the deployment matrix of several runs' report folders.

The runner's command takes pytest's arguments after its options, so it cannot be a click group
without changing how it parses; `RunnerCommand` instead hands a command line that starts with
`compare` to the compare command, and any other to the runner unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from steps.reports import matrix_html, matrix_md
from steps.reports.matrix import build_matrix
from steps.reports.runs import NotAReport, load_run
from steps.rules.catalogue import load_catalogue
from steps.run.coverage_command import SUBCOMMAND as COVERAGE
from steps.run.coverage_command import coverage
from steps.run.rule_index import SUBCOMMAND as RULE_ENTRY
from steps.run.rule_index import rule_entry

SUBCOMMAND = "compare"
MATRIX_FILES = ("matrix.html", "matrix.md")


class CompareError(click.ClickException):
    """The matrix could not be written (exit status 2, as the runner's setup errors)."""

    exit_code = 2


def write_matrix(report_dirs: Sequence[Path], out_dir: Path) -> tuple[int, int]:
    """Write out_dir/matrix.html and matrix.md; (rules that differ, rules in all).

    NotAReport when a folder is no report folder; OSError when out_dir cannot be written.
    """
    runs = [load_run(folder) for folder in report_dirs]
    matrix = build_matrix(runs, load_catalogue(), out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    html, markdown = (out_dir / name for name in MATRIX_FILES)
    html.write_text(matrix_html.render(matrix), encoding="utf-8")
    markdown.write_text(matrix_md.render(matrix), encoding="utf-8")
    return len(matrix.differing), len(matrix.rows)


@click.command(SUBCOMMAND, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("report_dirs", nargs=-1, required=True, metavar="REPORT_DIR [REPORT_DIR ...]",
                type=click.Path(path_type=Path))  # fmt: skip
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for matrix.html and matrix.md (created if missing).",
)
def compare(report_dirs: tuple[Path, ...], out: Path) -> None:
    """Compare the report folders of runs against several deployments, rule by rule.

    Writes OUT/matrix.html and OUT/matrix.md: one row per rule of the catalogue, one column per
    run (its profile's name and when it ran), each cell the verdict, its reason and a link to
    the rule in that run's report.html. The rules where the deployments differ come first.
    Report folders of older runs work too. Exit status 2 when a folder is not the report folder
    of a run or the matrix cannot be written.
    """
    try:
        differing, total = write_matrix(report_dirs, out)
    except NotAReport as error:
        raise click.UsageError(str(error)) from None
    except OSError as error:
        raise CompareError(f"cannot write the matrix to {out}: {error}") from None
    click.echo(
        f"{len(report_dirs)} runs compared: the deployments differ on {differing} of {total} "
        f"rules. Matrix in {out}/: {', '.join(MATRIX_FILES)}"
    )


class RunnerCommand(click.Command):
    """The runner's command, which also answers `compare ...` (see the module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault(
            "epilog",
            f"Compare runs' reports: mb-oauth-conformance {SUBCOMMAND} --help. What each rule "
            f"covers: mb-oauth-conformance {COVERAGE} [RULE ...]. Everything about a rule: "
            f"mb-oauth-conformance {RULE_ENTRY} RULE",
        )
        super().__init__(*args, **kwargs)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        arguments = list(sys.argv[1:] if args is None else args)
        subcommands = {SUBCOMMAND: compare, COVERAGE: coverage, RULE_ENTRY: rule_entry}
        if arguments[:1] and arguments[0] in subcommands:
            name = f"{prog_name or 'mb-oauth-conformance'} {arguments[0]}"
            command = subcommands[arguments[0]]
            return command.main(arguments[1:], name, complete_var, standalone_mode, **extra)
        return super().main(args, prog_name, complete_var, standalone_mode, **extra)
