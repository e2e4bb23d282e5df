"""Every check says whether it samples, and why not where it looks once
(steps/scheduling/sampling.py, ONCE_BECAUSE): a check whose answer may vary between tries and
costs no person samples, so a defect that shows in 40 % of the answers is found."""

from __future__ import annotations

from steps.run.bdd_registry import STEP_MODULES, step_definitions
from steps.scenario.kinds import CHECK, kind_of
from steps.scheduling.sampling import ONCE_BECAUSE


def _checks() -> set[str]:
    return {
        function.__name__
        for _, function in step_definitions()
        if function.__module__ in STEP_MODULES and kind_of(function) == CHECK
    }


def test_every_check_samples_or_says_why_it_looks_once() -> None:
    missing = sorted(_checks() - set(ONCE_BECAUSE))
    assert missing == [], (
        f"checks without a line in ONCE_BECAUSE of steps/scheduling/sampling.py: {missing} "
        '("" when the check samples, else why it looks once)'
    )
    stale = sorted(set(ONCE_BECAUSE) - _checks())
    assert stale == [], f"ONCE_BECAUSE names checks that do not exist: {stale}"
