"""The premise "scopes the user has not approved before" (steps/scenario/fresh_scopes.py): no
draw of a run is included in an earlier one, nor in a fixed set of the features, in one process
or across a run's workers; a run that has drawn every set says so instead of reusing one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from steps.outcomes import NotChecked
from steps.scenario.fresh_scopes import TRIPLES, FreshScopes

FEATURES = Path(__file__).resolve().parents[2] / "features"


def _included_in_earlier(draws: list[str]) -> list[tuple[str, str]]:
    sets = [set(d.split()) for d in draws]
    return [(draws[j], draws[i]) for j in range(len(sets)) for i in range(j) if sets[j] <= sets[i]]


def test_no_draw_of_a_run_is_included_in_an_earlier_one() -> None:
    for _ in range(200):  # runs
        fresh = FreshScopes()
        draws = [fresh.draw() for _ in TRIPLES]
        assert _included_in_earlier(draws) == []


def test_the_workers_of_a_run_share_their_draws(tmp_path: Path) -> None:
    ledger = tmp_path / "scopes.lock"
    workers = [FreshScopes(ledger), FreshScopes(ledger)]
    draws = [workers[i % 2].draw() for i in range(len(TRIPLES))]
    assert _included_in_earlier(draws) == []
    assert len(ledger.read_text().splitlines()) == len(TRIPLES)


def test_a_run_that_drew_every_set_says_so() -> None:
    fresh = FreshScopes()
    for _ in TRIPLES:
        fresh.draw()
    with pytest.raises(NotChecked, match="no set is left"):
        fresh.draw()


def test_no_fixed_set_of_the_features_includes_a_draw() -> None:
    """A fixed set the features approve and exchange would, on a provider whose approvals cover
    subsets (metabrainz.org), make a draw old. The one with every scope only gets a code."""
    fixed = set()
    for feature in FEATURES.glob("*.feature"):
        fixed |= set(
            re.findall(r'"([a-z_ ]+)" scopes?\b|access to "([a-z_ ]+)"', feature.read_text())
        )
    scope_sets = {set_ for pair in fixed for set_ in pair if set_}
    every = "profile email tag rating collection submit_isrc submit_barcode"
    fresh = FreshScopes()
    draws = [set(fresh.draw(extra=("profile", "email")).split()) for _ in TRIPLES]
    covering = [s for s in scope_sets - {every} for d in draws if d <= set(s.split())]
    assert scope_sets and covering == []
