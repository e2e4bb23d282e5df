"""No defect seen is set aside: a premise that did not hold names the rule whose check judges
what it saw, and that rule fails on it in the run (a "could not be checked, see X" beside a
passing X would contradict itself); a rule that a declared deviation keeps from being checked
leaves the run complete."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from steps.outcomes import UNCHECKED_OUTCOME

if TYPE_CHECKING:
    from steps.reports.verdicts import ScenarioResult


#: Where a rule's verdict shows the defect another scenario's premise saw.
SEEN_IN = "seen in the premise of"


def seen_defect(scenario: ScenarioResult) -> ScenarioResult:
    """No defect seen is set aside: a premise that did not hold names the rule that judges
    what it saw, and that rule fails on it in this run, whatever its own scenarios saw (a
    "could not be checked, see X" beside a passing X would contradict itself). The entry
    stands in X's scenarios with the premise's evidence."""
    return dataclasses.replace(
        scenario,
        name=f"{SEEN_IN} {scenario.name}",
        nodeid=f"{scenario.nodeid}#premise",
        outcome="failed",
        rules=(scenario.see,),
        message=f"{scenario.what} ({SEEN_IN} {scenario.name!r})",
        cause="",
        see="",
    )


def blocked_by_deviations(
    scenarios: Sequence[ScenarioResult], deviations: Mapping[str, str]
) -> tuple[str, ...]:
    """The known deviations an unchecked rule could not be checked for: when every unchecked
    scenario of it names one (a deployment that never returns the email cannot show that a
    token without the email scope withholds it)."""
    seen = [s.see for s in scenarios if s.outcome == UNCHECKED_OUTCOME]
    if not seen or not all(rule in deviations for rule in seen):
        return ()
    return tuple(sorted(set(seen)))
