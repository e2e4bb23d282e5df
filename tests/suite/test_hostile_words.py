"""The deployment's bytes never reach the terminal or a report raw: a revocation endpoint whose
error_description clears the screen, retitles the window, prints a green "CONFORMS" and
reverses text fails the run, and every place that quotes it (pytest's output and assertion
messages, the terminal summary, report.html, JUnit XML, cucumber JSON, results.json,
verdicts.json) shows those characters escaped (steps/safety/text.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.suite.broken.harness import ProxyHandle, bundled_profile, run_against, running_proxy
from tests.suite.broken.mutations import MUTATIONS

#: What a terminal acts on: ESC, BEL, an 8-bit CSI, the bidirectional override and its pop.
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c")


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProxyHandle]:
    work = tmp_path_factory.mktemp("hostile")
    with bundled_profile(work) as upstream, running_proxy(upstream, work / "proxy") as handle:
        yield handle


def test_a_hostile_error_description_reaches_no_terminal_and_no_report_raw(
    proxy: ProxyHandle, tmp_path: Path
) -> None:
    run = run_against(proxy, MUTATIONS["revoke-hostile-words"], tmp_path)
    assert run.exit_code == 1 and run.failing == {"REVOKE-INVALID-TOKEN-200"}, run.summary()
    assert not [c for c in RAW if c in run.output], run.output[-2000:]
    files = sorted(
        p for p in run.report_dir.iterdir() if p.suffix in (".json", ".html", ".xml", ".txt")
    )
    assert {p.name for p in files} >= {"report.html", "junit.xml", "results.json", "summary.txt"}
    for path in files:
        text = path.read_text(errors="replace")
        assert not [c for c in RAW if c in text], path.name
    # the words are there, escaped: the reader sees what the deployment sent
    assert "\\x1b[2J" in (run.report_dir / "pytest-output.txt").read_text()
    assert "\\x1b[2J" in (run.report_dir / "report.html").read_text()
    assert "\\\\u202e" in (run.report_dir / "results.json").read_text()
