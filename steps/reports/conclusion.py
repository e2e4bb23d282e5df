"""What a run comes to: the rules that decide it, its exit status and its closing word.

Only spec rules decide conformance (rfc rules too with --strict). A run says CONFORMS when
none of them fails, none could not be checked, something was checked, and none was left out of
the run: a --rule, --level or --tags selection that leaves one out passes what it checked and
says only that (`conclusion`).
"""

from __future__ import annotations

from collections.abc import Iterable

from steps.reports.verdicts import (
    EXPECTED_FAILURE,
    FAIL,
    NOT_RUN,
    OBSERVED,
    PASS,
    UNCHECKED,
    UNEXPECTED_PASS,
    WARNING,
    RuleVerdict,
)


def failing_rules(verdicts: Iterable[RuleVerdict], strict: bool = False) -> list[RuleVerdict]:
    """Rules that make the run non-conforming: spec failures, and rfc warnings when strict."""
    bad = {FAIL, WARNING} if strict else {FAIL}
    return [v for v in verdicts if v.verdict in bad]


def unchecked_rules(verdicts: Iterable[RuleVerdict], strict: bool = False) -> list[RuleVerdict]:
    """Rules that would decide conformance but could not be checked (spec; rfc too if strict)."""
    levels = {"spec", "rfc"} if strict else {"spec"}
    return [
        v for v in verdicts if v.verdict == UNCHECKED and v.level in levels and not v.blocked_by
    ]


#: Exit statuses of mb-oauth-conformance.
CONFORMS, DOES_NOT_CONFORM, SETUP_ERROR, INCOMPLETE = 0, 1, 2, 3
CHECKED = {PASS, FAIL, WARNING, OBSERVED, EXPECTED_FAILURE, UNEXPECTED_PASS}


def nothing_checked(verdicts: Iterable[RuleVerdict]) -> bool:
    """True when no rule was checked (all skipped, not run or unchecked): conforms to nothing."""
    return not any(v.verdict in CHECKED for v in verdicts)


def exit_status(verdicts: Iterable[RuleVerdict], strict: bool = False) -> int:
    """1 some spec rule fails (--strict: or an rfc rule warns); else 3 when one could not be
    checked; 2 when nothing at all was checked; 0 when every spec rule passes or is an
    expected failure."""
    verdicts = list(verdicts)
    if failing_rules(verdicts, strict):
        return DOES_NOT_CONFORM
    if unchecked_rules(verdicts, strict):
        return INCOMPLETE
    if nothing_checked(verdicts):
        return SETUP_ERROR
    return CONFORMS


#: What each exit status says, in the words of the terminal's closing line.
CONCLUSIONS = {
    CONFORMS: "CONFORMS",
    DOES_NOT_CONFORM: "DOES NOT CONFORM",
    SETUP_ERROR: "NOTHING CHECKED",
    INCOMPLETE: "INCOMPLETE (some spec rules could not be checked)",
}
#: What a run that checked only a selection says where a whole run would say CONFORMS.
SELECTION_PASSES = "NO FAILURE IN THE SELECTION (not a verdict on the deployment)"


def left_out(verdicts: Iterable[RuleVerdict], strict: bool = False) -> list[RuleVerdict]:
    """Catalogue rules that decide conformance (spec; rfc too when strict) which the run did not
    include (a --rule, --level or --tags selection): without them it cannot say CONFORMS."""
    levels = {"spec", "rfc"} if strict else {"spec"}
    return [v for v in verdicts if v.in_catalogue and v.level in levels and v.verdict == NOT_RUN]


def conclusion(verdicts: Iterable[RuleVerdict], strict: bool = False) -> str:
    """The closing word of a run: its exit status's, except that a selection which leaves out
    rules that decide conformance never says CONFORMS."""
    verdicts = list(verdicts)
    status = exit_status(verdicts, strict)
    if status == CONFORMS and left_out(verdicts, strict):
        return SELECTION_PASSES
    return CONCLUSIONS[status]


def checked_share(verdicts: Iterable[RuleVerdict]) -> tuple[int, int]:
    """(catalogue rules the run really checked, catalogue rules)."""
    catalogued = [v for v in verdicts if v.in_catalogue]
    return sum(v.verdict in CHECKED for v in catalogued), len(catalogued)
