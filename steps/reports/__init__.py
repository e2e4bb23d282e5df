"""Reports of a conformance run: verdicts.json, summary.txt, report.html, and the safety net.

`write_reports` is what the plugin calls at session end (contract: "Suite data flow"); the
runner calls `rewrite_reports` after pytest returns (so the reports exist and agree with
--strict even if the plugin could not), which writes them again and masks secrets in every
file of the report directory, JUnit XML and cucumber JSON included, each file once with one
masker (a full run's reports are 20 MB; masking them twice cost a third of the run).
`finalize_reports` is that safety net alone. The texts
of the results (the deployment's words among them) are shown with their control and
bidirectional characters escaped (steps/safety/text.py) before any report is built.
"""

from __future__ import annotations

import contextlib
import json
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from client_kit.redaction import Redactor
from steps.reports import html, json_report, terminal
from steps.reports.description import describe
from steps.reports.junit import annotate_pytest_reports
from steps.reports.redact import harvest_tokens, last_pass, mask_tree, profile_secrets
from steps.reports.verdicts import RuleVerdict, compute_verdicts
from steps.safety.text import shown_tree

RESULTS = "results.json"
VERDICTS = "verdicts.json"
SUMMARY = "summary.txt"
HTML = "report.html"


@dataclass
class Report:
    """The verdicts of a run and the verdicts.json document built from them."""

    document: dict[str, Any]
    verdicts: list[RuleVerdict]

    @property
    def exit_status(self) -> int:
        return int(self.document["exit_status"])

    def summary(self, colour: bool = False) -> str:
        """The terminal summary (colour only when the caller knows it writes to a tty)."""
        return terminal.render(self.document, self.verdicts, colour)


def build_report(
    results: Mapping[str, Any], catalogue: Mapping[str, Any], strict: bool = False
) -> Report:
    """Verdicts, the section 9 description and the verdicts.json document, in memory."""
    results = shown_tree(results)
    verdicts = compute_verdicts(results, catalogue)
    description = describe(results, verdicts)
    document = json_report.build_document(results, verdicts, description, strict)
    return Report(document, verdicts)


def _write_masked(path: Path, text: str, redactor: Redactor) -> None:
    path.write_text(redactor.redact(text), encoding="utf-8")


def write_reports(
    report_dir: str | os.PathLike[str],
    results: Mapping[str, Any],
    catalogue: Mapping[str, Any],
    strict: bool = False,
    secrets: Iterable[str] = (),
    masker: Redactor | None = None,
) -> Report:
    """Write verdicts.json, summary.txt and report.html; every text is masked before writing
    (by `masker`, or by the last pass of `secrets` and the tokens the results show)."""
    directory = Path(report_dir)
    directory.mkdir(parents=True, exist_ok=True)
    report = build_report(results, catalogue, strict)
    redactor = masker or last_pass(set(secrets) | harvest_tokens(results))
    body = json.dumps(report.document, indent=2, ensure_ascii=False) + "\n"
    _write_masked(directory / VERDICTS, body, redactor)
    _write_masked(directory / SUMMARY, report.summary(colour=False), redactor)
    _write_masked(directory / HTML, html.render(report.document, report.verdicts), redactor)
    return report


def load_results(report_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """results.json of a report directory (FileNotFoundError when the plugin wrote none)."""
    data = json.loads((Path(report_dir) / RESULTS).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{RESULTS} in {report_dir} is not a JSON object")
    return data


def load_profile(path: str | os.PathLike[str] | None) -> dict[str, Any]:
    """A deployment profile as a dict ({} when there is none or it cannot be read)."""
    if not path:
        return {}
    try:
        with Path(path).open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def finalize_reports(
    report_dir: str | os.PathLike[str],
    profile_path: str | os.PathLike[str] | None = None,
    extra_secrets: Iterable[str] = (),
) -> list[Path]:
    """The safety net: mask the profile's secrets and all seen tokens in every report file.

    The profile file itself is left alone (it is the one place the secrets are meant to be).
    Returns the files in which something had to be masked.
    """
    directory = Path(report_dir)
    secrets = set(extra_secrets) | profile_secrets(load_profile(profile_path))
    with contextlib.suppress(OSError, ValueError):  # no results.json: nothing to harvest
        secrets |= harvest_tokens(load_results(directory))
    exclude = [Path(profile_path)] if profile_path else []
    return mask_tree(directory, last_pass(secrets), exclude)


def rewrite_reports(
    report_dir: str | os.PathLike[str],
    results: Mapping[str, Any],
    catalogue: Mapping[str, Any],
    profile_path: str | os.PathLike[str] | None,
    strict: bool = False,
) -> Report:
    """The reports written again from `results`, JUnit XML and cucumber JSON annotated, and
    every file masked: what `write_reports` then `finalize_reports` give, each file masked
    once by one last pass (the profile's secrets and every token the results show)."""
    directory = Path(report_dir)
    masker = last_pass(profile_secrets(load_profile(profile_path)) | harvest_tokens(results))
    report = write_reports(directory, results, catalogue, strict, masker=masker)
    annotate_pytest_reports(directory, results)
    done = [directory / name for name in (VERDICTS, SUMMARY, HTML)]
    mask_tree(directory, masker, [*done, *([Path(profile_path)] if profile_path else [])])
    return report


__all__ = [
    "HTML",
    "RESULTS",
    "SUMMARY",
    "VERDICTS",
    "Report",
    "build_report",
    "finalize_reports",
    "load_profile",
    "load_results",
    "rewrite_reports",
    "write_reports",
]
