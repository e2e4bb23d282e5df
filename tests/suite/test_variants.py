"""Every variant a rule's words cover is sampled: each `variants` entry of features/rules.toml
is met by some scenario of the rule, read from the scenario's own words (steps/rules/variants.py).
The table of every rule's coverage is printed (pytest -s) and kept in the failure message."""

from __future__ import annotations

import pytest

from steps.rules.catalogue import (
    DIMENSIONS,
    FEATURES_DIR,
    CatalogueError,
    load_catalogue,
    parse_catalogue,
)
from steps.rules.coverage import RenderedScenario, rendered_scenarios
from steps.rules.variants import sampled

#: Words of a rule's title that say it covers a whole dimension: the rule must declare it.
SAYS_ALL = {
    "both application types": "client",
    "whichever of the three ways": "delivery",
    "both the code-exchange and the refresh": "grant",
    "every error redirect": "error",
}


def coverage() -> dict[str, dict[str, set[str]]]:
    """Rule -> dimension -> the values its scenarios sample."""
    table: dict[str, dict[str, set[str]]] = {}
    scenarios: list[RenderedScenario] = rendered_scenarios(FEATURES_DIR)
    for scenario in scenarios:
        found = sampled(scenario.name, scenario.steps)
        for rule in scenario.tags:
            row = table.setdefault(rule, {d: set() for d in DIMENSIONS})
            for dimension, values in found.items():
                row[dimension] |= values
    return table


def test_every_declared_variant_is_sampled_by_a_scenario_of_its_rule() -> None:
    table = coverage()
    lines, gaps = [], []
    for rule in load_catalogue().values():
        for dimension, declared in rule.covers().items():
            got = table.get(rule.id, {}).get(dimension, set())
            lines.append(f"{rule.id:36} {dimension:8} {', '.join(sorted(got))}")
            gaps += [f"{rule.id}: {dimension} = {v}" for v in declared if v not in got]
    print("\n".join(lines))
    assert gaps == [], (
        "variants that features/rules.toml declares and no scenario of the rule samples (add a "
        "scenario, or an example of its outline, in features/ that does, or correct the "
        "rule's variants):\n" + "\n".join(gaps)
    )


def test_a_rule_whose_words_cover_a_dimension_declares_it() -> None:
    missing = [
        f"{rule.id} says {words!r} but declares no {dimension} variants"
        for rule in load_catalogue().values()
        for words, dimension in SAYS_ALL.items()
        if words in rule.title and dimension not in rule.covers()
    ]
    assert not missing, (
        "declare these dimensions in the rule's `variants` in features/rules.toml:\n"
        + "\n".join(missing)
    )


def test_the_gaps_this_issue_found_are_declared() -> None:
    """PKCE-OPTIONAL was checked with the web application only, TOKEN-RESPONSE-ACCESS-TOKEN on
    code exchanges only: both now declare the variant that was missed."""
    rules = load_catalogue()
    assert "installed" in rules["PKCE-OPTIONAL"].covers()["client"]
    assert "refresh" in rules["TOKEN-RESPONSE-ACCESS-TOKEN"].covers()["grant"]


def test_the_reader_finds_each_variant_in_a_scenarios_words() -> None:
    found = sampled(
        "The state comes back unchanged with every kind of error: invalid_scope",
        [
            'the user has just granted the installed application offline access to "profile"',
            "the application has revoked the access token",
            "the application refreshes the access token",
            "the application asks for the user's profile with the token in a form body",
        ],
    )
    assert found == {
        "client": {"installed"},
        "grant": {"refresh"},
        "delivery": {"body"},
        "error": {"invalid_scope"},
        "token": {"revoked"},
    }


def test_an_unknown_variant_is_refused() -> None:
    text = '[[rule]]\nid="X"\nsection="1"\nlevel="spec"\ntitle="t"\nvariants = {client = ["tv"]}\n'
    with pytest.raises(CatalogueError, match="unknown variants"):
        parse_catalogue(text)
