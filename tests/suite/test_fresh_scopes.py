"""The premise "scopes the user has not approved before" (steps/scenario/fresh_scopes.py): a
set drawn as never approved is neither equal to nor included in any set the suite approves (a
draw to approve, a fixed set of the features), so no earlier approval, in this run or an
earlier one on the same deployment, exact or covering, can make it old."""

from __future__ import annotations

import re
from pathlib import Path

from steps.profiles.keys import SPEC_SCOPES
from steps.rules.coverage import rendered_scenarios
from steps.scenario.fresh_scopes import every_to_approve, never_approved, to_approve

FEATURES = Path(__file__).resolve().parents[2] / "features"
EVERY = frozenset(SPEC_SCOPES)
NEW_SCOPES_STEP = "the application asks for scopes the user has not approved before"
#: Steps whose words name a scope set a scenario approves or is granted.
FIXED = re.compile(r'"([a-z_ ]+)" scopes?\b|access to "([a-z_ ]+)"')


def _pool(draw, times: int = 3000) -> set[frozenset[str]]:
    return {frozenset(draw().split()) for _ in range(times)}


def _fixed_sets() -> set[frozenset[str]]:
    words = " ".join(path.read_text() for path in FEATURES.glob("*.feature"))
    return {frozenset(s.split()) for pair in FIXED.findall(words) for s in pair if s}


def test_a_never_approved_set_is_in_no_set_the_suite_approves() -> None:
    never, approved = _pool(never_approved), _pool(to_approve)
    assert len(never) == 20 and len(approved) == 10  # every set of each pool drawn
    covered = [sorted(n) for n in never for a in approved | _fixed_sets() if n <= a != EVERY]
    assert covered == []


def test_no_scenario_approves_a_never_approved_set() -> None:
    """The set of all seven gets a code in SCOPE-IDENTIFIERS and is never exchanged; the
    scenarios that ask for a never-approved set must not approve it."""
    asking = [s for s in rendered_scenarios(FEATURES) if NEW_SCOPES_STEP in s.steps]
    for scenario in asking:
        later = scenario.steps[scenario.steps.index(NEW_SCOPES_STEP) :]
        assert not [s for s in later if "approves" in s or "code for tokens" in s], scenario
    assert asking


def test_the_draws_vary() -> None:
    """A set drawn anew each run: an exact-matching deployment's earlier approvals of one
    fixed set would otherwise make it old after the first run."""
    assert len(_pool(to_approve, 50)) > 5 and len(_pool(never_approved, 50)) > 5


def test_no_draw_to_approve_answers_for_a_fixed_set_that_wants_no_other_grant() -> None:
    """AUTHZ-APPROVAL-AUTO asks for "email submit_isrc submit_barcode" after revoking its
    access token: a live draw of that set (an exact provider) or of a superset (metabrainz.org)
    would skip the consent page for it. Other fixed sets are granted with approval_prompt=force
    or want consent skipped, where another live grant changes nothing."""
    wanted_alone = frozenset({"email", "submit_isrc", "submit_barcode"})
    assert wanted_alone in _fixed_sets()
    assert [sorted(d) for d in _pool(to_approve) if wanted_alone <= d] == []


def test_every_set_to_approve_is_offered_once_and_holds_every_draw() -> None:
    """The consent step tries each set of the pool once before it gives up: the pool is small
    (ten sets), and on a provider whose live grants cover their subsets random draws repeat
    covered sets long after one is left."""
    offered = every_to_approve()
    assert len(offered) == len(set(offered)) == 10
    assert {frozenset(d) for d in _pool(to_approve)} <= {frozenset(s.split()) for s in offered}
