"""`mb-oauth-conformance compare`: the deployment matrix of hand-made report folders, new and
old, and the usage errors (a folder that is no report is exit 2, never a traceback)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from steps.reports.matrix import one_line
from steps.runner import main
from tests.suite.matrix_data import CATALOGUE, entry, new_run, other_run, report_folder
from tests.support import matrix_artefact


def compare(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["compare", *map(str, args)])


def rows_of(markdown: str, heading: str) -> list[str]:
    """The rule ids of the Markdown table under a heading."""
    part = markdown.split(heading, 1)[1].split("\n## ", 1)[0]
    return [line.split("`")[1] for line in part.splitlines() if line.startswith("| `")]


def test_one_row_per_catalogue_rule_and_a_column_per_run(tmp_path: Path) -> None:
    runs = new_run(tmp_path / "a"), other_run(tmp_path / "b")
    done = compare(*runs, "--out", tmp_path / "out")
    assert done.exit_code == 0, done.output
    markdown = (tmp_path / "out" / "matrix.md").read_text()
    differ, agree = (
        rows_of(markdown, "## Where the deployments differ"),
        rows_of(markdown, "## Where they agree"),
    )
    assert sorted(differ + agree) == sorted(CATALOGUE)
    assert sorted(differ) == ["AUTHZ-STATE-ON-ERROR", "REVOKE-EMPTY-200", "TOKEN-ERR-INVALID-GRANT"]
    assert "USERINFO-POST-BODY" in agree  # an unexpected pass is a pass
    assert f"differ on 3 of {len(CATALOGUE)} rules" in done.output.replace("\n", " ")
    page = (tmp_path / "out" / "matrix.html").read_text()
    assert page.index('id="rule-REVOKE-EMPTY-200"') < page.index('id="rule-APP-TYPES"')
    assert "<script" not in page.lower()


def test_cells_say_the_verdict_its_reason_and_link_to_the_run_report(tmp_path: Path) -> None:
    runs = new_run(tmp_path / "a"), other_run(tmp_path / "b")
    compare(*runs, "--out", tmp_path / "out")
    markdown = (tmp_path / "out" / "matrix.md").read_text()
    revoke = next(line for line in markdown.splitlines() if line.startswith("| `REVOKE-EMPTY-200`"))
    assert "[**pass**](../a/report.html#REVOKE-EMPTY-200): 1 scenario passed" in revoke
    assert "[**fail**](../b/report.html#REVOKE-EMPTY-200): Then the revocation is answered 200 " \
        "with an empty body: body is '{}' |" in revoke  # fmt: skip
    page = (tmp_path / "out" / "matrix.html").read_text()
    # a known deviation says what the run saw, then the profile's reason
    assert (
        '>known deviation</a><span class="why">state came back None '
        "(listed: the provider drops state on access_denied)</span>"
    ) in page
    assert '>could not be checked</a><span class="why">throttled' in page
    assert "passes, though the profile lists it as a known deviation" in page
    assert 'href="../a/report.html#APP-TYPES"' not in page  # not run: nothing to link to


def test_the_summary_names_the_section_9_description_and_the_failed_spec_rules(
    tmp_path: Path,
) -> None:
    runs = new_run(tmp_path / "a"), other_run(tmp_path / "b")
    compare(*runs, "--out", tmp_path / "out")
    markdown = (tmp_path / "out" / "matrix.md").read_text()
    assert (
        "| Spec section 9 description | fuller | mixed (earlier: token in the POST body) |"
        in markdown
    )
    assert (
        "| Spec rules failed | none | 1: `REVOKE-EMPTY-200`; "
        "1 as known deviations: `AUTHZ-STATE-ON-ERROR` |"
    ) in markdown
    assert "| Rules checked | 4 of 4 | 3 of 4 |" in markdown  # not the unchecked one
    assert "ran 2026-11-25 16:50 UTC" in markdown and "ran 2026-11-26 08:00 UTC" in markdown
    assert "metabrainz-like \\| provider" in markdown  # a pipe in a name keeps the table whole


def test_a_rule_only_one_run_checked_is_shown_as_such_and_runs_are_labelled(
    tmp_path: Path,
) -> None:
    """A run before a new rule and one after: the rule the first did not have is no agreement
    and no difference, but a group of its own that compare names; labels tell the runs apart
    (the run's own --label, or compare's)."""
    rules = [entry("REVOKE-EMPTY-200", "pass"), entry("AUTHZ-STATE-ON-ERROR", "pass")]
    before = report_folder(tmp_path / "before", rules[:1], profile="bundled", label="before")
    after = report_folder(
        tmp_path / "after",
        [*rules[:1], entry("AUTHZ-STATE-ON-ERROR", "fail", "failed", "state came back None")],
        profile="bundled",
        conclusion="DOES NOT CONFORM",
    )
    done = compare(before, after, "--out", tmp_path / "out", "--label", "old", "--label", "new")
    assert done.exit_code == 0, done.output
    said = " ".join(done.output.split())
    assert "differ on 0 of" in said and "1 rule was checked by only some of the runs" in said
    markdown = (tmp_path / "out" / "matrix.md").read_text()
    assert rows_of(markdown, "## Checked by only some of the runs") == ["AUTHZ-STATE-ON-ERROR"]
    assert "AUTHZ-STATE-ON-ERROR" not in rows_of(markdown, "## Where they agree")
    assert "[old](../before/report.html)<br>profile bundled<br>ran" in markdown
    assert "[new](../after/report.html)<br>profile bundled<br>ran" in markdown
    assert "| Rules checked | 1 of 1 | 2 of 2 |" in markdown
    page = (tmp_path / "out" / "matrix.html").read_text()
    assert 'id="some">Checked by only some of the runs (1)' in page
    unlabelled = compare(before, after, "--out", tmp_path / "out2")
    markdown = (tmp_path / "out2" / "matrix.md").read_text()
    assert "[before](../before/report.html)<br>profile bundled" in markdown  # the run's own
    assert "[bundled](../after/report.html)<br>ran" in markdown and unlabelled.exit_code == 0
    assert compare(before, "--out", tmp_path / "o", "--label", "a", "--label", "b").exit_code == 2


def test_a_rule_skipped_for_want_of_run_slow_is_no_difference(tmp_path: Path) -> None:
    clocked = report_folder(tmp_path / "clock", [entry("TOKEN-CODE-LIFETIME", "pass")])
    waiting = "Skipped: waits in real time: needs --run-slow"
    live = report_folder(
        tmp_path / "live",
        [entry("TOKEN-CODE-LIFETIME", "skipped", "skipped", waiting)],
        profile="live",
    )
    done = compare(clocked, live, "--out", tmp_path / "out")
    assert "differ on 0 of" in " ".join(done.output.split()), done.output
    markdown = (tmp_path / "out" / "matrix.md").read_text()
    assert rows_of(markdown, "## Checked by only some of the runs") == ["TOKEN-CODE-LIFETIME"]
    line = next(x for x in markdown.splitlines() if x.startswith("| `TOKEN-CODE-LIFETIME`"))
    assert "**skipped**](../live/report.html#TOKEN-CODE-LIFETIME): waits in real time" in line
    assert "| Rules checked | 1 of 1 | 0 of 1 |" in markdown


def test_an_old_report_folder_without_the_newer_fields_still_compares(tmp_path: Path) -> None:
    old = tmp_path / "old-run"
    old.mkdir()
    rules = [{"id": "REVOKE-EMPTY-200", "verdict": "pass"}, {"id": "GONE-RULE", "verdict": "fail"}]
    (old / "verdicts.json").write_text(json.dumps({"rules": rules}))  # and no report.html
    done = compare(new_run(tmp_path / "a"), old, "--out", tmp_path / "out")
    assert done.exit_code == 0, done.output
    markdown = (tmp_path / "out" / "matrix.md").read_text()
    assert "old-run<br>ran time unknown" in markdown
    assert "| Spec section 9 description | fuller | not recorded |" in markdown
    assert "## Where the deployments differ (0)" in markdown  # "not run" is no difference
    assert sorted(rows_of(markdown, "## Checked by only some of the runs")) == [
        "AUTHZ-STATE-ON-ERROR",  # not in the old run's catalogue
        "GONE-RULE",  # not in the current one
        "TOKEN-ERR-INVALID-GRANT",
        "USERINFO-POST-BODY",
    ]
    line = next(x for x in markdown.splitlines() if x.startswith("| `AUTHZ-STATE-ON-ERROR`"))
    assert line.endswith("| **not run**: not in this run's catalogue (an older run) |")
    gone = next(x for x in markdown.splitlines() if x.startswith("| `GONE-RULE`"))
    assert "(not in the current catalogue)" in gone and "| **fail** |" in gone


def test_odd_values_in_a_report_render_rather_than_fail(tmp_path: Path) -> None:
    odd = tmp_path / "odd"
    odd.mkdir()
    rules = [1, "x", {"id": "REVOKE-EMPTY-200", "verdict": 7, "scenarios": "none"}, {"id": ""}]
    document = {"rules": rules, "description": "fuller", "known_deviations": 5, "started": "?"}
    (odd / "verdicts.json").write_text(json.dumps(document))
    done = compare(odd, "--out", tmp_path / "out")
    assert done.exit_code == 0, done.output
    markdown = (tmp_path / "out" / "matrix.md").read_text()
    assert (
        "odd<br>ran ?" in markdown and "| Spec section 9 description | not recorded |" in markdown
    )
    assert "| `REVOKE-EMPTY-200` | spec |" in markdown and "| **7** |" in markdown


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.mkdir(), "no verdicts.json (not the report folder of a run)"),
        (lambda p: p.write_text("x"), "not a folder"),
        (lambda p: None, "not a folder"),
        (lambda p: (p.mkdir(), (p / "verdicts.json").write_text("{oops")), "cannot be read"),
        (lambda p: (p.mkdir(), (p / "verdicts.json").write_text("[1]")), "lists no rules"),
        (lambda p: (p.mkdir(), (p / "verdicts.json").write_bytes(b"\xff\xfe")), "cannot be read"),
    ],
)
def test_a_folder_that_is_no_report_is_a_usage_error(tmp_path: Path, make: Any, said: str) -> None:
    make(tmp_path / "bad")
    done = compare(new_run(tmp_path / "a"), tmp_path / "bad", "--out", tmp_path / "out")
    assert done.exit_code == 2, done.output
    assert said in done.output and "Traceback" not in done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    assert not (tmp_path / "out").exists()


def test_missing_arguments_and_an_unwritable_out_are_exit_2(tmp_path: Path) -> None:
    run = new_run(tmp_path / "a")
    assert compare("--out", tmp_path / "out").exit_code == 2
    assert compare(run).exit_code == 2
    (tmp_path / "file").write_text("")
    assert compare(run, "--out", tmp_path / "file").exit_code == 2
    done = compare(run, "--out", tmp_path / "file" / "below")
    assert done.exit_code == 2 and "cannot write the matrix" in done.output


def test_the_runner_without_compare_parses_as_before() -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["--rule", "NO-SUCH-RULE"]).exit_code == 2
    helped = runner.invoke(main, ["--help"])
    assert (
        "--report-dir" in helped.output and "mb-oauth-conformance compare --help" in helped.output
    )
    compare_help = runner.invoke(main, ["compare", "--help"], prog_name="mb-oauth-conformance")
    assert "Usage: mb-oauth-conformance compare [OPTIONS] REPORT_DIR" in compare_help.output


def test_one_line_reasons() -> None:
    assert one_line("Then x: AssertionError: body is '{}'\nassert b'{}' == b''") == (
        "Then x: body is '{}'"
    )
    assert one_line("Skipped: waits in real time: needs --run-slow") == (
        "waits in real time: needs --run-slow"
    )
    assert one_line("\n\n  a   b ") == "a b"
    assert one_line("y" * 300, limit=10) == "y" * 9 + "…"


def test_ci_keeps_each_run_and_a_matrix_of_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MB_OAUTH_ARTEFACTS", raising=False)
    assert matrix_artefact.keep_run("bundled-server", new_run(tmp_path / "a")) is None
    monkeypatch.setenv("MB_OAUTH_ARTEFACTS", str(tmp_path / "artefacts"))
    other = other_run(tmp_path / "b")
    assert matrix_artefact.keep_run("foreign-metabrainz-like", other) is not None
    out = matrix_artefact.keep_run("bundled-server", tmp_path / "a")
    assert out == tmp_path / "artefacts" / "matrix"
    markdown = (out / "matrix.md").read_text()
    assert markdown.index("[bundled server](runs/bundled-server/report.html)") < markdown.index(
        "[metabrainz-like \\| provider](runs/foreign-metabrainz-like/report.html)"
    )
    assert sorted(p.name for p in (out / "runs").iterdir()) == [
        "bundled-server",
        "foreign-metabrainz-like",
    ]
    assert matrix_artefact.keep_run("no-report", tmp_path) is None  # no verdicts.json: not kept
