"""Carry pytest-bdd's scenario reports from xdist workers to the controller.

pytest-bdd 9 keeps each report's scenario data in a registry keyed by the report object, not
on the report, so it does not survive the trip from a worker and cucumber JSON comes out
empty under `--workers`. The runner loads this plugin (`-p steps.reports.xdist_bridge`) with
xdist: the data rides in the serialized report and is put back into the registry.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
from pytest_bdd.reporting import ReportContext, test_report_context_registry

KEY = "mb_oauth_bdd_context"


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(
    config: pytest.Config, report: Any
) -> Generator[None, dict[str, Any] | None, dict[str, Any] | None]:
    """Worker side: add the scenario data to the serialized report."""
    data = yield
    context = test_report_context_registry.get(report)
    if data is not None and context is not None:
        data[KEY] = {"scenario": context.scenario, "name": context.name}
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(
    config: pytest.Config, data: dict[str, Any]
) -> Generator[None, Any, Any]:
    """Controller side: take the scenario data out and register it for the new report."""
    context = data.pop(KEY, None) if isinstance(data, dict) else None
    report = yield
    if context is not None and report is not None:
        test_report_context_registry[report] = ReportContext(**context)
    return report
