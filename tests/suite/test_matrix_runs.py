"""`mb-oauth-conformance compare` on real report folders: two quick runs against one bundled
server, described by two profiles (the second cannot revoke on the website and lists a rule
that holds as a known deviation), each with a --rule selection of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import pytest

from steps.http.html import soup
from steps.rules.catalogue import load_catalogue
from tests.suite.target import bundled_target

# Runs on one xdist worker (tests/conftest.py, ONE_WORKER): its tests share the two runs.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(sys.executable).parent / "mb-oauth-conformance"
BOTH = ("--rule", "REVOKE-MANUAL", "--rule", "REVOKE-EMPTY-200")
FIRST_ONLY, SECOND_ONLY = "AUTHZ-STATE-ON-ERROR", "USERINFO-POST-BODY"


def conformance(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"NO_COLOR": "1"}
    command = [str(RUNNER), *map(str, args)]
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def run(profile: Path, rule: str, report_dir: Path, *more: str) -> subprocess.CompletedProcess[str]:
    """A quick run of REVOKE-MANUAL, REVOKE-EMPTY-200 and one rule of its own."""
    return conformance("--profile", profile, "--run-lasting", *BOTH, "--rule", rule,
                       "--report-dir", report_dir, *more)  # fmt: skip


def second_profile(first: Path, path: Path) -> Path:
    """The first profile renamed, without manual revocation, REVOKE-EMPTY-200 a deviation."""
    text = first.read_text(encoding="utf-8")
    text = text.replace('name = "bundled server (suite tests)"', 'name = "without revocation"')
    text = text.replace("manual_revocation = true", "manual_revocation = false")
    listed = '[known_deviations]\n"REVOKE-EMPTY-200" = "listed, though the server meets it"\n'
    text = text.replace("[known_deviations]\n", listed)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Both runs, then `compare` through the installed command; the matrix folder."""
    work = tmp_path_factory.mktemp("matrix-runs")
    with bundled_target(work) as target:
        first = run(target.profile_path, FIRST_ONLY, work / "first", "--label", "first run")
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
        profile = second_profile(target.profile_path, work / "second.toml")
        second = run(profile, SECOND_ONLY, work / "second")
        assert second.returncode == 3, second.stdout[-3000:]  # REVOKE-MANUAL: not checkable
    done = conformance("compare", work / "first", work / "second", "--out", work / "matrix")
    assert done.returncode == 0, done.stdout + done.stderr
    said = " ".join(done.stdout.split())
    assert f"differ on 1 of {len(load_catalogue())} rules; 3 rules were checked by only" in said
    yield work / "matrix"


def test_the_runs_differ_on_the_rule_one_could_not_check(matrix: Path) -> None:
    markdown = (matrix / "matrix.md").read_text(encoding="utf-8")
    differ = markdown.split("## Where the deployments differ (1)", 1)[1].split("## Where")[0]
    line = next(x for x in differ.splitlines() if x.startswith("| `REVOKE-MANUAL`"))
    assert "[**pass**](../first/report.html#REVOKE-MANUAL)" in line
    assert "[**could not be checked**](../second/report.html#REVOKE-MANUAL)" in line
    agree = markdown.split("## Where they agree", 1)[1].splitlines()
    rows = {x.split("`")[1]: x for x in agree if x.startswith("| `")}
    assert "passes, though the profile lists it as a known deviation" in rows["REVOKE-EMPTY-200"]
    some = markdown.split("## Checked by only some of the runs (3)", 1)[1].split("## Where")[0]
    rows = {x.split("`")[1]: x for x in some.splitlines() if x.startswith("| `")}
    assert set(rows) == {FIRST_ONLY, SECOND_ONLY, "VERSION-USERINFO-POST"}  # the second's too
    assert rows[FIRST_ONLY].endswith("| **not run**: not checked by this run |")
    assert "| **not run**: not checked by this run | [**pass**](../second/" in (rows[SECOND_ONLY])
    assert "[first run](../first/report.html)<br>profile bundled server (suite tests)" in markdown
    assert "[without revocation](../second/report.html)<br>ran 20" in markdown
    total = len(load_catalogue())
    assert f"| Rules checked | 3 of {total} | 3 of {total} |" in markdown  # not REVOKE-MANUAL


def test_every_link_of_the_page_leads_to_a_rule_its_report_shows(matrix: Path) -> None:
    page = (matrix / "matrix.html").read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    hrefs = [str(link.get("href")) for link in soup(page).select('a[href^="../"]')]
    links = [tuple(href[3:].split("#", 1)) for href in hrefs if "#" in href]
    ran = {
        (f"{run}/report.html", rule["id"])
        for run in ("first", "second")
        for rule in json.loads((matrix.parent / run / "verdicts.json").read_text())["rules"]
        if rule["verdict"] != "not run"
    }
    assert set(links) == ran and len(ran) >= 6  # every rule that ran, in each run
    for report, anchor in links:
        shown = (matrix.parent / unquote(report)).read_text(encoding="utf-8")
        assert f'id="{unquote(anchor)}"' in shown, (report, anchor)
